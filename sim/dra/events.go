package dra

import (
	"context"
	"errors"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/drasim/drasim/sim/framework"
)

var (
	_ framework.EnqueueExtensions        = (*Plugin)(nil)
	_ framework.PostFilterPlugin         = (*Plugin)(nil)
	_ framework.PodGroupPostFilterPlugin = (*Plugin)(nil)
)

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

// ReasonDeallocated is kube's PostFilter reason when it freed a claim.
const ReasonDeallocated = "deallocation of ResourceClaim completed"

// ReasonGroupDeallocated is kube's PodGroupPostFilter reason, whether or
// not it freed a claim.
const ReasonGroupDeallocated = "deallocation and deletion of ResourceClaims completed"

// PostFilter is kube's DynamicResources PostFilter (toDeallocate): it
// decides and changes nothing, the caller frees the claim.
func (p *Plugin) PostFilter(_ context.Context, cs *framework.CycleState, pod *v1.Pod, _ *framework.Diagnosis) (*framework.PostFilterResult, *framework.Status) {
	claim := p.toDeallocate(cs, pod)
	if claim == nil {
		if p.postFilterReasons {
			return nil, framework.NewStatus(framework.Unschedulable, p.PostFilterReason(cs))
		}
		return nil, framework.NewStatus(framework.Unschedulable)
	}
	return &framework.PostFilterResult{Deallocate: []*resourceapi.ResourceClaim{claim}}, framework.NewStatus(framework.Unschedulable, ReasonDeallocated)
}

// PodGroupPostFilter is kube's DynamicResources PodGroupPostFilter: it
// frees the allocated claims of the group's pods that no node could use,
// as PostFilter does for one pod. kube's plugin keeps what it needs here
// in the pod group's cycle state, which its PreFilter creates for the
// first pod of the cycle; when the cycle tried no pod (minCount was out of
// reach from the start: pods of the gang still binding or lost
// elsewhere), there is none and the plugin fails.
func (p *Plugin) PodGroupPostFilter(_ context.Context, states []*framework.CycleState, pods []*v1.Pod) (*framework.PostFilterResult, *framework.Status) {
	ran := false
	for _, cs := range states {
		ran = ran || cs.RanPreFilter(Name)
	}
	if !ran {
		return nil, framework.AsStatus(errors.New("not found"))
	}
	out := &framework.PostFilterResult{}
	for i, cs := range states {
		if cs == nil {
			continue
		}
		if claim := p.toDeallocate(cs, pods[i]); claim != nil {
			out.Deallocate = append(out.Deallocate, claim)
		}
	}
	return out, framework.NewStatus(framework.Unschedulable, ReasonGroupDeallocated)
}

// toDeallocate is what kube's DynamicResources PostFilter decides; it runs before
// preemption when a pod fits nowhere: an allocated claim of the pod that
// some node could not use (its allocation is elsewhere) and that nobody
// else uses is to be deallocated (State.Deallocate), so that the next
// attempt may allocate it where the pod fits. It returns that claim, or
// nil. kube picks among several such claims at random; drasim takes the
// first in the pod's order. (kube also deletes a stale extended-resource
// claim here; drasim makes that claim only when the pod is bound, so it
// has none.)
func (p *Plugin) toDeallocate(cs *framework.CycleState, pod *v1.Pod) *resourceapi.ResourceClaim {
	d := readCycle(cs)
	if d == nil {
		return nil
	}
	for i, claim := range d.claims {
		if i >= len(d.unavailable) || !d.unavailable[i] || claim == d.extendedClaim || claim.Status.Allocation == nil {
			continue
		}
		reserved := claim.Status.ReservedFor
		if len(reserved) == 0 || len(reserved) == 1 && reserved[0].UID == pod.UID {
			return claim
		}
	}
	return nil
}
