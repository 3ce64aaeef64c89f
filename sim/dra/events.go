package dra

import (
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/drasim/drasim/sim/schedule/framework"
)

var _ framework.EnqueueExtensions = (*Plugin)(nil)

// EventsToRegister implements framework.EnqueueExtensions, as kube's
// DynamicResources registers them: nodes (topology may depend on labels),
// claims (allocations come and go), the pod getting its generated claims,
// classes and slices.
func (p *Plugin) EventsToRegister() []framework.ClusterEventWithHint {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeLabel | framework.UpdateNodeAllocatable}},
		{Event: framework.ClusterEvent{Resource: framework.ResourceClaim, ActionType: framework.Add | framework.Update | framework.Delete}, Hint: p.afterClaimChange},
		{Event: framework.ClusterEvent{Resource: framework.TargetPod, ActionType: framework.UpdatePodGeneratedResourceClaim}, Hint: p.afterTargetPodUpdate},
		{Event: framework.ClusterEvent{Resource: framework.DeviceClass, ActionType: framework.Add | framework.Update}},
		{Event: framework.ClusterEvent{Resource: framework.ResourceSlice, ActionType: framework.Add | framework.Update}},
	}
}

// afterClaimChange queues the pod when a claim was deallocated (devices
// came free), deleted while allocated, or is one of the pod's own claims
// that was created or whose status changed.
func (p *Plugin) afterClaimChange(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	oldClaim, _ := oldObj.(*resourceapi.ResourceClaim)
	newClaim, _ := newObj.(*resourceapi.ResourceClaim)
	if newClaim == nil {
		if oldClaim != nil && oldClaim.Status.Allocation == nil {
			return framework.QueueSkip, nil
		}
		return framework.Queue, nil
	}
	claims, err := p.PodClaims(pod)
	if err != nil {
		return framework.QueueSkip, nil // the pod still misses a claim
	}
	if oldClaim != nil && oldClaim.Status.Allocation != nil && newClaim.Status.Allocation == nil {
		return framework.Queue, nil
	}
	usesClaim := false
	for _, c := range claims {
		if c.UID == newClaim.UID && c.Namespace == newClaim.Namespace && c.Name == newClaim.Name {
			usesClaim = true
		}
	}
	if !usesClaim {
		return framework.QueueSkip, nil
	}
	if oldClaim == nil {
		return framework.Queue, nil
	}
	if equality.Semantic.DeepEqual(&oldClaim.Status, &newClaim.Status) {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}

func (p *Plugin) afterTargetPodUpdate(_ *v1.Pod, _, newObj any) (framework.QueueingHint, error) {
	pod, ok := newObj.(*v1.Pod)
	if !ok {
		return framework.Queue, nil
	}
	if _, err := p.PodClaims(pod); err != nil {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}
