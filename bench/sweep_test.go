package bench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/drasim/drasim/cmd/drasim/app"
	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/generate"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/schedule"
	"github.com/drasim/drasim/sim/sweep"
)

// mostAllocated is a scheduler configuration that packs nodes.
const mostAllocated = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
`

const leastAllocated = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
`

// sweepFixture writes the sweep: the default mixed fleet of 500
// nodes with 1,000 pending pods, drasim simulate under two scoring
// strategies x seeds seeds, ties broken at random so that every seed is a
// run of its own.
func sweepFixture(b *testing.B, seeds int) string {
	b.Helper()
	dir := b.TempDir()
	snap := mustGenerate(b, generate.Options{Seed: 1, Nodes: 500, Pods: 1000})
	var cluster bytes.Buffer
	if err := generate.WriteYAML(&cluster, snap); err != nil {
		b.Fatal(err)
	}
	files := map[string]string{
		"cluster.yaml": cluster.String(), "least.yaml": leastAllocated, "most.yaml": mostAllocated,
		"sweep.yaml": fmt.Sprintf(`apiVersion: drasim.io/v1alpha1
kind: Sweep
metadata: {name: scoring}
spec:
  command: simulate
  inputs: [cluster.yaml]
  flags: {tie-break: random}
  seeds: {count: %d}
  axes:
  - {name: scoring, flag: scheduler-config, values: [least.yaml, most.yaml]}
  metrics:
  - {name: scheduled, path: summary.scheduled}
  - {name: pending, path: summary.unschedulable}
  - {name: retried, path: "pods.#[attempt=2]"}
`, seeds),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return filepath.Join(dir, "sweep.yaml")
}

// runSweep runs drasim sweep in-process and checks that every run has a
// row without an error and placed at least minScheduled pods.
func runSweep(b *testing.B, path, out string, runs, minScheduled int, args ...string) {
	b.Helper()
	var stdout, stderr bytes.Buffer
	argv := append([]string{"sweep", path, "--output-dir", out}, args...)
	if code := app.Run(app.Streams{In: strings.NewReader(""), Out: &stdout, Err: &stderr}, argv); code != app.ExitOK {
		b.Fatalf("drasim %v: exit %d: %s", argv, code, stderr.String())
	}
	f, err := os.Open(filepath.Join(out, sweep.ResultsBase+".jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	streams, err := sweep.ReadStreams(f.Name(), f, false)
	if err != nil {
		b.Fatal(err)
	}
	rows := streams[0].Rows
	if len(rows) != runs {
		b.Fatalf("want %d rows, got %d", runs, len(rows))
	}
	for _, r := range rows {
		if r.Failed() || r.Metrics[0] < float64(minScheduled) {
			b.Fatalf("run %d: want no error and at least %d pods scheduled, got %v scheduled, error %q", r.Run, minScheduled, r.Metrics[0], r.Error)
		}
	}
}

// BenchmarkSweep is the target: 200 runs (two scoring strategies x
// 100 seeds) of drasim simulate over 500 nodes and 1,000 pending pods, on
// every core, through the command line in-process as a user runs it.
// cpu-s/sweep is the CPU time it takes; on two idle cores the wall time is
// about half of it.
func BenchmarkSweep(b *testing.B) {
	requireLarge(b)
	path := sweepFixture(b, 100)
	b.ResetTimer()
	i := 0
	var cpu time.Duration
	for b.Loop() {
		start := cpuTime(b)
		runSweep(b, path, filepath.Join(b.TempDir(), fmt.Sprint(i)), 200, 900)
		cpu += cpuTime(b) - start
		i++
	}
	b.StopTimer()
	secs := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(secs, "s/sweep")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/sweep")
	b.ReportMetric(200/secs, "runs/s")
}

// BenchmarkSweepOverhead measures what a sweep adds to each replay: the
// command line built and parsed, -o json written and the metrics read from
// it, the row written. It runs 10 runs on one worker through drasim sweep,
// and the same 10 replays with sim.Simulate on the snapshot loaded once,
// and compares the CPU time of both (the sweep's one load of the inputs
// counted apart, as load-cpu-ms).
func BenchmarkSweepOverhead(b *testing.B) {
	requireLarge(b)
	path := sweepFixture(b, 5)
	dir := filepath.Dir(path)
	var sweepTime, simTime, loadTime time.Duration
	i := 0
	for b.Loop() {
		start := cpuTime(b)
		runSweep(b, path, filepath.Join(b.TempDir(), fmt.Sprint(i)), 10, 900, "--workers", "1")
		sweepTime += cpuTime(b) - start
		i++

		// The same garbage collector pace as drasim sweep's (GOGC=400).
		gc := debug.SetGCPercent(400)
		start = cpuTime(b)
		res, err := load.Load([]string{filepath.Join(dir, "cluster.yaml")}, load.Options{})
		if err != nil {
			b.Fatal(err)
		}
		loadTime += cpuTime(b) - start
		start = cpuTime(b)
		for _, config := range []string{"least.yaml", "most.yaml"} {
			plugins, err := sim.LoadSchedulerConfig(filepath.Join(dir, config))
			if err != nil {
				b.Fatal(err)
			}
			for seed := int64(0); seed < 5; seed++ {
				mustSimulate(b, res.Snapshot, sim.Options{Seed: seed, TieBreak: schedule.TieBreakRandom, Plugins: plugins, Parallelism: 1, Admitted: true})
			}
		}
		simTime += cpuTime(b) - start
		debug.SetGCPercent(gc)
	}
	n := float64(b.N)
	b.ReportMetric(sweepTime.Seconds()*1000/n/10, "sweep-cpu-ms/run")
	b.ReportMetric(simTime.Seconds()*1000/n/10, "replay-cpu-ms/run")
	b.ReportMetric(loadTime.Seconds()*1000/n, "load-cpu-ms")
	b.ReportMetric((sweepTime-simTime-loadTime).Seconds()*1000/n/10, "overhead-cpu-ms/run")
}
