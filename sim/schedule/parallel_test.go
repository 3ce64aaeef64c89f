package schedule

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestParallelRunsEachItemOnce: parallel calls f once for every item and
// returns only when every call has returned, whatever the number of
// workers, also when an item is slow to finish on a worker while the
// caller has run out of items.
func TestParallelRunsEachItemOnce(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 8} {
		s := &Scheduler{opts: Options{Parallelism: workers}}
		for _, n := range []int{0, 1, 2, 5, 64, 1000} {
			calls := make([]atomic.Int32, n)
			var finished atomic.Int32
			s.parallel(n, func(i int) {
				if i == n-1 {
					time.Sleep(time.Millisecond) // the last item ends last
				}
				calls[i].Add(1)
				finished.Add(1)
			})
			if got := int(finished.Load()); got != n {
				t.Errorf("%d workers, %d items: returned after %d calls", workers, n, got)
			}
			for i := range calls {
				if c := calls[i].Load(); c != 1 {
					t.Errorf("%d workers, %d items: item %d ran %d times", workers, n, i, c)
				}
			}
		}
	}
}

// TestParallelPanicsOnTheCaller: a panic in f, on whichever goroutine
// runs the item, reaches parallel's caller, which may recover it (the
// CLI does, when its admission check rejects the input beside the
// replay), after every other item has run.
func TestParallelPanicsOnTheCaller(t *testing.T) {
	for _, workers := range []int{1, 2, 8} {
		for _, bad := range []int{0, 5, 63} {
			s := &Scheduler{opts: Options{Parallelism: workers}}
			var ran atomic.Int32
			got := func() (p any) {
				defer func() { p = recover() }()
				s.parallel(64, func(i int) {
					if i == bad {
						panic(i)
					}
					ran.Add(1)
				})
				return nil
			}()
			if got != bad {
				t.Errorf("%d workers, item %d panics: the caller recovered %v, want %d", workers, bad, got, bad)
			}
			if workers > 1 && ran.Load() != 63 {
				t.Errorf("%d workers, item %d panics: %d other items ran before the panic reached the caller, want 63", workers, bad, ran.Load())
			}
		}
	}
}
