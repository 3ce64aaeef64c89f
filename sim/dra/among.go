package dra

import (
	"context"
	"errors"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	draapi "k8s.io/dynamic-resource-allocation/api"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
)

// Among asks the allocator whether claims fit on a node when it may choose
// only among some of the node's free devices. Analyses use it to confirm
// an allocation they computed (the largest request on partitionable
// devices, sim/analysis): with only the chosen devices free, the
// allocator's search takes them one after another instead of trying
// every combination of the node's devices.
//
// A yes is the allocator's yes on the whole node as well: the devices left
// out are free ones, which take no part in the allocator's checks of the
// devices it picks (a free device consumes no shared counters), so the
// same picks pass the same checks with them present. Allocated devices
// always stay, because the allocator sums the counters they consume from
// the pool's slices.
type Among struct {
	state *State
	cache *cel.Cache
	// valid caches poolsValid over all slices (when they are not all
	// local to one node) for validOf slices.
	valid   *bool
	validOf int
}

// NewAmong returns an Among on the state as it is at each call.
func NewAmong(s *State) *Among {
	return &Among{state: s, cache: cel.NewCache(10, s.gates.CELFeatures())}
}

// Allocates reports whether the allocator allocates the claims on the node
// with the free devices the node could get outside keep left out. known is
// false when the node's pools are ones the allocator could find invalid
// (dropping the offending device would make the pool valid). An error is
// the allocator's error for broken input, or ctx's.
func (a *Among) Allocates(ctx context.Context, node *v1.Node, claims []*resourceapi.ResourceClaim, keep func(structured.DeviceID) bool) (ok, known bool, err error) {
	s := a.state
	var slices []*resourceapi.ResourceSlice
	if s.equivalence {
		slices = s.nodeSlices[node.Name]
		if !poolsValid(slices) {
			return false, false, nil
		}
	} else {
		// Every slice: another node's slices of a pool count for its
		// counters. The check over all of them is made once.
		slices = s.slices
		if a.valid == nil || a.validOf != len(slices) {
			v := poolsValid(slices)
			a.valid, a.validOf = &v, len(slices)
		}
		if !*a.valid {
			return false, false, nil
		}
	}
	st := s.AllocatedState()
	// What the allocator counts as allocated (its IsDeviceAllocated):
	// exclusive allocations and the devices with shares in use.
	inUse := func(id structured.DeviceID) bool { return st.AllocatedDevices.Has(id) }
	if len(st.AllocatedSharedDeviceIDs) > 0 || len(st.AggregatedCapacity) > 0 {
		shared := make(map[structured.DeviceID]bool, len(st.AllocatedSharedDeviceIDs)+len(st.AggregatedCapacity))
		for sid := range st.AllocatedSharedDeviceIDs {
			shared[sid.GetDeviceID()] = true
		}
		for id := range st.AggregatedCapacity {
			shared[id] = true
		}
		inUse = func(id structured.DeviceID) bool { return st.AllocatedDevices.Has(id) || shared[id] }
	}
	kept := make([]*resourceapi.ResourceSlice, 0, len(slices))
	for _, sl := range slices {
		// Another node's slice offers this node nothing: it goes as it is.
		if name := sl.Spec.NodeName; name != nil && *name != node.Name {
			kept = append(kept, sl)
			continue
		}
		id := structured.DeviceID{Driver: draapi.MakeUniqueString(sl.Spec.Driver), Pool: draapi.MakeUniqueString(sl.Spec.Pool.Name)}
		devs := make([]resourceapi.Device, 0, len(sl.Spec.Devices))
		for i := range sl.Spec.Devices {
			id.Device = draapi.MakeUniqueString(sl.Spec.Devices[i].Name)
			if keep(id) || inUse(id) {
				devs = append(devs, sl.Spec.Devices[i])
			}
		}
		cp := *sl
		cp.Spec.Devices = devs
		kept = append(kept, &cp)
	}
	alloc, err := structured.NewAllocator(ctx, s.features, st, s, kept, a.cache)
	if err != nil {
		return false, true, err
	}
	res, err := alloc.Allocate(ctx, node, claims)
	switch {
	case errors.Is(err, structured.ErrFailedAllocationOnNode):
		return false, true, nil
	case err != nil:
		return false, true, err
	}
	return len(res) == len(claims), true, nil
}
