package analysis

import (
	"math"
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/api/resource"
)

// The most devices that can be taken together under shared counters.
//
// One claim for k devices of a class fits on a node when k of the node's
// free devices of the class fit together: each device consumes amounts
// of its pool's shared counters, and what the devices of one claim
// consume together must stay within what the counters have left. Asking
// the allocator "do k fit?" makes it try combinations of devices one
// after another; when k do not fit it tries them all, which grows
// exponentially with the partitions of a GPU (a MIG-capable A100 offers
// 14 partitions on one counter set). maxPacking answers the same question
// by counting instead:
//
//   - Devices that share no counter set do not interact: the devices are
//     split into components (devices joined by a counter they both
//     consume), and the most devices of the node is the sum of the most of
//     each component. Devices that consume no counter are components of
//     their own, of one.
//   - Within a component, devices that consume the same amounts of the
//     same counters are interchangeable: the search counts how many of
//     each such type it takes (a MIG GPU has four types: the whole GPU and
//     three partition sizes) instead of which ones.
//   - The search is a branch and bound over the types, more of a type
//     first, and it drops a branch when even an optimistic count cannot
//     beat the best found: for every counter, the remaining devices that
//     consume none of it plus what is left of the counter divided by the
//     smallest amount any remaining device takes of it.
//
// The search is exhaustive (the bound never drops a branch that could do
// better), so its count is the maximum; it stops at maxPackingSteps
// branches per component, deterministically, and then says its count is
// only what it found. Amounts are compared in thousandths (a counter's
// milli-value); a counter finer than that or beyond int64 makes the count
// unmodelled, and the caller asks the allocator instead.

// maxPackingSteps bounds the branches of one component's search: far above
// any partitioning a driver publishes (an A100's 14 partitions take a few
// dozen), low enough to bound a pathological input to well under a second.
const maxPackingSteps = 200_000

type counterKey struct {
	set     counterSetKey
	counter string
}

// packing is maxPacking's answer.
type packing struct {
	// chosen are devices that fit together, in the order given, as many
	// as can (up to the limit).
	chosen []*device
	// exact: no larger set fits (the search was exhaustive).
	exact bool
	// modelled: every amount could be compared exactly; when false,
	// chosen is empty and the caller must ask the allocator.
	modelled bool
}

// maxPacking finds the most of devs that fit together within what the
// counter sets have left, up to limit. A device that consumes from a set
// or counter its pool does not publish cannot be taken.
func maxPacking(devs []*device, sets map[counterSetKey]*counterSet, limit int) packing {
	items, free, ok := packItems(devs, sets)
	if !ok {
		return packing{}
	}
	comps, chosen, total := counterComponents(items)
	exact := true
	for _, c := range comps {
		if total >= limit {
			break
		}
		counts, compExact := c.pack(free, limit-total)
		exact = exact && compExact
		for i, it := range c.items {
			if counts[i] {
				chosen[it.d] = true
				total++
			}
		}
	}
	out := packing{exact: exact, modelled: true}
	for _, it := range items {
		if chosen[it.d] && len(out.chosen) < limit {
			out.chosen = append(out.chosen, it.d)
		}
	}
	return out
}

// packItem is a device that can be taken, with what it consumes from
// each counter (in milli-units).
type packItem struct {
	d    *device
	cons map[counterKey]int64
}

type poolKey struct{ driver, pool string }

// packItems lists the devices that can be taken and what each consumes,
// and what every counter they touch has left. ok is false when an amount
// cannot be compared exactly.
func packItems(devs []*device, sets map[counterSetKey]*counterSet) (items []packItem, free map[counterKey]int64, ok bool) {
	overdrawn := overdrawnPools(sets)
	free = map[counterKey]int64{}
	items = make([]packItem, 0, len(devs))
	for _, d := range devs {
		it, usable, ok := packItemFor(d, sets, overdrawn, free)
		if !ok {
			return nil, nil, false
		}
		if usable {
			items = append(items, it)
		}
	}
	return items, free, true
}

// overdrawnPools finds the pools with a counter below zero (allocations
// overdrew it). Such a counter blocks every device of its pool that
// consumes counters, as in the allocator, which checks all of a pool's
// counters whenever it takes such a device.
func overdrawnPools(sets map[counterSetKey]*counterSet) map[poolKey]bool {
	overdrawn := map[poolKey]bool{}
	for k, set := range sets {
		for name, total := range set.total {
			if c, ok := set.consumed[name]; ok && c.Cmp(total) > 0 {
				overdrawn[poolKey{k.driver, k.pool}] = true
			}
		}
	}
	return overdrawn
}

// packItemFor reads what one device consumes, filling in free for the
// counters met the first time. usable is false for a device that consumes
// from an overdrawn pool or from a set or counter its pool does not
// publish; ok is false when an amount cannot be compared exactly.
func packItemFor(d *device, sets map[counterSetKey]*counterSet, overdrawn map[poolKey]bool, free map[counterKey]int64) (it packItem, usable, ok bool) {
	it = packItem{d: d}
	usable = len(d.dev.ConsumesCounters) == 0 || !overdrawn[poolKey{d.key.Driver, d.key.Pool}]
	for _, cc := range d.dev.ConsumesCounters {
		if !usable {
			break
		}
		sk := counterSetKey{d.key.Driver, d.key.Pool, cc.CounterSet}
		set := sets[sk]
		if set == nil {
			usable = false
			break
		}
		for name, c := range cc.Counters {
			total, ok := set.total[name]
			if !ok {
				usable = false
				break
			}
			k := counterKey{sk, name}
			if _, seen := free[k]; !seen {
				left := total.DeepCopy()
				left.Sub(set.consumed[name])
				v, ok := milli(left)
				if !ok {
					return packItem{}, false, false
				}
				free[k] = v
			}
			v, ok := milli(c.Value)
			if !ok {
				return packItem{}, false, false
			}
			if it.cons == nil {
				it.cons = map[counterKey]int64{}
			}
			it.cons[k] += v
		}
		if !usable {
			break
		}
	}
	return it, usable, true
}

// packGroup is a set of items linked by the counters they share; groups
// share no counter, so each is packed on its own.
type packGroup struct {
	items []packItem
}

// counterComponents groups the items by shared counters (union-find over
// counters; a device joins the counters it consumes). Items that consume
// nothing always fit: they are chosen at once, and total counts them.
func counterComponents(items []packItem) (comps []*packGroup, chosen map[*device]bool, total int) {
	parent := map[counterKey]counterKey{}
	var find func(counterKey) counterKey
	find = func(k counterKey) counterKey {
		p, ok := parent[k]
		if !ok || p == k {
			parent[k] = k
			return k
		}
		r := find(p)
		parent[k] = r
		return r
	}
	for _, it := range items {
		var first *counterKey
		for _, k := range sortedKeys(it.cons) {
			if first == nil {
				r := find(k)
				first = &r
				continue
			}
			if r := find(k); r != *first {
				parent[r] = *first
			}
		}
	}
	byRoot := map[counterKey]*packGroup{}
	chosen = map[*device]bool{}
	for _, it := range items {
		if len(it.cons) == 0 {
			chosen[it.d] = true
			total++
			continue
		}
		r := find(sortedKeys(it.cons)[0])
		c := byRoot[r]
		if c == nil {
			c = &packGroup{}
			byRoot[r] = c
			comps = append(comps, c)
		}
		c.items = append(c.items, it)
	}
	return comps, chosen, total
}

// pack turns the group into vectors over its counters and packs them
// into what the counters have left, up to limit.
func (c *packGroup) pack(free map[counterKey]int64, limit int) ([]bool, bool) {
	keys := map[counterKey]bool{}
	for _, it := range c.items {
		for k := range it.cons {
			keys[k] = true
		}
	}
	keyList := sortedKeys(keys)
	vecs := make([][]int64, len(c.items))
	for i, it := range c.items {
		v := make([]int64, len(keyList))
		for j, k := range keyList {
			v[j] = it.cons[k]
		}
		vecs[i] = v
	}
	left := make([]int64, len(keyList))
	for j, k := range keyList {
		left[j] = free[k]
	}
	return packComponent(vecs, left, limit)
}

// packComponent finds the most items (consumption vectors over the
// component's counters) that fit together in left, up to limit; it
// returns which items it takes and whether the search was exhaustive.
func packComponent(vecs [][]int64, left []int64, limit int) ([]bool, bool) {
	kinds := packKinds(vecs, left)
	n := len(kinds)
	ps := &packSearch{kinds: kinds, limit: limit, best: -1, bestCounts: make([]int, n), counts: make([]int, n), rem: slices.Clone(left)}
	ps.suffixBounds(len(left))
	ps.search(0, 0)
	taken := make([]bool, len(vecs))
	for t, k := range kinds {
		for _, i := range k.members[:ps.bestCounts[t]] {
			taken[i] = true
		}
	}
	return taken, !ps.exhausted
}

// packKind is the items with the same vector.
type packKind struct {
	vec     []int64
	members []int
}

// packKinds groups the items by vector, in order of first appearance,
// then puts smaller devices first: the first branches of the search are
// then the greedy choice, which is usually the best, and the bound prunes
// the rest.
func packKinds(vecs [][]int64, left []int64) []*packKind {
	var kinds []*packKind
	for i, v := range vecs {
		found := false
		for _, k := range kinds {
			if slices.Equal(k.vec, v) {
				k.members = append(k.members, i)
				found = true
				break
			}
		}
		if !found {
			kinds = append(kinds, &packKind{vec: v, members: []int{i}})
		}
	}
	size := func(k *packKind) float64 {
		s := 0.0
		for j, c := range k.vec {
			if left[j] > 0 {
				s += float64(c) / float64(left[j])
			} else if c > 0 {
				s += math.Inf(1)
			}
		}
		return s
	}
	sort.SliceStable(kinds, func(i, j int) bool { return size(kinds[i]) < size(kinds[j]) })
	return kinds
}

// packSearch is packComponent's branch and bound over how many of each
// kind to take.
type packSearch struct {
	kinds []*packKind
	limit int
	// Per suffix of the kinds: how many devices remain, and per counter
	// how many of them consume none of it and the smallest amount the
	// others take.
	remaining []int
	zero      [][]int
	minPos    [][]int64

	best       int
	bestCounts []int
	counts     []int
	rem        []int64
	steps      int
	exhausted  bool
}

// suffixBounds precomputes, once per search, what bound needs for every
// suffix of the kinds.
func (ps *packSearch) suffixBounds(dims int) {
	kinds, n := ps.kinds, len(ps.kinds)
	remaining := make([]int, n+1)
	zero := make([][]int, n+1)
	minPos := make([][]int64, n+1)
	zero[n], minPos[n] = make([]int, dims), make([]int64, dims)
	for t := n - 1; t >= 0; t-- {
		remaining[t] = remaining[t+1] + len(kinds[t].members)
		zero[t], minPos[t] = slices.Clone(zero[t+1]), slices.Clone(minPos[t+1])
		for j, c := range kinds[t].vec {
			switch {
			case c <= 0:
				zero[t][j] += len(kinds[t].members)
			case minPos[t][j] == 0 || c < minPos[t][j]:
				minPos[t][j] = c
			}
		}
	}
	ps.remaining, ps.zero, ps.minPos = remaining, zero, minPos
}

// bound is the most devices the kinds from t on could still add within
// what is left.
func (ps *packSearch) bound(t int) int {
	b := ps.remaining[t]
	for j := 0; j < len(ps.rem); j++ {
		if ps.minPos[t][j] == 0 {
			continue
		}
		fit := ps.zero[t][j]
		if ps.rem[j] > 0 {
			fit += int(min(ps.rem[j]/ps.minPos[t][j], int64(ps.remaining[t])))
		}
		b = min(b, fit)
	}
	return b
}

// search tries, for kind t, from the most devices that fit down to none,
// so the first leaf is the greedy choice; it stops after maxPackingSteps
// and then the answer is not known to be the best.
func (ps *packSearch) search(t, count int) {
	ps.steps++
	if ps.steps > maxPackingSteps {
		ps.exhausted = true
		return
	}
	if count > ps.best {
		ps.best = count
		copy(ps.bestCounts, ps.counts)
	}
	if ps.best >= ps.limit || t == len(ps.kinds) || count+ps.bound(t) <= ps.best {
		return
	}
	k := ps.kinds[t]
	most := len(k.members)
	for j, c := range k.vec {
		if c <= 0 {
			continue
		}
		if ps.rem[j] < 0 {
			most = 0
			break
		}
		most = min(most, int(min(ps.rem[j]/c, int64(most))))
	}
	most = min(most, ps.limit-count)
	for c := most; c >= 0 && !ps.exhausted; c-- {
		ps.counts[t] = c
		for j, v := range k.vec {
			ps.rem[j] -= int64(c) * v
		}
		ps.search(t+1, count+c)
		for j, v := range k.vec {
			ps.rem[j] += int64(c) * v
		}
	}
	ps.counts[t] = 0
}

// milli is q in thousandths, when that is exact and fits in an int64
// with room for sums of a claim's devices.
func milli(q resource.Quantity) (int64, bool) {
	const most = math.MaxInt64 / 1024
	if q.CmpInt64(most/1000) > 0 || q.CmpInt64(-most/1000) < 0 {
		return 0, false
	}
	v := q.MilliValue()
	if resource.NewMilliQuantity(v, q.Format).Cmp(q) != 0 {
		return 0, false
	}
	return v, true
}

func sortedKeys[V any](m map[counterKey]V) []counterKey {
	keys := make([]counterKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.set != b.set {
			if a.set.driver != b.set.driver {
				return a.set.driver < b.set.driver
			}
			if a.set.pool != b.set.pool {
				return a.set.pool < b.set.pool
			}
			return a.set.name < b.set.name
		}
		return a.counter < b.counter
	})
	return keys
}
