package policy

import (
	"cmp"
	"slices"
	"sync"

	"github.com/drasim/drasim/sim/inventory"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/structured"
)

// How DRA devices become the GPUs the policies count (docs/policies.md):
//   - a device that consumes counters (a partition, a MIG-like profile)
//     belongs to the GPU of its counter set: the GPU is the set, and what
//     is left of it is its least available counter;
//   - a device with allowMultipleAllocations and capacity (a GPU shared
//     by consumable capacity, as openb's import makes them) is a GPU, and
//     what is left of it is its least available capacity;
//   - any other device is a whole GPU: all of it is left, or none.
// GPUs are in the allocator's order: pools by driver and name, slices by
// name, devices in slice order (a counter set's GPU stands where its first
// partition does).

type gpuKind uint8

const (
	kindWhole gpuKind = iota
	kindCapacity
	kindCounters
)

// devRef is one device of a node's slices.
type devRef struct {
	slice, dev int
	id         structured.DeviceID
	inv        inventory.Device
}

// gpu is one GPU of a node: its devices, and for counter sets the set.
type gpu struct {
	kind gpuKind
	devs []devRef
	set  resourceapi.CounterSet
}

// nodeDevices is what a node's slices hold, as GPUs. Its caches of which
// requests may use which GPUs are filled under mu.
type nodeDevices struct {
	name   string
	slices []*resourceapi.ResourceSlice
	gpus   []gpu

	mu     sync.Mutex
	access map[string][]bool // by request key; nil: every GPU
	// typical is access per workload shape, and sig its interned key.
	typical      [][]bool
	typicalDone  bool
	uniform      bool
	typicalSigID uint32

	// fgd caches FGD's answers for the node's current state (CPU and GPUs
	// left): with pods arriving one at a time, one node changes per pod
	// and the others answer from here.
	fgdCPU  int64
	fgdLeft []int64
	fgd     map[Shape]fgdAnswer

	// leftOf caches left for the node's allocation class (dra's NodeKey),
	// which changes whenever an allocation on the node does.
	leftKey   [2]uint64
	leftValid bool
	leftOf    []int64
}

type fgdAnswer struct {
	score  int64
	chosen []int
}

// fgdCached returns FGD's answer for the shape on the node in state v,
// computing it with f when the node changed or the shape is new.
func (n *nodeDevices) fgdCached(v View, s Shape, f func() (int64, []int)) (int64, []int) {
	n.mu.Lock()
	if n.fgd == nil || n.fgdCPU != v.MilliCPULeft || !slices.Equal(n.fgdLeft, v.Left) {
		n.fgdCPU, n.fgdLeft, n.fgd = v.MilliCPULeft, slices.Clone(v.Left), map[Shape]fgdAnswer{}
	}
	a, ok := n.fgd[s]
	n.mu.Unlock()
	if ok {
		return a.score, a.chosen
	}
	score, chosen := f()
	n.mu.Lock()
	if n.fgdCPU == v.MilliCPULeft && slices.Equal(n.fgdLeft, v.Left) {
		n.fgd[s] = fgdAnswer{score: score, chosen: chosen}
	}
	n.mu.Unlock()
	return score, chosen
}

// indexNodes groups the current slices local to one node, of the drivers
// given (all when empty), by node, and makes their GPUs.
func indexNodes(all []*resourceapi.ResourceSlice, drivers []string) map[string]*nodeDevices {
	out := map[string]*nodeDevices{}
	for _, sl := range inventory.Current(all) {
		if sl.Spec.NodeName == nil || *sl.Spec.NodeName == "" {
			continue
		}
		if len(drivers) > 0 && !slices.Contains(drivers, sl.Spec.Driver) {
			continue
		}
		n := out[*sl.Spec.NodeName]
		if n == nil {
			n = &nodeDevices{name: *sl.Spec.NodeName}
			out[n.name] = n
		}
		n.slices = append(n.slices, sl)
	}
	for _, n := range out {
		slices.SortFunc(n.slices, func(a, b *resourceapi.ResourceSlice) int {
			return cmp.Or(cmp.Compare(a.Spec.Driver, b.Spec.Driver), cmp.Compare(a.Spec.Pool.Name, b.Spec.Pool.Name), cmp.Compare(a.Name, b.Name))
		})
		n.makeGPUs()
	}
	return out
}

func (n *nodeDevices) makeGPUs() {
	type setKey struct{ driver, pool, set string }
	sets := map[setKey]int{}
	poolSets := map[setKey]resourceapi.CounterSet{}
	for _, sl := range n.slices {
		for _, cs := range sl.Spec.SharedCounters {
			poolSets[setKey{sl.Spec.Driver, sl.Spec.Pool.Name, cs.Name}] = cs
		}
	}
	for si, sl := range n.slices {
		for di := range sl.Spec.Devices {
			d := &sl.Spec.Devices[di]
			ref := devRef{slice: si, dev: di, id: structured.MakeDeviceID(sl.Spec.Driver, sl.Spec.Pool.Name, d.Name), inv: inventory.DeviceOf(sl, d)}
			if len(d.ConsumesCounters) > 0 {
				k := setKey{sl.Spec.Driver, sl.Spec.Pool.Name, d.ConsumesCounters[0].CounterSet}
				if set, ok := poolSets[k]; ok {
					if g, seen := sets[k]; seen {
						n.gpus[g].devs = append(n.gpus[g].devs, ref)
						continue
					}
					sets[k] = len(n.gpus)
					n.gpus = append(n.gpus, gpu{kind: kindCounters, devs: []devRef{ref}, set: set})
					continue
				}
			}
			kind := kindWhole
			if d.AllowMultipleAllocations != nil && *d.AllowMultipleAllocations && len(d.Capacity) > 0 {
				kind = kindCapacity
			}
			n.gpus = append(n.gpus, gpu{kind: kind, devs: []devRef{ref}})
		}
	}
}

// left computes what is left of each GPU, in milli, from the allocated
// devices and consumed capacity.
func (n *nodeDevices) left(st *structured.AllocatedState, out []int64) []int64 {
	out = out[:0]
	for gi := range n.gpus {
		g := &n.gpus[gi]
		switch g.kind {
		case kindWhole:
			l := int64(Milli)
			if st.AllocatedDevices.Has(g.devs[0].id) {
				l = 0
			}
			out = append(out, l)
		case kindCapacity:
			ref := g.devs[0]
			if st.AllocatedDevices.Has(ref.id) {
				out = append(out, 0)
				continue
			}
			l := int64(Milli)
			consumed := st.AggregatedCapacity[ref.id]
			for name, c := range n.slices[ref.slice].Spec.Devices[ref.dev].Capacity {
				total := c.Value.MilliValue()
				if total <= 0 {
					continue
				}
				var used int64
				if q := consumed[name]; q != nil {
					used = q.MilliValue()
				}
				l = min(l, max(total-used, 0)*Milli/total)
			}
			out = append(out, l)
		case kindCounters:
			l := int64(Milli)
			for name, c := range g.set.Counters {
				total := c.Value.MilliValue()
				if total <= 0 {
					continue
				}
				var used int64
				for _, ref := range g.devs {
					if !st.AllocatedDevices.Has(ref.id) {
						continue
					}
					for _, cc := range n.slices[ref.slice].Spec.Devices[ref.dev].ConsumesCounters {
						if cc.CounterSet != g.set.Name {
							continue
						}
						if u, ok := cc.Counters[name]; ok {
							used += u.Value.MilliValue()
						}
					}
				}
				l = min(l, max(total-used, 0)*Milli/total)
			}
			out = append(out, l)
		}
	}
	return out
}
