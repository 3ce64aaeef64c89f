package dra

import (
	"context"
	"sync"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/cel"
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
// MIG partitions: 2.4 ms a call, a third of a timeline's CPU).
//
// Which device a selector matches never changes: it reads only the
// device's driver, attributes, capacity and allowMultipleAllocations. So
// drasim evaluates, once per claims content and device list, which devices
// some request of the claims can select, and hands the allocator the node's
// slices without the devices none can. The answer is the same, because such
// a device is a no-op in every step of the search: the allocator skips it
// as in use or as not selectable (it has no other effect than its own
// per-call memo), and requests for "all" devices only count selectable
// ones. What else reads the devices is kept whole:
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
// The reference engine asks with every device, and the engine tests and
// FuzzEnginesAgree hold the two to the same decisions.

// Device states in a prune mask.
const (
	dropDevice      uint8 = iota // no request of the claims can select it
	keepDevice                   // some request can (or it must stay, above)
	keepIfAllocated              // selects for none, but consumes shared counters
)

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
	masks map[pruneKey][]uint8 // nil: keep every device
	// valid tells, per static node class, whether its pools pass the
	// checks above.
	valid map[staticClass]bool
}

type staticClass struct {
	static uint64
	pools  int
}

// maxMasks bounds the mask cache.
const maxMasks = 100_000

// prunedSlices returns the node's slices for an allocator that allocates
// claims (content claimsHash), with the devices none of their requests can
// select left out, or slices itself when nothing is left out.
func (p *Plugin) prunedSlices(ctx context.Context, d *cycleData, class classKey, claims []*resourceapi.ResourceClaim, slices []*resourceapi.ResourceSlice) []*resourceapi.ResourceSlice {
	if !p.poolsPrunable(class, slices) {
		return slices
	}
	var out []*resourceapi.ResourceSlice
	for i, sl := range slices {
		mask := p.maskFor(ctx, d.claimsHash, claims, sl)
		var kept []resourceapi.Device
		if mask != nil {
			kept = keptDevices(sl, mask, &d.allocState)
		}
		if mask == nil || len(kept) == len(sl.Spec.Devices) {
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
		return slices
	}
	return out
}

// keptDevices is the slice's devices the mask keeps in this allocation
// state.
func keptDevices(sl *resourceapi.ResourceSlice, mask []uint8, st *structured.AllocatedState) []resourceapi.Device {
	kept := make([]resourceapi.Device, 0, len(sl.Spec.Devices))
	shared := len(st.AllocatedSharedDeviceIDs) > 0 || len(st.AggregatedCapacity) > 0
	for i := range sl.Spec.Devices {
		switch mask[i] {
		case keepDevice:
			kept = append(kept, sl.Spec.Devices[i])
		case keepIfAllocated:
			// Shared allocations (consumable capacity) count as allocated
			// in ways not worth mirroring here: keep the device.
			if shared || st.AllocatedDevices.Has(structured.MakeDeviceID(sl.Spec.Driver, sl.Spec.Pool.Name, sl.Spec.Devices[i].Name)) {
				kept = append(kept, sl.Spec.Devices[i])
			}
		}
	}
	return kept
}

// maskFor returns the mask of the slice's devices for the claims, made on
// first use.
func (p *Plugin) maskFor(ctx context.Context, claimsHash uint64, claims []*resourceapi.ResourceClaim, sl *resourceapi.ResourceSlice) []uint8 {
	devs := sl.Spec.Devices
	if len(devs) == 0 || len(sl.Spec.SharedCounters) > 0 || ptr.Deref(sl.Spec.PerDeviceNodeSelection, false) {
		return nil
	}
	key := pruneKey{claims: claimsHash, list: &devs[0], n: len(devs), driver: sl.Spec.Driver}
	p.prune.mu.Lock()
	mask, ok := p.prune.masks[key]
	p.prune.mu.Unlock()
	if ok {
		return mask
	}
	mask = p.makeMask(ctx, claims, sl.Spec.Driver, devs)
	p.prune.mu.Lock()
	if p.prune.masks == nil || len(p.prune.masks) >= maxMasks {
		p.prune.masks = map[pruneKey][]uint8{}
	}
	p.prune.masks[key] = mask
	p.prune.mu.Unlock()
	return mask
}

// selectorSet is what one request or subrequest selects with: its class's
// selectors, then its own, as the allocator evaluates them.
type selectorSet struct {
	class, own []resourceapi.DeviceSelector
}

// makeMask evaluates which of the devices some request of the claims can
// select; nil when nothing can be dropped or the claims cannot be judged.
func (p *Plugin) makeMask(ctx context.Context, claims []*resourceapi.ResourceClaim, driver string, devs []resourceapi.Device) []uint8 {
	sets, ok := p.selectorSets(claims)
	if !ok {
		return nil
	}
	mask := make([]uint8, len(devs))
	dropped := false
	for i := range devs {
		dev := &devs[i]
		switch {
		case len(dev.BindingConditions) > 0 || len(dev.BindingFailureConditions) > 0:
			mask[i] = keepDevice
			continue
		}
		selectable, ok := p.anySelects(ctx, sets, driver, dev)
		switch {
		case !ok:
			return nil // a selector that does not compile: judge nothing
		case selectable:
			mask[i] = keepDevice
		case len(dev.ConsumesCounters) > 0:
			mask[i] = keepIfAllocated
			dropped = true
		default:
			mask[i] = dropDevice
			dropped = true
		}
	}
	if !dropped {
		return nil
	}
	return mask
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

// anySelects tells whether some selector set selects the device; ok is
// false when a selector does not compile. A device on which a selector
// fails to evaluate counts as selectable, so that it stays.
func (p *Plugin) anySelects(ctx context.Context, sets []selectorSet, driver string, dev *resourceapi.Device) (selectable, ok bool) {
	in := cel.Device{Driver: driver, AllowMultipleAllocations: dev.AllowMultipleAllocations, Attributes: dev.Attributes, Capacity: dev.Capacity}
	for _, s := range sets {
		m := p.allMatch(ctx, s.class, in)
		if m == matchYes {
			m = p.allMatch(ctx, s.own, in)
		}
		switch m {
		case matchBroken:
			return false, false
		case matchYes, matchError:
			return true, true
		}
	}
	return false, true
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
// once per static class.
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
