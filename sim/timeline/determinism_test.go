package timeline

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/drasim/drasim/scenarios"
	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/generate"
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
	// One worker is the timeline's default; four must decide the same.
	four := base
	four.Sim = sim.Options{Parallelism: 4}
	as := *four.Autoscale
	as.Sim.Parallelism = 4
	four.Autoscale = &as
	if got := resultBytes(t, in, four); !bytes.Equal(first, got) {
		t.Errorf("the timeline depends on the number of filter workers")
	}
	ref := base
	ref.Sim = sim.Options{Reference: true}
	if got := resultBytes(t, in, ref); !bytes.Equal(first, got) {
		t.Errorf("the reference engine decides another timeline")
	}
}

// generatedInput is a generated cluster with a generated trace.
func generatedInput(t *testing.T, cluster generate.Options, trace generate.TraceOptions) *Input {
	t.Helper()
	snap, err := generate.Generate(cluster)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := generate.GenerateTrace(trace)
	if err != nil {
		t.Fatal(err)
	}
	var csv bytes.Buffer
	if err := generate.WriteTraceCSV(&csv, rows, ""); err != nil {
		t.Fatal(err)
	}
	in, err := Prepare(snap, nil, []TraceFile{{Name: "trace.csv", Data: csv.Bytes()}})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestShortcutsDecideAlike: a generated autoscaled day (scale-ups,
// drained nodes, evictions) decides the same bytes with the fast engine
// and its shortcuts (node classes, the autoscaler's template-fit cache
// and replayed drain simulations) as with the reference engine.
func TestShortcutsDecideAlike(t *testing.T) {
	in := generatedInput(t, generate.Options{Seed: 4, Nodes: 16, Timeline: true},
		generate.TraceOptions{Seed: 4, Arrivals: 250, Horizon: 90 * time.Minute, DailyCycle: 0.5})
	opts := withAutoscaler(Options{End: 3 * time.Hour})
	fast := run(t, in, opts)
	if fast.Summary.ScaleDowns == 0 || fast.Summary.Evictions == 0 {
		t.Fatalf("%d scale-downs, %d evictions: the fixture does not exercise drains", fast.Summary.ScaleDowns, fast.Summary.Evictions)
	}
	opts.Sim.Reference = true
	ref := run(t, in, opts)
	a, _ := json.Marshal(fast)
	b, _ := json.Marshal(ref)
	if !bytes.Equal(a, b) {
		t.Errorf("the fast and the reference engine decide different timelines (cost %v vs %v, %d vs %d cycles)", fast.Summary.Cost, ref.Summary.Cost, fast.Summary.Cycles, ref.Summary.Cycles)
	}
}

// TestFailureMemoDecidesAlike: a saturated afternoon (pods waiting for
// hours, retried on every event, each failed cycle followed by a
// preemption dry run) decides the same bytes with the memo of failed
// cycles as without it, and the memo answers most of the cycles. (The
// memo with preemptions that delete victims: sim/schedule's
// TestFailureMemoChangesNothing.)
func TestFailureMemoDecidesAlike(t *testing.T) {
	in := generatedInput(t, generate.Options{Seed: 5, Nodes: 12, Timeline: true},
		generate.TraceOptions{Seed: 5, Arrivals: 300, Horizon: 2 * time.Hour, DailyCycle: 0.5,
			Workloads: map[string]int{"inference": 3, "training": 3, "mig": 1, "cpu": 2}})
	var memo, none MemoStats
	opts := Options{End: 2 * time.Hour, Memo: &memo}
	with := run(t, in, opts)
	opts.NoFailureMemo, opts.Memo = true, &none
	without := run(t, in, opts)
	a, _ := json.Marshal(with)
	b, _ := json.Marshal(without)
	if !bytes.Equal(a, b) {
		t.Errorf("the memo of failed cycles changes the timeline (%d vs %d cycles, %d vs %d preempted)", with.Summary.Cycles, without.Summary.Cycles, with.Summary.Preempted, without.Summary.Preempted)
	}
	t.Logf("%d cycles; memo: %d hits, %d misses", with.Summary.Cycles, memo.Hits, memo.Misses)
	if memo.Hits < with.Summary.Cycles/2 {
		t.Errorf("memo: %d hits of %d cycles; the fixture must saturate", memo.Hits, with.Summary.Cycles)
	}
	if none.Hits != 0 {
		t.Errorf("memo off: %d hits, want none", none.Hits)
	}
}
