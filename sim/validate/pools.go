package validate

import (
	"strings"

	"github.com/drasim/drasim/sim/inventory"

	resourceapi "k8s.io/api/resource/v1"
)

type poolID = inventory.PoolID

// pool is what the allocator would see of one pool.
type pool struct {
	*inventory.Pool
	// wantSlices is resourceSliceCount of the first current slice, which is
	// the one the allocator trusts.
	wantSlices int64
	// devices holds the device names of every generation, for checking
	// allocation results of claims that were allocated before a
	// generation change.
	devices map[string]bool
}

// complete reports whether the allocator would allocate from the pool.
func (p *pool) complete() bool { return int64(len(p.Current)) == p.wantSlices }

// poolIndex holds the pools of a snapshot in a stable order (by driver, then
// pool name).
type poolIndex struct {
	byID  map[poolID]*pool
	order []*pool
}

func buildPoolIndex(rs []*resourceapi.ResourceSlice) *poolIndex {
	idx := &poolIndex{byID: map[poolID]*pool{}}
	for _, ip := range inventory.Pools(rs) {
		p := &pool{Pool: ip, wantSlices: ip.Current[0].Spec.Pool.ResourceSliceCount, devices: map[string]bool{}}
		for _, s := range ip.Slices {
			for _, d := range s.Spec.Devices {
				p.devices[d.Name] = true
			}
		}
		idx.byID[ip.ID] = p
		idx.order = append(idx.order, p)
	}
	return idx
}

// checkPools reports what only shows when the slices of a pool are looked at
// together: missing or extra slices, stale generations, and the conditions
// under which the allocator declares a pool invalid.
func (v *validator) checkPools() {
	for _, p := range v.pools.order {
		v.checkPool(p)
	}
}

func (v *validator) checkPool(p *pool) {
	v.checkPoolSlices(p)
	// The allocator declares a pool invalid (and fails every claim that
	// could use it) on duplicate device names, duplicate counter sets and
	// consumed counters it cannot find. Duplicates inside one slice are
	// reported by the slice check.
	counterSets, counterSetAt := v.checkPoolDuplicates(p)
	if !p.complete() {
		// A missing slice may hold the counter sets; the pool is not used
		// anyway, which PoolIncomplete already says.
		return
	}
	v.checkPoolCounters(p, counterSets, counterSetAt)
}

// checkPoolSlices checks that the pool's slices agree on the generation
// and on how many slices the pool has, and that the snapshot holds them
// all.
func (v *validator) checkPoolSlices(p *pool) {
	for _, s := range p.Slices {
		if s.Spec.Pool.Generation < p.Generation {
			v.warnf(v.sliceTarget(s), "spec.pool.generation", CodePoolStaleGeneration,
				"generation %d of pool %q (driver %s) is older than generation %d published by other slices: the allocator ignores this slice and its devices",
				s.Spec.Pool.Generation, p.ID.Pool, p.ID.Driver, p.Generation)
		}
	}
	first := p.Current[0]
	for _, s := range p.Current[1:] {
		if s.Spec.Pool.ResourceSliceCount != p.wantSlices {
			v.warnf(v.sliceTarget(s), "spec.pool.resourceSliceCount", CodePoolSliceCountMismatch,
				"resourceSliceCount is %d but ResourceSlice %q of the same pool and generation says %d: the allocator trusts whichever slice it sees first and may treat the pool as incomplete",
				s.Spec.Pool.ResourceSliceCount, first.Name, p.wantSlices)
		}
	}
	have := int64(len(p.Current))
	switch {
	case p.wantSlices <= 0:
		// Reported as an invalid resourceSliceCount already.
	case have < p.wantSlices:
		v.warnf(v.sliceTarget(first), "spec.pool.resourceSliceCount", CodePoolIncomplete,
			"pool %q (driver %s, generation %d) is incomplete: resourceSliceCount is %d but the snapshot holds %d slice(s) (%s); "+
				"the allocator does not allocate from an incomplete pool, so its devices are unallocatable (and allocationMode: All fails for classes matching it)",
			p.ID.Pool, p.ID.Driver, p.Generation, p.wantSlices, have, sliceNames(p.Current))
	case have > p.wantSlices:
		v.warnf(v.sliceTarget(first), "spec.pool.resourceSliceCount", CodePoolSliceCountMismatch,
			"pool %q (driver %s, generation %d) has %d slices (%s) but resourceSliceCount is %d: the allocator treats the pool as incomplete, so its devices are unallocatable",
			p.ID.Pool, p.ID.Driver, p.Generation, have, sliceNames(p.Current), p.wantSlices)
	}
}

// checkPoolDuplicates reports device names and counter sets that two
// slices of the pool both publish, and returns the pool's counter sets
// with the slice that defines each.
func (v *validator) checkPoolDuplicates(p *pool) (counterSets map[string]resourceapi.CounterSet, counterSetAt map[string]string) {
	deviceAt := map[string]string{}
	counterSets = map[string]resourceapi.CounterSet{}
	counterSetAt = map[string]string{}
	for _, s := range p.Current {
		t := v.sliceTarget(s)
		inSlice := map[string]bool{}
		for i, d := range s.Spec.Devices {
			if d.Name == "" || inSlice[d.Name] {
				continue
			}
			inSlice[d.Name] = true
			if other, dup := deviceAt[d.Name]; dup {
				v.errorf(t, idx("spec.devices", i)+".name", CodePoolDuplicateDevice,
					"device %q is also published by ResourceSlice %q of the same pool %q (driver %s): the allocator treats the pool as invalid and fails every claim that could use it",
					d.Name, other, p.ID.Pool, p.ID.Driver)
			} else {
				deviceAt[d.Name] = s.Name
			}
		}
		inSlice = map[string]bool{}
		for i, cs := range s.Spec.SharedCounters {
			if cs.Name == "" || inSlice[cs.Name] {
				continue
			}
			inSlice[cs.Name] = true
			if other, dup := counterSetAt[cs.Name]; dup {
				v.errorf(t, idx("spec.sharedCounters", i)+".name", CodePoolDuplicateCounterSet,
					"counter set %q is also defined by ResourceSlice %q of the same pool %q (driver %s): the allocator treats the pool as invalid",
					cs.Name, other, p.ID.Pool, p.ID.Driver)
			} else {
				counterSetAt[cs.Name] = s.Name
				counterSets[cs.Name] = cs
			}
		}
	}
	return counterSets, counterSetAt
}

// checkPoolCounters reports devices that consume counter sets or counters
// the pool does not define.
func (v *validator) checkPoolCounters(p *pool, counterSets map[string]resourceapi.CounterSet, counterSetAt map[string]string) {
	for _, s := range p.Current {
		t := v.sliceTarget(s)
		for i, d := range s.Spec.Devices {
			for j, cc := range d.ConsumesCounters {
				cp := idx(idx("spec.devices", i)+".consumesCounters", j)
				if cc.CounterSet == "" {
					continue
				}
				cs, ok := counterSets[cc.CounterSet]
				if !ok {
					v.errorf(t, cp+".counterSet", CodeUnknownCounterSet,
						"device %q consumes counter set %q, which no slice of pool %q (driver %s, generation %d) defines in spec.sharedCounters: the allocator treats the pool as invalid",
						d.Name, cc.CounterSet, p.ID.Pool, p.ID.Driver, p.Generation)
					continue
				}
				for _, name := range sortedKeys(cc.Counters) {
					if _, ok := cs.Counters[name]; !ok {
						v.errorf(t, key(cp+".counters", name), CodeUnknownCounter,
							"device %q consumes counter %q, which counter set %q (ResourceSlice %q) does not define: the allocator treats the pool as invalid",
							d.Name, name, cc.CounterSet, counterSetAt[cc.CounterSet])
					}
				}
			}
		}
	}
}

func sliceNames(ss []*resourceapi.ResourceSlice) string {
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}
