package bench

import (
	"fmt"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/generate"
)

// BenchmarkTargets are the performance targets, each a full replay
// (cluster build, every scheduling cycle, result) of a generated cluster
// where every node has eight GPUs and the pods are the default mixed
// workload (inference with prioritized lists, training with
// matchAttribute, MIG slices, CPU-only):
//
//   - 5,000 nodes, 10,000 pods, kube's sampling: at most 10 s and 2 GiB;
//   - the same scoring every node: at most 20 s;
//   - the cost growth over 500, 1,000, 5,000 and 20,000 nodes (twice as
//     many pods as nodes);
//   - 50,000 nodes with 50,000 pods: within 8 GiB.
//
// The 5,000-node cases and larger take minutes with the checked replay and
// are opt-in (requireLarge). Besides time, each case reports peak-MiB: the
// highest memory the Go runtime held from the OS during the timed replays
// (runtime/metrics, sampled every 20 ms), which tracks the peak RSS that
// /usr/bin/time reports for a CLI run.
func BenchmarkTargets(b *testing.B) {
	cases := []struct {
		nodes, pods int
		all         bool
		large       bool
	}{
		{nodes: 500, pods: 1000},
		{nodes: 1000, pods: 2000},
		{nodes: 5000, pods: 10000, large: true},
		{nodes: 5000, pods: 10000, all: true, large: true},
		{nodes: 20000, pods: 40000, large: true},
		{nodes: 50000, pods: 50000, large: true},
	}
	for _, c := range cases {
		mode := "sampling=kube"
		if c.all {
			mode = "sampling=all"
		}
		b.Run(fmt.Sprintf("nodes=%d,gpus=8,pods=%d/%s", c.nodes, c.pods, mode), func(b *testing.B) {
			if c.large {
				requireLarge(b)
			}
			stop := watchPeakMemory()
			benchReplay(b, replayCase{
				gen: generate.Options{Seed: 1, Nodes: c.nodes, Pods: c.pods, Profiles: gpus8()},
				sim: sim.Options{Seed: 1, ScoreAllNodes: c.all},
				// Training pods that need a whole DGX may find none left,
				// as in a real cluster; everything else fits.
				minScheduled: c.pods * 95 / 100,
			})
			b.ReportMetric(float64(stop())/(1<<20), "peak-MiB")
		})
	}
}

// BenchmarkReferenceRatio measures the default engine against the
// reference engine (every node through the allocator for every pod, no
// classes, no caches) on the comparison cluster: 500 nodes of the
// default mixed fleet, 1,000 pods. Each iteration replays with both and
// the ratio of their wall times is reported; the decisions must be the
// same. One iteration takes a minute or two: opt-in.
func BenchmarkReferenceRatio(b *testing.B) {
	requireLarge(b)
	snap := mustGenerate(b, generate.Options{Seed: 1, Nodes: 500, Pods: 1000})
	var fast, ref time.Duration
	for b.Loop() {
		t0 := time.Now()
		f := mustSimulate(b, snap, sim.Options{Seed: 1})
		t1 := time.Now()
		r := mustSimulate(b, snap, sim.Options{Seed: 1, Reference: true})
		t2 := time.Now()
		fast += t1.Sub(t0)
		ref += t2.Sub(t1)
		if f.Result.Summary != r.Result.Summary {
			b.Fatalf("engines decided differently: default %+v, reference %+v", f.Result.Summary, r.Result.Summary)
		}
	}
	b.ReportMetric(fast.Seconds()/float64(b.N), "fast-s")
	b.ReportMetric(ref.Seconds()/float64(b.N), "reference-s")
	b.ReportMetric(ref.Seconds()/fast.Seconds(), "ratio")
}

// watchPeakMemory samples the memory the runtime holds from the OS (mapped
// minus released) until the returned function is called, which returns
// the peak in bytes.
func watchPeakMemory() func() uint64 {
	samples := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	read := func() uint64 {
		metrics.Read(samples)
		return samples[0].Value.Uint64() - samples[1].Value.Uint64()
	}
	var mu sync.Mutex
	peak := read()
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				v := read()
				mu.Lock()
				peak = max(peak, v)
				mu.Unlock()
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-stopped
		mu.Lock()
		defer mu.Unlock()
		return max(peak, read())
	}
}
