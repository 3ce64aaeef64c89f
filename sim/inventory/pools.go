package inventory

import (
	"cmp"
	"slices"

	resourceapi "k8s.io/api/resource/v1"
)

// PoolID names a resource pool: the allocator looks at all slices with the
// same driver and pool name together.
type PoolID struct{ Driver, Pool string }

// Pool is the slices of one pool.
type Pool struct {
	ID PoolID
	// Slices are all the pool's slices, every generation, in input order.
	Slices []*resourceapi.ResourceSlice
	// Generation is the pool's newest generation; Current holds its slices
	// in input order. The allocator ignores the slices of older ones.
	Generation int64
	Current    []*resourceapi.ResourceSlice
}

// Stale is how many slices belong to an older generation.
func (p *Pool) Stale() int { return len(p.Slices) - len(p.Current) }

// Pools groups the slices by pool, sorted by driver then pool name. Nil
// slices and slices without a driver or a pool name belong to no pool (the
// API server rejects them) and are left out.
func Pools(rs []*resourceapi.ResourceSlice) []*Pool {
	byID := map[PoolID]*Pool{}
	var out []*Pool
	for _, s := range rs {
		if s == nil || s.Spec.Driver == "" || s.Spec.Pool.Name == "" {
			continue
		}
		id := PoolID{s.Spec.Driver, s.Spec.Pool.Name}
		p := byID[id]
		if p == nil {
			p = &Pool{ID: id, Generation: s.Spec.Pool.Generation}
			byID[id] = p
			out = append(out, p)
		}
		p.Slices = append(p.Slices, s)
		p.Generation = max(p.Generation, s.Spec.Pool.Generation)
	}
	for _, p := range out {
		for _, s := range p.Slices {
			if s.Spec.Pool.Generation == p.Generation {
				p.Current = append(p.Current, s)
			}
		}
	}
	slices.SortFunc(out, func(a, b *Pool) int {
		return cmp.Or(cmp.Compare(a.ID.Driver, b.ID.Driver), cmp.Compare(a.ID.Pool, b.ID.Pool))
	})
	return out
}

// Current returns the slices of every pool's newest generation in input
// order: the slices the allocator reads. Slices that belong to no pool
// are left out, as in Pools.
func Current(rs []*resourceapi.ResourceSlice) []*resourceapi.ResourceSlice {
	newest := map[PoolID]int64{}
	for _, s := range rs {
		if s == nil || s.Spec.Driver == "" || s.Spec.Pool.Name == "" {
			continue
		}
		id := PoolID{s.Spec.Driver, s.Spec.Pool.Name}
		if g, ok := newest[id]; !ok || s.Spec.Pool.Generation > g {
			newest[id] = s.Spec.Pool.Generation
		}
	}
	out := make([]*resourceapi.ResourceSlice, 0, len(rs))
	for _, s := range rs {
		if s == nil || s.Spec.Driver == "" || s.Spec.Pool.Name == "" {
			continue
		}
		if s.Spec.Pool.Generation == newest[PoolID{s.Spec.Driver, s.Spec.Pool.Name}] {
			out = append(out, s)
		}
	}
	return out
}
