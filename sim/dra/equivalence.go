package dra

import (
	"slices"
	"sort"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/utils/ptr"
)

// Node equivalence for allocation. The allocator's answer on a node depends
// only on the claims, the slices available to the node and which of their
// devices are allocated. When every slice is local to one node (spec.nodeName,
// no node selectors), two nodes whose pools hold the same devices (names,
// attributes, capacities, counters, taints) with the same ones allocated get
// the same answer, up to the pool names and the node name in the allocation's
// node selector. drasim asks the allocator once per such class of nodes and
// per pod, and translates the answer for the other nodes of the class. The
// reference engine (Options.Reference) asks for every node, for comparison.

// nodePools is what the state knows about one node's device pools.
type nodePools struct {
	// pools are the node's pool names, sorted as the allocator sorts pools
	// (by driver, then name).
	pools []poolRef
	// static hashes the pools' content without their names.
	static uint64
	// dynamic hashes which of the node's devices are allocated; zero when
	// none is.
	dynamic uint64
}

type poolRef struct{ driver, name string }

// indexNodes computes each node's pool structure. Equivalence is switched
// off when any slice is not local to a single node, because then node labels
// decide which devices a node sees.
func (s *State) indexNodes() {
	s.nodes = map[string]*nodePools{}
	s.poolNode = map[poolRef]string{}
	s.nodeSlices = map[string][]*resourceapi.ResourceSlice{}
	s.equivalence = true
	s.indexSlices(s.slices)
}

// indexSlices adds slices to the node index: the pools they form and the
// static hash of every node that gets a pool. Adding a slice to a pool
// that is already indexed re-hashes that pool's node from all its slices.
func (s *State) indexSlices(slices []*resourceapi.ResourceSlice) {
	if !s.equivalence {
		return
	}
	// New pools may change any node's class, or switch equivalence off.
	s.epoch++
	touched := map[string]bool{}
	for _, sl := range slices {
		name := ptr.Deref(sl.Spec.NodeName, "")
		if name == "" {
			s.equivalence = false
			return
		}
		ref := poolRef{sl.Spec.Driver, sl.Spec.Pool.Name}
		if owner, seen := s.poolNode[ref]; seen && owner != name {
			s.equivalence = false // a pool spread over several nodes
			return
		} else if !seen {
			np := s.nodes[name]
			if np == nil {
				np = &nodePools{}
				s.nodes[name] = np
			}
			np.pools = append(np.pools, ref)
		}
		s.poolNode[ref] = name
		touched[name] = true
		list := s.nodeSlices[name]
		s.nodeSlices[name] = append(list[:len(list):len(list)], sl)
	}
	if len(touched) == 0 {
		return
	}
	byPool := map[poolRef][]*resourceapi.ResourceSlice{}
	for _, sl := range s.slices {
		ref := poolRef{sl.Spec.Driver, sl.Spec.Pool.Name}
		if touched[s.poolNode[ref]] {
			byPool[ref] = append(byPool[ref], sl)
		}
	}
	h := newSliceHasher()
	for name := range touched {
		np := s.nodes[name]
		sort.Slice(np.pools, func(i, j int) bool {
			if np.pools[i].driver != np.pools[j].driver {
				return np.pools[i].driver < np.pools[j].driver
			}
			return np.pools[i].name < np.pools[j].name
		})
		h.reset()
		for _, ref := range np.pools {
			for _, sl := range byPool[ref] {
				h.spec(&sl.Spec) // without the node and pool names
				h.byte(0)
			}
			h.byte(1)
		}
		np.static = h.sum()
		s.version++
	}
}

// refreshDynamic recomputes the allocation hash of the nodes that own the
// given pools. The hash is made of each pool's fact sum (recordHashedFact), so
// it costs a few operations per pool, not a pass over the node's
// allocations: the scale-down's drain simulations take pods off nodes
// and put them back (journal undo) thousands of times per loop.
func (s *State) refreshDynamic(pools []poolRef) {
	if !s.equivalence {
		return
	}
	var done []*nodePools
	for _, ref := range pools {
		n, ok := s.poolNode[ref]
		if !ok {
			continue
		}
		np := s.nodes[n]
		if np == nil || slices.Contains(done, np) {
			continue
		}
		done = append(done, np)
		s.version++
		if len(s.changedPools) >= maxChangedPools {
			s.changedBase += len(s.changedPools)
			s.changedPools = s.changedPools[:0]
		}
		s.changedPools = append(s.changedPools, np)
		np.dynamic = s.dynamicHash(np)
	}
}

// dynamicHash hashes which facts each of the node's pools holds, pool by
// pool in their sorted order; zero when none holds any.
func (s *State) dynamicHash(np *nodePools) uint64 {
	var h uint64
	any := false
	for i, ref := range np.pools {
		set := s.poolFacts[ref]
		if set == nil {
			continue
		}
		any = true
		h = h*0x100000001b3 ^ mix64(set.sum+uint64(i+1)*0x9e3779b97f4a7c15)
	}
	if !any {
		return 0
	}
	return h | 1
}

// mix64 is splitmix64's finalizer: it spreads a hash's bits, so that sums
// of mixed fact hashes differ whenever the sets of facts do (up to a
// 64-bit collision).
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// factHash is the mixed 64-bit FNV-1a hash of a fact, computed in place
// (hash/fnv's would allocate for every fact recorded or forgotten).
func factHash(fact string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(fact); i++ {
		h ^= uint64(fact[i])
		h *= 1099511628211
	}
	return mix64(h)
}

// recordHashedFact remembers one allocation fact of a pool, as the
// allocator sees it, without the pool's name: an exclusively allocated
// device, a shared allocation, or consumed capacity. hash is what the
// fact adds to the pool's fact sum (factHash of the fact, or of the part
// of it that tells nodes apart).
func (s *State) recordHashedFact(ref poolRef, fact string, hash uint64) {
	if !s.equivalence {
		return
	}
	set := s.poolFacts[ref]
	if set == nil {
		set = &poolFactSet{facts: map[string]bool{}}
		s.poolFacts[ref] = set
	}
	if !set.facts[fact] {
		set.facts[fact] = true
		set.sum += hash
	}
}

// poolFactSet is one pool's allocation facts and the sum of their hashes.
// A fact is recorded once however often it is reported (a claim's
// allocation can be tracked again); its hash may leave out part of it
// (a share's ID), so that distinct facts weigh alike in the sum.
type poolFactSet struct {
	facts map[string]bool
	sum   uint64
}

// nodeClass returns the equivalence key of a node, or false when the node
// must be asked on its own.
func (s *State) nodeClass(node string) (classKey, bool) {
	if !s.equivalence {
		return classKey{}, false
	}
	np := s.nodes[node]
	if np == nil {
		return classKey{}, true // no devices at all: all such nodes are alike
	}
	return np.key(), true
}

// key is the node's equivalence key.
func (np *nodePools) key() classKey {
	return classKey{static: np.static, dynamic: np.dynamic, pools: len(np.pools)}
}

type classKey struct {
	static, dynamic uint64
	pools           int
}

// translate rewrites allocation results computed on node from for node to:
// pool names by position in the sorted pool lists, and the node name in the
// allocation's node selector.
func (s *State) translate(results []resourceapi.AllocationResult, from, to string) []resourceapi.AllocationResult {
	if from == to {
		return results
	}
	rename := map[poolRef]string{}
	fromPools := s.retired[from]
	if a := s.nodes[from]; a != nil {
		fromPools = a.pools
	}
	if b := s.nodes[to]; fromPools != nil && b != nil {
		for i := range fromPools {
			rename[fromPools[i]] = b.pools[i].name
		}
	}
	out := make([]resourceapi.AllocationResult, len(results))
	for i := range results {
		r := results[i].DeepCopy()
		for j := range r.Devices.Results {
			d := &r.Devices.Results[j]
			if name, ok := rename[poolRef{d.Driver, d.Pool}]; ok {
				d.Pool = name
			}
		}
		if ns := r.NodeSelector; ns != nil {
			for t := range ns.NodeSelectorTerms {
				for k := range ns.NodeSelectorTerms[t].MatchFields {
					f := &ns.NodeSelectorTerms[t].MatchFields[k]
					if f.Key == "metadata.name" {
						for v := range f.Values {
							if f.Values[v] == from {
								f.Values[v] = to
							}
						}
					}
				}
			}
		}
		out[i] = *r
	}
	return out
}

// forgetHashedFact drops a fact recordHashedFact recorded, with the same
// hash (the device is free again).
func (s *State) forgetHashedFact(ref poolRef, fact string, hash uint64) {
	if !s.equivalence {
		return
	}
	if set := s.poolFacts[ref]; set != nil && set.facts[fact] {
		delete(set.facts, fact)
		set.sum -= hash
		if len(set.facts) == 0 {
			delete(s.poolFacts, ref)
		}
	}
}
