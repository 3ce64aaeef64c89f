package sim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/generate"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/snapshot"
)

// runBytes replays a snapshot and returns the JSON result and the output
// snapshot, the two things that must not depend on the engine.
func runBytes(t *testing.T, snap *snapshot.Snapshot, opts sim.Options) ([]byte, []byte) {
	t.Helper()
	run, err := sim.Simulate(context.Background(), snap, opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := json.Marshal(run.Result)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run.Cluster.WriteSnapshot(&out); err != nil {
		t.Fatal(err)
	}
	return res, out.Bytes()
}

func sameDecisions(t *testing.T, snap *snapshot.Snapshot, opts sim.Options) {
	t.Helper()
	fastRes, fastOut := runBytes(t, snap, opts)
	opts.Reference = true
	refRes, refOut := runBytes(t, snap, opts)
	if !bytes.Equal(fastRes, refRes) {
		t.Errorf("-o json differs between the default and the reference engine:\nfast: %.2000s\nref:  %.2000s", fastRes, refRes)
	}
	if !bytes.Equal(fastOut, refOut) {
		t.Errorf("--output-snapshot differs between the default and the reference engine")
	}
}

// TestEnginesAgreeOnScenarios: speed never buys a different decision.
func TestEnginesAgreeOnScenarios(t *testing.T) {
	files, _ := filepath.Glob("../scenarios/*.yaml")
	if len(files) == 0 {
		t.Fatal("no scenarios")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			res, err := load.Load([]string{f}, load.Options{})
			if err != nil {
				t.Fatal(err)
			}
			sameDecisions(t, res.Snapshot, sim.Options{})
		})
	}
}

// TestEnginesAgreeOnGeneratedClusters sweeps generator seeds, node profiles
// and workload mixes, sampled and scoring every node.
func TestEnginesAgreeOnGeneratedClusters(t *testing.T) {
	seeds := 8
	if testing.Short() {
		seeds = 3
	}
	for seed := int64(1); seed <= int64(seeds); seed++ {
		for _, all := range []bool{false, true} {
			t.Run(fmt.Sprintf("seed=%d,scoreAll=%v", seed, all), func(t *testing.T) {
				snap, err := generate.Generate(generate.Options{Seed: seed, Nodes: 16 + int(seed)*4, Pods: 40 + int(seed)*12})
				if err != nil {
					t.Fatal(err)
				}
				sameDecisions(t, snap, sim.Options{Seed: seed, ScoreAllNodes: all})
			})
		}
	}
}
