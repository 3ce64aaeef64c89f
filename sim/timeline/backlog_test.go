package timeline

import (
	"testing"
	"time"
)

// TestLongBacklogIsAResult: pods that never fit are tried at every flush
// of the unschedulable pool for as long as the timeline runs (40 hours of
// the demo is 480 flushes, more than any bound per pod); they end as
// "never placed", not as an error.
func TestLongBacklogIsAResult(t *testing.T) {
	in := loadInputPaths(t, "../../scenarios/00-demo.yaml")
	r := run(t, in, Options{End: 40 * time.Hour})
	if got, want := r.Summary.NeverPlaced, 3; got != want {
		t.Errorf("%d pods never placed, want %d", got, want)
	}
	most := 0
	for _, p := range r.Pods {
		if p.Bound == nil {
			most = max(most, p.Attempts)
		}
	}
	// One attempt every 5 minutes: the bound of the old replay (64 per
	// queued pod, counted over the whole run) is far behind.
	if most < 400 {
		t.Errorf("a never placed pod was tried %d times in 40h, want one try per 5-minute flush (about 480)", most)
	}
}
