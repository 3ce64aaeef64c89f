package bench

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/generate"
	"github.com/drasim/drasim/sim/result"
	"github.com/drasim/drasim/sim/whatif"
)

// BenchmarkDomainLoss times the failure-domain gate's analysis: every node
// of a replayed cluster removed on its own copy, its pods replayed on the
// rest, the copies evaluated in parallel on every core. The target
// is 1,000 nodes within 60 s on two cores (opt-in: DRASIM_BENCH_LARGE=1,
// about two minutes with the check). Before the timed loop, one
// analysis must account for every node and every pod the replay placed
// (each is queued again when its node goes).
func BenchmarkDomainLoss(b *testing.B) {
	for _, nodes := range []int{100, 1000} {
		b.Run(fmt.Sprintf("nodes=%d,gpus=8,pods=%d", nodes, 2*nodes), func(b *testing.B) {
			if nodes > 100 {
				requireLarge(b)
			}
			snap := mustGenerate(b, generate.Options{Seed: 1, Nodes: nodes, Pods: 2 * nodes, Profiles: gpus8()})
			run := mustSimulate(b, snap, sim.Options{Seed: 1})
			opts := whatif.DomainOptions{Domain: whatif.DomainNode, Sim: sim.Options{Seed: 1}}
			r, err := whatif.Domains(context.Background(), run, opts)
			if err != nil {
				b.Fatalf("Domains: %v", err)
			}
			queued := 0
			for _, l := range r.Losses {
				queued += l.Pods
			}
			placed := 0
			for _, p := range run.Result.Pods {
				if p.Phase == result.PhaseScheduled || p.Phase == result.PhaseBound {
					placed++
				}
			}
			if r.Domains != nodes || queued != placed {
				b.Fatalf("want %d domains queuing the %d placed pods between them, got %d domains queuing %d", nodes, placed, r.Domains, queued)
			}
			b.ReportMetric(float64(r.Stranding), "stranding-domains")
			// CPU time as well as wall time: on a shared machine the wall
			// time says more about the neighbours than about drasim.
			start := cpuTime(b)
			b.ResetTimer()
			for range b.N {
				if _, err := whatif.Domains(context.Background(), run, opts); err != nil {
					b.Fatalf("Domains: %v", err)
				}
			}
			b.StopTimer()
			b.ReportMetric((cpuTime(b)-start).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// cpuTime is the CPU time (user and system) the process has used so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
