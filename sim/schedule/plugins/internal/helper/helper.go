package helper

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/framework"
)

// DefaultNormalizeScore scales scores so that the highest becomes
// maxPriority (integer arithmetic, as kube); with reverse the scale is
// flipped so that the lowest raw score gets maxPriority. All-zero scores
// stay 0, or become maxPriority when reversed.
func DefaultNormalizeScore(maxPriority int64, reverse bool, scores []framework.NodeScore) *framework.Status {
	var maxCount int64
	for i := range scores {
		if scores[i].Score > maxCount {
			maxCount = scores[i].Score
		}
	}
	if maxCount == 0 {
		if reverse {
			for i := range scores {
				scores[i].Score = maxPriority
			}
		}
		return nil
	}
	for i := range scores {
		s := maxPriority * scores[i].Score / maxCount
		if reverse {
			s = maxPriority - s
		}
		scores[i].Score = s
	}
	return nil
}

// TaintTolerationComparisonOperators is the v1.37 default of the alpha
// feature gate TaintTolerationComparisonOperators (Lt/Gt tolerations).
const TaintTolerationComparisonOperators = false

// ToleratesTaint reports whether any toleration tolerates taint. The logger
// is discarded: kube only logs when the comparison operators are on.
func ToleratesTaint(tolerations []v1.Toleration, taint *v1.Taint) bool {
	for i := range tolerations {
		if tolerations[i].ToleratesTaint(logr.Discard(), taint, TaintTolerationComparisonOperators) {
			return true
		}
	}
	return false
}

// FindUntoleratedNoScheduleTaint returns the first NoSchedule or NoExecute
// taint that no toleration tolerates. It does not allocate.
func FindUntoleratedNoScheduleTaint(taints []v1.Taint, tolerations []v1.Toleration) (*v1.Taint, bool) {
	for i := range taints {
		t := &taints[i]
		if t.Effect != v1.TaintEffectNoSchedule && t.Effect != v1.TaintEffectNoExecute {
			continue
		}
		if !ToleratesTaint(tolerations, t) {
			return t, true
		}
	}
	return nil, false
}

// minPiecesPerWorker keeps small loops on the calling goroutine, where
// spawning workers costs more than it saves.
const minPiecesPerWorker = 64

// ParallelizeUntil runs fn(i) for every i in [0, n), spread over up to
// GOMAXPROCS goroutines, and returns when all are done or ctx is cancelled.
// fn must only write to per-index storage; callers merge the results in
// index order afterwards, which keeps the outcome deterministic. A panic
// in fn is raised again on the caller once the workers are done (the
// first one recovered), as it would be with one worker, so that the
// caller may recover it.
func ParallelizeUntil(ctx context.Context, n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n/minPiecesPerWorker)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			if ctx.Err() != nil {
				return
			}
			fn(i)
		}
		return
	}
	chunk := (n + workers - 1) / workers
	var wg sync.WaitGroup
	var panicked atomic.Pointer[workerPanic]
	for w := 0; w < workers; w++ {
		lo, hi := w*chunk, min((w+1)*chunk, n)
		if lo >= hi {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					panicked.CompareAndSwap(nil, &workerPanic{p})
				}
			}()
			for i := lo; i < hi; i++ {
				if ctx.Err() != nil {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
	if p := panicked.Load(); p != nil {
		panic(p.value)
	}
}

// workerPanic is what a worker recovered.
type workerPanic struct{ value any }
