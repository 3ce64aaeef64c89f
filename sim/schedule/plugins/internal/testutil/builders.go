package testutil

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/drasim/drasim/sim/framework"
)

// NodeWrapper builds a node.
type NodeWrapper struct{ n v1.Node }

// MakeNode starts a node with the given name, the hostname label and room
// for 110 pods.
func MakeNode(name string) *NodeWrapper {
	w := &NodeWrapper{n: v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name}},
		Status: v1.NodeStatus{
			Allocatable: v1.ResourceList{v1.ResourcePods: resource.MustParse("110")},
		},
	}}
	return w
}

// Obj returns the node.
func (w *NodeWrapper) Obj() *v1.Node { return &w.n }

// Alloc sets an allocatable quantity.
func (w *NodeWrapper) Alloc(name v1.ResourceName, q string) *NodeWrapper {
	w.n.Status.Allocatable[name] = resource.MustParse(q)
	return w
}

// CPU sets allocatable CPU.
func (w *NodeWrapper) CPU(q string) *NodeWrapper { return w.Alloc(v1.ResourceCPU, q) }

// Memory sets allocatable memory.
func (w *NodeWrapper) Memory(q string) *NodeWrapper { return w.Alloc(v1.ResourceMemory, q) }

// Pods sets the allocatable pod count.
func (w *NodeWrapper) Pods(q string) *NodeWrapper { return w.Alloc(v1.ResourcePods, q) }

// Label sets a label.
func (w *NodeWrapper) Label(k, v string) *NodeWrapper {
	w.n.Labels[k] = v
	return w
}

// NoLabel removes a label (e.g. the hostname one).
func (w *NodeWrapper) NoLabel(k string) *NodeWrapper {
	delete(w.n.Labels, k)
	return w
}

// Taint adds a taint.
func (w *NodeWrapper) Taint(key, value string, effect v1.TaintEffect) *NodeWrapper {
	w.n.Spec.Taints = append(w.n.Spec.Taints, v1.Taint{Key: key, Value: value, Effect: effect})
	return w
}

// Unschedulable cordons the node.
func (w *NodeWrapper) Unschedulable() *NodeWrapper {
	w.n.Spec.Unschedulable = true
	return w
}

// Image lists an image in the node status.
func (w *NodeWrapper) Image(size int64, names ...string) *NodeWrapper {
	w.n.Status.Images = append(w.n.Status.Images, v1.ContainerImage{Names: names, SizeBytes: size})
	return w
}

// PodWrapper builds a pod.
type PodWrapper struct{ p v1.Pod }

// MakePod starts a pod in namespace "default" without containers.
func MakePod(name string) *PodWrapper {
	return &PodWrapper{p: v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{}}}}
}

// Obj returns the pod.
func (w *PodWrapper) Obj() *v1.Pod { return &w.p }

// Namespace sets the namespace.
func (w *PodWrapper) Namespace(ns string) *PodWrapper {
	w.p.Namespace = ns
	return w
}

// Label sets a label.
func (w *PodWrapper) Label(k, v string) *PodWrapper {
	w.p.Labels[k] = v
	return w
}

// Terminating marks the pod as being deleted.
func (w *PodWrapper) Terminating() *PodWrapper {
	now := metav1.Now()
	w.p.DeletionTimestamp = &now
	return w
}

// List turns alternating name, quantity strings into a ResourceList.
func List(kv ...string) v1.ResourceList {
	rl := v1.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		rl[v1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return rl
}

// Req adds a container requesting the given name, quantity pairs
// ("cpu", "1", "memory", "1Gi"); no pairs makes a container without
// requests.
func (w *PodWrapper) Req(kv ...string) *PodWrapper {
	c := v1.Container{Name: "c" + strconv.Itoa(len(w.p.Spec.Containers)), Image: "img"}
	if len(kv) > 0 {
		c.Resources.Requests = List(kv...)
	}
	w.p.Spec.Containers = append(w.p.Spec.Containers, c)
	return w
}

// Image adds a container without requests running image.
func (w *PodWrapper) Image(image string) *PodWrapper {
	w.p.Spec.Containers = append(w.p.Spec.Containers, v1.Container{Name: "c" + strconv.Itoa(len(w.p.Spec.Containers)), Image: image})
	return w
}

// InitReq adds a plain init container with requests.
func (w *PodWrapper) InitReq(kv ...string) *PodWrapper {
	w.p.Spec.InitContainers = append(w.p.Spec.InitContainers, v1.Container{
		Name: "i" + strconv.Itoa(len(w.p.Spec.InitContainers)), Image: "img",
		Resources: v1.ResourceRequirements{Requests: List(kv...)},
	})
	return w
}

// SidecarReq adds a restartable init container (sidecar) with requests.
func (w *PodWrapper) SidecarReq(kv ...string) *PodWrapper {
	always := v1.ContainerRestartPolicyAlways
	w.p.Spec.InitContainers = append(w.p.Spec.InitContainers, v1.Container{
		Name: "i" + strconv.Itoa(len(w.p.Spec.InitContainers)), Image: "img", RestartPolicy: &always,
		Resources: v1.ResourceRequirements{Requests: List(kv...)},
	})
	return w
}

// Overhead sets spec.overhead.
func (w *PodWrapper) Overhead(kv ...string) *PodWrapper {
	w.p.Spec.Overhead = List(kv...)
	return w
}

// PodLevelReq sets pod-level requests (spec.resources.requests).
func (w *PodWrapper) PodLevelReq(kv ...string) *PodWrapper {
	w.p.Spec.Resources = &v1.ResourceRequirements{Requests: List(kv...)}
	return w
}

// HostPort adds a container exposing a host port.
func (w *PodWrapper) HostPort(ip string, protocol v1.Protocol, port int32) *PodWrapper {
	w.p.Spec.Containers = append(w.p.Spec.Containers, v1.Container{
		Name: "c" + strconv.Itoa(len(w.p.Spec.Containers)), Image: "img",
		Ports: []v1.ContainerPort{{HostIP: ip, Protocol: protocol, HostPort: port, ContainerPort: port}},
	})
	return w
}

// NodeName sets spec.nodeName.
func (w *PodWrapper) NodeName(n string) *PodWrapper {
	w.p.Spec.NodeName = n
	return w
}

// NodeSelector sets a nodeSelector entry.
func (w *PodWrapper) NodeSelector(k, v string) *PodWrapper {
	if w.p.Spec.NodeSelector == nil {
		w.p.Spec.NodeSelector = map[string]string{}
	}
	w.p.Spec.NodeSelector[k] = v
	return w
}

// Toleration adds a toleration.
func (w *PodWrapper) Toleration(key string, op v1.TolerationOperator, value string, effect v1.TaintEffect) *PodWrapper {
	w.p.Spec.Tolerations = append(w.p.Spec.Tolerations, v1.Toleration{Key: key, Operator: op, Value: value, Effect: effect})
	return w
}

func (w *PodWrapper) affinity() *v1.Affinity {
	if w.p.Spec.Affinity == nil {
		w.p.Spec.Affinity = &v1.Affinity{}
	}
	return w.p.Spec.Affinity
}

// RequiredNodeAffinityTerm adds an ORed required node selector term.
func (w *PodWrapper) RequiredNodeAffinityTerm(term v1.NodeSelectorTerm) *PodWrapper {
	a := w.affinity()
	if a.NodeAffinity == nil {
		a.NodeAffinity = &v1.NodeAffinity{}
	}
	if a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &v1.NodeSelector{}
	}
	ns := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	ns.NodeSelectorTerms = append(ns.NodeSelectorTerms, term)
	return w
}

// PreferredNodeAffinity adds a preferred term "key In values".
func (w *PodWrapper) PreferredNodeAffinity(weight int32, key string, values ...string) *PodWrapper {
	a := w.affinity()
	if a.NodeAffinity == nil {
		a.NodeAffinity = &v1.NodeAffinity{}
	}
	a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
		v1.PreferredSchedulingTerm{Weight: weight, Preference: v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{{Key: key, Operator: v1.NodeSelectorOpIn, Values: values}}}})
	return w
}

// LabelTerm is a pod affinity term selecting pods with label k=v, in the
// pod's own namespace.
func LabelTerm(topologyKey, k, v string) v1.PodAffinityTerm {
	return v1.PodAffinityTerm{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{k: v}},
		TopologyKey:   topologyKey,
	}
}

// PodAffinity adds a required pod affinity term.
func (w *PodWrapper) PodAffinity(t v1.PodAffinityTerm) *PodWrapper {
	a := w.affinity()
	if a.PodAffinity == nil {
		a.PodAffinity = &v1.PodAffinity{}
	}
	a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, t)
	return w
}

// PodAntiAffinity adds a required pod anti-affinity term.
func (w *PodWrapper) PodAntiAffinity(t v1.PodAffinityTerm) *PodWrapper {
	a := w.affinity()
	if a.PodAntiAffinity == nil {
		a.PodAntiAffinity = &v1.PodAntiAffinity{}
	}
	a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, t)
	return w
}

// PreferredPodAffinity adds a preferred pod affinity term.
func (w *PodWrapper) PreferredPodAffinity(weight int32, t v1.PodAffinityTerm) *PodWrapper {
	a := w.affinity()
	if a.PodAffinity == nil {
		a.PodAffinity = &v1.PodAffinity{}
	}
	a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution, v1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: t})
	return w
}

// PreferredPodAntiAffinity adds a preferred pod anti-affinity term.
func (w *PodWrapper) PreferredPodAntiAffinity(weight int32, t v1.PodAffinityTerm) *PodWrapper {
	a := w.affinity()
	if a.PodAntiAffinity == nil {
		a.PodAntiAffinity = &v1.PodAntiAffinity{}
	}
	a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution, v1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: t})
	return w
}

// Spread adds a topology spread constraint selecting pods with label k=v.
func (w *PodWrapper) Spread(maxSkew int32, topologyKey string, action v1.UnsatisfiableConstraintAction, k, v string) *PodWrapper {
	w.p.Spec.TopologySpreadConstraints = append(w.p.Spec.TopologySpreadConstraints, v1.TopologySpreadConstraint{
		MaxSkew: maxSkew, TopologyKey: topologyKey, WhenUnsatisfiable: action,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{k: v}},
	})
	return w
}

// SpreadConstraint adds a fully specified topology spread constraint.
func (w *PodWrapper) SpreadConstraint(c v1.TopologySpreadConstraint) *PodWrapper {
	w.p.Spec.TopologySpreadConstraints = append(w.p.Spec.TopologySpreadConstraints, c)
	return w
}

// OwnedBy sets a controller owner reference (apps/v1 kinds, or v1
// ReplicationController).
func (w *PodWrapper) OwnedBy(kind, name string) *PodWrapper {
	apiVersion := appsv1.SchemeGroupVersion.String()
	if kind == "ReplicationController" {
		apiVersion = "v1"
	}
	yes := true
	w.p.OwnerReferences = append(w.p.OwnerReferences, metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, Controller: &yes})
	return w
}

// NodeInfos builds one NodeInfo per node with the pods whose spec.nodeName
// names it, in the order given, and fills ImageStates.
func NodeInfos(nodes []*v1.Node, pods []*v1.Pod) []*framework.NodeInfo {
	byNode := map[string][]*v1.Pod{}
	for _, p := range pods {
		byNode[p.Spec.NodeName] = append(byNode[p.Spec.NodeName], p)
	}
	out := make([]*framework.NodeInfo, 0, len(nodes))
	for _, n := range nodes {
		out = append(out, framework.NewNodeInfo(n, byNode[n.Name]...))
	}
	framework.SetImageStates(out)
	return out
}

// Lister is a framework.NodeLister over fixed NodeInfos.
type Lister struct{ nodes []*framework.NodeInfo }

var _ framework.NodeLister = (*Lister)(nil)

// NewLister returns a lister over nodes.
func NewLister(nodes []*framework.NodeInfo) *Lister { return &Lister{nodes: nodes} }

// List returns all nodes.
func (l *Lister) List() []*framework.NodeInfo { return l.nodes }

// Get returns a node by name, or nil.
func (l *Lister) Get(name string) *framework.NodeInfo {
	for _, n := range l.nodes {
		if n.Node().Name == name {
			return n
		}
	}
	return nil
}

// HavePodsWithAffinityList returns the nodes with pods that have affinity.
func (l *Lister) HavePodsWithAffinityList() []*framework.NodeInfo {
	var out []*framework.NodeInfo
	for _, n := range l.nodes {
		if len(n.PodsWithAffinity) > 0 {
			out = append(out, n)
		}
	}
	return out
}

// HavePodsWithRequiredAntiAffinityList returns the nodes with pods that
// have required anti-affinity.
func (l *Lister) HavePodsWithRequiredAntiAffinityList() []*framework.NodeInfo {
	var out []*framework.NodeInfo
	for _, n := range l.nodes {
		if len(n.PodsWithRequiredAntiAffinity) > 0 {
			out = append(out, n)
		}
	}
	return out
}
