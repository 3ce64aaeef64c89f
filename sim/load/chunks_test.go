package load

import (
	"os"
	"path/filepath"
	"testing"
)

// checkSameInChunks loads data from a file in chunks of a few bytes (every
// "---" line ends one) and of a few dozen, read in pieces of as many bytes
// on 4 goroutines, and fails unless the snapshot,
// warnings and errors are those of loading the text whole.
func checkSameInChunks(t *testing.T, name string, data []byte, opts Options) {
	t.Helper()
	want, wantErr := LoadBytes(name, data, opts)
	path := filepath.Join(t.TempDir(), "in.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{1, 5, 64, 4096} {
		l := newLoader(opts)
		l.chunkBytes, l.pieceBytes, l.workers = size, size, 4
		if err := l.addPath(name, path); err != nil {
			t.Fatalf("%s: reading in chunks of %d: %v", name, size, err)
		}
		got, gotErr := l.finish([]string{name})
		if d := diffLoads(want, wantErr, got, gotErr); d != "" {
			t.Errorf("%s: chunks of %d bytes differ from the whole text:\n%s", name, size, d)
		}
	}
}

func TestChunksMatchWholeTextOnCases(t *testing.T) {
	extra := []struct{ name, data string }{
		{"comments before the first marker", "# a\n# b\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: a\n---\n---\n"},
		{"marker at the start", "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: a\n"},
		{"trailing marker", "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n---\n"},
		{"broken document in a later chunk", "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: b\n---\nkind: {a: [\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: c\n"},
		{"literal scalar before a marker", "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  annotations:\n    x: |+\n      y\n\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: b\n  bogus: 1\n"},
	}
	for _, tt := range sameAsReferenceCases {
		extra = append(extra, struct{ name, data string }{tt.name, tt.data})
	}
	for _, tt := range extra {
		t.Run(tt.name, func(t *testing.T) {
			checkSameInChunks(t, "test.yaml", []byte(tt.data), Options{})
		})
	}
}

func TestChunksMatchWholeTextOnFiles(t *testing.T) {
	eachCorpusFile(t, func(name string, data []byte) {
		checkSameInChunks(t, name, data, Options{})
	})
	path := writeGenerated(t, t.TempDir(), 20, 40)
	checkSameInChunks(t, path, mustReadFile(t, path), Options{})
}
