package schedule

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/drasim/drasim/sim/framework"
	v1 "k8s.io/api/core/v1"
)

// The filter walk: kube's findNodesThatPassFilters goes over the nodes
// from the rotating start index, wrapping around, runs the filters on
// each and stops once enough feasible nodes are found. nodeWalk is that
// pass behind one seam with two implementations that give the same
// outcome, the one a sequential node-by-node pass gives, whatever the
// parallelism:
//
//   - plainWalk filters every node itself, in batches run in parallel and
//     taken in order (the reference engine, and every cycle whose nodes
//     cannot be put in classes);
//   - classWalk (walk_classes.go) filters one node per class of
//     equivalent nodes and gives the other nodes of the class its
//     outcome (the fast path).
//
// TestFilterWalkIsNodeByNode holds both to a plain loop written in the
// test from kube's code.
type nodeWalk interface {
	walk(ctx context.Context, in *walkInput) (*filterResult, error)
}

var (
	_ nodeWalk = (*plainWalk)(nil)
	_ nodeWalk = (*classWalk)(nil)
)

// walkInput is what a walk goes over.
type walkInput struct {
	state      *framework.CycleState
	pod        *v1.Pod
	candidates []*framework.NodeInfo
	// classes are the candidates' classes (classWalk only).
	classes []uint32
	// start is the candidate the walk begins at; want how many feasible
	// nodes end it.
	start, want int
}

// filterResult is what the walk found in one cycle.
type filterResult struct {
	// feasible are the feasible nodes in the order they were visited,
	// feasibleIdx their indexes among the candidates.
	feasible    []*framework.NodeInfo
	feasibleIdx []int
	// rejected are the distinct rejection statuses and rejectedNodes how
	// many nodes got each.
	rejected      []*framework.Status
	rejectedNodes []int
	// rejectedList lists every rejected node (Options.KeepNodeStatuses).
	rejectedList []NodeResult
	// diagnosed are the first nodes the NodeDiagnoser rejected.
	diagnosed []*framework.NodeInfo
	// potential are the nodes rejected as Unschedulable, in walk order.
	potential []*framework.NodeInfo
	// processed counts the nodes given a status (kube's processedNodes).
	processed int
	// classes are the nodes' classes (nil: every node on its own), for
	// the label keys classKeys.
	classes   []uint32
	classKeys string
	// absent counts the nodes PreFilter's results left out, narrowing
	// the plugins whose results did (sorted).
	absent    int
	narrowing []string
}

// failedAt is the error of a plugin that failed on node ni.
func failedAt(st *framework.Status, ni *framework.NodeInfo) error {
	return pluginError(st.Plugin(), ni.Node().Name, fmt.Errorf("running %q filter plugin: %w", st.Plugin(), framework.StatusError(st)))
}

// diagnoser names the profile's Filter plugin that explains its
// rejections node by node (framework.NodeDiagnoser), or "".
func (s *Scheduler) diagnoser() string {
	for _, p := range s.profile.Filter {
		if _, ok := p.(framework.NodeDiagnoser); ok {
			return p.Name()
		}
	}
	return ""
}

// batches returns the first and the largest batch of nodes a walk filters
// at once. Batches grow from a few per worker, so that a cycle that stops
// early wastes little; one worker filters node by node.
func (s *Scheduler) batches() (first, largest int) {
	if s.opts.Parallelism <= 1 {
		return 1, 1
	}
	return s.opts.Parallelism * 4, max(64, s.opts.Parallelism*16)
}

// plainWalk filters every node on its own. Its arrays are reused from
// cycle to cycle; the feasible nodes and the diagnosed ones are read
// before the next cycle.
type plainWalk struct {
	s           *Scheduler
	statuses    []*framework.Status
	seen        map[*framework.Status]int
	feasible    []*framework.NodeInfo
	feasibleIdx []int
	diagnosed   []*framework.NodeInfo
}

func (w *plainWalk) walk(ctx context.Context, in *walkInput) (*filterResult, error) {
	s, n := w.s, len(in.candidates)
	f := &filterResult{feasible: w.feasible[:0], feasibleIdx: w.feasibleIdx[:0], diagnosed: w.diagnosed[:0]}
	defer func() {
		w.feasible, w.feasibleIdx, w.diagnosed = f.feasible, f.feasibleIdx, f.diagnosed
	}()
	diagnoser := s.diagnoser()
	if w.seen == nil {
		w.seen = map[*framework.Status]int{}
	}
	clear(w.seen)
	chunk, maxChunk := s.batches()
	for i := in.start; f.processed < n && len(f.feasible) < in.want; {
		batch := min(chunk, n-f.processed)
		statuses := framework.Resize(&w.statuses, batch)
		s.parallel(batch, func(k int) {
			statuses[k] = s.filterNode(ctx, in.state, in.pod, in.candidates[(i+k)%n])
		})
		for k := 0; k < batch && len(f.feasible) < in.want; k++ {
			idx, st := (i+k)%n, statuses[k]
			ni := in.candidates[idx]
			switch {
			case st.IsSuccess():
				f.feasible, f.feasibleIdx = append(f.feasible, ni), append(f.feasibleIdx, idx)
			case st.Code() == framework.Error:
				// The failed node is not counted as processed: kube
				// keeps no status for it.
				return f, failedAt(st, ni)
			default:
				w.reject(f, ni, st, diagnoser)
			}
			f.processed++
		}
		i, chunk = (i+batch)%n, min(2*chunk, maxChunk)
	}
	return f, nil
}

// reject counts a rejected node.
func (w *plainWalk) reject(f *filterResult, ni *framework.NodeInfo, st *framework.Status, diagnoser string) {
	// Plugins may return one status value for many nodes.
	r, ok := w.seen[st]
	if !ok {
		r = len(f.rejected)
		w.seen[st] = r
		f.rejected, f.rejectedNodes = append(f.rejected, st), append(f.rejectedNodes, 0)
	}
	f.rejectedNodes[r]++
	if st.Code() == framework.Unschedulable {
		f.potential = append(f.potential, ni)
	}
	if diagnoser != "" && st.Plugin() == diagnoser && len(f.diagnosed) < MaxDiagnosedNodes {
		f.diagnosed = append(f.diagnosed, ni)
	}
	if w.s.opts.KeepNodeStatuses {
		f.rejectedList = append(f.rejectedList, NodeResult{Node: ni.Node().Name, Status: st})
	}
}

// nodeClasses returns each node's class for the pod, or nil when some
// plugin must see every node on its own (or the engine is the reference).
// The score phase asks again, since PreScore may bring label keys; when
// they are the filter's, the filter's classes are reused.
func (s *Scheduler) nodeClasses(state *framework.CycleState, pod *v1.Pod, prev *filterResult) ([]uint32, string) {
	if s.opts.Reference || s.opts.KeepNodeStatuses {
		return nil, ""
	}
	var keys []string
	for _, p := range s.profile.Plugins() {
		lr, ok := p.(framework.LabelReader)
		if !ok {
			return nil, ""
		}
		k, ok := lr.NodeLabelKeys(state, pod)
		if !ok {
			return nil, ""
		}
		keys = append(keys, k...)
	}
	keys = slices.Compact(slices.Sorted(slices.Values(keys)))
	name := strings.Join(keys, "\x00")
	if prev != nil && prev.classes != nil && prev.classKeys == name {
		return prev.classes, name
	}
	var stateKeys []uint32
	var stateLog framework.NodeStateChanges
	for _, p := range s.profile.Plugins() {
		k, ok := p.(framework.NodeStateKeyer)
		if !ok {
			continue
		}
		if stateKeys != nil {
			return nil, "" // one keyer is all the classifier combines
		}
		if stateKeys, ok = k.NodeStateKeys(s.c.Nodes()); !ok {
			return nil, ""
		}
		stateLog, _ = p.(framework.NodeStateChanges)
	}
	return s.classifier.classes(s.c.Nodes(), s.c, keys, name, stateKeys, stateLog), name
}

// ensureFiltered runs the filters on a node that got its feasibility from
// an equivalent node in this cycle; it must pass.
func (s *Scheduler) ensureFiltered(ctx context.Context, state *framework.CycleState, pod *v1.Pod, f *filterResult, j int) error {
	if f.classes == nil || s.direct[f.feasibleIdx[j]] == s.markCycle {
		return nil
	}
	s.direct[f.feasibleIdx[j]] = s.markCycle
	ni := f.feasible[j]
	if st := s.filterNode(ctx, state, pod, ni); !st.IsSuccess() {
		return fmt.Errorf("internal error: node %s is equivalent to a feasible node but %s rejects it: %s", ni.Node().Name, st.Plugin(), st.Message())
	}
	return nil
}

// parallel runs f(0..n-1) on the scheduler's workers.
func (s *Scheduler) parallel(n int, f func(i int)) {
	workers := min(s.opts.Parallelism, n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	// The calling goroutine works too, and waits for the items, not for
	// the workers: with node classes a cycle filters a handful of
	// representatives, often done before a worker is even scheduled on
	// the other core, and waiting for the workers to start and end cost
	// more wall time than they saved (docs/performance.md). A worker that
	// starts after the last item was taken returns without calling f.
	//
	// A panic in f on a worker is the caller's: it is recovered there
	// and raised again on the caller once every item is done (the first
	// one recovered), as it would be with one worker.
	var next, done atomic.Int64
	var panicked atomic.Pointer[workerPanic]
	finished := make(chan struct{})
	item := func(i int) {
		defer func() {
			if p := recover(); p != nil {
				panicked.CompareAndSwap(nil, &workerPanic{p})
			}
			if done.Add(1) == int64(n) {
				close(finished)
			}
		}()
		f(i)
	}
	work := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			item(i)
		}
	}
	for w := 1; w < workers; w++ {
		go work()
	}
	work()
	<-finished
	if p := panicked.Load(); p != nil {
		panic(p.value)
	}
}

// workerPanic is what a worker recovered.
type workerPanic struct{ value any }
