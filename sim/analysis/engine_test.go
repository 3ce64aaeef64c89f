package analysis

import (
	"context"
	"fmt"
	"testing"

	"github.com/drasim/drasim/sim"
)

// TestProbesRunOnTheRunsEngine holds the probes to the engine of the run
// they analyze: `drasim report --engine=reference` used to probe with the
// fast engine, because the probes wired a DynamicResources plugin of their
// own without the engine options.
func TestProbesRunOnTheRunsEngine(t *testing.T) {
	b := newCluster()
	for i := 0; i < 4; i++ {
		b.Node(fmt.Sprintf("n%02d", i), "gpu8", 32, 8)
	}
	run := replaySnapshot(t, b.Snapshot())
	ctx := context.Background()
	inv := newInventory(ctx, run.Cluster.DRA())
	for _, reference := range []bool{false, true} {
		t.Run(fmt.Sprintf("reference=%v", reference), func(t *testing.T) {
			opts := Options{Engine: sim.Options{Reference: reference}}.withDefaults()
			p, err := newProber(ctx, run.Cluster, inv, opts)
			if err != nil {
				t.Fatalf("newProber: want no error, got %v", err)
			}
			if got := p.evalEngine.Reference(); got != reference {
				t.Errorf("probe engine: Reference() = %v, want %v", got, reference)
			}
			// The reference DynamicResources plugin asks every node on its
			// own: it never groups nodes by their device state.
			if _, grouped := p.evalEngine.DRA().NodeStateKeys(p.eval.Nodes()); grouped == reference {
				t.Errorf("probe DynamicResources plugin: groups nodes by device state = %v, want %v", grouped, !reference)
			}
		})
	}
}
