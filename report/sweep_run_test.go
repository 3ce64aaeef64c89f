package report

import (
	"bytes"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/drasim/drasim/sim/sweep"
)

// sweepRunPlan is a plan of two axes and two seeds, as sweep.NewPlan would
// make it from a sweep file.
func sweepRunPlan() *sweep.Plan {
	p := &sweep.Plan{
		Name: "expanders", Command: "autoscale", Fingerprint: "fd24263c1caf6dae",
		Axes:  []sweep.PlanAxis{{Name: "expander", Values: []string{"price", "first-available"}}, {Name: "load", Values: []string{"1", "2"}}},
		Seeds: []int64{0, 1},
	}
	i := 0
	for _, e := range p.Axes[0].Values {
		for _, l := range p.Axes[1].Values {
			for _, seed := range p.Seeds {
				p.Runs = append(p.Runs, sweep.Run{Index: i, Point: []string{e, l}, Seed: seed,
					Args: []string{"autoscale", "--expander=" + e, "--seed=" + strconv.FormatInt(seed, 10), "--output=json", "--filename=/data/cluster.yaml"}})
				i++
			}
		}
	}
	return p
}

// TestSweepRunGolden renders what drasim sweep, its --dry-run and drasim
// sweep merge print. The renderers moved here from cmd/ unchanged; the
// commands' output was compared byte for byte before and after the move.
func TestSweepRunGolden(t *testing.T) {
	plan := sweepRunPlan()
	shard := &sweep.Shard{Index: 1, Count: 3}
	done := &sweep.Outcome{Progress: sweep.Progress{Total: 8, Done: 8, Elapsed: 1234567 * time.Microsecond, Workers: 2}, Complete: true}
	resumed := &sweep.Outcome{Progress: sweep.Progress{Total: 3, Done: 3, Resumed: 1, Failed: 1, Elapsed: 2 * time.Second, Workers: 1},
		BaseMemory: 40 << 20, RunMemory: 3<<20 + 1, Complete: true}
	merged := &sweep.Merged{Header: sweep.Header{Runs: 8}, Rows: make([]sweep.Row, 6), Missing: 2}
	cases := []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"plan", func(b *bytes.Buffer) error { return WriteSweepPlan(b, plan, nil) }},
		{"plan-shard", func(b *bytes.Buffer) error { return WriteSweepPlan(b, plan, shard) }},
		{"outcome", func(b *bytes.Buffer) error {
			return WriteSweepOutcome(b, plan, nil, done, "res/results.jsonl", "res/results.csv")
		}},
		{"outcome-shard", func(b *bytes.Buffer) error {
			return WriteSweepOutcome(b, plan, shard, resumed, "sh/shard-0001-of-0003.jsonl", "sh/shard-0001-of-0003.csv")
		}},
		{"merged", func(b *bytes.Buffer) error {
			return WriteSweepMerged(b, 3, merged, "out/results.csv", "out/results.jsonl", "out")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := c.write(&b); err != nil {
				t.Fatalf("render: want no error, got: %v", err)
			}
			checkGolden(t, filepath.Join(sweepGoldenDir, "run-"+c.name+".golden.txt"), b.Bytes())
		})
	}
}
