package analysis

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/drasim/drasim/internal/build"
	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/feature"
)

// A gang of three pods of two GPUs on two nodes of two GPUs: with
// GenericWorkload on it is not placed at all, with the gate off two of its
// pods are (a partial gang); the gate fails both ways.
func TestPodGroupsReportAndGate(t *testing.T) {
	snap := build.NewCluster().Node("n1", 8, 2).Node("n2", 8, 2).
		PodGroup("train", 3, 0).
		Pod(build.PodSpec{Name: "train-0", CPU: "1", GPUs: 2, PodGroup: "train"}).
		Pod(build.PodSpec{Name: "train-1", CPU: "1", GPUs: 2, PodGroup: "train"}).
		Pod(build.PodSpec{Name: "train-2", CPU: "1", GPUs: 2, PodGroup: "train"}).
		Snapshot()
	g, err := ParseGates("g.yaml", []byte(`apiVersion: drasim.io/v1alpha1
kind: Gates
gates:
- name: every gang placed
  maxPendingPodGroups: {max: 0}
`))
	if err != nil {
		t.Fatal(err)
	}
	on, err := feature.Parse("GenericWorkload=true")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		gates                      feature.Gates
		placed, notPlaced, partial int
	}{{on, 0, 1, 0}, {feature.Defaults(), 0, 1, 1}} {
		run, err := sim.Simulate(context.Background(), snap, sim.Options{Gates: tc.gates})
		if err != nil {
			t.Fatal(err)
		}
		rep := analyze(t, run, Options{})
		f := rep.Fit.PodGroups
		if f == nil || f.Placed != tc.placed || f.NotPlaced != tc.notPlaced || f.Partial != tc.partial {
			t.Fatalf("gates %s: pod groups %+v, want placed %d, not placed %d, partial %d", tc.gates, f, tc.placed, tc.notPlaced, tc.partial)
		}
		got, err := EvaluateGates(g, rep, run)
		if err != nil {
			t.Fatal(err)
		}
		want := []GateResult{{Name: "every gang placed", Type: GateMaxPendingPodGroups, Target: "all pod groups", Measured: float(1), Op: "<=", Bound: 0,
			Message: "all pod groups: pod groups not placed whole = 1, want <= 0: default/train"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("gates %s: gate results (-want +got):\n%s", tc.gates, diff)
		}
	}
}
