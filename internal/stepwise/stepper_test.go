package stepwise_test

import (
	"context"
	"testing"

	"github.com/drasim/drasim/internal/build"
	"github.com/drasim/drasim/internal/stepwise"
	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/result"
	"github.com/drasim/drasim/sim/schedule"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

func newStepper(t *testing.T, snap *snapshot.Snapshot, gates feature.Gates) *stepwise.Stepper {
	t.Helper()
	st, err := stepwise.New(snap, sim.Options{Gates: gates})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// noFit evaluates a pod that must fit nowhere and returns its PostFilter
// verdict.
func noFit(t *testing.T, st *stepwise.Stepper, pod string) *schedule.PostFilterResult {
	t.Helper()
	ctx := context.Background()
	a, err := st.Evaluate(ctx, pod)
	if err != nil {
		t.Fatal(err)
	}
	if a.Node != "" {
		t.Fatalf("%s fits on %s, want no node", pod, a.Node)
	}
	pf, err := st.PostFilter(ctx, pod, a)
	if err != nil {
		t.Fatal(err)
	}
	return pf
}

// A preemptor whose victims are still terminating on its nominated node
// waits for them, as kube's PodEligibleToPreemptOthers says, and lands
// there once they are gone.
func TestStepperPreemptorWaitsForItsVictims(t *testing.T) {
	snap := build.NewCluster().Node("n1", 4, 0).
		Pod(build.PodSpec{Name: "a", CPU: "2", Node: "n1", Priority: 1}).
		Pod(build.PodSpec{Name: "b", CPU: "2", Node: "n1", Priority: 1}).
		Pod(build.PodSpec{Name: "urgent", CPU: "4", Priority: 1000}).
		Snapshot()
	st := newStepper(t, snap, nil)
	pf := noFit(t, st, "default/urgent")
	if pf.Preemption == nil || pf.Preemption.Node != "n1" || len(pf.Preemption.Victims) != 2 {
		t.Fatalf("preemption %+v, want both pods of n1", pf.Preemption)
	}
	steps := []error{st.Nominate("default/urgent", "n1"), st.Preempting("default/urgent", "n1"),
		st.Terminating("default/a", "default/urgent"), st.Terminating("default/b", "default/urgent"), st.Deleted("default/a")}
	for _, err := range steps {
		if err != nil {
			t.Fatal(err)
		}
	}
	pf = noFit(t, st, "default/urgent")
	want := "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to a terminating pod on the nominated node."
	if pf.Message != want || pf.Preemption.Node != "" || pf.Preemption.Nomination != nil {
		t.Errorf("with b terminating: %q, preemption %+v\n  want %q, no preemption, the nomination kept", pf.Message, pf.Preemption, want)
	}
	if err := st.Deleted("default/b"); err != nil {
		t.Fatal(err)
	}
	a, err := st.Evaluate(context.Background(), "default/urgent")
	if err != nil {
		t.Fatal(err)
	}
	if a.Node != "n1" || !a.OnNominatedNode {
		t.Errorf("urgent: node %q (on its nominated node: %v), want n1, its nominated node", a.Node, a.OnNominatedNode)
	}
}

// A nominated node the pod can never go to (UnschedulableAndUnresolvable)
// does not hold it back: it preempts elsewhere.
func TestStepperUnresolvableNominatedNodeDoesNotWait(t *testing.T) {
	snap := build.NewCluster().Node("n1", 2, 0).Node("n2", 2, 0).
		Pod(build.PodSpec{Name: "a", CPU: "2", Node: "n1", Priority: 1}).
		Pod(build.PodSpec{Name: "b", CPU: "2", Node: "n2", Priority: 1}).
		Pod(build.PodSpec{Name: "urgent", CPU: "2", Priority: 1000, Mutate: func(p *v1.Pod) {
			p.Spec.NodeSelector = map[string]string{v1.LabelHostname: "n2"}
		}}).
		Snapshot()
	st := newStepper(t, snap, nil)
	for _, err := range []error{st.Nominate("default/urgent", "n1"), st.Terminating("default/a", "default/urgent")} {
		if err != nil {
			t.Fatal(err)
		}
	}
	pf := noFit(t, st, "default/urgent")
	if pf.Preemption == nil || pf.Preemption.Node != "n2" {
		t.Errorf("%q, preemption %+v; want a preemption on n2", pf.Message, pf.Preemption)
	}
}

// When kube's PreBind loses a race for a claim two pods share, the pod
// that lost is pending again, off the claim's reservations, and the
// claim stays allocated for the pod that bound.
func TestStepperBindingFailedKeepsTheSharedClaim(t *testing.T) {
	shared := func(p *v1.Pod) {
		p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpus", ResourceClaimName: ptr.To("shared")}}
	}
	snap := build.NewCluster().Node("n1", 8, 2).
		Pod(build.PodSpec{Name: "a", CPU: "1", Mutate: shared}).
		Pod(build.PodSpec{Name: "b", CPU: "1", Mutate: shared}).
		Snapshot()
	snap.ResourceClaims = append(snap.ResourceClaims, &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "shared", Namespace: "default", UID: types.UID("uid-claim-shared")},
		Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{{
			Name: "gpus", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: build.Driver, Count: 1, AllocationMode: resourceapi.DeviceAllocationModeExactCount},
		}}}},
	})
	st := newStepper(t, snap, nil)
	ctx := context.Background()
	for _, pod := range []string{"default/a", "default/b"} {
		a, err := st.Evaluate(ctx, pod)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Bind(ctx, pod, a, "n1"); err != nil {
			t.Fatalf("%s: %v", pod, err)
		}
	}
	// a allocated the claim; its binding fails, b's does not.
	if err := st.BindingFailed("default/a", "n1"); err != nil {
		t.Fatal(err)
	}
	if got := st.PodDevices("default/b"); len(got) != 1 {
		t.Errorf("b's devices %v, want the shared claim's GPU", got)
	}
	if got := st.NominatedNode("default/a"); got != "" {
		t.Errorf("a is nominated to %q after its failed binding, want nowhere", got)
	}
	a, err := st.Evaluate(ctx, "default/a")
	if err != nil {
		t.Fatal(err)
	}
	if a.Node != "n1" || !a.OnNominatedNode {
		t.Errorf("a: node %q (nominated node tried first: %v); its object still says n1", a.Node, a.OnNominatedNode)
	}
	if err := st.BindingFailed("default/b", ""); err != nil {
		t.Fatal(err)
	}
	if got := st.PodDevices("default/b"); len(got) != 0 {
		t.Errorf("b's devices %v after both bindings failed, want the claim deallocated", got)
	}
}

// A pod group cycle that cannot reach minCount before it tries any pod
// (its other pods are still binding, or gone) fails with the error kube's
// DynamicResources gives: its PodGroupPostFilter finds no state of the
// cycle, which its PreFilter would have made.
func TestStepperPodGroupCycleWithNoPodTried(t *testing.T) {
	gates, err := feature.Parse("GenericWorkload=true")
	if err != nil {
		t.Fatal(err)
	}
	snap := build.NewCluster().Node("n1", 8, 1).
		PodGroup("train", 2, 0).
		Pod(build.PodSpec{Name: "train-0", CPU: "1", GPUs: 1, PodGroup: "train"}).
		Pod(build.PodSpec{Name: "train-1", CPU: "1", GPUs: 1, PodGroup: "train"}).
		Snapshot()
	st := newStepper(t, snap, gates)
	gc, err := st.ScheduleGroup(context.Background(), "default/train", []string{"default/train-0"}, func(string, *schedule.Attempt) string { return "" }, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `error in "DynamicResources" PodGroupPostFilter plugins: not found`
	if gc.Placed || gc.Message != want || gc.Attempts[0] != nil {
		t.Errorf("placed %v, message %q, attempt %v; want not placed, %q, no pod tried", gc.Placed, gc.Message, gc.Attempts[0], want)
	}
	if p := gc.Results[0]; p.Phase != result.PhaseUnschedulable || p.Reason != result.ReasonSchedulerError || p.Message != want {
		t.Errorf("train-0: %s %s %q, want Unschedulable SchedulerError %q", p.Phase, p.Reason, p.Message, want)
	}
	// Both pods: tried, one placed in vain, the other finds no GPU.
	gc, err = st.ScheduleGroup(context.Background(), "default/train", []string{"default/train-0", "default/train-1"}, func(_ string, a *schedule.Attempt) string { return a.Node }, nil)
	if err != nil {
		t.Fatal(err)
	}
	want = "minCount (2) cannot be satisfied: 1 scheduled, 0 remaining, pod group preemption: No preemption victims found for incoming preemptor"
	if gc.Placed || gc.Message != want {
		t.Errorf("placed %v, message %q; want not placed, %q", gc.Placed, gc.Message, want)
	}
}
