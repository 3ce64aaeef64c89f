package dra

import (
	"context"
	"slices"
	"sync"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	draapi "k8s.io/dynamic-resource-allocation/api"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

// Pruning the devices the allocator walks.
//
// Most of an allocator call is spent evaluating CEL selectors: for each
// request (and each subrequest of a prioritized list) it walks the node's
// devices and evaluates the class's and the request's selectors on every
// device that is not in use, until the search succeeds. A claim whose first
// alternative is a model the node does not have evaluates it on all of the
// node's devices in every call (an inference claim on an A100 node with 104
// MIG partitions: docs/performance.md).
//
// Which device a selector matches never changes: it reads only the
// device's driver, attributes, capacity and allowMultipleAllocations. So
// drasim evaluates, once per claims content and device list, which devices
// some request of the claims can select, and hands the allocator the node's
// slices without the devices none can. The answer is the same, because such
// a device is a no-op in every step of the search: the allocator skips it
// as in use or as not selectable (it has no other effect than its own
// per-call memo), and requests for "all" devices only count selectable
// ones.
//
// A selectable device is a no-op too when it is free but the shared
// counters it consumes are exhausted before the call starts: the allocator
// evaluates its selectors, then finds too few counters, and the counters
// it finds only shrink during the call (every device it takes consumes
// more). drasim leaves those out as well, computing the available counters
// as the allocator does (the pool's counter sets less what its allocated
// devices consume; any counter below zero blocks every device of the
// pool), except when a request asks for "all" devices, which fails on such
// a device, for devices that allow multiple allocations (the allocator
// skips their counter check when they are in use), and in pools whose
// slices are of several generations or mix counter sets with devices.
//
// What else reads the devices is kept whole:
//   - a device that consumes shared counters stays when it is allocated,
//     because the allocator sums the counters the allocated devices consume
//     from the pool's slices; an unallocated one consumes nothing;
//   - devices with binding conditions, slices with per-device node
//     selection and slices that carry counter sets are never pruned;
//   - a device on which a selector fails to evaluate stays, so the
//     allocator meets the same error where it met it before, and claims
//     whose selectors fail to compile or whose class is missing are not
//     pruned at all;
//   - nothing is pruned on a node whose pools the allocator could find
//     invalid (duplicate device names, counters consumed from a set or a
//     counter the pool does not have), because dropping the offending
//     device would make an invalid pool valid.
//
// The same evaluation tells which alternatives of a prioritized list can
// select none of the devices the allocator is given (an H100 alternative
// on an A100 node; a whole-GPU alternative once every GPU has a partition
// in use, which exhausts the whole GPUs' counters): the allocator would
// evaluate them on every kept device, find nothing and go on to the next
// alternative, so they are left out of the claims it is asked with
// (impossibleLeftOut).
//
// The reference engine asks with every device, and the engine tests and
// FuzzEnginesAgree hold the two to the same decisions.

// Device states in a prune mask.
const (
	dropDevice      uint8 = iota // no request of the claims can select it
	keepDevice                   // some request can: left out only when its counters are exhausted
	keepAlways                   // must stay (above)
	keepIfAllocated              // selects for none, but consumes shared counters
	keepIfRoom                   // allows multiple allocations: kept while some request that selects it fits in its capacity left
)

// pruneMask is what the claims make of one device list.
type pruneMask struct {
	state []uint8
	// names are the devices' names as the allocator's device IDs hold
	// them, interned once per list rather than once per call.
	names []draapi.UniqueString
	// exhaustible: a selectable device whose counters are exhausted may be
	// left out (no request asks for "all" devices).
	exhaustible bool
	// keepAll: no device can be left out (the mask is kept for possible).
	keepAll bool
	// selects has, per device, bit s set when selector set s
	// (selectorSets' order) selects or fails to evaluate on it, or may: a
	// device with binding conditions is not evaluated. Only with at most
	// maxSets sets; otherwise every bit is set. possible is their union.
	selects  []uint64
	possible uint64
	// caps are the capacity requests of each selector set (selectorSets'
	// order), for keepIfRoom.
	caps []*resourceapi.CapacityRequirements
}

// maxSets is the most selector sets whose possible bits a mask keeps.
const maxSets = 64

// pruneKey names a mask: the claims' content on one device list. Lists
// are never written in place (taint rules clone them), and the loader and
// the generator share equal lists between nodes, so one mask serves every
// node that publishes the same list.
type pruneKey struct {
	claims uint64
	list   *resourceapi.Device
	n      int
	driver string
}

// pruneState holds the masks and each node class's pool check.
type pruneState struct {
	mu    sync.Mutex
	masks map[pruneKey]*pruneMask // nil: the claims cannot be judged
	// valid tells, per static node class, whether its pools pass the
	// checks above.
	valid map[staticClass]bool
	// kept holds the kept device lists (keptDevices).
	kept map[keptKey][]resourceapi.Device
}

type staticClass struct {
	static uint64
	pools  int
}

// maxMasks bounds the mask cache.
const maxMasks = 100_000

// prunedSlices returns the node's slices for an allocator that allocates
// claims (content claimsHash), with the devices that cannot make a
// difference left out, or slices itself when nothing is left out.
//
// possible has bit s set when selector set s (selectorSets' order) may
// select some device the allocator is given (kept); known is false when
// that could not be judged for every slice (see impossibleLeftOut).
func (p *Plugin) prunedSlices(ctx context.Context, d *cycleData, class classKey, claims []*resourceapi.ResourceClaim, slices []*resourceapi.ResourceSlice) (out []*resourceapi.ResourceSlice, possible uint64, known bool) {
	if !p.poolsPrunable(class, slices) {
		return slices, 0, false
	}
	masks := make([]*pruneMask, len(slices))
	any, exhaustible := false, false
	known = true
	for i, sl := range slices {
		m, listKnown := p.maskFor(ctx, d.claimsHash, claims, sl)
		switch {
		case !listKnown:
			known = false
		case m != nil && m.keepAll:
			possible |= m.possible // every device is kept
		}
		if m != nil && !m.keepAll {
			masks[i] = m
			any = true
			exhaustible = exhaustible || m.exhaustible
		}
	}
	if !any {
		return slices, possible, known
	}
	st := &d.allocState
	withCounters := exhaustible && p.state.features.PartitionableDevices
	allocated := make([][]bool, len(slices))
	for i, sl := range slices {
		allocated[i] = allocatedDevices(sl, masks[i], st, withCounters)
	}
	var counters map[poolRef]*poolCounters
	if withCounters {
		counters = availableCounters(slices, allocated)
	}
	for i, sl := range slices {
		var kept []resourceapi.Device
		if m := masks[i]; m != nil {
			var pc *poolCounters
			if m.exhaustible {
				pc = counters[poolRef{sl.Spec.Driver, sl.Spec.Pool.Name}]
			}
			var keptPossible uint64
			kept, keptPossible = p.keptDevices(sl, m, allocated[i], pc, st)
			possible |= keptPossible
		}
		if masks[i] == nil || len(kept) == len(sl.Spec.Devices) {
			if out != nil {
				out = append(out, sl)
			}
			continue
		}
		if out == nil {
			out = make([]*resourceapi.ResourceSlice, i, len(slices))
			copy(out, slices[:i])
		}
		cp := *sl
		cp.Spec.Devices = kept
		out = append(out, &cp)
	}
	if out == nil {
		return slices, possible, known
	}
	return out, possible, known
}

// allocatedDevices tells, for the devices of the slice whose allocation
// the pruning reads, whether the allocator counts them as allocated: the
// devices the mask keeps only when allocated and, when counters counts,
// those that consume shared counters. The others are false. One look-up
// per device serves both the available counters and the kept devices.
func allocatedDevices(sl *resourceapi.ResourceSlice, m *pruneMask, st *structured.AllocatedState, counters bool) []bool {
	devs := sl.Spec.Devices
	out := make([]bool, len(devs))
	id := structured.DeviceID{Driver: draapi.MakeUniqueString(sl.Spec.Driver), Pool: draapi.MakeUniqueString(sl.Spec.Pool.Name)}
	for i := range devs {
		dev := &devs[i]
		if !(counters && len(dev.ConsumesCounters) > 0) && (m == nil || m.state[i] != keepIfAllocated) {
			continue
		}
		if m != nil {
			id.Device = m.names[i]
		} else {
			id.Device = draapi.MakeUniqueString(dev.Name)
		}
		out[i] = allocatedIn(st, id)
	}
	return out
}

// allocatedIn tells whether the allocator counts the device as allocated.
// Shared allocations (consumable capacity) count in ways not worth
// mirroring here: with any, every device counts.
func allocatedIn(st *structured.AllocatedState, id structured.DeviceID) bool {
	return len(st.AllocatedSharedDeviceIDs) > 0 || len(st.AggregatedCapacity) > 0 || st.AllocatedDevices.Has(id)
}

// keptDevices is the slice's devices the mask keeps in this allocation
// state (allocated: allocatedDevices); pc, when set, is the pool's
// available counters. It returns the slice's own list when every device
// is kept, and the selector sets that may select some kept device (the
// union of their mask bits). Kept lists are shared: the nodes that
// publish the same device list with the same devices kept get the same
// one (the allocator only reads it).
func (p *Plugin) keptDevices(sl *resourceapi.ResourceSlice, m *pruneMask, allocated []bool, pc *poolCounters, st *structured.AllocatedState) ([]resourceapi.Device, uint64) {
	devs := sl.Spec.Devices
	var consumed func(i int) structured.ConsumedCapacity
	if m.caps != nil {
		id := structured.DeviceID{Driver: draapi.MakeUniqueString(sl.Spec.Driver), Pool: draapi.MakeUniqueString(sl.Spec.Pool.Name)}
		consumed = func(i int) structured.ConsumedCapacity {
			id.Device = m.names[i]
			return st.AggregatedCapacity[id]
		}
	}
	if len(devs) > maxKeptBits {
		kept := make([]resourceapi.Device, 0, len(devs))
		var possible uint64
		for i := range devs {
			if keeps(m, i, &devs[i], allocated[i], pc, consumed) {
				kept = append(kept, devs[i])
				possible |= m.selects[i]
			}
		}
		return kept, possible
	}
	key := keptKey{list: &devs[0], n: len(devs)}
	n := 0
	var possible uint64
	for i := range devs {
		if keeps(m, i, &devs[i], allocated[i], pc, consumed) {
			key.bits[i/64] |= 1 << (i % 64)
			n++
			possible |= m.selects[i]
		}
	}
	if n == len(devs) {
		return devs, possible
	}
	p.prune.mu.Lock()
	kept, ok := p.prune.kept[key]
	p.prune.mu.Unlock()
	if ok {
		return kept, possible
	}
	kept = make([]resourceapi.Device, 0, n)
	for i := range devs {
		if key.bits[i/64]&(1<<(i%64)) != 0 {
			kept = append(kept, devs[i])
		}
	}
	p.prune.mu.Lock()
	if p.prune.kept == nil || len(p.prune.kept) >= maxKept {
		p.prune.kept = map[keptKey][]resourceapi.Device{}
	}
	p.prune.kept[key] = kept
	p.prune.mu.Unlock()
	return kept, possible
}

// keeps tells whether the mask keeps device i (dev) of a list, allocated
// or not; consumed gives a device's consumed capacity (for keepIfRoom).
func keeps(m *pruneMask, i int, dev *resourceapi.Device, allocated bool, pc *poolCounters, consumed func(int) structured.ConsumedCapacity) bool {
	switch m.state[i] {
	case keepAlways:
		return true
	case keepIfRoom:
		return m.hasRoom(i, dev, consumed(i))
	case keepDevice:
		if pc != nil && len(dev.ConsumesCounters) > 0 && !ptr.Deref(dev.AllowMultipleAllocations, false) {
			return allocated || !pc.exhausted(dev)
		}
		return true
	case keepIfAllocated:
		return allocated
	}
	return false
}

// keptKey names a kept device list: which devices of a device list (by
// its first device and length) are kept, as a bit set.
type keptKey struct {
	list *resourceapi.Device
	n    int
	bits [maxKeptBits / 64]uint64
}

// maxKeptBits is the longest device list whose kept lists are shared (a
// ResourceSlice holds at most 128 devices); maxKept bounds how many are.
const (
	maxKeptBits = 128
	maxKept     = 4096
)

// poolCounters is what is left of a pool's shared counters before the
// call, as the allocator computes it.
type poolCounters struct {
	available map[string]map[string]resource.Quantity
	// negative: some counter is below zero, which blocks every device
	// that consumes counters.
	negative bool
}

// exhausted tells whether taking the device alone would exceed some
// counter.
func (pc *poolCounters) exhausted(dev *resourceapi.Device) bool {
	if pc.negative {
		return true
	}
	for _, cc := range dev.ConsumesCounters {
		set := pc.available[cc.CounterSet]
		for name, c := range cc.Counters {
			if a, ok := set[name]; ok && a.Cmp(c.Value) < 0 {
				return true
			}
		}
	}
	return false
}

// availableCounters computes, for the pools whose slices are all of one
// generation and keep counter sets and devices apart, their counter sets
// less what their allocated devices consume. The other pools are left
// out, and none of their devices is judged exhausted.
func availableCounters(slices []*resourceapi.ResourceSlice, allocated [][]bool) map[poolRef]*poolCounters {
	type poolInfo struct {
		generation int64
		mixed      bool
		pc         *poolCounters
	}
	pools := map[poolRef]*poolInfo{}
	for _, sl := range slices {
		ref := poolRef{sl.Spec.Driver, sl.Spec.Pool.Name}
		info := pools[ref]
		if info == nil {
			info = &poolInfo{generation: sl.Spec.Pool.Generation, pc: &poolCounters{available: map[string]map[string]resource.Quantity{}}}
			pools[ref] = info
		}
		if sl.Spec.Pool.Generation != info.generation || (len(sl.Spec.SharedCounters) > 0 && len(sl.Spec.Devices) > 0) {
			info.mixed = true
		}
		for _, cs := range sl.Spec.SharedCounters {
			set := make(map[string]resource.Quantity, len(cs.Counters))
			for name, c := range cs.Counters {
				set[name] = c.Value.DeepCopy()
			}
			info.pc.available[cs.Name] = set
		}
	}
	for i, sl := range slices {
		info := pools[poolRef{sl.Spec.Driver, sl.Spec.Pool.Name}]
		if info.mixed || len(sl.Spec.SharedCounters) > 0 {
			continue
		}
		for j := range sl.Spec.Devices {
			dev := &sl.Spec.Devices[j]
			if len(dev.ConsumesCounters) == 0 || !allocated[i][j] {
				continue
			}
			for _, cc := range dev.ConsumesCounters {
				set := info.pc.available[cc.CounterSet]
				for name, c := range cc.Counters {
					if a, ok := set[name]; ok {
						a.Sub(c.Value)
						set[name] = a
					}
				}
			}
		}
	}
	out := make(map[poolRef]*poolCounters, len(pools))
	for ref, info := range pools {
		if info.mixed {
			continue
		}
		for _, set := range info.pc.available {
			for _, a := range set {
				if a.Sign() < 0 {
					info.pc.negative = true
				}
			}
		}
		out[ref] = info.pc
	}
	return out
}

// maskFor returns the mask of the slice's devices for the claims, made on
// first use.
//
// known is false when it cannot tell which selector sets may select a
// device of the list (mask.possible); a list without devices selects
// none (a nil mask, known).
func (p *Plugin) maskFor(ctx context.Context, claimsHash uint64, claims []*resourceapi.ResourceClaim, sl *resourceapi.ResourceSlice) (mask *pruneMask, known bool) {
	devs := sl.Spec.Devices
	if len(devs) == 0 {
		return nil, true
	}
	if len(sl.Spec.SharedCounters) > 0 || ptr.Deref(sl.Spec.PerDeviceNodeSelection, false) {
		return nil, false
	}
	key := pruneKey{claims: claimsHash, list: &devs[0], n: len(devs), driver: sl.Spec.Driver}
	p.prune.mu.Lock()
	mask, ok := p.prune.masks[key]
	p.prune.mu.Unlock()
	if ok {
		return mask, mask != nil
	}
	mask = p.makeMask(ctx, claims, sl.Spec.Driver, devs)
	p.prune.mu.Lock()
	if p.prune.masks == nil || len(p.prune.masks) >= maxMasks {
		p.prune.masks = map[pruneKey]*pruneMask{}
	}
	p.prune.masks[key] = mask
	p.prune.mu.Unlock()
	return mask, mask != nil
}

// selectorSet is what one request or subrequest selects with: its class's
// selectors, then its own, as the allocator evaluates them.
type selectorSet struct {
	class, own []resourceapi.DeviceSelector
}

// makeMask evaluates which of the devices some request of the claims can
// select; nil when nothing can be left out or the claims cannot be judged.
func (p *Plugin) makeMask(ctx context.Context, claims []*resourceapi.ResourceClaim, driver string, devs []resourceapi.Device) *pruneMask {
	sets, ok := p.selectorSets(claims)
	if !ok {
		return nil
	}
	m := &pruneMask{state: make([]uint8, len(devs)), names: make([]draapi.UniqueString, len(devs)), selects: make([]uint64, len(devs)), exhaustible: !asksForAll(claims)}
	droppable := false
	var caps []*resourceapi.CapacityRequirements
	if m.exhaustible && p.state.features.ConsumableCapacity {
		caps = capacityRequests(claims)
	}
	for i := range devs {
		dev := &devs[i]
		m.names[i] = draapi.MakeUniqueString(dev.Name)
		if len(dev.BindingConditions) > 0 || len(dev.BindingFailureConditions) > 0 {
			m.state[i] = keepAlways
			m.selects[i] = ^uint64(0)
			m.possible = ^uint64(0)
			continue
		}
		sel, selects := p.anySelects(ctx, sets, driver, dev)
		if len(sets) > maxSets {
			selects = ^uint64(0)
		}
		m.selects[i] = selects
		m.possible |= selects
		switch {
		case sel == matchBroken:
			return nil // a selector that does not compile: judge nothing
		case sel == matchError:
			m.state[i] = keepAlways
		case sel == matchYes && ptr.Deref(dev.AllowMultipleAllocations, false):
			m.state[i] = keepAlways
			if caps != nil && roomCheckable(dev) {
				m.state[i] = keepIfRoom
				m.caps = caps
				droppable = true
			}
		case sel == matchYes:
			m.state[i] = keepDevice
			droppable = droppable || (m.exhaustible && len(dev.ConsumesCounters) > 0)
		case len(dev.ConsumesCounters) > 0:
			m.state[i] = keepIfAllocated
			droppable = true
		default:
			m.state[i] = dropDevice
			droppable = true
		}
	}
	m.keepAll = !droppable
	return m
}

// Leaving out devices without room.
//
// A device that allows multiple allocations is taken by a request only if
// the capacity the request consumes fits in what is left of the device
// (the allocator's CmpRequestOverCapacity, after it evaluated the
// selectors). What is left only shrinks during an allocator call, and a
// request consumes at least what it asks for (a policy rounds up; a
// capacity it does not ask for costs the policy's default or the whole
// capacity). So a device on which no request that selects it fits at the
// start of the call is skipped by every step of the search, and is left
// out like a device no request selects. In a filling cluster of shared
// GPUs most have too little left for the pod at hand, and the allocator
// evaluated their selectors for nothing.
//
// Only where that skip can be told without the allocator's arithmetic:
// consumable capacity on, no request for "all" devices (whose search
// fails rather than skips), no capacity with a valid range (whose rounding
// can fail the call with an error instead of skipping the device), no
// negative quantity (an error too).

// capacityRequests returns the capacity requests of every selector set
// of the claims (selectorSets' order), nil when some request asks for a
// negative quantity.
func capacityRequests(claims []*resourceapi.ResourceClaim) []*resourceapi.CapacityRequirements {
	var out []*resourceapi.CapacityRequirements
	add := func(c *resourceapi.CapacityRequirements) bool {
		if c != nil {
			for _, q := range c.Requests {
				if q.Sign() < 0 {
					return false
				}
			}
		}
		out = append(out, c)
		return true
	}
	for _, c := range claims {
		for _, req := range c.Spec.Devices.Requests {
			if req.Exactly != nil {
				if !add(req.Exactly.Capacity) {
					return nil
				}
				continue
			}
			for _, sub := range req.FirstAvailable {
				if !add(sub.Capacity) {
					return nil
				}
			}
		}
	}
	if out == nil {
		out = []*resourceapi.CapacityRequirements{}
	}
	return out
}

// roomCheckable tells whether the allocator's capacity check on the
// device can only pass or skip it, never fail the call.
func roomCheckable(dev *resourceapi.Device) bool {
	for _, c := range dev.Capacity {
		if c.Value.Sign() < 0 {
			return false
		}
		if pol := c.RequestPolicy; pol != nil {
			if pol.ValidRange != nil || (pol.Default != nil && pol.Default.Sign() < 0) {
				return false
			}
		}
	}
	return true
}

// hasRoom tells whether some request that selects device i fits in what
// is left of it (consumed is what its allocations consume).
func (m *pruneMask) hasRoom(i int, dev *resourceapi.Device, consumed structured.ConsumedCapacity) bool {
	for s, req := range m.caps {
		if s < maxSets && m.selects[i]&(1<<s) == 0 {
			continue
		}
		if fitsIn(req, dev, consumed) {
			return true
		}
	}
	return false
}

// fitsIn tells whether a request asking for req could fit in what is left
// of the device: false when it asks for a capacity the device does not
// have, or when the least it would consume of some capacity exceeds what
// is left.
func fitsIn(req *resourceapi.CapacityRequirements, dev *resourceapi.Device, consumed structured.ConsumedCapacity) bool {
	if req != nil {
		for name := range req.Requests {
			if _, ok := dev.Capacity[name]; !ok {
				return false
			}
		}
	}
	for name, c := range dev.Capacity {
		need := c.Value
		var asked *resource.Quantity
		if req != nil {
			if q, ok := req.Requests[name]; ok {
				asked = &q
			}
		}
		if asked != nil {
			need = *asked
		} else if c.RequestPolicy != nil && c.RequestPolicy.Default != nil {
			need = *c.RequestPolicy.Default
		}
		left := c.Value.DeepCopy()
		if used := consumed[name]; used != nil {
			left.Sub(*used)
		}
		if need.Cmp(left) > 0 {
			return false
		}
	}
	return true
}

// asksForAll tells whether some request or subrequest of the claims asks
// for all matching devices.
func asksForAll(claims []*resourceapi.ResourceClaim) bool {
	for _, c := range claims {
		for _, req := range c.Spec.Devices.Requests {
			if req.Exactly != nil && req.Exactly.AllocationMode == resourceapi.DeviceAllocationModeAll {
				return true
			}
			for _, sub := range req.FirstAvailable {
				if sub.AllocationMode == resourceapi.DeviceAllocationModeAll {
					return true
				}
			}
		}
	}
	return false
}

// selectorSets lists the selectors of every request and subrequest of the
// claims; false when some class is missing or a request has no class (the
// allocator fails on those before it looks at any device).
func (p *Plugin) selectorSets(claims []*resourceapi.ResourceClaim) ([]selectorSet, bool) {
	var sets []selectorSet
	add := func(className string, own []resourceapi.DeviceSelector) bool {
		if className == "" {
			return false
		}
		class, err := p.state.Get(className)
		if err != nil {
			return false
		}
		sets = append(sets, selectorSet{class: class.Spec.Selectors, own: own})
		return true
	}
	for _, c := range claims {
		for _, req := range c.Spec.Devices.Requests {
			switch {
			case req.Exactly != nil:
				if !add(req.Exactly.DeviceClassName, req.Exactly.Selectors) {
					return nil, false
				}
			case len(req.FirstAvailable) > 0:
				for _, sub := range req.FirstAvailable {
					if !add(sub.DeviceClassName, sub.Selectors) {
						return nil, false
					}
				}
			default:
				return nil, false
			}
		}
	}
	return sets, true
}

// anySelects tells whether some selector set selects the device
// (matchYes or matchNo). Every set is evaluated, because the allocator
// may evaluate any of them on the device: matchError when one fails to
// evaluate on it, matchBroken when one does not compile.
//
// possible has bit i set when set i (of the first maxSets) selects the
// device or fails to evaluate on it.
func (p *Plugin) anySelects(ctx context.Context, sets []selectorSet, driver string, dev *resourceapi.Device) (out int, possible uint64) {
	in := cel.Device{Driver: driver, AllowMultipleAllocations: dev.AllowMultipleAllocations, Attributes: dev.Attributes, Capacity: dev.Capacity}
	out = matchNo
	for i, s := range sets {
		m := p.allMatch(ctx, s.class, in)
		if m == matchYes {
			m = p.allMatch(ctx, s.own, in)
		}
		if i < maxSets && (m == matchYes || m == matchError) {
			possible |= 1 << i
		}
		switch {
		case m == matchBroken:
			return matchBroken, 0
		case m == matchError:
			out = matchError
		case m == matchYes && out == matchNo:
			out = matchYes
		}
	}
	return out, possible
}

// Outcomes of evaluating a list of selectors on a device.
const (
	matchNo     = iota
	matchYes    // every selector matches
	matchError  // a selector failed to evaluate: the allocator errs there
	matchBroken // a selector does not compile or has no CEL
)

// allMatch evaluates selectors in order, as the allocator does, up to the
// first that does not match or fails.
func (p *Plugin) allMatch(ctx context.Context, selectors []resourceapi.DeviceSelector, in cel.Device) int {
	for _, sel := range selectors {
		if sel.CEL == nil {
			return matchBroken
		}
		expr := p.celCache.GetOrCompile(sel.CEL.Expression)
		if expr.Error != nil {
			return matchBroken
		}
		m, _, err := expr.DeviceMatches(ctx, in)
		if err != nil {
			return matchError
		}
		if !m {
			return matchNo
		}
	}
	return matchYes
}

// poolsPrunable tells whether the allocator finds every pool of the node
// valid whatever devices are left out: no device name twice in a pool,
// every counter a device consumes in a counter set of its pool. Checked
// once per static class. These are the allocator's rules that
// sim/validate/pools.go reports to users field by field; here they only
// need a yes or no, over every slice of a pool whatever its generation,
// which can only say no more often.
func (p *Plugin) poolsPrunable(class classKey, slices []*resourceapi.ResourceSlice) bool {
	k := staticClass{class.static, class.pools}
	p.prune.mu.Lock()
	v, ok := p.prune.valid[k]
	p.prune.mu.Unlock()
	if ok {
		return v
	}
	v = poolsValid(slices)
	p.prune.mu.Lock()
	if p.prune.valid == nil || len(p.prune.valid) >= maxMasks {
		p.prune.valid = map[staticClass]bool{}
	}
	p.prune.valid[k] = v
	p.prune.mu.Unlock()
	return v
}

func poolsValid(slices []*resourceapi.ResourceSlice) bool {
	type pool struct{ driver, name string }
	names := map[pool]map[string]bool{}
	counters := map[pool]map[string]map[string]bool{}
	for _, sl := range slices {
		ref := pool{sl.Spec.Driver, sl.Spec.Pool.Name}
		for _, cs := range sl.Spec.SharedCounters {
			if counters[ref] == nil {
				counters[ref] = map[string]map[string]bool{}
			}
			if counters[ref][cs.Name] != nil {
				return false // a duplicate counter set
			}
			set := map[string]bool{}
			for name := range cs.Counters {
				set[name] = true
			}
			counters[ref][cs.Name] = set
		}
	}
	for _, sl := range slices {
		ref := pool{sl.Spec.Driver, sl.Spec.Pool.Name}
		if names[ref] == nil {
			names[ref] = map[string]bool{}
		}
		for _, dev := range sl.Spec.Devices {
			if names[ref][dev.Name] {
				return false
			}
			names[ref][dev.Name] = true
			for _, cc := range dev.ConsumesCounters {
				set := counters[ref][cc.CounterSet]
				if set == nil {
					return false
				}
				for name := range cc.Counters {
					if !set[name] {
						return false
					}
				}
			}
		}
	}
	return true
}

// impossibleLeftOut returns the claims without the alternatives of their
// prioritized lists that can select none of the devices the allocator is
// given (possible, in selectorSets' order, from prunedSlices), or claims
// itself when none is left out. Such an alternative is a no-op for the allocator: it
// evaluates its selectors on every free device, finds none, and goes on
// to the next alternative, as if it were not there; the results name the
// alternatives, not their places. Left in are alternatives that ask for
// all devices and those a constraint or a configuration names, and a list
// none of whose alternatives can select anything stays whole (the
// allocator fails the request as before).
//
// The copies share everything but the changed request lists with the
// claims, and only serve the allocator's call.
func impossibleLeftOut(claims []*resourceapi.ResourceClaim, possible uint64) []*resourceapi.ResourceClaim {
	var out []*resourceapi.ResourceClaim
	set := 0
	for ci, c := range claims {
		var reqs []resourceapi.DeviceRequest
		for ri := range c.Spec.Devices.Requests {
			req := &c.Spec.Devices.Requests[ri]
			if req.Exactly != nil || len(req.FirstAvailable) == 0 {
				set++
				continue
			}
			first := set
			set += len(req.FirstAvailable)
			if set > maxSets {
				return claimsOr(out, claims)
			}
			var keep []resourceapi.DeviceSubRequest
			for k, sub := range req.FirstAvailable {
				if possible&(1<<(first+k)) == 0 && leavable(&c.Spec.Devices, req.Name, &sub) {
					if keep == nil {
						keep = append(make([]resourceapi.DeviceSubRequest, 0, len(req.FirstAvailable)), req.FirstAvailable[:k]...)
					}
					continue
				}
				if keep != nil {
					keep = append(keep, sub)
				}
			}
			if len(keep) == 0 {
				continue
			}
			if reqs == nil {
				reqs = append([]resourceapi.DeviceRequest(nil), c.Spec.Devices.Requests...)
			}
			reqs[ri].FirstAvailable = keep
		}
		if reqs == nil {
			continue
		}
		if out == nil {
			out = append([]*resourceapi.ResourceClaim(nil), claims...)
		}
		cp := *c
		cp.Spec.Devices.Requests = reqs
		out[ci] = &cp
	}
	return claimsOr(out, claims)
}

func claimsOr(out, claims []*resourceapi.ResourceClaim) []*resourceapi.ResourceClaim {
	if out == nil {
		return claims
	}
	return out
}

// leavable tells whether an alternative that can select nothing may be
// left out of its request: not when it asks for all devices, nor when a
// constraint or a configuration names it.
func leavable(d *resourceapi.DeviceClaim, request string, sub *resourceapi.DeviceSubRequest) bool {
	if sub.AllocationMode == resourceapi.DeviceAllocationModeAll {
		return false
	}
	ref := resourceclaim.CreateSubRequestRef(request, sub.Name)
	for _, c := range d.Constraints {
		if slices.Contains(c.Requests, ref) {
			return false
		}
	}
	for _, c := range d.Config {
		if slices.Contains(c.Requests, ref) {
			return false
		}
	}
	return true
}
