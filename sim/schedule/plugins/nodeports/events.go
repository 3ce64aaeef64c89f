package nodeports

import (
	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/framework"
)

var _ framework.EnqueueExtensions = (*NodePorts)(nil)

// EventsToRegister implements framework.EnqueueExtensions: a deleted pod
// that held one of the pod's host ports, or a new node.
func (*NodePorts) EventsToRegister() []framework.ClusterEventWithHint {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Delete}, Hint: afterAssignedPodDeleted},
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add}},
	}
}

func afterAssignedPodDeleted(pod *v1.Pod, oldObj, _ any) (framework.QueueingHint, error) {
	deleted, ok := oldObj.(*v1.Pod)
	if !ok {
		return framework.Queue, nil
	}
	if deleted.Spec.NodeName == "" && deleted.Status.NominatedNodeName == "" {
		return framework.QueueSkip, nil
	}
	ports := framework.HostPorts(deleted)
	if len(ports) == 0 {
		return framework.QueueSkip, nil
	}
	inUse := framework.HostPortInfo{}
	for _, p := range ports {
		inUse.Add(p.HostIP, string(p.Protocol), p.HostPort)
	}
	if fitsPorts(framework.HostPorts(pod), inUse) {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}
