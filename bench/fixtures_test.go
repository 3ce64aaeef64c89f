package bench

import (
	"context"
	"os"
	"testing"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/generate"
	"github.com/drasim/drasim/sim/snapshot"
)

// largeEnv opts into the benchmarks that take minutes per iteration on two
// cores (the 1,000-node target). `make bench` leaves them out so
// that a full run stays within a few minutes.
const largeEnv = "DRASIM_BENCH_LARGE"

func requireLarge(b *testing.B) {
	b.Helper()
	if os.Getenv(largeEnv) == "" {
		b.Skipf("takes minutes per iteration on 2 cores; set %s=1 to run it", largeEnv)
	}
}

// gpus8 is a fleet where every node has eight GPUs: half DGX H100, half
// partitionable A100.
func gpus8() map[string]int {
	return map[string]int{generate.ProfileDGXH100: 1, generate.ProfileA100MIG: 1}
}

func mustGenerate(b *testing.B, opts generate.Options) *snapshot.Snapshot {
	b.Helper()
	s, err := generate.Generate(opts)
	if err != nil {
		b.Fatalf("generate.Generate(%+v): want a snapshot, got error %v", opts, err)
	}
	return s
}

func mustSimulate(b *testing.B, s *snapshot.Snapshot, opts sim.Options) *sim.Run {
	b.Helper()
	run, err := sim.Simulate(context.Background(), s, opts)
	if err != nil {
		b.Fatalf("sim.Simulate: want a run, got error %v", err)
	}
	return run
}

// replayCase is one replay benchmark: the cluster, the engine settings and
// how many pods must land for the run to count.
type replayCase struct {
	gen          generate.Options
	sim          sim.Options
	minScheduled int
}

// benchReplay replays the case once and checks it, then times full
// replays (cluster build, every scheduling cycle, result). Each timed
// replay must decide exactly as the checked one did.
func benchReplay(b *testing.B, c replayCase) {
	snap := mustGenerate(b, c.gen)
	// Admitted once, as the CLI admits its input when it loads it: the
	// timed replays are the engine's.
	if err := sim.Admit(snap); err != nil {
		b.Fatalf("sim.Admit: want the generated snapshot admitted, got %v", err)
	}
	c.sim.Admitted = true
	checked := mustSimulate(b, snap, c.sim)
	checkRun(b, snap, checked, c.minScheduled)
	want := checked.Result.Summary
	evaluated := 0
	for _, p := range checked.Result.Pods {
		evaluated += p.EvaluatedNodes
	}

	b.ReportAllocs()
	b.ResetTimer()
	var run *sim.Run
	for b.Loop() {
		run = mustSimulate(b, snap, c.sim)
	}
	b.StopTimer()
	if got := run.Result.Summary; got != want {
		b.Fatalf("timed replay decided differently from the checked one: want %+v, got %+v", want, got)
	}
	secs := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(c.gen.Pods)/secs, "pods/s")
	b.ReportMetric(float64(want.Scheduled), "scheduled")
	// Nodes filtered per scheduling cycle: kube's sampling stops early,
	// ScoreAllNodes filters every node. Most of them reach Allocate.
	b.ReportMetric(float64(evaluated)/float64(c.gen.Pods), "nodes/pod")
}
