package load

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/drasim/drasim/sim/generate"
)

// writeGenerated writes a generated snapshot (GPU nodes of two profiles and
// their pending pods, as `drasim generate` makes them) to a YAML file.
func writeGenerated(tb testing.TB, dir string, nodes, pods int) string {
	tb.Helper()
	snap, err := generate.Generate(generate.Options{Seed: 1, Nodes: nodes, Pods: pods,
		Profiles: map[string]int{"dgx-h100": 1, "a100-mig": 1}})
	if err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(dir, fmt.Sprintf("generated-%d.yaml", nodes))
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if err := generate.WriteYAML(w, snap); err != nil {
		tb.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// BenchmarkLoad loads generated snapshots from disk: 100 nodes (2.2 MB) and
// the 1,000-node, 2,000-pod target of docs/performance.md (22 MB).
func BenchmarkLoad(b *testing.B) {
	for _, size := range []struct{ nodes, pods int }{{100, 200}, {1000, 2000}} {
		b.Run(fmt.Sprintf("nodes=%d", size.nodes), func(b *testing.B) {
			path := writeGenerated(b, b.TempDir(), size.nodes, size.pods)
			st, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(st.Size())
			b.ReportAllocs()
			for b.Loop() {
				res, err := Load([]string{path}, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Snapshot.Nodes) != size.nodes {
					b.Fatalf("loaded %d nodes, want %d", len(res.Snapshot.Nodes), size.nodes)
				}
			}
		})
	}
}

// BenchmarkFastReader reads the 22 MB target into trees, document by
// document, without loading the objects: the part of BenchmarkLoad that
// replaced yaml.v3.
func BenchmarkFastReader(b *testing.B) {
	data, err := os.ReadFile(writeGenerated(b, b.TempDir(), 1000, 2000))
	if err != nil {
		b.Fatal(err)
	}
	text := string(data)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		r := newFastReader(text)
		for docs := 0; ; docs++ {
			_, _, ok, eof := r.next()
			if !ok {
				b.Fatalf("the fast reader gave up at document %d", docs)
			}
			if eof {
				break
			}
		}
	}
}
