package schedule_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/drasim/drasim/internal/build"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/result"
)

func gangGates(t *testing.T) feature.Gates {
	t.Helper()
	g, err := feature.Parse("GenericWorkload=true")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Two nodes of two GPUs, a gang of three pods of two GPUs each, then a
// plain pod of two GPUs.
func gangSnapshot() *build.Cluster {
	return build.NewCluster().Node("n1", 8, 2).Node("n2", 8, 2).
		PodGroup("train", 3, 0).
		Pod(build.PodSpec{Name: "train-0", CPU: "1", GPUs: 2, PodGroup: "train"}).
		Pod(build.PodSpec{Name: "train-1", CPU: "1", GPUs: 2, PodGroup: "train"}).
		Pod(build.PodSpec{Name: "train-2", CPU: "1", GPUs: 2, PodGroup: "train"}).
		Pod(build.PodSpec{Name: "solo", CPU: "1", GPUs: 2})
}

// A gang that does not fit is placed not at all: its pods are taken back,
// devices included, and every pod says why as kube does.
func TestGangAllOrNothing(t *testing.T) {
	res, c, _ := run(t, gangSnapshot().Snapshot(), gangGates(t))
	want := map[string]string{
		"default/train-0": "pod group is unschedulable, minCount (3) cannot be satisfied: 2 scheduled, 0 remaining, pod group preemption: No preemption victims found for incoming preemptor",
		"default/train-1": "pod group is unschedulable, minCount (3) cannot be satisfied: 2 scheduled, 0 remaining, pod group preemption: No preemption victims found for incoming preemptor",
		"default/train-2": "0/2 nodes are available: 2 cannot allocate all claims.",
	}
	for key, msg := range want {
		p := podOf(res, key)
		if p.Phase != result.PhaseUnschedulable || p.Message != msg {
			t.Errorf("%s: %s %q\n  want Unschedulable %q", key, p.Phase, p.Message, msg)
		}
		if p.PodGroup != "train" {
			t.Errorf("%s: pod group %q, want train", key, p.PodGroup)
		}
	}
	// The gang's devices were given back: solo, after it, got two GPUs.
	if p := podOf(res, "default/solo"); p.Phase != result.PhaseScheduled {
		t.Errorf("solo: %s %s, want Scheduled", p.Phase, p.Message)
	}
	wantGroup := []result.PodGroup{{Namespace: "default", Name: "train", MinCount: 3, Pods: 3, Pending: 3, Phase: result.PodGroupUnschedulable, Blocker: "default/train-2",
		Message: "minCount (3) cannot be satisfied: 2 scheduled, 0 remaining, pod group preemption: No preemption victims found for incoming preemptor"}}
	if diff := cmp.Diff(wantGroup, res.PodGroups); diff != "" {
		t.Errorf("pod groups (-want +got):\n%s", diff)
	}
	if pg := c.PodGroup("default", "train"); len(pg.Status.Conditions) != 1 || pg.Status.Conditions[0].Reason != "Unschedulable" {
		t.Errorf("PodGroupInitiallyScheduled: %+v, want False/Unschedulable", pg.Status.Conditions)
	}
}

// With the gate off the API server drops spec.schedulingGroup: the pods
// are placed one by one, as many as fit, and the result shows the gang
// placed in part.
func TestGangGateOff(t *testing.T) {
	res, _, _ := run(t, gangSnapshot().Snapshot(), nil)
	placed := 0
	for _, p := range res.Pods {
		if p.Phase == result.PhaseScheduled {
			placed++
		}
		if p.PodGroup != "" {
			t.Errorf("%s has pod group %q with the gate off", p.Key(), p.PodGroup)
		}
	}
	want := []result.PodGroup{{Namespace: "default", Name: "train", MinCount: 3, Pods: 3, Placed: 2, Pending: 1, Phase: result.PodGroupGateOff, Partial: true}}
	if diff := cmp.Diff(want, res.PodGroups); placed != 2 || diff != "" {
		t.Errorf("placed %d pods, want 2; pod groups (-want +got):\n%s", placed, diff)
	}
	if len(res.Warnings) == 0 {
		t.Errorf("no warning that the pods' pod group is ignored")
	}
}

// A gang that fits binds whole; a gang short of minCount pods is never
// tried; a pod whose priority differs from its group's fails the gang
// with kube's SchedulerError.
func TestGangFitsWaitsAndValidates(t *testing.T) {
	snap := build.NewCluster().Node("n1", 8, 4).
		PodGroup("ok", 2, 0).PodGroup("short", 3, 0).PodGroup("mixed", 2, 0).
		Pod(build.PodSpec{Name: "ok-0", CPU: "1", GPUs: 1, PodGroup: "ok"}).
		Pod(build.PodSpec{Name: "ok-1", CPU: "1", GPUs: 1, PodGroup: "ok"}).
		Pod(build.PodSpec{Name: "short-0", CPU: "1", PodGroup: "short"}).
		Pod(build.PodSpec{Name: "mixed-0", CPU: "1", PodGroup: "mixed"}).
		Pod(build.PodSpec{Name: "mixed-1", CPU: "1", PodGroup: "mixed", Priority: 7}).
		Snapshot()
	res, _, _ := run(t, snap, gangGates(t))
	got := map[string]string{}
	for _, p := range res.Pods {
		got[p.Name] = p.Phase + ": " + p.Message
	}
	want := map[string]string{
		"ok-0":    "Scheduled: ",
		"ok-1":    "Scheduled: ",
		"short-0": "Gated: waiting for minCount pods from a gang to appear in scheduling queue",
		"mixed-0": "Unschedulable: all pods in a single pod group should have the same priority as the pod group's priority, got 7 and 0",
		"mixed-1": "Unschedulable: all pods in a single pod group should have the same priority as the pod group's priority, got 7 and 0",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
}
