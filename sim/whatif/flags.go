package whatif

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Flag names of the edits, as the commands spell them.
const (
	FlagDrain        = "drain"
	FlagCordon       = "cordon"
	FlagRemoveNodes  = "remove-nodes"
	FlagAddNodes     = "add-nodes"
	FlagCloneNode    = "clone-node"
	FlagTaintDevices = "taint-devices"
	FlagRemoveDriver = "remove-driver"
	FlagScale        = "scale"
	FlagSetRequests  = "set-requests"
	FlagSetPriority  = "set-priority"
)

// FlagUsage is each edit flag's help text.
var FlagUsage = map[string]string{
	FlagDrain:        "drain nodes: NAME[,NAME...] or a label selector (pool=a); PodDisruptionBudgets may refuse evictions",
	FlagCordon:       "cordon nodes: NAME[,NAME...] or a label selector",
	FlagRemoveNodes:  "remove nodes and their ResourceSlices (their pods are queued again): NAME[,NAME...] or a label selector",
	FlagAddNodes:     "add nodes from a NodeGroup's template: GROUP=COUNT",
	FlagCloneNode:    "add copies of an existing node (with its ResourceSlices): NODE=COUNT",
	FlagTaintDevices: "taint devices (a DeviceTaintRule): DRIVER[/POOL[/DEVICE]]:KEY[=VALUE]:NoSchedule|NoExecute|None",
	FlagRemoveDriver: "remove a driver's ResourceSlices: DRIVER or DRIVER/POOL",
	FlagScale:        "scale a workload: KIND/[NAMESPACE/]NAME=REPLICAS (Deployment, ReplicaSet, StatefulSet, Job)",
	FlagSetRequests:  "set a pod template's requests (its pods are replaced): KIND/[NAMESPACE/]NAME[:CONTAINER]=cpu=4,memory=16Gi",
	FlagSetPriority:  "set a workload's priority: KIND/[NAMESPACE/]NAME=VALUE or =PRIORITYCLASS",
}

// FlagNames lists the edit flags in help order.
func FlagNames() []string {
	return []string{FlagDrain, FlagCordon, FlagRemoveNodes, FlagAddNodes, FlagCloneNode, FlagTaintDevices, FlagRemoveDriver, FlagScale, FlagSetRequests, FlagSetPriority}
}

// ParseFlag turns one edit flag's value into an edit; the error names the
// flag and says what form it wants.
func ParseFlag(flag, value string) (Edit, error) {
	e := Edit{Source: "--" + flag, Index: -1}
	bad := func(format string, args ...any) (Edit, error) {
		return Edit{}, &Error{Source: fmt.Sprintf("--%s %q", flag, value), Index: -1, Msg: fmt.Sprintf(format, args...) + "; want " + FlagUsage[flag]}
	}
	e.Source = fmt.Sprintf("--%s %s", flag, value)
	switch flag {
	case FlagDrain, FlagCordon, FlagRemoveNodes:
		n, err := parseNodes(value)
		if err != nil {
			return bad("%v", err)
		}
		switch flag {
		case FlagDrain:
			e.Drain = &Drain{Nodes: n}
		case FlagCordon:
			e.Cordon = &n
		default:
			e.RemoveNodes = &n
		}
	case FlagAddNodes, FlagCloneNode:
		name, count, ok := strings.Cut(value, "=")
		n, err := strconv.Atoi(count)
		if !ok || name == "" || err != nil {
			return bad("not NAME=COUNT")
		}
		e.AddNodes = &AddNodes{Count: n}
		if flag == FlagAddNodes {
			e.AddNodes.NodeGroup = name
		} else {
			e.AddNodes.FromNode = name
		}
	case FlagTaintDevices:
		t, err := parseTaintDevices(value)
		if err != nil {
			return bad("%v", err)
		}
		e.TaintDevices = t
	case FlagRemoveDriver:
		driver, pool, _ := strings.Cut(value, "/")
		e.RemoveDriver = &RemoveDriver{Driver: driver}
		if pool != "" {
			e.RemoveDriver.Pools = []string{pool}
		}
	case FlagScale:
		target, n, ok := strings.Cut(value, "=")
		w, err := parseWorkload(target)
		replicas, nerr := strconv.ParseInt(n, 10, 32)
		if !ok || err != nil || nerr != nil {
			return bad("not KIND/[NAMESPACE/]NAME=REPLICAS")
		}
		r := int32(replicas)
		e.Scale = &Scale{Workload: w, Replicas: &r}
	case FlagSetRequests:
		sr, err := parseSetRequests(value)
		if err != nil {
			return bad("%v", err)
		}
		e.SetRequests = sr
	case FlagSetPriority:
		target, p, ok := strings.Cut(value, "=")
		w, err := parseWorkload(target)
		if !ok || err != nil || p == "" {
			return bad("not KIND/[NAMESPACE/]NAME=VALUE or =PRIORITYCLASS")
		}
		e.SetPriority = &SetPriority{Workload: w}
		if v, err := strconv.ParseInt(p, 10, 32); err == nil {
			pv := int32(v)
			e.SetPriority.Priority = &pv
		} else {
			e.SetPriority.PriorityClassName = p
		}
	default:
		return Edit{}, fmt.Errorf("unknown edit flag --%s", flag)
	}
	if errs := e.Validate(); len(errs) > 0 {
		return bad("%v", errs[0].(*Error).Msg)
	}
	return e, nil
}

// parseTaintDevices reads DRIVER[/POOL[/DEVICE]]:KEY[=VALUE]:EFFECT.
func parseTaintDevices(value string) (*TaintDevices, error) {
	parts := strings.Split(value, ":")
	if len(parts) != 3 {
		return nil, errors.New("not three parts separated by ':'")
	}
	sel := strings.Split(parts[0], "/")
	if len(sel) > 3 || sel[0] == "" {
		return nil, errors.New("the selector is not DRIVER[/POOL[/DEVICE]]")
	}
	t := &TaintDevices{}
	t.DeviceSelector.Driver = &sel[0]
	if len(sel) > 1 && sel[1] != "" {
		t.DeviceSelector.Pool = &sel[1]
	}
	if len(sel) > 2 && sel[2] != "" {
		t.DeviceSelector.Device = &sel[2]
	}
	key, val, _ := strings.Cut(parts[1], "=")
	t.Taint = resourceapi.DeviceTaint{Key: key, Value: val, Effect: resourceapi.DeviceTaintEffect(parts[2])}
	return t, nil
}

// parseSetRequests reads KIND/[NAMESPACE/]NAME[:CONTAINER]=RESOURCE=QUANTITY[,...].
func parseSetRequests(value string) (*SetRequests, error) {
	target, list, ok := strings.Cut(value, "=")
	target, container, _ := strings.Cut(target, ":")
	w, err := parseWorkload(target)
	if !ok || err != nil {
		return nil, errors.New("not KIND/[NAMESPACE/]NAME[:CONTAINER]=RESOURCE=QUANTITY[,...]")
	}
	reqs := v1.ResourceList{}
	for _, item := range strings.Split(list, ",") {
		name, q, ok := strings.Cut(item, "=")
		qty, err := resource.ParseQuantity(q)
		if !ok || name == "" || err != nil {
			return nil, fmt.Errorf("%q is not RESOURCE=QUANTITY", item)
		}
		reqs[v1.ResourceName(name)] = qty
	}
	return &SetRequests{Workload: w, Container: container, Requests: reqs}, nil
}

// parseNodes reads "a,b,c" as node names and anything with a selector
// operator (=, !, parentheses) as a label selector.
func parseNodes(value string) (Nodes, error) {
	if value == "" {
		return Nodes{}, fmt.Errorf("empty")
	}
	if strings.ContainsAny(value, "=!()") {
		sel, err := metav1.ParseToLabelSelector(value)
		if err != nil {
			return Nodes{}, err
		}
		return Nodes{Selector: sel}, nil
	}
	return Nodes{Names: strings.Split(value, ",")}, nil
}

// parseWorkload reads KIND/NAME or KIND/NAMESPACE/NAME; the kind is
// matched without regard to case.
func parseWorkload(s string) (Workload, error) {
	parts := strings.Split(s, "/")
	var w Workload
	switch len(parts) {
	case 2:
		w = Workload{Kind: parts[0], Namespace: metav1.NamespaceDefault, Name: parts[1]}
	case 3:
		w = Workload{Kind: parts[0], Namespace: parts[1], Name: parts[2]}
	default:
		return w, fmt.Errorf("not KIND/[NAMESPACE/]NAME")
	}
	for _, k := range []string{"Deployment", "ReplicaSet", "StatefulSet", "Job", "DaemonSet", "Pod"} {
		if strings.EqualFold(w.Kind, k) {
			w.Kind = k
		}
	}
	if w.Name == "" || w.Namespace == "" {
		return w, fmt.Errorf("empty name")
	}
	return w, nil
}
