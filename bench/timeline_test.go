package bench

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/drasim/drasim/cmd/drasim/app"
)

// BenchmarkTimeline is issue 13's speed target: drasim timeline over 24 h
// of generated arrivals with the autoscaler on, run in-process as a user
// runs it (`drasim timeline -f cluster.yaml --trace trace.csv -o json`,
// the default settings: scale-down on, a sample every 5 minutes, the
// fragmentation rate every hour). The cluster is `drasim generate
// --timeline` with N starting nodes; its node groups may grow to four
// times their size, so nodes=250 is the "up to 1,000 nodes" and
// arrivals=20000,nodes=250 the target (within 30 s and 2 GiB on 2 cores).
// The grid over arrivals (2,000, 5,000, 20,000) and starting nodes (100,
// 250, 1,000) is the growth docs/benchmarks-archive.md records.
//
// Before the timed loop the timeline runs once and must have placed every
// arrival; every timed run must write the same bytes. Metrics: cpu-s/op,
// the process's CPU time per run (on a shared machine the wall time
// follows the load, the CPU time much less), and peak-MiB, the most memory
// the Go runtime held from the OS during the timed runs. Only the smallest
// case runs in `make bench`; the others take from seconds to minutes and
// are opt-in (requireLarge).
func BenchmarkTimeline(b *testing.B) {
	cases := []struct {
		arrivals, nodes int
		large           bool
	}{
		{arrivals: 500, nodes: 100},
		{arrivals: 2000, nodes: 100, large: true},
		{arrivals: 2000, nodes: 250, large: true},
		{arrivals: 2000, nodes: 1000, large: true},
		{arrivals: 5000, nodes: 100, large: true},
		{arrivals: 5000, nodes: 250, large: true},
		{arrivals: 5000, nodes: 1000, large: true},
		{arrivals: 20000, nodes: 100, large: true},
		{arrivals: 20000, nodes: 250, large: true},
		{arrivals: 20000, nodes: 1000, large: true},
	}
	for _, c := range cases {
		b.Run(fmt.Sprintf("arrivals=%d,nodes=%d", c.arrivals, c.nodes), func(b *testing.B) {
			if c.large {
				requireLarge(b)
			}
			dir := b.TempDir()
			cluster, trace := filepath.Join(dir, "cluster.yaml"), filepath.Join(dir, "trace.csv")
			runCLI(b, "generate", "--nodes", fmt.Sprint(c.nodes), "--pods", "0", "--timeline", "--output-snapshot", cluster)
			runCLI(b, "generate", "trace", "--arrivals", fmt.Sprint(c.arrivals), "--output-trace", trace)
			args := []string{"timeline", "-f", cluster, "--trace", trace, "-o", "json"}

			want := runCLI(b, args...)
			checkTimeline(b, want, c.arrivals)
			timeCLI(b, want, args)
		})
	}
}

// timeCLI runs the CLI with args in the timed loop, checks that every
// run wrote the bytes of the checked run want, and reports the process's
// CPU time per run (cpu-s/op) and its peak memory (peak-MiB).
func timeCLI(b *testing.B, want []byte, args []string) {
	b.Helper()
	wantSum := sha256.Sum256(want)
	stop := watchPeakMemory()
	start := cpuTime(b)
	b.ResetTimer()
	var got []byte
	for b.Loop() {
		got = runCLI(b, args...)
	}
	b.StopTimer()
	cpu := cpuTime(b) - start
	peak := stop()
	if sha256.Sum256(got) != wantSum {
		b.Fatalf("a timed run wrote other bytes than the checked run (%d bytes, want %d)", len(got), len(want))
	}
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
}

// runCLI runs drasim in-process and returns what it wrote on stdout.
func runCLI(b *testing.B, args ...string) []byte {
	b.Helper()
	var stdout, stderr bytes.Buffer
	if code := app.Run(app.Streams{In: strings.NewReader(""), Out: &stdout, Err: &stderr}, args); code != app.ExitOK {
		b.Fatalf("drasim %v: exit %d: %s", args, code, stderr.String())
	}
	return stdout.Bytes()
}

// checkTimeline checks a timeline's JSON: every arrival placed, none
// pending at the end, the autoscaler at work both ways.
func checkTimeline(b *testing.B, out []byte, arrivals int) {
	b.Helper()
	var res struct {
		Summary struct {
			Pods, Placed, Pending, NeverPlaced int
		}
		ScaleUps, ScaleDowns []json.RawMessage
		Series               []json.RawMessage
		Inputs               struct{ End float64 }
	}
	if err := json.Unmarshal(out, &res); err != nil {
		b.Fatalf("timeline JSON: %v", err)
	}
	s := res.Summary
	if s.Pods != arrivals || s.Placed != arrivals || s.Pending != 0 || s.NeverPlaced != 0 {
		b.Fatalf("want all %d arrivals placed and none pending, got %+v", arrivals, s)
	}
	if len(res.ScaleDowns) == 0 {
		b.Fatalf("want the autoscaler to remove nodes, got %d scale-ups and no scale-down", len(res.ScaleUps))
	}
	if end := time.Duration(res.Inputs.End * float64(time.Second)); end < 24*time.Hour {
		b.Fatalf("want a timeline of at least 24h, got %s", end)
	}
}
