package bench

import (
	"testing"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/generate"
	"github.com/drasim/drasim/sim/snapshot"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

// devicesPerTemplate is how many devices a claim made from each generated
// template must get.
var devicesPerTemplate = map[string]int{
	generate.TemplateInference: 1,
	generate.TemplateTraining8: 8,
	generate.TemplateTraining4: 4,
	generate.TemplateMIG1g:     1,
	generate.TemplateMIG2g:     1,
}

type deviceKey struct{ driver, pool, device string }

type counterKey struct{ pool, set, counter string }

// checkRun fails the benchmark unless the replay placed at least
// minScheduled pods and its decisions hold up against the snapshot: every
// pod was decided, every claim got the devices its template asks for, on
// the pod's own node, no device went to two claims, no shared counter of a
// partitionable GPU was overdrawn, the NUMA constraint held, and no node's
// CPU or memory was overcommitted.
func checkRun(b *testing.B, snap *snapshot.Snapshot, run *sim.Run, minScheduled int) {
	b.Helper()
	r := run.Result
	if r.Summary.Scheduled < minScheduled {
		b.Fatalf("scheduled: want at least %d, got %+v", minScheduled, r.Summary)
	}
	if got := r.Summary.Scheduled + r.Summary.Unschedulable; got != len(snap.Pods) {
		b.Fatalf("decided pods: want %d (every generated pod), got %d (%+v)", len(snap.Pods), got, r.Summary)
	}

	devices := map[deviceKey]*resourceapi.Device{}
	limits := map[counterKey]resource.Quantity{}
	for _, sl := range snap.ResourceSlices {
		for i := range sl.Spec.Devices {
			d := &sl.Spec.Devices[i]
			devices[deviceKey{sl.Spec.Driver, sl.Spec.Pool.Name, d.Name}] = d
		}
		for _, cs := range sl.Spec.SharedCounters {
			for name, c := range cs.Counters {
				limits[counterKey{sl.Spec.Pool.Name, cs.Name, name}] = c.Value
			}
		}
	}

	owner := map[deviceKey]string{}
	consumed := map[counterKey]*resource.Quantity{}
	for _, p := range r.Pods {
		for _, c := range p.Claims {
			if want, ok := devicesPerTemplate[c.Template]; ok && p.Node != "" && len(c.Devices) != want {
				b.Fatalf("pod %s, claim %s from %s: want %d devices, got %d", p.Key(), c.Name, c.Template, want, len(c.Devices))
			}
			numa := map[int64]bool{}
			for _, d := range c.Devices {
				k := deviceKey{d.Driver, d.Pool, d.Device}
				dev := devices[k]
				if dev == nil {
					b.Fatalf("pod %s: allocated device %v is in no ResourceSlice", p.Key(), k)
				}
				if d.Pool != p.Node {
					b.Fatalf("pod %s on node %s: got device %v from another node's pool", p.Key(), p.Node, k)
				}
				if prev, dup := owner[k]; dup {
					b.Fatalf("device %v: allocated to %s and to %s", k, prev, p.Key()+"/"+c.Name)
				}
				owner[k] = p.Key() + "/" + c.Name
				numa[ptr.Deref(dev.Attributes["numaNode"].IntValue, -1)] = true
				for _, cc := range dev.ConsumesCounters {
					for name, v := range cc.Counters {
						key := counterKey{d.Pool, cc.CounterSet, name}
						if consumed[key] == nil {
							consumed[key] = resource.NewQuantity(0, v.Value.Format)
						}
						consumed[key].Add(v.Value)
					}
				}
			}
			if c.Template == generate.TemplateTraining4 && len(c.Devices) > 0 && len(numa) != 1 {
				b.Fatalf("pod %s: the NUMA matchAttribute constraint broke: devices span NUMA nodes %v", p.Key(), numa)
			}
		}
	}
	for key, used := range consumed {
		limit, ok := limits[key]
		if !ok || used.Cmp(limit) > 0 {
			b.Fatalf("counter %+v: allocated devices consume %s, the counter set has %s", key, used, limit.String())
		}
	}
	for _, n := range r.Nodes {
		if n.CPU.RequestedValue > n.CPU.AllocatableValue || n.Memory.RequestedValue > n.Memory.AllocatableValue {
			b.Fatalf("node %s overcommitted: cpu %s/%s, memory %s/%s", n.Name, n.CPU.Requested, n.CPU.Allocatable, n.Memory.Requested, n.Memory.Allocatable)
		}
	}
}
