package report

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/load"
)

const explainGoldenDir = "testdata/explain"

// explainCases are one pod of a scenario each, chosen so that together they
// show every part of an explanation: a chosen node with scores and devices,
// prioritized-list alternatives, filter rejections with device reasons, a
// PreFilter rejection, a scheduler error, preemption, each pod group
// verdict and a gang's preemption.
var explainCases = []struct {
	name, scenario, namespace, pod, gates string
}{
	{"chosen", "00-demo", "default", "infer-4", ""},
	{"does-not-fit", "00-demo", "default", "train-1", ""},
	{"prioritized-list", "01-prioritized-list", "default", "flex-2", ""},
	{"prefilter", "15-unschedulable", "default", "missing-device-class", ""},
	{"scheduler-error", "21-scheduler-errors", "default", "bad-selector", ""},
	{"preemption", "30-preempt-cpu", "default", "p-half", ""},
	{"gang-short", "41-gang-short-one-device", "default", "train-3", "GenericWorkload=true"},
	{"gang-fits", "40-gang-fits", "default", "workers-0", "GenericWorkload=true"},
	{"gang-waiting", "40-gang-fits", "default", "waiting-0", "GenericWorkload=true"},
	{"gang-preemption", "44-gang-preempts", "default", "train-2", "GenericWorkload=true"},
}

func TestWriteExplanationTableGolden(t *testing.T) {
	for _, tc := range explainCases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join("..", "scenarios", tc.scenario+".yaml")
			res, err := load.Load([]string{path}, load.Options{})
			if err != nil {
				t.Fatalf("loading %s: want no error, got:\n%v", path, err)
			}
			gates, err := feature.Parse(tc.gates)
			if err != nil {
				t.Fatalf("gates %q: %v", tc.gates, err)
			}
			ex, err := sim.Explain(context.Background(), res.Snapshot, sim.Options{Gates: gates}, tc.namespace, tc.pod)
			if err != nil {
				t.Fatalf("Explain(%s/%s): want no error, got: %v", tc.namespace, tc.pod, err)
			}
			var b bytes.Buffer
			if err := WriteExplanationTable(&b, ex); err != nil {
				t.Fatalf("WriteExplanationTable: want no error, got: %v", err)
			}
			checkGolden(t, filepath.Join(explainGoldenDir, tc.name+".golden.txt"), b.Bytes())
		})
	}
}
