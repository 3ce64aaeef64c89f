package snapshot

import (
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeGroupAPIVersion is the API version of drasim's own kinds.
const NodeGroupAPIVersion = "drasim.io/v1alpha1"

// NodeGroup (drasim.io/v1alpha1) describes a group of identical nodes an
// autoscaler can add, as cluster-autoscaler's node groups do: its bounds,
// which existing nodes belong to it, and a template for new nodes.
type NodeGroup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              NodeGroupSpec `json:"spec"`
}

// NodeGroupSpec is a node group's definition.
type NodeGroupSpec struct {
	// MinSize and MaxSize bound the number of nodes in the group.
	MinSize int32 `json:"minSize"`
	MaxSize int32 `json:"maxSize"`
	// NodeSelector selects the existing nodes that belong to the group.
	NodeSelector *metav1.LabelSelector `json:"nodeSelector,omitempty"`
	// Template is what a new node of the group looks like. Exactly one of
	// Template and TemplateFrom is set.
	Template *NodeTemplate `json:"template,omitempty"`
	// TemplateFrom names an existing node to build the template from, the
	// way cluster-autoscaler sanitizes one.
	TemplateFrom string `json:"templateFrom,omitempty"`
	// PricePerHour is the cost of one node, in any currency (optional).
	PricePerHour *float64 `json:"pricePerHour,omitempty"`
	// Zone is the topology.kubernetes.io/zone of new nodes (optional).
	Zone string `json:"zone,omitempty"`
	// Labels are added to new nodes' labels (optional).
	Labels map[string]string `json:"labels,omitempty"`
	// ProvisioningDelay is how long a new node of the group takes from
	// the scale-up to Ready with its ResourceSlices published, in a
	// timeline (optional; default 3m).
	ProvisioningDelay *metav1.Duration `json:"provisioningDelay,omitempty"`
}

// NodeTemplate is one new node: a Node (labels, taints, allocatable) and
// the ResourceSlices its drivers would publish.
type NodeTemplate struct {
	Node           v1.Node                     `json:"node"`
	ResourceSlices []resourceapi.ResourceSlice `json:"resourceSlices,omitempty"`
}

// DeepCopy returns an independent copy of the node group.
func (g *NodeGroup) DeepCopy() *NodeGroup {
	out := &NodeGroup{TypeMeta: g.TypeMeta, ObjectMeta: *g.ObjectMeta.DeepCopy(), Spec: g.Spec}
	if g.Spec.NodeSelector != nil {
		out.Spec.NodeSelector = g.Spec.NodeSelector.DeepCopy()
	}
	if g.Spec.Template != nil {
		t := &NodeTemplate{Node: *g.Spec.Template.Node.DeepCopy()}
		for i := range g.Spec.Template.ResourceSlices {
			t.ResourceSlices = append(t.ResourceSlices, *g.Spec.Template.ResourceSlices[i].DeepCopy())
		}
		out.Spec.Template = t
	}
	if g.Spec.PricePerHour != nil {
		p := *g.Spec.PricePerHour
		out.Spec.PricePerHour = &p
	}
	if g.Spec.ProvisioningDelay != nil {
		d := *g.Spec.ProvisioningDelay
		out.Spec.ProvisioningDelay = &d
	}
	if g.Spec.Labels != nil {
		out.Spec.Labels = make(map[string]string, len(g.Spec.Labels))
		for k, v := range g.Spec.Labels {
			out.Spec.Labels[k] = v
		}
	}
	return out
}
