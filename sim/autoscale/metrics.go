package autoscale

import (
	"sort"

	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/inventory"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
)

// leastWaste is cluster-autoscaler's least-waste measure of an option:
// the share of the new nodes' CPU and memory capacity that the option's
// pods do not request (their requests, podRequests, against
// Status.Capacity).
func leastWaste(template *v1.Node, nodes int, pods []*v1.Pod) (cpu, mem float64) {
	var reqCPU, reqMem int64
	for _, p := range pods {
		c, m := podRequests(p)
		reqCPU += c
		reqMem += m
	}
	availCPU := template.Status.Capacity.Cpu().MilliValue() * int64(nodes)
	availMem := template.Status.Capacity.Memory().Value() * int64(nodes)
	if availCPU > 0 {
		cpu = float64(availCPU-reqCPU) / float64(availCPU)
	}
	if availMem > 0 {
		mem = float64(availMem-reqMem) / float64(availMem)
	}
	return cpu, mem
}

// deviceUnit is one thing that can sit idle on a node: a device that
// consumes no shared counters, or a counter set (a partitionable device
// such as a MIG-capable GPU, whose partitions are views of it).
type deviceUnit struct {
	weight float64
	idle   float64 // 0..1
}

// deviceWaste is drasim's device term for least-waste-dra: the weighted
// idle share of the device units on the estimate's new nodes. A device's
// weight is the largest weight among the DeviceClasses that select it
// (1 unless --device-class-weights says otherwise); a counter set weighs
// as much as the heaviest device that consumes it and is idle by the
// unconsumed share of its counters. Devices no class selects cannot be
// requested and do not count.
func deviceWaste(c *cluster.Cluster, m *inventory.Matcher, weights map[string]float64, nodes []string) (waste float64, units int, idle float64) {
	onNode := map[string]bool{}
	for _, n := range nodes {
		onNode[n] = true
	}
	used := inventory.Allocated(c.DRA().Claims())
	totals := map[wasteCounter]float64{}
	consumed := map[wasteCounter]float64{}
	setWeight := map[wasteSet]float64{}
	var sets []wasteSet
	var list []deviceUnit
	weightOf := func(d inventory.Device) float64 {
		w := 0.0
		for _, class := range m.ClassesOf(d) {
			cw := 1.0
			if x, ok := weights[class]; ok {
				cw = x
			}
			w = max(w, cw)
		}
		return w
	}
	// Older generations of a pool are not devices the allocator can use.
	for _, sl := range inventory.Current(c.DRA().Slices()) {
		if sl.Spec.NodeName == nil || !onNode[*sl.Spec.NodeName] {
			continue
		}
		for _, cs := range sl.Spec.SharedCounters {
			k := wasteSet{sl.Spec.Driver, sl.Spec.Pool.Name, cs.Name}
			if _, seen := setWeight[k]; !seen {
				setWeight[k] = 0
				sets = append(sets, k)
			}
			for name, ctr := range cs.Counters {
				totals[wasteCounter{k, name}] += ctr.Value.AsApproximateFloat64()
			}
		}
		for i := range sl.Spec.Devices {
			d := &sl.Spec.Devices[i]
			w := weightOf(inventory.DeviceOf(sl, d))
			isUsed := used[inventory.DeviceID{Driver: sl.Spec.Driver, Pool: sl.Spec.Pool.Name, Device: d.Name}].InUse()
			if len(d.ConsumesCounters) == 0 {
				if w > 0 {
					u := deviceUnit{weight: w, idle: 1}
					if isUsed {
						u.idle = 0
					}
					list = append(list, u)
				}
				continue
			}
			for _, cc := range d.ConsumesCounters {
				k := wasteSet{sl.Spec.Driver, sl.Spec.Pool.Name, cc.CounterSet}
				setWeight[k] = max(setWeight[k], w)
				if !isUsed {
					continue
				}
				for name, ctr := range cc.Counters {
					consumed[wasteCounter{k, name}] += ctr.Value.AsApproximateFloat64()
				}
			}
		}
	}
	list = append(list, counterSetUnits(sets, setWeight, totals, consumed)...)
	var wIdle, wTotal float64
	for _, u := range list {
		wIdle += u.weight * u.idle
		wTotal += u.weight
		idle += u.idle
	}
	if wTotal > 0 {
		waste = wIdle / wTotal
	}
	return waste, len(list), idle
}

// wasteSet names a counter set of a pool; wasteCounter one counter of it.
type wasteSet struct{ driver, pool, set string }

type wasteCounter struct {
	wasteSet
	counter string
}

// counterSetUnits makes a unit of every counter set some weighted class
// draws on: idle by the mean share of its counters not consumed.
func counterSetUnits(sets []wasteSet, setWeight map[wasteSet]float64, totals, consumed map[wasteCounter]float64) []deviceUnit {
	var list []deviceUnit
	for _, k := range sets {
		if setWeight[k] == 0 {
			continue
		}
		// Sum in counter-name order: float sums must not depend on map order.
		var names []string
		for ck := range totals {
			if ck.wasteSet == k {
				names = append(names, ck.counter)
			}
		}
		sort.Strings(names)
		var sum float64
		n := 0
		for _, name := range names {
			ck := wasteCounter{k, name}
			if totals[ck] <= 0 {
				continue
			}
			sum += 1 - min(1, consumed[ck]/totals[ck])
			n++
		}
		if n == 0 {
			continue
		}
		list = append(list, deviceUnit{weight: setWeight[k], idle: sum / float64(n)})
	}
	return list
}

// prioritizedListScore is the DynamicResources score of the pods'
// allocations, as the scheduler computes it for a node: per claim, for
// every request with firstAvailable, 8 minus the index of the subrequest
// the allocator chose. It returns the sum over the pods that have such a
// request, and their number.
func prioritizedListScore(k *checker, pods []*v1.Pod) (total int64, withList int) {
	for _, pod := range pods {
		claims, err := k.dra.PodClaims(pod)
		if err != nil {
			continue
		}
		has := false
		for _, c := range claims {
			chosen := map[string]bool{}
			if c.Status.Allocation != nil {
				for _, r := range c.Status.Allocation.Devices.Results {
					if resourceclaim.IsSubRequestRef(r.Request) {
						chosen[r.Request] = true
					}
				}
			}
			for _, req := range c.Spec.Devices.Requests {
				if len(req.FirstAvailable) == 0 {
					continue
				}
				has = true
				for i, sub := range req.FirstAvailable {
					if chosen[resourceclaim.CreateSubRequestRef(req.Name, sub.Name)] {
						total += int64(resourceapi.FirstAvailableDeviceRequestMaxSize - i)
					}
				}
			}
		}
		if has {
			withList++
		}
	}
	return total, withList
}
