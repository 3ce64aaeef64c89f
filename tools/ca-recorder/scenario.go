package carecorder

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/drasim/drasim/internal/kubenames"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/kube"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/snapshot"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// GroupLabel marks every node of a group (and its template) with the
// group's name, so that the recorder's pricing model can price the template
// nodes CA builds (they carry a fresh name).
const GroupLabel = "drasim.io/ca-recorder-group"

// Scenario is a drasim autoscale scenario as a cluster holds it and a
// cloud provider offers it. Loading goes through drasim's loader (workload
// controllers expanded into pods) and drasim's cluster (the resource-claim
// controller's claims for pods with claim templates); everything CA decides
// is left to CA.
type Scenario struct {
	// Nodes are the snapshot's nodes, Ready since readyAt.
	Nodes []*v1.Node
	// Pods are the snapshot's pods (DaemonSet pods included, pinned to
	// their node): bound ones, and the rest pending. Schedule binds what
	// kube-scheduler would and marks the others unschedulable.
	Pods []*v1.Pod
	// Order is the snapshot order of the pods (by UID), kube-scheduler's
	// queue order among pods of equal priority.
	Order      []types.UID
	Claims     []*resourceapi.ResourceClaim
	Slices     []*resourceapi.ResourceSlice
	Classes    []*resourceapi.DeviceClass
	DaemonSets []*appsv1.DaemonSet
	Groups     []*Group
	// Autoscaling holds the PodTemplates, ProvisioningRequests and
	// CapacityBuffers (autoscaling.go).
	Autoscaling Autoscaling
}

// Group is a NodeGroup as the fake cloud provider offers it.
type Group struct {
	Name             string
	MinSize, MaxSize int
	PricePerHour     *float64
	// Nodes are the snapshot nodes the group's nodeSelector selects.
	Nodes []*v1.Node
	// Template is what the cloud provider says a new node looks like: the
	// given template node, or a copy of the templateFrom node that is not
	// cordoned (a new VM never is). CA sanitizes it itself.
	Template *v1.Node
	// Slices are the ResourceSlices the template node's drivers publish.
	Slices []*resourceapi.ResourceSlice
	// Pods are the static (mirror) pods of a templateFrom node: they come
	// with every new node.
	Pods []*v1.Pod
}

// LoadScenario reads a drasim scenario file.
func LoadScenario(path string, readyAt time.Time) (*Scenario, error) {
	res, err := load.Load([]string{path}, load.Options{Strict: true})
	if err != nil {
		return nil, err
	}
	snap := res.Snapshot
	c := cluster.Build(snap, feature.Defaults())
	s := &Scenario{Classes: snap.DeviceClasses}

	byName := map[string]*v1.Node{}
	for _, n := range snap.Nodes {
		node := readyNode(n, readyAt)
		s.Nodes = append(s.Nodes, node)
		byName[node.Name] = node
	}
	for _, sl := range snap.ResourceSlices {
		sl = sl.DeepCopy()
		setUID(&sl.ObjectMeta, "resourceslice/"+sl.Name)
		s.Slices = append(s.Slices, sl)
	}
	for _, ds := range snap.DaemonSets {
		ds = ds.DeepCopy()
		setUID(&ds.ObjectMeta, ownerKey("DaemonSet", ds.Namespace, ds.Name))
		s.DaemonSets = append(s.DaemonSets, ds)
	}
	for _, claim := range c.DRA.Claims() {
		claim = claim.DeepCopy()
		setUID(&claim.ObjectMeta, "claim/"+claim.Namespace+"/"+claim.Name)
		s.Claims = append(s.Claims, claim)
	}
	sort.Slice(s.Claims, func(i, j int) bool {
		return s.Claims[i].Namespace+"/"+s.Claims[i].Name < s.Claims[j].Namespace+"/"+s.Claims[j].Name
	})
	for _, p := range c.Pods {
		pod := p.DeepCopy()
		ownerUIDs(pod)
		if pod.Spec.NodeName != "" {
			pod.Status.Phase = v1.PodRunning
		} else {
			markUnschedulable(pod)
		}
		s.Order = append(s.Order, pod.UID)
		s.Pods = append(s.Pods, pod)
	}

	s.Autoscaling = autoscalingObjects(snap)
	for _, ng := range snap.NodeGroups {
		g, err := s.group(snap, ng, byName)
		if err != nil {
			return nil, fmt.Errorf("%s: NodeGroup %q: %w", path, ng.Name, err)
		}
		s.Groups = append(s.Groups, g)
	}
	sort.Slice(s.Groups, func(i, j int) bool { return s.Groups[i].Name < s.Groups[j].Name })
	return s, nil
}

func (s *Scenario) group(snap *snapshot.Snapshot, ng *snapshot.NodeGroup, byName map[string]*v1.Node) (*Group, error) {
	spec := ng.Spec
	g := &Group{Name: ng.Name, MinSize: int(spec.MinSize), MaxSize: int(spec.MaxSize), PricePerHour: spec.PricePerHour}
	if spec.NodeSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(spec.NodeSelector)
		if err != nil {
			return nil, fmt.Errorf("spec.nodeSelector: %w", err)
		}
		for _, n := range s.Nodes {
			if !sel.Empty() && sel.Matches(labels.Set(n.Labels)) {
				n.Labels[GroupLabel] = g.Name
				g.Nodes = append(g.Nodes, n)
			}
		}
	}
	switch {
	case spec.Template != nil:
		node := spec.Template.Node.DeepCopy()
		if node.Name == "" {
			node.Name = g.Name + "-template"
		}
		g.Template = node
		for i := range spec.Template.ResourceSlices {
			sl := spec.Template.ResourceSlices[i].DeepCopy()
			sl.Spec.NodeName = &node.Name
			if sl.Spec.Pool.Name == "" {
				sl.Spec.Pool.Name = node.Name
			}
			if sl.Spec.Pool.ResourceSliceCount == 0 {
				sl.Spec.Pool.ResourceSliceCount = 1
			}
			if sl.Name == "" {
				sl.Name = fmt.Sprintf("%s-%s-%d", node.Name, sl.Spec.Driver, i)
			}
			g.Slices = append(g.Slices, sl)
		}
	case spec.TemplateFrom != "":
		src := byName[spec.TemplateFrom]
		if src == nil {
			return nil, fmt.Errorf("spec.templateFrom: node %q is not in the snapshot", spec.TemplateFrom)
		}
		node := src.DeepCopy()
		node.Spec.Unschedulable = false
		var kept []v1.Taint
		for _, t := range node.Spec.Taints {
			if t.Key != v1.TaintNodeUnschedulable {
				kept = append(kept, t)
			}
		}
		node.Spec.Taints = kept
		g.Template = node
		for _, sl := range s.Slices {
			if sl.Spec.NodeName != nil && *sl.Spec.NodeName == src.Name {
				g.Slices = append(g.Slices, sl.DeepCopy())
			}
		}
		for _, p := range s.Pods {
			if _, mirror := p.Annotations[v1.MirrorPodAnnotationKey]; mirror && p.Spec.NodeName == src.Name {
				g.Pods = append(g.Pods, p.DeepCopy())
			}
		}
	default:
		return nil, fmt.Errorf("spec: set exactly one of template and templateFrom")
	}
	t := g.Template
	t.UID = ""
	t.Spec.ProviderID = ""
	if t.Labels == nil {
		t.Labels = map[string]string{}
	}
	for k, v := range spec.Labels {
		t.Labels[k] = v
	}
	if spec.Zone != "" {
		t.Labels[v1.LabelTopologyZone] = spec.Zone
	}
	t.Labels[v1.LabelHostname] = t.Name
	t.Labels[GroupLabel] = g.Name
	defaultStatus(t)
	if len(t.Status.Conditions) == 0 {
		t.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}
	}
	return g, nil
}

// Group returns a group by name.
func (s *Scenario) Group(name string) *Group {
	for _, g := range s.Groups {
		if g.Name == name {
			return g
		}
	}
	return nil
}

// Provision is what the cluster does for a node the cloud provider made:
// the kubelet gives it its own hostname label, the DRA drivers publish the
// template's slices for it (in pools of its own), and the DaemonSet
// controller creates a daemon pod for every DaemonSet that should run on
// it, which the scheduler binds there. It returns the updated node and the
// objects to create.
func (s *Scenario) Provision(g *Group, created *v1.Node) (*v1.Node, []*resourceapi.ResourceSlice, []*v1.Pod) {
	node := created.DeepCopy()
	node.Labels[v1.LabelHostname] = node.Name
	setUID(&node.ObjectMeta, "node/"+node.Name)
	var slices []*resourceapi.ResourceSlice
	for _, sl := range g.Slices {
		out := sl.DeepCopy()
		out.Name = node.Name + "-" + sl.Name
		out.UID = types.UID(kubenames.UID("resourceslice/" + out.Name))
		out.ResourceVersion = ""
		out.Spec.NodeName = &node.Name
		out.Spec.Pool.Name = node.Name + "-" + sl.Spec.Pool.Name
		slices = append(slices, out)
	}
	var pods []*v1.Pod
	for _, p := range g.Pods {
		pod := p.DeepCopy()
		pod.Name = strings.TrimSuffix(pod.Name, "-"+g.Template.Name) + "-" + node.Name
		pod.UID = types.UID(kubenames.UID("pod/" + pod.Namespace + "/" + pod.Name))
		pod.ResourceVersion = ""
		pod.Spec.NodeName = node.Name
		pods = append(pods, pod)
	}
	for _, ds := range s.DaemonSets {
		if !kube.DaemonShouldRun(ds, node) {
			continue
		}
		controller := true
		pod := &v1.Pod{
			ObjectMeta: *ds.Spec.Template.ObjectMeta.DeepCopy(),
			Spec:       *ds.Spec.Template.Spec.DeepCopy(),
		}
		pod.Name, pod.Namespace = ds.Name+"-"+node.Name, ds.Namespace
		pod.UID = types.UID(kubenames.UID("pod/" + pod.Namespace + "/" + pod.Name))
		pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID, Controller: &controller}}
		kube.AddDaemonTolerations(pod)
		kube.DefaultPod(pod)
		kube.PinToNode(pod, node.Name)
		pod.Spec.NodeName = node.Name
		pod.Status.Phase = v1.PodRunning
		pods = append(pods, pod)
	}
	return node, slices, pods
}

// readyNode copies a snapshot node as the kubelet reports it: Ready since
// readyAt, capacity and allocatable both set. Labels stay as the snapshot
// has them (drasim sees the same node).
func readyNode(n *v1.Node, readyAt time.Time) *v1.Node {
	node := n.DeepCopy()
	setUID(&node.ObjectMeta, "node/"+node.Name)
	if node.Labels == nil {
		node.Labels = map[string]string{}
	}
	defaultStatus(node)
	var conds []v1.NodeCondition
	for _, c := range node.Status.Conditions {
		if c.Type != v1.NodeReady {
			conds = append(conds, c)
		}
	}
	at := metav1.NewTime(readyAt)
	node.Status.Conditions = append(conds, v1.NodeCondition{Type: v1.NodeReady, Status: v1.ConditionTrue, LastTransitionTime: at, LastHeartbeatTime: at})
	return node
}

// defaultStatus sets capacity from allocatable and the other way round, as
// drasim reads a node that gives only one of them.
func defaultStatus(n *v1.Node) {
	if len(n.Status.Allocatable) == 0 {
		n.Status.Allocatable = n.Status.Capacity.DeepCopy()
	}
	if len(n.Status.Capacity) == 0 {
		n.Status.Capacity = n.Status.Allocatable.DeepCopy()
	}
}

func setUID(m *metav1.ObjectMeta, key string) {
	if m.UID == "" {
		m.UID = types.UID(kubenames.UID(key))
	}
}

func ownerKey(kind, namespace, name string) string {
	return "owner/" + kind + "/" + namespace + "/" + name
}

// ownerUIDs gives controller references the UID their controller would
// have: CA groups pods by their controller's UID.
func ownerUIDs(pod *v1.Pod) {
	for i := range pod.OwnerReferences {
		ref := &pod.OwnerReferences[i]
		if ref.UID == "" {
			ref.UID = types.UID(kubenames.UID(ownerKey(ref.Kind, pod.Namespace, ref.Name)))
		}
	}
}

// markUnschedulable records kube-scheduler's verdict on a pending pod: CA
// only helps pods the scheduler marked unschedulable.
func markUnschedulable(p *v1.Pod) {
	p.Status.Phase = v1.PodPending
	p.Status.Conditions = append(p.Status.Conditions, v1.PodCondition{
		Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: v1.PodReasonUnschedulable,
	})
}
