package noderesources

import (
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/utils/ptr"

	"github.com/drasim/drasim/sim/framework"
)

var _ framework.EnqueueExtensions = (*Fit)(nil)

// EventsToRegister implements framework.EnqueueExtensions: a deleted pod
// frees resources, a new or grown node may have room, and a DeviceClass
// may start providing an extended resource the pod asks for. (Kube also
// registers in-place resizes of pods, which a replay never makes.)
func (pl *Fit) EventsToRegister() []framework.ClusterEventWithHint {
	events := []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Delete}, Hint: afterAssignedPodDelete},
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeAllocatable}, Hint: pl.afterNodeChange},
	}
	if pl.dra != nil {
		events = append(events, framework.ClusterEventWithHint{Event: framework.ClusterEvent{Resource: framework.DeviceClass, ActionType: framework.Add | framework.Update}, Hint: afterDeviceClassEvent})
	}
	return events
}

func afterAssignedPodDelete(_ *v1.Pod, oldObj, _ any) (framework.QueueingHint, error) {
	deleted, ok := oldObj.(*v1.Pod)
	if !ok {
		return framework.Queue, nil
	}
	if deleted.Spec.NodeName == "" && deleted.Status.NominatedNodeName == "" {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}

// afterNodeChange queues the pod when the node, empty, would hold it and
// (for an update) its allocatable grew in a resource the pod asks for.
func (pl *Fit) afterNodeChange(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	oldNode, _ := oldObj.(*v1.Node)
	newNode, ok := newObj.(*v1.Node)
	if !ok {
		return framework.Queue, nil
	}
	if len(Fits(pod, framework.NewNodeInfo(newNode), pl.dra)) != 0 {
		return framework.QueueSkip, nil
	}
	if oldNode == nil || pl.requestedResourcesIncreased(pod, oldNode, newNode) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

func (pl *Fit) requestedResourcesIncreased(pod *v1.Pod, oldNode, newNode *v1.Node) bool {
	req := computePodResourceRequest(pod)
	before, after := framework.NewNodeInfo(oldNode), framework.NewNodeInfo(newNode)
	a, b := after.Allocatable, before.Allocatable
	if a.AllowedPodNumber > b.AllowedPodNumber {
		return true
	}
	if req.MilliCPU == 0 && req.Memory == 0 && req.EphemeralStorage == 0 && len(req.ScalarResources) == 0 {
		return false
	}
	if req.MilliCPU > 0 && a.MilliCPU > b.MilliCPU || req.Memory > 0 && a.Memory > b.Memory || req.EphemeralStorage > 0 && a.EphemeralStorage > b.EphemeralStorage {
		return true
	}
	for name, q := range req.ScalarResources {
		if q == 0 {
			continue
		}
		if a.ScalarResources[name] > b.ScalarResources[name] || shouldDelegateToDRA(name, after, pl.dra) {
			return true
		}
	}
	return false
}

func afterDeviceClassEvent(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	oldClass, _ := oldObj.(*resourceapi.DeviceClass)
	newClass, ok := newObj.(*resourceapi.DeviceClass)
	if !ok {
		return framework.Queue, nil
	}
	reqs := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	if oldClass != nil {
		if ptr.Deref(oldClass.Spec.ExtendedResourceName, "") == ptr.Deref(newClass.Spec.ExtendedResourceName, "") {
			return framework.QueueSkip, nil
		}
	} else if _, asks := reqs[v1.ResourceName(resourceapi.ResourceDeviceClassPrefix+newClass.Name)]; asks {
		return framework.Queue, nil
	}
	if name := newClass.Spec.ExtendedResourceName; name != nil {
		if _, asks := reqs[v1.ResourceName(*name)]; asks {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}
