// Package invariants checks what must hold after every simulation, whatever
// the input: no device allocated twice (unless admin access or a shared
// allocation within capacity), no shared counter or consumable capacity
// over-consumed, no node's allocatable exceeded, and every scheduled pod's
// claims allocated and reserved for it. Tests call Check after each run.
package invariants

import (
	"fmt"
	"sort"

	"github.com/drasim/drasim/sim"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

// Check returns every violated invariant, as sentences; none means the run
// is consistent.
func Check(run *sim.Run) []string {
	ck := &checker{run: run}
	devices := deviceIndex(run)
	consumed, counters := ck.tallyAllocations(devices)
	ck.checkConsumedCapacity(devices, consumed)
	ck.checkCounters(counters)
	ck.checkNodes()
	ck.checkScheduledPods()
	return ck.problems
}

// checker gathers the problems Check finds.
type checker struct {
	run      *sim.Run
	problems []string
}

func (ck *checker) add(format string, args ...any) {
	ck.problems = append(ck.problems, fmt.Sprintf(format, args...))
}

type devKey struct{ driver, pool, device string }

// counterKey is a driver, a pool and counter set ("pool/set"), and a counter.
type counterKey = [3]string

// deviceIndex finds every published device by driver, pool and name.
func deviceIndex(run *sim.Run) map[devKey]*resourceapi.Device {
	devices := map[devKey]*resourceapi.Device{}
	for _, sl := range run.Cluster.DRA().Slices() {
		for i := range sl.Spec.Devices {
			k := devKey{sl.Spec.Driver, sl.Spec.Pool.Name, sl.Spec.Devices[i].Name}
			devices[k] = &sl.Spec.Devices[i]
		}
	}
	return devices
}

// tallyAllocations walks the allocated claims: it reports devices that do
// not exist or are taken twice exclusively, and sums what shared devices
// give out (consumed capacity) and what every device takes from its
// pool's counters.
func (ck *checker) tallyAllocations(devices map[devKey]*resourceapi.Device) (map[devKey]map[resourceapi.QualifiedName]resource.Quantity, map[counterKey]resource.Quantity) {
	// Allocations that came with the snapshot may name devices the dump
	// does not hold (a partial dump); validate reports those. Only
	// allocations drasim made must name real devices.
	fromInput := map[string]bool{}
	for _, c := range ck.run.Cluster.Snapshot().ResourceClaims {
		if c.Status.Allocation != nil {
			fromInput[c.Namespace+"/"+c.Name] = true
		}
	}
	exclusive := map[devKey]string{}
	consumed := map[devKey]map[resourceapi.QualifiedName]resource.Quantity{}
	counters := map[[3]string]resource.Quantity{} // driver, pool+set, counter
	for _, c := range ck.run.Cluster.DRA().Claims() {
		if c.Status.Allocation == nil {
			continue
		}
		claim := c.Namespace + "/" + c.Name
		for _, r := range c.Status.Allocation.Devices.Results {
			k := devKey{r.Driver, r.Pool, r.Device}
			dev := devices[k]
			if dev == nil {
				if !fromInput[claim] {
					ck.add("claim %s: allocated device %s/%s/%s does not exist", claim, r.Driver, r.Pool, r.Device)
				}
				continue
			}
			if ptr.Deref(r.AdminAccess, false) {
				continue
			}
			if r.ShareID != nil || ptr.Deref(dev.AllowMultipleAllocations, false) {
				if consumed[k] == nil {
					consumed[k] = map[resourceapi.QualifiedName]resource.Quantity{}
				}
				for name, q := range r.ConsumedCapacity {
					sum := consumed[k][name]
					sum.Add(q)
					consumed[k][name] = sum
				}
			} else {
				if other, taken := exclusive[k]; taken {
					ck.add("device %s/%s/%s allocated twice: to %s and %s", r.Driver, r.Pool, r.Device, other, claim)
				}
				exclusive[k] = claim
			}
			for _, cc := range dev.ConsumesCounters {
				for name, ctr := range cc.Counters {
					key := [3]string{r.Driver, r.Pool + "/" + cc.CounterSet, name}
					sum := counters[key]
					sum.Add(ctr.Value)
					counters[key] = sum
				}
			}
		}
	}
	return consumed, counters
}

// checkConsumedCapacity checks that no shared device gives out more of a
// capacity than it has.
func (ck *checker) checkConsumedCapacity(devices map[devKey]*resourceapi.Device, consumed map[devKey]map[resourceapi.QualifiedName]resource.Quantity) {
	for k, used := range consumed {
		dev := devices[k]
		for name, q := range used {
			capQ, ok := dev.Capacity[name]
			if ok && q.Cmp(capQ.Value) > 0 {
				ck.add("device %s/%s/%s: capacity %s over-consumed: %s of %s", k.driver, k.pool, k.device, name, q.String(), capQ.Value.String())
			}
		}
	}
}

// checkCounters compares what the devices take from each shared counter
// with what its slice publishes, in a fixed order.
func (ck *checker) checkCounters(counters map[counterKey]resource.Quantity) {
	available := map[[3]string]resource.Quantity{}
	for _, sl := range ck.run.Cluster.DRA().Slices() {
		for _, cs := range sl.Spec.SharedCounters {
			for name, ctr := range cs.Counters {
				available[[3]string{sl.Spec.Driver, sl.Spec.Pool.Name + "/" + cs.Name, name}] = ctr.Value
			}
		}
	}
	keys := make([][3]string, 0, len(counters))
	for k := range counters {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
	for _, k := range keys {
		q := counters[k]
		if avail, ok := available[k]; ok && q.Cmp(avail) > 0 {
			ck.add("counter %s in %s of driver %s over-consumed: %s of %s", k[2], k[1], k[0], q.String(), avail.String())
		}
	}

}

// checkNodes checks that no node that received pods in this run holds more
// than it can.
func (ck *checker) checkNodes() {
	for _, ni := range ck.run.Cluster.Nodes() {
		name := ni.Node().Name
		if ni.Requested.MilliCPU > ni.Allocatable.MilliCPU && scheduledOn(ck.run, name) {
			ck.add("node %s: cpu requested %dm exceeds allocatable %dm", name, ni.Requested.MilliCPU, ni.Allocatable.MilliCPU)
		}
		if ni.Requested.Memory > ni.Allocatable.Memory && scheduledOn(ck.run, name) {
			ck.add("node %s: memory requested %d exceeds allocatable %d", name, ni.Requested.Memory, ni.Allocatable.Memory)
		}
		if len(ni.Pods) > ni.Allocatable.AllowedPodNumber && scheduledOn(ck.run, name) {
			ck.add("node %s: %d pods exceed the %d allowed", name, len(ni.Pods), ni.Allocatable.AllowedPodNumber)
		}
	}

}

// checkScheduledPods checks that every scheduled pod is in the cluster
// with its claims allocated and reserved for it.
func (ck *checker) checkScheduledPods() {
	byKey := map[string]*v1.Pod{}
	for _, p := range ck.run.Cluster.Pods() {
		byKey[p.Namespace+"/"+p.Name] = p
	}
	for _, out := range ck.run.Result.Pods {
		if out.Phase != "Scheduled" {
			continue
		}
		pod := byKey[out.Key()]
		if pod == nil {
			ck.add("scheduled pod %s is not in the cluster", out.Key())
			continue
		}
		claims, err := ck.run.DRA.PodClaims(pod)
		if err != nil {
			ck.add("scheduled pod %s: %v", out.Key(), err)
		}
		for _, c := range claims {
			if c.Status.Allocation == nil {
				ck.add("scheduled pod %s: claim %s is not allocated", out.Key(), c.Name)
			}
			reserved := false
			for _, r := range c.Status.ReservedFor {
				if r.UID == pod.UID {
					reserved = true
				}
			}
			if !reserved {
				ck.add("scheduled pod %s: claim %s is not reserved for it", out.Key(), c.Name)
			}
		}
	}
}

// scheduledOn reports whether drasim placed a pod on the node; a dump may
// already be over-committed, which is not drasim's doing.
func scheduledOn(run *sim.Run, node string) bool {
	for _, p := range run.Result.Pods {
		if p.Phase == "Scheduled" && p.Node == node {
			return true
		}
	}
	return false
}
