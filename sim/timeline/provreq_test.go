package timeline

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/drasim/drasim/sim/feature"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// condLine is a condition as a test checks it: time, Type=Status (Reason).
func condLines(cs []ProvReqCondition) []string {
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%gs %s=%s (%s)", float64(c.Time), c.Type, c.Status, c.Reason))
	}
	return out
}

// TestProvisioningRequestLifecycle runs testdata/provreq.yaml (loops every
// 10s, CA's defaults) and holds each request's conditions to the times
// worked out by hand from CA's rules:
//
//   - probe (check-capacity, 1 CPU) is created at 60s. The injector hands
//     it to the loop at 60s (Accepted), but its pods are 0s old and
//     filterOutYoungPods drops them; at 70s they are 10s old and the
//     check finds room on base: Provisioned=True (CapacityIsFound). Its
//     booking expires at the first loop after 70s+10m: 680s (CA's
//     LastTransitionTime.Add(10m).Before(now) is strict).
//   - big (check-capacity, 8 CPU) never fits: Provisioned=False at 130s,
//     then tried again after 1m, 2m, 4m, 8m and 10m from then on, each
//     counted from the last try and strictly after: 200, 330, 580,
//     1070, 1680, 2290, 2900, 3510, 4120, 4730 (11 tries up to the end
//     at 4930s: the last scale-down at 3130s plus the 30m tail).
//   - train (atomic, 2 pods of 3 CPU) is created at 300s, its pods go to
//     the loop at 310s: no room on base (2 CPU, 1 of them booked for
//     probe), so one scale-up of 2 cpu nodes, Provisioned=True
//     (CapacityIsProvisioned), Ready at 490s. Its Job's pods, created at
//     720s, are bound there at once, and the loop at 720s finds both
//     scheduled: BookingExpired (CapacityBookingConsumed). They finish at
//     2520s; the two nodes are unneeded from then and deleted at 3130s
//     (10m, strictly after).
func TestProvisioningRequestLifecycle(t *testing.T) {
	r := run(t, loadInput(t, "provreq.yaml"), withAutoscaler(Options{}))
	want := map[string][]string{
		"probe": {"60s Accepted=True (Accepted)", "70s Provisioned=True (CapacityIsFound)", "680s BookingExpired=True (CapacityReservationTimeExpired)"},
		"big":   {"120s Accepted=True (Accepted)", "130s Provisioned=False (CapacityIsNotFound)"},
		"train": {"300s Accepted=True (Accepted)", "310s Provisioned=True (CapacityIsProvisioned)", "720s BookingExpired=True (CapacityBookingConsumed)"},
	}
	got := map[string][]string{}
	tries := map[string]int{}
	for _, pr := range r.ProvisioningRequests {
		got[pr.Name] = condLines(pr.Transitions)
		tries[pr.Name] = pr.Tries
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("transitions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"probe": 1, "big": 11, "train": 1}, tries); diff != "" {
		t.Errorf("tries (-want +got):\n%s", diff)
	}
	// big's conditions at the end are those of its last try, at 4730s.
	for _, pr := range r.ProvisioningRequests {
		if pr.Name == "big" {
			if diff := cmp.Diff([]string{"4730s Accepted=True (Accepted)", "4730s Provisioned=False (CapacityIsNotFound)"}, condLines(pr.Conditions)); diff != "" {
				t.Errorf("big's conditions at the end (-want +got):\n%s", diff)
			}
		}
	}
	if len(r.ScaleUps) != 1 || r.ScaleUps[0].Time != 310 || r.ScaleUps[0].ProvisioningRequest != "default/train" || strings.Join(r.ScaleUps[0].Nodes, ",") != "cpu-template-1,cpu-template-2" {
		t.Errorf("scale-ups: want one at 310s for default/train adding cpu-template-1,cpu-template-2, got %+v", r.ScaleUps)
	}
	var downs []string
	for _, d := range r.ScaleDowns {
		downs = append(downs, fmt.Sprintf("%gs %s", float64(d.Time), d.Node))
	}
	if diff := cmp.Diff([]string{"3130s cpu-template-1", "3130s cpu-template-2"}, downs); diff != "" {
		t.Errorf("scale-downs (-want +got):\n%s", diff)
	}
	if r.Inputs.End != 4930 {
		t.Errorf("end: want 4930s, got %gs", float64(r.Inputs.End))
	}
	for _, p := range r.Pods {
		if p.Bound == nil || *p.Bound != 720 {
			t.Errorf("pod %s: want bound at 720s, got %s", p.Name, secs(p.Bound))
		}
	}
}

// TestProvisioningRequestBookingHoldsCapacity shows that booked capacity
// counts in CA's picture: base has 3 CPU; probe's booked pod (1 CPU)
// leaves 2, too little for a pod of train (3 CPU), so train's atomic
// scale-up adds 2 nodes. When probe comes after train, base takes one of
// train's pods in the check and 1 node is added.
func TestProvisioningRequestBookingHoldsCapacity(t *testing.T) {
	for _, tc := range []struct {
		name      string
		probeAt   time.Duration
		wantNodes int
	}{
		{name: "probe booked first", probeAt: time.Minute, wantNodes: 2},
		{name: "probe after train", probeAt: 10 * time.Minute, wantNodes: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := loadInput(t, "provreq.yaml")
			for _, n := range in.Snapshot.Nodes {
				if n.Name == "base" {
					n.Status.Allocatable[v1.ResourceCPU] = resource.MustParse("3")
					n.Status.Capacity[v1.ResourceCPU] = resource.MustParse("3")
				}
			}
			for i := range in.Requests {
				switch in.Requests[i].PR.Name {
				case "probe":
					in.Requests[i].At = tc.probeAt
				case "big":
					in.Requests[i].At = time.Hour // out of the way
				}
			}
			in.Arrivals = nil // no pods consume train
			r := run(t, in, withAutoscaler(Options{}))
			nodes := 0
			for _, su := range r.ScaleUps {
				nodes += len(su.Nodes)
			}
			if nodes != tc.wantNodes {
				t.Errorf("nodes added for train: want %d, got %d (%+v)", tc.wantNodes, nodes, r.ScaleUps)
			}
		})
	}
}

// TestGangInTimeline: a gang's pods are bound together or not at all, and
// cluster-autoscaler sees all of them. testdata/gang.yaml, GenericWorkload
// on: the gang (3 pods of 2 GPUs, minCount 3) arrives at 60s; its first
// cycle fails on train-0 and kube marks the whole gang unschedulable, so
// the loop at 70s (the pods 10s old) packs all three pods, 2 per 4-GPU
// node: 2 nodes, Ready at 370s. The gang is bound once the nodes are
// there, all three pods at the same instant, and each runs its 30m from
// then. (Before, only the pods a cycle reached were unschedulable, so the
// loop added 1 node for train-0, and a pod assumed in a cycle that was
// then taken back counted as started.)
func TestGangInTimeline(t *testing.T) {
	gates, err := feature.Parse("GenericWorkload=true")
	if err != nil {
		t.Fatal(err)
	}
	o := withAutoscaler(Options{})
	o.Sim.Gates = gates
	r := run(t, loadInput(t, "gang.yaml"), o)
	if len(r.ScaleUps) != 1 || r.ScaleUps[0].Time != 70 || len(r.ScaleUps[0].Nodes) != 2 || r.ScaleUps[0].Triggered != 3 {
		t.Fatalf("scale-ups: want one at 70s of 2 nodes for 3 pods, got %+v", r.ScaleUps)
	}
	var bound Seconds
	for i, p := range r.Pods {
		if p.Bound == nil || p.Finished == nil {
			t.Fatalf("pod %s: want bound and finished, got bound %s finished %s", p.Name, secs(p.Bound), secs(p.Finished))
		}
		if i == 0 {
			bound = *p.Bound
		}
		if *p.Bound != bound || *p.Bound < 370 || *p.Finished != *p.Bound+1800 || p.Wait != *p.Bound-60 {
			t.Errorf("pod %s: want bound with the gang (%gs, after 370s), finished 30m later, waited since 60s; got bound %s finished %s wait %g",
				p.Name, float64(bound), secs(p.Bound), secs(p.Finished), float64(p.Wait))
		}
	}
}

// TestTraceConsumesProvisioningRequest: a trace row's pods consume the
// request its provisioning_request column names, as the Job of
// testdata/provreq.yaml does; the same lifecycle follows. A request the
// snapshot lacks is an error naming the row and column.
func TestTraceConsumesProvisioningRequest(t *testing.T) {
	in := loadInput(t, "provreq.yaml")
	in.Arrivals = nil // the Job's pods: the trace makes them instead
	trace := "arrival,workload,replicas,cpu,memory,duration,provisioning_request\n12m,train,2,3,1Gi,30m,train\n"
	prepared, err := Prepare(in.Snapshot, nil, []TraceFile{{Name: "t.csv", Data: []byte(trace)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(prepared.Arrivals) != 2 || prepared.Arrivals[0].Pod.Annotations["autoscaling.x-k8s.io/consume-provisioning-request"] != "train" {
		t.Fatalf("want the trace's 2 pods, consuming train; got %d arrivals", len(prepared.Arrivals))
	}
	r := run(t, prepared, withAutoscaler(Options{}))
	for _, pr := range r.ProvisioningRequests {
		if pr.Name == "train" {
			want := []string{"300s Accepted=True (Accepted)", "310s Provisioned=True (CapacityIsProvisioned)", "720s BookingExpired=True (CapacityBookingConsumed)"}
			if diff := cmp.Diff(want, condLines(pr.Transitions)); diff != "" {
				t.Errorf("train's transitions (-want +got):\n%s", diff)
			}
		}
	}
	_, err = Prepare(in.Snapshot, nil, []TraceFile{{Name: "t.csv", Data: []byte("arrival,workload,provisioning_request\n0,a,nope\n")}})
	if err == nil || !strings.Contains(err.Error(), `t.csv:2: column provisioning_request: ProvisioningRequest default/nope is not in the snapshot`) {
		t.Errorf("want the row's error for a request the snapshot lacks, got %v", err)
	}
}
