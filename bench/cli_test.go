package bench

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/drasim/drasim/cmd/drasim/app"
	"github.com/drasim/drasim/sim/generate"
)

// BenchmarkCLI is issue 16's "CLI on large dumps": `drasim simulate -f
// FILE -o json` in-process (app.Run, so loading, the replay and writing
// the result, as a user runs it) on what `drasim generate --profiles
// dgx-h100=1,a100-mig=1 --seed 1` writes. The targets, on two cores:
// 50,000 nodes x 50,000 pods (1.1 GB of YAML) within 25 s and 2 GiB;
// 5,000 x 10,000 with a replay of at most 1.5 s; 20,000 x 20,000 is
// reported beside them. Writing the YAML takes minutes at these sizes,
// so every case but the 500-node one is opt-in. Each iteration must write
// the same JSON as the first. Besides wall time it reports cpu-s/op (user
// and system: on a shared machine the figure to compare) and peak-MiB
// (as BenchmarkTargets).
func BenchmarkCLI(b *testing.B) {
	cases := []struct {
		nodes, pods int
		large       bool
	}{
		{nodes: 500, pods: 1000},
		{nodes: 5000, pods: 10000, large: true},
		{nodes: 20000, pods: 20000, large: true},
		{nodes: 50000, pods: 50000, large: true},
	}
	for _, c := range cases {
		b.Run(fmt.Sprintf("nodes=%d,gpus=8,pods=%d", c.nodes, c.pods), func(b *testing.B) {
			if c.large {
				requireLarge(b)
			}
			path := writeYAML(b, generate.Options{Seed: 1, Nodes: c.nodes, Pods: c.pods, Profiles: gpus8()})
			var want [sha256.Size]byte
			first := true
			stop := watchPeakMemory()
			start := cpuTime(b)
			b.ResetTimer()
			for b.Loop() {
				h := sha256.New()
				var stderr bytes.Buffer
				if code := app.Run(app.Streams{In: bytes.NewReader(nil), Out: h, Err: &stderr},
					[]string{"simulate", "-f", path, "-o", "json"}); code != 0 {
					b.Fatalf("drasim simulate -f %s: exit code %d, want 0; stderr:\n%s", path, code, stderr.String())
				}
				var got [sha256.Size]byte
				copy(got[:], h.Sum(nil))
				if !first && got != want {
					b.Fatalf("iteration wrote different JSON from the first (sha256 %x, want %x)", got, want)
				}
				want, first = got, false
			}
			b.StopTimer()
			b.ReportMetric((cpuTime(b)-start).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(stop())/(1<<20), "peak-MiB")
		})
	}
}

// writeYAML writes a generated snapshot as `drasim generate` does, into
// the benchmark's temporary directory.
func writeYAML(b *testing.B, opts generate.Options) string {
	b.Helper()
	snap := mustGenerate(b, opts)
	path := filepath.Join(b.TempDir(), "snapshot.yaml")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := generate.WriteYAML(w, snap); err != nil {
		b.Fatalf("generate.WriteYAML: %v", err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}
