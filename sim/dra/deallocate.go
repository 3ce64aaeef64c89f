package dra

import (
	"slices"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

// Deallocate undoes a claim's allocation, as the resource-claim controller
// does when the last pod using a claim goes (or deletes a claim made for a
// pod, which a replacement pod gets anew): the allocation, the
// reservations and the finalizer are cleared and the devices are free
// again. It is the reverse of markAllocated; the claim must be the
// state's own (Claim), e.g. in a fork.
func (s *State) Deallocate(c *resourceapi.ResourceClaim) {
	if c.Status.Allocation == nil {
		c.Status.ReservedFor = nil
		return
	}
	touched := map[poolRef]bool{}
	for _, r := range c.Status.Allocation.Devices.Results {
		if ptr.Deref(r.AdminAccess, false) {
			continue
		}
		ref := poolRef{r.Driver, r.Pool}
		touched[ref] = true
		id := structured.MakeDeviceID(r.Driver, r.Pool, r.Device)
		if s.features.ConsumableCapacity && r.ShareID != nil {
			s.sharedIDs.Delete(structured.MakeSharedDeviceID(id, r.ShareID))
			s.forgetFact(ref, "s:"+r.Device+"/"+string(*r.ShareID))
			if r.ConsumedCapacity != nil {
				s.capacities.Remove(structured.NewDeviceConsumedCapacity(id, r.ConsumedCapacity))
				s.forgetFact(ref, "c:"+r.Device+"/"+string(*r.ShareID)+":"+capacityString(r.ConsumedCapacity))
			}
			continue
		}
		s.allocated.Delete(id)
		s.forgetFact(ref, "x:"+r.Device)
	}
	c.Status.Allocation = nil
	c.Status.ReservedFor = nil
	c.Finalizers = slices.DeleteFunc(c.Finalizers, func(f string) bool { return f == resourceapi.Finalizer })
	s.refreshDynamic(touched)
}

func (s *State) forgetFact(ref poolRef, fact string) {
	if facts := s.poolFacts[ref]; facts != nil {
		delete(facts, fact)
	}
}
