package nodeports

import (
	"context"
	"errors"

	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/framework"
)

// Name is the plugin name in kube-scheduler profiles.
const Name = "NodePorts"

// ErrReason is kube's reason for a host port conflict.
const ErrReason = "node(s) didn't have free ports for the requested pod ports"

const preFilterStateKey = "PreFilter" + Name

// NodePorts is the plugin; it has no state.
type NodePorts struct{}

var (
	_ framework.PreFilterPlugin = (*NodePorts)(nil)
	_ framework.FilterPlugin    = (*NodePorts)(nil)
)

// New returns the plugin.
func New() *NodePorts { return &NodePorts{} }

// Name returns Name.
func (*NodePorts) Name() string { return Name }

type preFilterState []v1.ContainerPort

// PreFilter collects the pod's host ports; a pod without any is Skip, so
// Filter must not be called for it.
func (*NodePorts) PreFilter(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	ports := framework.HostPorts(pod)
	if len(ports) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	state.Write(preFilterStateKey, preFilterState(ports))
	return nil, nil
}

// Filter rejects a node where one of the pod's host ports is in use
// (Unschedulable: evicting the holder would free it).
func (*NodePorts) Filter(_ context.Context, state *framework.CycleState, _ *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	want, ok := state.Read(preFilterStateKey).(preFilterState)
	if !ok {
		return framework.AsStatus(errors.New("nodeports: no PreFilter state"))
	}
	if !fitsPorts(want, nodeInfo.UsedPorts) {
		return framework.NewStatus(framework.Unschedulable, ErrReason)
	}
	return nil
}

// Fits reports whether the pod's host ports are free on the node.
func Fits(pod *v1.Pod, nodeInfo *framework.NodeInfo) bool {
	return fitsPorts(framework.HostPorts(pod), nodeInfo.UsedPorts)
}

func fitsPorts(want []v1.ContainerPort, inUse framework.HostPortInfo) bool {
	for _, p := range want {
		if inUse.CheckConflict(p.HostIP, string(p.Protocol), p.HostPort) {
			return false
		}
	}
	return true
}

// NodeLabelKeys implements framework.LabelReader: the plugin reads only the
// ports in use on the node.
func (*NodePorts) NodeLabelKeys(*framework.CycleState, *v1.Pod) ([]string, bool) {
	return nil, true
}
