package nodeaffinity

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/drasim/drasim/sim/framework"
)

var _ framework.EnqueueExtensions = (*NodeAffinity)(nil)

// EventsToRegister implements framework.EnqueueExtensions: a node added,
// or updated into, a match of the pod's required node affinity.
func (pl *NodeAffinity) EventsToRegister() []framework.ClusterEventWithHint {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeLabel}, Hint: pl.afterNodeChange},
	}
}

func (pl *NodeAffinity) afterNodeChange(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	oldNode, _ := oldObj.(*v1.Node)
	newNode, ok := newObj.(*v1.Node)
	if !ok {
		return framework.Queue, nil
	}
	if pl.addedNodeSelector != nil && !pl.addedNodeSelector.Match(newNode) {
		return framework.QueueSkip, nil
	}
	required := nodeaffinity.GetRequiredNodeAffinity(pod)
	matches, err := required.Match(newNode)
	if err != nil {
		return framework.Queue, err
	}
	if !matches {
		return framework.QueueSkip, nil
	}
	if oldNode == nil {
		return framework.Queue, nil
	}
	matched, err := required.Match(oldNode)
	if err != nil {
		return framework.Queue, err
	}
	if matched {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}
