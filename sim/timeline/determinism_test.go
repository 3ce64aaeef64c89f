package timeline

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/drasim/drasim/scenarios"
	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/load"
)

func demoInput(t *testing.T) *Input {
	t.Helper()
	res, err := load.LoadBytes("demo", scenarios.TimelineDemo(), load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in, err := Prepare(res.Snapshot, nil, []TraceFile{{Name: "demo-trace.csv", Data: scenarios.TimelineDemoTrace()}})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func resultBytes(t *testing.T, in *Input, opts Options) []byte {
	t.Helper()
	data, err := json.Marshal(run(t, in, opts))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestDeterministic: the same input and settings give the same bytes, run
// after run and whatever the number of filter workers; another seed (with
// the random expander) may give another timeline.
func TestDeterministic(t *testing.T) {
	in := demoInput(t)
	base := withAutoscaler(Options{FragmentationEvery: DefaultResolution * 6})
	first := resultBytes(t, in, base)
	if again := resultBytes(t, in, base); !bytes.Equal(first, again) {
		t.Errorf("two runs of the same timeline differ")
	}
	one := base
	one.Sim = sim.Options{Parallelism: 1}
	if got := resultBytes(t, in, one); !bytes.Equal(first, got) {
		t.Errorf("the timeline depends on the number of filter workers")
	}
	ref := base
	ref.Sim = sim.Options{Reference: true}
	if got := resultBytes(t, in, ref); !bytes.Equal(first, got) {
		t.Errorf("the reference engine decides another timeline")
	}
}
