package load

import (
	"testing"
)

// loadBytesWith is LoadBytes with the batching set: workers decoding a
// batch and reading the pieces of the text, and the JSON bytes that end a
// batch (and the text that ends a piece, when they are few).
func loadBytesWith(name string, data []byte, opts Options, workers, batchBytes int) (*Result, error) {
	l := newLoader(opts)
	l.workers, l.batchBytes = workers, batchBytes
	l.pieceBytes = min(batchBytes, defaultPieceBytes)
	l.addFile(name, string(data))
	return l.finish([]string{name})
}

// checkSameInParallel loads data sequentially (one worker, one batch, one
// piece) and in parallel with a batch per object and a piece per document
// (or a few), every batch decoded while the next is read, the pieces read
// on 4 goroutines, and fails on any difference: the same snapshot in the same
// order, the same warnings and errors in the same order.
func checkSameInParallel(t *testing.T, name string, data []byte, opts Options) {
	t.Helper()
	want, wantErr := loadBytesWith(name, data, opts, 1, 1<<62)
	for _, batchBytes := range []int{1, 300} {
		got, gotErr := loadBytesWith(name, data, opts, 4, batchBytes)
		if d := diffLoads(want, wantErr, got, gotErr); d != "" {
			t.Errorf("%s: batches of %d bytes on 4 workers differ from a sequential load:\n%s", name, batchBytes, d)
		}
	}
}

func TestParallelDecodeMatchesSequentialOnCases(t *testing.T) {
	for _, tt := range sameAsReferenceCases {
		t.Run(tt.name, func(t *testing.T) {
			checkSameInParallel(t, "test.yaml", []byte(tt.data), Options{})
			checkSameInParallel(t, "test.yaml", []byte(tt.data), Options{Strict: true})
		})
	}
}

func TestParallelDecodeMatchesSequentialOnFiles(t *testing.T) {
	eachCorpusFile(t, func(name string, data []byte) {
		checkSameInParallel(t, name, data, Options{})
	})
	path := writeGenerated(t, t.TempDir(), 20, 40)
	checkSameInParallel(t, path, mustReadFile(t, path), Options{})
}

// TestParallelDecodeKeepsErrorOrder holds the first error to the first
// broken object in the file, whichever batch decodes first: broken objects
// and objects rejected before decoding alternate with good ones.
func TestParallelDecodeKeepsErrorOrder(t *testing.T) {
	var data []byte
	for i := range 60 {
		switch i % 4 {
		case 0:
			data = append(data, "apiVersion: v1\nkind: Node\nmetadata:\n  name: n"...)
			data = append(data, byte('a'+i%26), byte('a'+i/26))
			data = append(data, "\n---\n"...)
		case 1:
			data = append(data, "apiVersion: v1\nkind: Node\nmetadata:\n  name: bad\nstatus:\n  allocatable: [1]\n---\n"...)
		case 2:
			data = append(data, "kind: Node\nmetadata:\n  name: x\n---\n"...)
		case 3:
			data = append(data, "apiVersion: v1\nkind: Node\nmetadata:\n  name: dup\n  bogus: 1\n---\n"...)
		}
	}
	checkSameInParallel(t, "order.yaml", data, Options{})
	_, err := loadBytesWith("order.yaml", data, Options{}, 4, 1)
	errs, _ := err.(Errors)
	if len(errs) == 0 || errs[0].Source.Doc != 1 || errs[0].Field != "status.allocatable" {
		t.Fatalf("first error = %v; want document 1's status.allocatable", err)
	}
}
