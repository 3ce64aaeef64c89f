package nodeunschedulable

import (
	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/plugins/internal/helper"
)

var _ framework.EnqueueExtensions = (*NodeUnschedulable)(nil)

// EventsToRegister implements framework.EnqueueExtensions: a node added
// schedulable or uncordoned, or the pod gaining the toleration.
func (*NodeUnschedulable) EventsToRegister() []framework.ClusterEventWithHint {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeTaint}, Hint: afterNodeChange},
		{Event: framework.ClusterEvent{Resource: framework.TargetPod, ActionType: framework.UpdatePodToleration}, Hint: afterTolerationChange},
	}
}

func afterNodeChange(_ *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	oldNode, _ := oldObj.(*v1.Node)
	newNode, ok := newObj.(*v1.Node)
	if !ok {
		return framework.Queue, nil
	}
	if (oldNode == nil || oldNode.Spec.Unschedulable) && !newNode.Spec.Unschedulable {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

func afterTolerationChange(_ *v1.Pod, _, newObj any) (framework.QueueingHint, error) {
	pod, ok := newObj.(*v1.Pod)
	if !ok {
		return framework.Queue, nil
	}
	taint := unschedulableTaint()
	if helper.ToleratesTaint(pod.Spec.Tolerations, &taint) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}
