package dra

import (
	"slices"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

// holding is what one allocation result holds: a device exclusively, or
// a share of it (with the capacity the share consumes), and the facts the
// equivalence index records for it.
type holding struct {
	ref      poolRef
	id       structured.DeviceID
	share    *structured.SharedDeviceID
	capacity *structured.DeviceConsumedCapacity
	facts    []string
}

// holdings lists what a claim's allocation holds, as the scheduler's
// allocated-devices tracker counts it: admin-access results hold nothing,
// results with a share ID are shares of a device with consumable capacity
// (when the feature is on).
func (s *State) holdings(c *resourceapi.ResourceClaim) []holding {
	if c.Status.Allocation == nil {
		return nil
	}
	var out []holding
	for _, r := range c.Status.Allocation.Devices.Results {
		if ptr.Deref(r.AdminAccess, false) {
			continue
		}
		h := holding{ref: poolRef{r.Driver, r.Pool}, id: structured.MakeDeviceID(r.Driver, r.Pool, r.Device)}
		if s.features.ConsumableCapacity && r.ShareID != nil {
			share := structured.MakeSharedDeviceID(h.id, r.ShareID)
			h.share = &share
			h.facts = append(h.facts, "s:"+r.Device+"/"+string(*r.ShareID))
			if r.ConsumedCapacity != nil {
				capacity := structured.NewDeviceConsumedCapacity(h.id, r.ConsumedCapacity)
				h.capacity = &capacity
				h.facts = append(h.facts, "c:"+r.Device+"/"+string(*r.ShareID)+":"+capacityString(r.ConsumedCapacity))
			}
		} else {
			h.facts = append(h.facts, "x:"+r.Device)
		}
		out = append(out, h)
	}
	return out
}

// Deallocate undoes a claim's allocation, as the resource-claim controller
// does when the last pod using a claim goes (or deletes a claim made for a
// pod, which a replacement pod gets anew): the allocation, the
// reservations and the finalizer are cleared and the devices are free
// again, the reverse of markAllocated. The claim must be the state's own
// (Claim), e.g. in a fork.
func (s *State) Deallocate(c *resourceapi.ResourceClaim) {
	touched := map[poolRef]bool{}
	for _, h := range s.holdings(c) {
		touched[h.ref] = true
		switch {
		case h.share == nil:
			s.allocated.Delete(h.id)
		default:
			s.sharedIDs.Delete(*h.share)
			if h.capacity != nil {
				s.capacities.Remove(*h.capacity)
			}
		}
		for _, f := range h.facts {
			if facts := s.poolFacts[h.ref]; facts != nil {
				delete(facts, f)
			}
		}
	}
	c.Status.Allocation = nil
	c.Status.ReservedFor = nil
	c.Finalizers = slices.DeleteFunc(c.Finalizers, func(f string) bool { return f == resourceapi.Finalizer })
	s.refreshDynamic(touched)
}
