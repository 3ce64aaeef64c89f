package helper

import (
	"context"
	"runtime"
	"testing"
)

// TestParallelizeUntilPanicsOnTheCaller: a panic in fn on a worker
// reaches the caller, which may recover it, instead of ending the
// process.
func TestParallelizeUntilPanicsOnTheCaller(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one CPU: ParallelizeUntil runs on the caller")
	}
	n := 4 * minPiecesPerWorker
	got := func() (p any) {
		defer func() { p = recover() }()
		ParallelizeUntil(context.Background(), n, func(i int) {
			if i == n-1 { // the last worker's piece
				panic("item")
			}
		})
		return nil
	}()
	if got != "item" {
		t.Errorf("the caller recovered %v, want the worker's panic %q", got, "item")
	}
}
