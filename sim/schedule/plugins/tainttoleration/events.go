package tainttoleration

import (
	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/plugins/internal/helper"
)

var _ framework.EnqueueExtensions = (*TaintToleration)(nil)

// EventsToRegister implements framework.EnqueueExtensions: a node that no
// longer has (or was added without) a taint the pod does not tolerate, or
// the pod gaining a toleration.
func (*TaintToleration) EventsToRegister() []framework.ClusterEventWithHint {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeTaint}, Hint: afterNodeChange},
		{Event: framework.ClusterEvent{Resource: framework.TargetPod, ActionType: framework.UpdatePodToleration}, Hint: func(*v1.Pod, any, any) (framework.QueueingHint, error) {
			return framework.Queue, nil
		}},
	}
}

func afterNodeChange(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	oldNode, _ := oldObj.(*v1.Node)
	newNode, ok := newObj.(*v1.Node)
	if !ok {
		return framework.Queue, nil
	}
	wasUntolerated := true
	if oldNode != nil {
		_, wasUntolerated = helper.FindUntoleratedNoScheduleTaint(oldNode.Spec.Taints, pod.Spec.Tolerations)
	}
	_, isUntolerated := helper.FindUntoleratedNoScheduleTaint(newNode.Spec.Taints, pod.Spec.Tolerations)
	if wasUntolerated && !isUntolerated {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}
