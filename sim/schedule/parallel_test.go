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
