package nodename

import (
	"context"

	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/framework"
)

// Name is the plugin name in kube-scheduler profiles.
const Name = "NodeName"

// ErrReason is kube's reason for a node other than spec.nodeName.
const ErrReason = "node(s) didn't match the requested node name"

// NodeName is the plugin; it has no state.
type NodeName struct{}

var (
	_ framework.PreFilterPlugin = (*NodeName)(nil)
	_ framework.FilterPlugin    = (*NodeName)(nil)
)

// New returns the plugin.
func New() *NodeName { return &NodeName{} }

// Name returns Name.
func (*NodeName) Name() string { return Name }

// PreFilter narrows the candidates to spec.nodeName when it is set.
func (*NodeName) PreFilter(_ context.Context, _ *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	if pod.Spec.NodeName != "" {
		return &framework.PreFilterResult{NodeNames: map[string]bool{pod.Spec.NodeName: true}}, nil
	}
	return nil, nil
}

// Filter rejects every node but spec.nodeName (UnschedulableAndUnresolvable).
func (*NodeName) Filter(_ context.Context, _ *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	if !Fits(pod, nodeInfo) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReason)
	}
	return nil
}

// Fits reports whether the pod names no node or names this one.
func Fits(pod *v1.Pod, nodeInfo *framework.NodeInfo) bool {
	return pod.Spec.NodeName == "" || pod.Spec.NodeName == nodeInfo.Node().Name
}

// NodeLabelKeys implements framework.LabelReader: a pod that names its node
// reads every node's name; any other pod reads nothing of the node.
func (*NodeName) NodeLabelKeys(_ *framework.CycleState, pod *v1.Pod) ([]string, bool) {
	return nil, pod.Spec.NodeName == ""
}
