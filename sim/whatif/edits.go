package whatif

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// APIVersion and Kind of an edits file.
const (
	APIVersion = "drasim.io/v1alpha1"
	Kind       = "Edits"
)

// Edit types, as named in an edits file.
const (
	TypeDrain        = "drain"
	TypeCordon       = "cordon"
	TypeRemoveNodes  = "removeNodes"
	TypeAddNodes     = "addNodes"
	TypeTaintDevices = "taintDevices"
	TypeRemoveDriver = "removeDriver"
	TypeScale        = "scale"
	TypeSetRequests  = "setRequests"
	TypeSetPriority  = "setPriority"
)

// File is an edits file (apiVersion drasim.io/v1alpha1, kind Edits).
type File struct {
	APIVersion string             `json:"apiVersion"`
	Kind       string             `json:"kind"`
	Metadata   *metav1.ObjectMeta `json:"metadata,omitempty"`
	Edits      []Edit             `json:"edits"`
}

// Edit is one what-if edit; exactly one of its fields is set.
type Edit struct {
	// Drain cordons the nodes and evicts their pods (DaemonSet and static
	// pods stay), through the eviction API: PodDisruptionBudgets may refuse.
	Drain *Drain `json:"drain,omitempty"`
	// Cordon marks the nodes unschedulable.
	Cordon *Nodes `json:"cordon,omitempty"`
	// RemoveNodes deletes the nodes and their ResourceSlices; their pods
	// are queued again (DaemonSet and static pods go with the node).
	RemoveNodes *Nodes `json:"removeNodes,omitempty"`
	// AddNodes adds nodes built from a NodeGroup's template or a copy of
	// an existing node.
	AddNodes *AddNodes `json:"addNodes,omitempty"`
	// TaintDevices adds a DeviceTaintRule.
	TaintDevices *TaintDevices `json:"taintDevices,omitempty"`
	// RemoveDriver deletes a driver's ResourceSlices (all pools, or some).
	RemoveDriver *RemoveDriver `json:"removeDriver,omitempty"`
	// Scale sets a workload's replicas (a Job's parallelism).
	Scale *Scale `json:"scale,omitempty"`
	// SetRequests changes the requests of a workload's pod template (or of
	// a pod); its pods are replaced.
	SetRequests *SetRequests `json:"setRequests,omitempty"`
	// SetPriority changes the priority of a workload's pods (or of a pod).
	SetPriority *SetPriority `json:"setPriority,omitempty"`

	// Source is the file or the flag the edit came from, Index its
	// position in the file's edits (-1 for a flag).
	Source string `json:"-"`
	Index  int    `json:"-"`
}

// Nodes selects nodes by name, by label selector, or both (a node matches
// when it is named or selected).
type Nodes struct {
	Names    []string              `json:"nodes,omitempty"`
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
}

// Drain is a drain of nodes.
type Drain struct {
	Nodes
	// DisableEviction deletes the pods instead of evicting them, ignoring
	// PodDisruptionBudgets (kubectl drain --disable-eviction).
	DisableEviction bool `json:"disableEviction,omitempty"`
}

// AddNodes adds Count nodes from a NodeGroup's template or from a copy of
// an existing node (exactly one of NodeGroup and FromNode).
type AddNodes struct {
	Count     int    `json:"count"`
	NodeGroup string `json:"nodeGroup,omitempty"`
	FromNode  string `json:"fromNode,omitempty"`
}

// TaintDevices is a DeviceTaintRule: the taint goes on every device the
// selector selects (driver, pool and device, each optional).
type TaintDevices struct {
	// Name is the DeviceTaintRule's name (default drasim-whatif-N).
	Name           string                          `json:"name,omitempty"`
	DeviceSelector resourceapi.DeviceTaintSelector `json:"deviceSelector"`
	Taint          resourceapi.DeviceTaint         `json:"taint"`
}

// RemoveDriver removes a driver's ResourceSlices: every pool, or the
// pools named.
type RemoveDriver struct {
	Driver string   `json:"driver"`
	Pools  []string `json:"pools,omitempty"`
}

// Workload names a Deployment, ReplicaSet, StatefulSet, Job (or, for
// setRequests and setPriority, a Pod). Namespace defaults to "default".
type Workload struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

func (w Workload) String() string { return w.Kind + "/" + w.Namespace + "/" + w.Name }

// Scale sets a workload's replicas.
type Scale struct {
	Workload
	Replicas *int32 `json:"replicas"`
}

// SetRequests replaces resource requests of one container of the pod
// template (the only container when Container is empty).
type SetRequests struct {
	Workload
	Container string          `json:"container,omitempty"`
	Requests  v1.ResourceList `json:"requests"`
}

// SetPriority sets the priority of a workload's pods: a value, or a
// PriorityClass of the snapshot (or a system class).
type SetPriority struct {
	Workload
	Priority          *int32 `json:"priority,omitempty"`
	PriorityClassName string `json:"priorityClassName,omitempty"`
}

// Type returns the edit's type, "" when none or several are set.
func (e *Edit) Type() string {
	if t := e.types(); len(t) == 1 {
		return t[0]
	}
	return ""
}

func (e *Edit) types() []string {
	var out []string
	for _, c := range []struct {
		set bool
		t   string
	}{
		{e.Drain != nil, TypeDrain}, {e.Cordon != nil, TypeCordon}, {e.RemoveNodes != nil, TypeRemoveNodes},
		{e.AddNodes != nil, TypeAddNodes}, {e.TaintDevices != nil, TypeTaintDevices}, {e.RemoveDriver != nil, TypeRemoveDriver},
		{e.Scale != nil, TypeScale}, {e.SetRequests != nil, TypeSetRequests}, {e.SetPriority != nil, TypeSetPriority},
	} {
		if c.set {
			out = append(out, c.t)
		}
	}
	return out
}

// Types lists the edit types, in the order the file names them.
func Types() []string {
	return []string{TypeDrain, TypeCordon, TypeRemoveNodes, TypeAddNodes, TypeTaintDevices, TypeRemoveDriver, TypeScale, TypeSetRequests, TypeSetPriority}
}

// Error is a problem with an edit: where it came from (file or flag), the
// edit (by index and type) and the field.
type Error struct {
	Source string
	// Index is the edit's position in the file's edits, -1 for a flag or
	// the file as a whole.
	Index int
	Type  string
	Field string
	Msg   string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Source)
	if e.Index >= 0 {
		fmt.Fprintf(&b, ": edits[%d]", e.Index)
		if e.Type != "" {
			fmt.Fprintf(&b, " (%s)", e.Type)
		}
	}
	if e.Field != "" {
		b.WriteString(": " + e.Field)
	}
	b.WriteString(": " + e.Msg)
	return b.String()
}

// errorf makes an Error about the edit; field is relative to the edit's
// type ("selector" becomes "drain.selector").
func (e *Edit) errorf(field, format string, args ...any) *Error {
	t := e.Type()
	full := field
	if e.Index >= 0 && t != "" {
		full = t
		if field != "" {
			full += "." + field
		}
	}
	return &Error{Source: e.Source, Index: e.Index, Type: t, Field: full, Msg: fmt.Sprintf(format, args...)}
}

// ParseFile reads an edits file. Unknown fields are errors, so that a typo
// cannot turn an edit into a no-op; every problem is returned (errors.Join
// of *Error).
func ParseFile(file string, data []byte) ([]Edit, error) {
	// Each edit is decoded on its own, so that an unknown field is named
	// with its edit.
	var raw struct {
		APIVersion string             `json:"apiVersion"`
		Kind       string             `json:"kind"`
		Metadata   *metav1.ObjectMeta `json:"metadata,omitempty"`
		Edits      []json.RawMessage  `json:"edits"`
	}
	if err := yaml.UnmarshalStrict(data, &raw); err != nil {
		return nil, &Error{Source: file, Index: -1, Msg: err.Error()}
	}
	f := File{APIVersion: raw.APIVersion, Kind: raw.Kind, Edits: make([]Edit, len(raw.Edits))}
	var errs []error
	decoded := make([]bool, len(raw.Edits))
	for i, r := range raw.Edits {
		dec := json.NewDecoder(bytes.NewReader(r))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f.Edits[i]); err != nil {
			errs = append(errs, &Error{Source: file, Index: i, Msg: strings.TrimPrefix(err.Error(), "json: ")})
			continue
		}
		decoded[i] = true
	}
	if f.APIVersion != APIVersion {
		errs = append(errs, &Error{Source: file, Index: -1, Field: "apiVersion", Msg: fmt.Sprintf("want %q, got %q", APIVersion, f.APIVersion)})
	}
	if f.Kind != Kind {
		errs = append(errs, &Error{Source: file, Index: -1, Field: "kind", Msg: fmt.Sprintf("want %q, got %q", Kind, f.Kind)})
	}
	if len(f.Edits) == 0 {
		errs = append(errs, &Error{Source: file, Index: -1, Field: "edits", Msg: "no edits: an edits file needs at least one"})
	}
	for i := range f.Edits {
		f.Edits[i].Source, f.Edits[i].Index = file, i
		if !decoded[i] {
			continue
		}
		errs = append(errs, f.Edits[i].Validate()...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return f.Edits, nil
}

// Validate checks what can be checked without the snapshot: one type set,
// required fields, values in range.
func (e *Edit) Validate() []error {
	var errs []error
	fail := func(field, format string, args ...any) { errs = append(errs, e.errorf(field, format, args...)) }
	if t := e.types(); len(t) != 1 {
		errs = append(errs, &Error{Source: e.Source, Index: e.Index, Msg: fmt.Sprintf("want exactly one of %s, got %d", strings.Join(Types(), ", "), len(t))})
		return errs
	}
	nodes := func(n *Nodes) {
		if len(n.Names) == 0 && n.Selector == nil {
			fail("", "name nodes (nodes: [...]) or select them (selector: {matchLabels: ...})")
		}
		for i, name := range n.Names {
			if name == "" {
				fail(fmt.Sprintf("nodes[%d]", i), "empty node name")
			}
		}
		if n.Selector != nil {
			if _, err := metav1.LabelSelectorAsSelector(n.Selector); err != nil {
				fail("selector", "%v", err)
			}
		}
	}
	workload := func(w *Workload, kinds ...string) {
		if w.Namespace == "" {
			w.Namespace = metav1.NamespaceDefault
		}
		if w.Name == "" {
			fail("name", "required: the workload's name")
		}
		for _, k := range kinds {
			if w.Kind == k {
				return
			}
		}
		fail("kind", "%q is not one of %s", w.Kind, strings.Join(kinds, ", "))
	}
	switch {
	case e.Drain != nil:
		nodes(&e.Drain.Nodes)
	case e.Cordon != nil:
		nodes(e.Cordon)
	case e.RemoveNodes != nil:
		nodes(e.RemoveNodes)
	case e.AddNodes != nil:
		a := e.AddNodes
		if a.Count <= 0 {
			fail("count", "must be at least 1, got %d", a.Count)
		}
		if (a.NodeGroup == "") == (a.FromNode == "") {
			fail("", "set exactly one of nodeGroup (a NodeGroup of the snapshot) and fromNode (a node to copy)")
		}
	case e.TaintDevices != nil:
		t := e.TaintDevices
		if t.Taint.Key == "" {
			fail("taint.key", "required")
		}
		switch t.Taint.Effect {
		case resourceapi.DeviceTaintEffectNoSchedule, resourceapi.DeviceTaintEffectNoExecute, resourceapi.DeviceTaintEffectNone:
		default:
			fail("taint.effect", "%q is not one of NoSchedule, NoExecute, None", t.Taint.Effect)
		}
		sel := t.DeviceSelector
		if sel.Driver == nil && sel.Pool == nil && sel.Device == nil {
			fail("deviceSelector", "select devices by driver, pool and/or device: an empty selector would taint every device")
		}
	case e.RemoveDriver != nil:
		if e.RemoveDriver.Driver == "" {
			fail("driver", "required")
		}
	case e.Scale != nil:
		workload(&e.Scale.Workload, "Deployment", "ReplicaSet", "StatefulSet", "Job")
		if e.Scale.Replicas == nil {
			fail("replicas", "required")
		} else if *e.Scale.Replicas < 0 {
			fail("replicas", "must not be negative, got %d", *e.Scale.Replicas)
		}
	case e.SetRequests != nil:
		workload(&e.SetRequests.Workload, "Deployment", "ReplicaSet", "StatefulSet", "Job", "DaemonSet", "Pod")
		if len(e.SetRequests.Requests) == 0 {
			fail("requests", "required: the requests to set, e.g. {cpu: \"4\", memory: 16Gi}")
		}
		for _, name := range slices.Sorted(maps.Keys(e.SetRequests.Requests)) {
			if q := e.SetRequests.Requests[name]; q.Sign() < 0 {
				fail("requests."+string(name), "must not be negative, got %s", q.String())
			}
		}
	case e.SetPriority != nil:
		workload(&e.SetPriority.Workload, "Deployment", "ReplicaSet", "StatefulSet", "Job", "DaemonSet", "Pod")
		if (e.SetPriority.Priority == nil) == (e.SetPriority.PriorityClassName == "") {
			fail("", "set exactly one of priority (a number) and priorityClassName")
		}
	}
	return errs
}
