package sim

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/load"
	"github.com/google/go-cmp/cmp"
)

// TestExplainGroupPreemption: explain shows a gang's preemption as kube
// v1.37.2 decided it in scenario 44 (recorded): the rerun without the
// lower-priority pods puts train-0 and train-2 on n1 and train-1 on n2,
// low-d and low-e are given back, and low-b, low-a and low-c go, most
// important first. The pod the first cycle never reached gets it too.
func TestExplainGroupPreemption(t *testing.T) {
	res, err := load.Load([]string{filepath.Join("..", "scenarios", "44-gang-preempts.yaml")}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	gates, err := feature.Parse("GenericWorkload=true")
	if err != nil {
		t.Fatal(err)
	}
	want := &GroupPreemptionExplanation{
		Cycle:   1,
		Message: "pod group preemption: found a placement for podgroup, preempting 3 victims",
		Success: true,
		Pods: []GroupPreemptionPod{
			{Pod: "default/train-0", RerunNode: "n1", Nominated: "n1"},
			{Pod: "default/train-1", RerunNode: "n2", Nominated: "n2"},
			{Pod: "default/train-2", RerunNode: "n1", Nominated: "n1"},
		},
		Victims: []GroupPreemptionVictim{
			{Pod: "default/low-b", Node: "n1", Priority: 20},
			{Pod: "default/low-a", Node: "n1", Priority: 10},
			{Pod: "default/low-c", Node: "n2", Priority: 10},
		},
	}
	for _, pod := range []string{"train-0", "train-2"} {
		ex, err := Explain(context.Background(), res.Snapshot, Options{Gates: gates}, "default", pod)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, ex.GroupPreemption); diff != "" {
			t.Errorf("%s: gang preemption (-want +got):\n%s", pod, diff)
		}
	}
	// Without the gate there are no gangs, and no gang preemption.
	ex, err := Explain(context.Background(), res.Snapshot, Options{}, "default", "train-0")
	if err != nil {
		t.Fatal(err)
	}
	if ex.GroupPreemption != nil {
		t.Errorf("gate off: want no gang preemption, got %+v", ex.GroupPreemption)
	}
}
