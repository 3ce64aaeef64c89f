package fill

import (
	"fmt"
	"math"

	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/inventory"
	resourceapi "k8s.io/api/resource/v1"
)

// state follows the counted devices' use and each node's fragmentation
// as pods are placed; only the node a pod went to is measured again.
type state struct {
	inv    *stock
	c      *cluster.Cluster
	shapes []shape
	// left is each device's idle share, in milli-devices.
	left []int64
	// nodeIdx is each node's index in inv.nodes; frag its fragmented
	// idle milli-devices.
	nodeIdx map[string]int
	frag    []float64
	used    int64
	sumFrag float64
}

// event is the cluster after one pod: the requested milli-devices so far,
// the allocated ones, and the fragmented idle ones.
type event struct {
	arrived, used int64
	frag          float64
}

func newState(inv *stock, c *cluster.Cluster, shapes []shape) *state {
	st := &state{inv: inv, c: c, shapes: shapes, left: make([]int64, len(inv.devices)), nodeIdx: map[string]int{}, frag: make([]float64, len(inv.nodes))}
	for i := range st.left {
		st.left[i] = milli
	}
	for i, n := range inv.nodes {
		st.nodeIdx[n] = i
	}
	for i := range shapes {
		shapes[i].selects = inv.selects(shapes[i].req)
	}
	for _, n := range inv.nodes {
		st.nodeChanged(n)
	}
	return st
}

// claimed takes the devices of allocated claims: a result with consumed
// capacity takes its share of the device (the largest fraction over its
// capacities), any other the whole device.
func (st *state) claimed(claims []*resourceapi.ResourceClaim) error {
	for _, c := range claims {
		if c.Status.Allocation == nil {
			continue
		}
		for _, r := range c.Status.Allocation.Devices.Results {
			i, ok := st.inv.byID[inventory.DeviceID{Driver: r.Driver, Pool: r.Pool, Device: r.Device}]
			if !ok {
				continue
			}
			take := int64(milli)
			if len(r.ConsumedCapacity) > 0 {
				take = 0
				caps := st.inv.devices[i].Device.Device.Capacity
				for _, name := range sortedNames(r.ConsumedCapacity) {
					if dc, ok := caps[name]; ok {
						take = max(take, fraction(r.ConsumedCapacity[name], dc.Value))
					}
				}
				take = min(take, milli)
			}
			if take > st.left[i] {
				return fmt.Errorf("internal error: claim %s/%s takes %d milli of device %s, which has %d left", c.Namespace, c.Name, take, st.inv.devices[i].ID, st.left[i])
			}
			st.left[i] -= take
			st.used += take
			st.nodeChanged(st.inv.devices[i].node)
		}
	}
	return nil
}

// nodeChanged measures a node's fragmentation again.
func (st *state) nodeChanged(node string) {
	k, ok := st.nodeIdx[node]
	if !ok {
		return
	}
	f := st.nodeFrag(node)
	st.sumFrag += f - st.frag[k]
	st.frag[k] = f
}

// nodeFrag is the paper's fragmentation of a node's idle devices
// (NodeGpuShareFragAmount, summed except Q3): for each typical shape m,
// weighted by its share p_m, the idle share of every device of the node
// when m cannot run there (it asks for no device, its class or
// selectors reach none of the node's devices, too few devices have m's
// share left, or the CPU left is short of m's), else the idle share of
// the devices with less than m's share left.
func (st *state) nodeFrag(node string) float64 {
	devs := st.inv.ofNode[node]
	var idle int64
	for _, i := range devs {
		idle += st.left[i]
	}
	if idle == 0 {
		return 0
	}
	cpuLeft := int64(math.MaxInt64)
	if ni := st.c.Node(node); ni != nil && ni.Allocatable != nil && ni.Requested != nil {
		cpuLeft = ni.Allocatable.MilliCPU - ni.Requested.MilliCPU
	}
	var frag float64
	for _, m := range st.shapes {
		if m.selects == nil || cpuLeft < m.MilliCPU {
			frag += m.Weight * float64(idle)
			continue
		}
		var fits, short int64
		for _, i := range devs {
			if st.left[i] < m.MilliDevice {
				short += st.left[i]
			} else if m.selects[i] {
				fits++
			}
		}
		if fits >= m.Devices {
			frag += m.Weight * float64(short)
		} else {
			frag += m.Weight * float64(idle)
		}
	}
	return frag
}

func (st *state) event(arrived int64) event {
	return event{arrived: arrived, used: st.used, frag: st.sumFrag}
}

// bin turns the events into the curve at every percent of arrived
// capacity from 0 to the target, as the paper's merge scripts do: a
// pod's arrival is rounded to a whole percent; a point is the mean over
// the pods of its percent (or, when there are none, of the pods within
// one percent of it; no point when there are none either). Allocation
// is rounded to 0.01 per pod before the mean, fragmentation rates too
// (the simulator logs them so).
func bin(events []event, capacity int64, target float64) []Point {
	last := int(math.Round(target * 100))
	type acc struct {
		n                int
		alloc, frag, rat float64
	}
	bins := make([]acc, last+2)
	for _, e := range events {
		k := int(math.RoundToEven(100 * float64(e.arrived) / float64(capacity)))
		if k < 0 || k > last+1 {
			continue
		}
		b := &bins[k]
		b.n++
		b.alloc += round(100*float64(e.used)/float64(capacity), 2)
		b.frag += e.frag
		if idle := float64(capacity - e.used); idle > 0 {
			b.rat += round(100*e.frag/idle, 2)
		}
	}
	var out []Point
	for k := 0; k <= last; k++ {
		b := bins[k]
		pods := b.n
		if b.n == 0 {
			for _, j := range []int{k - 1, k + 1} {
				if j >= 0 && j < len(bins) {
					b.n += bins[j].n
					b.alloc += bins[j].alloc
					b.frag += bins[j].frag
					b.rat += bins[j].rat
				}
			}
		}
		if b.n == 0 {
			continue
		}
		n := float64(b.n)
		out = append(out, Point{Arrived: k, Allocation: round(b.alloc/n, 2), Fragmentation: round(100*b.frag/n/float64(capacity), 2),
			FragmentationRate: round(b.rat/n, 2), Pods: pods})
	}
	return out
}
