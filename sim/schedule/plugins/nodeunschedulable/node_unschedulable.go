package nodeunschedulable

import (
	"context"

	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/plugins/internal/helper"
)

// Name is the plugin name in kube-scheduler profiles.
const Name = "NodeUnschedulable"

// ErrReasonUnschedulable is kube's reason for a cordoned node.
const ErrReasonUnschedulable = "node(s) were unschedulable"

// NodeUnschedulable is the plugin; it has no state.
type NodeUnschedulable struct{}

var _ framework.FilterPlugin = (*NodeUnschedulable)(nil)

// New returns the plugin.
func New() *NodeUnschedulable { return &NodeUnschedulable{} }

// Name returns Name.
func (*NodeUnschedulable) Name() string { return Name }

// unschedulableTaint is the taint a cordoned node is treated as having.
func unschedulableTaint() v1.Taint {
	return v1.Taint{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule}
}

// Filter rejects a cordoned node (UnschedulableAndUnresolvable) unless the
// pod tolerates the unschedulable taint.
func (*NodeUnschedulable) Filter(_ context.Context, _ *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	if !nodeInfo.Node().Spec.Unschedulable {
		return nil
	}
	taint := unschedulableTaint()
	if !helper.ToleratesTaint(pod.Spec.Tolerations, &taint) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonUnschedulable)
	}
	return nil
}

// NodeLabelKeys implements framework.LabelReader: the plugin reads only
// spec.unschedulable and the taints.
func (*NodeUnschedulable) NodeLabelKeys(*framework.CycleState, *v1.Pod) ([]string, bool) {
	return nil, true
}
