package analysis

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/internal/build"
)

// Two preemptions: urgent (1000) deletes low (10, class "spot") and
// guarded (100, no class, its PodDisruptionBudget allows nothing) goes to
// another; the report counts them by class, and the gate on priority
// >= 100 fails where the one on >= 1000 passes.
func spot(p *v1.Pod) { p.Spec.PriorityClassName = "spot" }

func TestPreemptionReportAndGate(t *testing.T) {
	snap := build.NewCluster().Node("n1", 2, 0).Node("n2", 2, 0).
		Pod(build.PodSpec{Name: "low", CPU: "2", Node: "n1", Priority: 10, Mutate: spot}).
		Pod(build.PodSpec{Name: "guarded", CPU: "2", Node: "n2", Priority: 100, Labels: map[string]string{"app": "guarded"}}).
		PDB("guard", "guarded", 0).
		Pod(build.PodSpec{Name: "urgent-1", CPU: "2", Priority: 1000}).
		Pod(build.PodSpec{Name: "urgent-2", CPU: "2", Priority: 1000}).
		Snapshot()
	run := replaySnapshot(t, snap)
	rep := analyze(t, run, Options{})
	want := Preemption{Preempted: 2, Preemptors: 2, PDBViolations: 1, Classes: []PreemptedClass{
		{Class: "priority 100", Priority: 100, Preempted: 1, Pods: 1, By: []string{"priority 1000"}},
		{Class: "spot", Priority: 10, Preempted: 1, Pods: 1, By: []string{"priority 1000"}},
	}}
	if diff := cmp.Diff(want, rep.Fit.Preemption); diff != "" {
		t.Errorf("preemption (-want +got):\n%s", diff)
	}
	g, err := ParseGates("g.yaml", []byte(`apiVersion: drasim.io/v1alpha1
kind: Gates
gates:
- name: nothing important preempted
  maxPreemptedPods: {minPriority: 100, max: 0}
- name: no inference preempted
  maxPreemptedPods: {minPriority: 1000, max: 0}
`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := EvaluateGates(g, rep, run)
	if err != nil {
		t.Fatal(err)
	}
	wantResults := []GateResult{
		{Name: "nothing important preempted", Type: GateMaxPreemptedPods, Target: "priority >= 100", Passed: false, Measured: float(1), Op: "<=", Bound: 0, Message: "priority >= 100: preempted pods = 1, want <= 0"},
		{Name: "no inference preempted", Type: GateMaxPreemptedPods, Target: "priority >= 1000", Passed: true, Measured: float(0), Op: "<=", Bound: 0, Message: "priority >= 1000: preempted pods = 0, want <= 0"},
	}
	if diff := cmp.Diff(wantResults, got); diff != "" {
		t.Errorf("gate results (-want +got):\n%s", diff)
	}
}
