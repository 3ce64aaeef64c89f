package schedule_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/drasim/drasim/internal/build"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/result"
	"github.com/drasim/drasim/sim/schedule"
	"github.com/drasim/drasim/sim/schedule/profile"
	"github.com/drasim/drasim/sim/snapshot"
)

// replayAll replays the snapshot with GenericWorkload on as drasim
// simulate does, the clock running on while a gang backs off.
func replayAll(t *testing.T, snap *snapshot.Snapshot) *result.Result {
	t.Helper()
	c := cluster.Build(snap, gangGates(t))
	draPlugin := dra.New(c.DRA())
	prof, err := profile.New(c, draPlugin, profile.Config{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := schedule.Replay(context.Background(), c, prof, schedule.Options{Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A gang that fits nowhere preempts across the cluster: every pod of
// lower priority leaves, the pod group algorithm places the gang
// (train-0 on n1, train-1 on n2), and the victims are given back most
// important first. b (priority 20) fits back next to train-0; d (20)
// does not fit next to train-1; a and c (10) do not fit either. Giving
// back the least important first would have kept a instead of b.
func TestGroupPreemptionReprievesTheMostImportantFirst(t *testing.T) {
	snap := build.NewCluster().Node("n1", 6, 0).Node("n2", 4, 0).
		PodGroup("train", 2, 100).
		Pod(build.PodSpec{Name: "a", CPU: "3", Node: "n1", Priority: 10}).
		Pod(build.PodSpec{Name: "b", CPU: "3", Node: "n1", Priority: 20}).
		Pod(build.PodSpec{Name: "c", CPU: "2", Node: "n2", Priority: 10}).
		Pod(build.PodSpec{Name: "d", CPU: "2", Node: "n2", Priority: 20}).
		Pod(build.PodSpec{Name: "train-0", CPU: "3", Priority: 100, PodGroup: "train"}).
		Pod(build.PodSpec{Name: "train-1", CPU: "3", Priority: 100, PodGroup: "train"}).
		Snapshot()
	res := replayAll(t, snap)
	want := map[string]outcome{
		"a":       {Phase: result.PhasePreempted, Node: "n1", PreemptedBy: "default/train"},
		"b":       {Phase: result.PhaseBound, Node: "n1"},
		"c":       {Phase: result.PhasePreempted, Node: "n2", PreemptedBy: "default/train"},
		"d":       {Phase: result.PhasePreempted, Node: "n2", PreemptedBy: "default/train"},
		"train-0": {Phase: result.PhaseScheduled, Node: "n1"},
		"train-1": {Phase: result.PhaseScheduled, Node: "n2"},
	}
	if diff := cmp.Diff(want, outcomes(res)); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	by := podOf(res, "default/d").PreemptedBy
	wantBy := &result.PreemptedBy{Pod: "default/train", PodGroup: true, Priority: 100, Node: "n2",
		Reason: "default-scheduler: preempting to accommodate a higher priority podgroup"}
	if diff := cmp.Diff(wantBy, by); diff != "" {
		t.Errorf("d preempted by (-want +got):\n%s", diff)
	}
	if res.Summary.Preempted != 3 {
		t.Errorf("summary counts %d preempted, want 3", res.Summary.Preempted)
	}
}

// A pod group with disruptionMode All is one victim: given back whole or
// not at all. batch-1 blocks the gang on n2; batch-0 on n1 blocks
// nothing, yet goes with it. With disruptionMode Single, batch-0 stays.
func TestGroupPreemptionDisruptionModeAll(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode *schedulingv1beta1.DisruptionMode
		want map[string]outcome
	}{
		{
			name: "all",
			mode: &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}},
			want: map[string]outcome{
				"batch-0": {Phase: result.PhasePreempted, Node: "n1", PreemptedBy: "default/train"},
				"batch-1": {Phase: result.PhasePreempted, Node: "n2", PreemptedBy: "default/train"},
			},
		},
		{
			name: "single",
			mode: &schedulingv1beta1.DisruptionMode{Single: &schedulingv1beta1.SingleDisruptionMode{}},
			want: map[string]outcome{
				"batch-0": {Phase: result.PhaseBound, Node: "n1"},
				"batch-1": {Phase: result.PhasePreempted, Node: "n2", PreemptedBy: "default/train"},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap := build.NewCluster().Node("n1", 4, 0).Node("n2", 4, 0).
				PodGroup("batch", 2, 10).PodGroup("train", 1, 100).
				Pod(build.PodSpec{Name: "keep-1", CPU: "2", Node: "n1", Priority: 1000}).
				Pod(build.PodSpec{Name: "keep-2", CPU: "1", Node: "n2", Priority: 1000}).
				Pod(build.PodSpec{Name: "batch-0", CPU: "2", Node: "n1", Priority: 10, PodGroup: "batch"}).
				Pod(build.PodSpec{Name: "batch-1", CPU: "2", Node: "n2", Priority: 10, PodGroup: "batch"}).
				Pod(build.PodSpec{Name: "train-0", CPU: "3", Priority: 100, PodGroup: "train"}).
				Snapshot()
			for _, pg := range snap.PodGroups {
				if pg.Name == "batch" {
					pg.Spec.DisruptionMode = tc.mode
				}
			}
			res := replayAll(t, snap)
			got := outcomes(res)
			for name, want := range tc.want {
				if got[name] != want {
					t.Errorf("%s: %+v, want %+v", name, got[name], want)
				}
			}
			if got := got["train-0"]; got.Phase != result.PhaseScheduled || got.Node != "n2" {
				t.Errorf("train-0: %+v, want scheduled on n2", got)
			}
		})
	}
}

// When the gang does not fit even without every pod of lower priority,
// nothing is preempted; the rerun's status follows kube's prefix.
func TestGroupPreemptionNotHelpful(t *testing.T) {
	snap := build.NewCluster().Node("n1", 4, 0).
		PodGroup("train", 2, 100).
		Pod(build.PodSpec{Name: "low", CPU: "1", Node: "n1", Priority: 10}).
		Pod(build.PodSpec{Name: "train-0", CPU: "3", Priority: 100, PodGroup: "train"}).
		Pod(build.PodSpec{Name: "train-1", CPU: "3", Priority: 100, PodGroup: "train"}).
		Snapshot()
	res := replayAll(t, snap)
	if got := outcomes(res)["low"]; got.Phase != result.PhaseBound {
		t.Errorf("low: %+v, want still bound", got)
	}
	want := "minCount (2) cannot be satisfied: 1 scheduled, 0 remaining, deallocation and deletion of ResourceClaims completed, " +
		"pod group preemption: minCount (2) cannot be satisfied: 1 scheduled, 0 remaining"
	if diff := cmp.Diff([]result.PodGroup{{Namespace: "default", Name: "train", MinCount: 2, Priority: 100, Pods: 2, Pending: 2,
		Phase: result.PodGroupUnschedulable, Blocker: "default/train-1", Message: want}}, res.PodGroups); diff != "" {
		t.Errorf("pod groups (-want +got):\n%s", diff)
	}
}

// With GenericWorkload, a pod's preemption weighs a running pod group
// with disruptionMode All as one victim: urgent needs batch-1's room on
// n2, and batch-0 on n1 goes with it. With disruptionMode Single only
// batch-1 goes.
func TestPodPreemptionTakesAWholeGroup(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mode    *schedulingv1beta1.DisruptionMode
		victims []string
	}{
		{"all", &schedulingv1beta1.DisruptionMode{All: &schedulingv1beta1.AllDisruptionMode{}}, []string{"default/batch-0", "default/batch-1"}},
		{"single", nil, []string{"default/batch-1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snap := build.NewCluster().Node("n1", 4, 0).Node("n2", 4, 0).
				PodGroup("batch", 2, 10).
				Pod(build.PodSpec{Name: "keep", CPU: "2", Node: "n1", Priority: 1000}).
				Pod(build.PodSpec{Name: "batch-0", CPU: "2", Node: "n1", Priority: 10, PodGroup: "batch"}).
				Pod(build.PodSpec{Name: "batch-1", CPU: "2", Node: "n2", Priority: 10, PodGroup: "batch"}).
				Pod(build.PodSpec{Name: "urgent", CPU: "3", Priority: 100}).
				Snapshot()
			snap.PodGroups[0].Spec.DisruptionMode = tc.mode
			res := replayAll(t, snap)
			p := podOf(res, "default/urgent")
			if p.Phase != result.PhaseScheduled || p.Node != "n2" {
				t.Fatalf("urgent: %s on %q (%s), want scheduled on n2", p.Phase, p.Node, p.Message)
			}
			if p.Preemption == nil || !cmp.Equal(p.Preemption.Victims, tc.victims) {
				t.Errorf("urgent's preemption: %+v, want victims %v", p.Preemption, tc.victims)
			}
		})
	}
}

// With GenericWorkload, kube ranks a pod of a pod group above a plain pod
// of the same priority (its victim rank), before start times: member is
// given back first, and plain, though it started earlier, is the victim.
func TestPodPreemptionRanksGroupMembersFirst(t *testing.T) {
	snap := build.NewCluster().Node("n1", 4, 0).
		PodGroup("g", 1, 10).
		Pod(build.PodSpec{Name: "plain", CPU: "2", Node: "n1", Priority: 10, StartTime: 0}).
		Pod(build.PodSpec{Name: "member", CPU: "2", Node: "n1", Priority: 10, StartTime: 60, PodGroup: "g"}).
		Pod(build.PodSpec{Name: "urgent", CPU: "2", Priority: 100}).
		Snapshot()
	res := replayAll(t, snap)
	want := map[string]outcome{
		"plain":  {Phase: result.PhasePreempted, Node: "n1", PreemptedBy: "default/urgent"},
		"member": {Phase: result.PhaseBound, Node: "n1"},
		"urgent": {Phase: result.PhaseScheduled, Node: "n1"},
	}
	if diff := cmp.Diff(want, outcomes(res)); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
}
