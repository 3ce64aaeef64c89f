package schedule_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"

	"github.com/drasim/drasim/internal/build"
	"github.com/drasim/drasim/sim/result"
)

type outcome struct {
	Phase, Node, PreemptedBy string
}

func outcomes(r *result.Result) map[string]outcome {
	out := map[string]outcome{}
	for _, p := range r.Pods {
		o := outcome{Phase: p.Phase, Node: p.Node}
		if p.PreemptedBy != nil {
			o.PreemptedBy = p.PreemptedBy.Pod
		}
		out[p.Name] = o
	}
	return out
}

// On one node full of low-priority pods, the high-priority pod deletes as
// few as it needs: the victims are tried back most important first
// (equal priority: the one that started first), so the pod that started
// last goes.
func TestPreemptionReprievesTheMostImportantVictimsFirst(t *testing.T) {
	snap := build.NewCluster().Node("n1", 4, 0).
		Pod(build.PodSpec{Name: "old", CPU: "2", Node: "n1", StartTime: 0}).
		Pod(build.PodSpec{Name: "new", CPU: "2", Node: "n1", StartTime: 60}).
		Pod(build.PodSpec{Name: "urgent", CPU: "2", Priority: 1000}).
		Snapshot()
	res, c, cycles := run(t, snap, nil)
	want := map[string]outcome{
		"old":    {Phase: result.PhaseBound, Node: "n1"},
		"new":    {Phase: result.PhasePreempted, Node: "n1", PreemptedBy: "default/urgent"},
		"urgent": {Phase: result.PhaseScheduled, Node: "n1"},
	}
	if diff := cmp.Diff(want, outcomes(res)); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"default/urgent", "default/urgent"}, cycles); diff != "" {
		t.Errorf("cycles (-want +got):\n%s", diff)
	}
	if got := podOf(res, "default/urgent"); got.Preemption == nil || !cmp.Equal(got.Preemption.Victims, []string{"default/new"}) || got.Attempt != 2 {
		t.Errorf("urgent: preemption %+v at attempt %d; want victims [default/new], scheduled at attempt 2", got.Preemption, got.Attempt)
	}
	if res.Summary.Preempted != 1 {
		t.Errorf("summary counts %d preempted, want 1", res.Summary.Preempted)
	}
	for _, p := range c.Pods() {
		if p.Name == "new" {
			t.Errorf("the victim is still in the cluster")
		}
	}
}

func TestPreemptionPolicyNever(t *testing.T) {
	snap := build.NewCluster().Node("n1", 2, 0).
		Pod(build.PodSpec{Name: "low", CPU: "2", Node: "n1"}).
		Pod(build.PodSpec{Name: "polite", CPU: "2", Priority: 1000, PreemptNever: true}).
		Snapshot()
	res, _, _ := run(t, snap, nil)
	p := podOf(res, "default/polite")
	want := "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never."
	if p.Phase != result.PhaseUnschedulable || p.Message != want {
		t.Errorf("polite: %s %q, want Unschedulable %q", p.Phase, p.Message, want)
	}
	if res.Summary.Preempted != 0 {
		t.Errorf("%d pods preempted, want none", res.Summary.Preempted)
	}
}

// Among nodes where preemption helps, kube takes the one whose most
// important victim has the lowest priority, before counting victims.
func TestPreemptionPicksTheNodeWithTheLeastImportantVictims(t *testing.T) {
	snap := build.NewCluster().Node("n1", 4, 0).Node("n2", 4, 0).
		Pod(build.PodSpec{Name: "mid", CPU: "4", Node: "n1", Priority: 50}).
		Pod(build.PodSpec{Name: "low-1", CPU: "2", Node: "n2", Priority: 10}).
		Pod(build.PodSpec{Name: "low-2", CPU: "2", Node: "n2", Priority: 10}).
		Pod(build.PodSpec{Name: "urgent", CPU: "4", Priority: 1000}).
		Snapshot()
	res, _, _ := run(t, snap, nil)
	got := outcomes(res)
	if got["urgent"].Node != "n2" || got["low-1"].Phase != result.PhasePreempted || got["low-2"].Phase != result.PhasePreempted || got["mid"].Phase != result.PhaseBound {
		t.Errorf("outcomes %+v; want urgent on n2 in place of low-1 and low-2, mid kept", got)
	}
}

// A PodDisruptionBudget that allows no disruption steers preemption to the
// node where no budget is violated.
func TestPreemptionAvoidsPDBViolations(t *testing.T) {
	snap := build.NewCluster().Node("n1", 2, 0).Node("n2", 2, 0).
		Pod(build.PodSpec{Name: "guarded", CPU: "2", Node: "n1", Priority: 1, Labels: map[string]string{"app": "guarded"}}).
		Pod(build.PodSpec{Name: "free", CPU: "2", Node: "n2", Priority: 5}).
		PDB("guard", "guarded", 0).
		Pod(build.PodSpec{Name: "urgent", CPU: "2", Priority: 1000}).
		Snapshot()
	res, _, _ := run(t, snap, nil)
	got := outcomes(res)
	if got["urgent"].Node != "n2" || got["free"].Phase != result.PhasePreempted || got["guarded"].Phase != result.PhaseBound {
		t.Errorf("outcomes %+v; want urgent on n2 in place of free (guarded is covered by a PDB)", got)
	}
}

// Removing a victim does not give its devices back in the dry run
// (DynamicResources has no PreFilter extensions): a pod that needs the
// victim's GPU cannot preempt it.
func TestPreemptionDoesNotFreeDevicesInTheDryRun(t *testing.T) {
	snap := build.NewCluster().Node("n1", 8, 1).
		Pod(build.PodSpec{Name: "holder", CPU: "1", Node: "n1", GPUs: 1}).
		Pod(build.PodSpec{Name: "urgent", CPU: "1", GPUs: 1, Priority: 1000}).
		Snapshot()
	res, _, _ := run(t, snap, nil)
	p := podOf(res, "default/urgent")
	want := "0/1 nodes are available: 1 cannot allocate all claims. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
	if p.Phase != result.PhaseUnschedulable || p.Message != want {
		t.Errorf("urgent: %s %q, want Unschedulable %q", p.Phase, p.Message, want)
	}
}

// A pod whose GPU is free but whose CPU is taken preempts for the CPU;
// the victim's claim is released (and, generated for it, deleted), and
// the dry run on the node whose GPU is taken fails on DynamicResources.
func TestPreemptionForCPUWithDevices(t *testing.T) {
	snap := build.NewCluster().Node("n1", 4, 1).Node("n2", 4, 1).
		Pod(build.PodSpec{Name: "cpu-hog", CPU: "4", Node: "n1", Priority: 1}).
		Pod(build.PodSpec{Name: "gpu-user", CPU: "4", Node: "n2", GPUs: 1, Priority: 1}).
		Pod(build.PodSpec{Name: "urgent", CPU: "2", GPUs: 1, Priority: 1000}).
		Snapshot()
	res, c, _ := run(t, snap, nil)
	got := outcomes(res)
	if got["urgent"].Node != "n1" || got["cpu-hog"].Phase != result.PhasePreempted || got["gpu-user"].Phase != result.PhaseBound {
		t.Errorf("outcomes %+v; want urgent on n1 in place of cpu-hog", got)
	}
	p := podOf(res, "default/urgent")
	if len(p.Claims) != 1 || len(p.Claims[0].Devices) != 1 || p.Claims[0].Devices[0].Pool != "n1" {
		t.Errorf("urgent's claims %+v, want n1's GPU", p.Claims)
	}
	if claim, err := c.DRA().Claim("default", "gpu-user-gpus"); err != nil || claim.Status.Allocation == nil {
		t.Errorf("gpu-user's claim lost its allocation (%v)", err)
	}
}

// The victims' claims: the controller takes the victim off reservedFor and
// deallocates the claim; a claim generated for it is deleted.
func TestVictimClaimsAreReleased(t *testing.T) {
	snap := build.NewCluster().Node("n1", 2, 2).
		Pod(build.PodSpec{Name: "holder", CPU: "2", Node: "n1", GPUs: 1}).
		Pod(build.PodSpec{Name: "urgent", CPU: "2", Priority: 1000}).
		Snapshot()
	res, c, _ := run(t, snap, nil)
	if got := outcomes(res)["holder"]; got.Phase != result.PhasePreempted {
		t.Fatalf("holder: %+v, want preempted", got)
	}
	claim, err := c.DRA().Claim("default", "holder-gpus")
	if err != nil {
		t.Fatal(err)
	}
	if claim.Status.Allocation != nil || len(claim.Status.ReservedFor) != 0 {
		t.Errorf("holder's claim still allocated %v / reserved %v after its pod was preempted", claim.Status.Allocation, claim.Status.ReservedFor)
	}
}

// A pod nominated to a node after its preemption keeps the room: a pod of
// lower priority tried before it is retried does not take it.
func TestNominatedPodKeepsItsRoom(t *testing.T) {
	snap := build.NewCluster().Node("n1", 4, 0).
		Pod(build.PodSpec{Name: "victim", CPU: "4", Node: "n1", Priority: 1}).
		Pod(build.PodSpec{Name: "urgent", CPU: "4", Priority: 1000}).
		Pod(build.PodSpec{Name: "later", CPU: "1", Priority: 10}).
		Snapshot()
	res, _, cycles := run(t, snap, nil)
	got := outcomes(res)
	if got["urgent"].Node != "n1" || got["later"].Phase != result.PhaseUnschedulable {
		t.Errorf("outcomes %+v; want urgent on n1 and later pending", got)
	}
	// urgent preempts, later is tried while urgent waits (and does not
	// fit: urgent is counted), urgent lands on its nominated node; later
	// was rejected by NodeResourcesFit, which no landing pod helps.
	want := []string{"default/urgent", "default/later", "default/urgent"}
	if diff := cmp.Diff(want, cycles); diff != "" {
		t.Errorf("cycles (-want +got):\n%s", diff)
	}
}

// A scheduling cycle that fails with an error clears the pod's nominated
// node, as kube's clearNominatedNode does for every error.
func TestSchedulerErrorClearsTheNomination(t *testing.T) {
	snap := build.NewCluster().Node("n1", 4, 2).
		Pod(build.PodSpec{Name: "broken", CPU: "1", GPUs: 1, Mutate: func(p *v1.Pod) { p.Status.NominatedNodeName = "n1" }}).
		Snapshot()
	// A selector that reads an attribute no device has: a CEL runtime
	// error, the cycle's error.
	tmpl := snap.ResourceClaimTemplates[0]
	tmpl.Spec.Spec.Devices.Requests[0].Exactly.Selectors = []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{
		Expression: `device.attributes["gpu.example.com"].model == "h100"`}}}
	res, _, _ := run(t, snap, nil)
	p := podOf(res, "default/broken")
	if p.Reason != result.ReasonSchedulerError || p.NominatedNode != "" {
		t.Errorf("broken: reason %q, nominated to %q; want SchedulerError, nominated nowhere", p.Reason, p.NominatedNode)
	}
}
