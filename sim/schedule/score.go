package schedule

import (
	"context"
	"math/bits"
	"slices"

	"github.com/drasim/drasim/sim/framework"
	v1 "k8s.io/api/core/v1"
)

// scoreResult holds the scores of one cycle by slot: one slot per class
// of feasible nodes (per node without classes).
type scoreResult struct {
	slot   []int32 // per feasible node
	totals []int64
	scores [][]PluginScore
}

func (sc *scoreResult) total(j int) int64 { return sc.totals[sc.slot[j]] }

// result is feasible node j's score record; it outlives the cycle, the
// score result does not.
func (sc *scoreResult) result(j int, name string) *NodeResult {
	k := sc.slot[j]
	return &NodeResult{Node: name, Scores: slices.Clone(sc.scores[k]), Total: sc.totals[k]}
}

// prioritizeNodes is kube's prioritizeNodes: PreScore with the feasible
// nodes, then Score (framework.RunScore: normalized per plugin and
// weighted). Score runs once per class of feasible nodes when the walk
// had classes (the classes may be finer than the filter's: PreScore can
// bring more label keys), on the first node of each.
func (s *Scheduler) prioritizeNodes(ctx context.Context, state *framework.CycleState, pod *v1.Pod, f *filterResult) (*scoreResult, error) {
	if err := s.profile.RunPreScore(ctx, state, pod, f.feasible); err != nil {
		return nil, err
	}
	sc := &scoreResult{slot: framework.Resize(&s.buf.scoreSlot, len(f.feasible))}
	reps, err := s.scoreReps(ctx, state, pod, f, sc.slot)
	if err != nil {
		return nil, err
	}
	scores, err := s.profile.RunScore(ctx, state, pod, reps, s.parallelFn, &s.buf.score)
	if err != nil {
		return nil, err
	}
	sc.totals, sc.scores = scores.Totals, scores.Scores
	return sc, nil
}

// scoreReps returns the nodes to score, writing each feasible node's
// slot among them to slot: every feasible node without classes, the
// first of each class with them. Each must have run the filters itself,
// for plugins that score from what Filter found.
func (s *Scheduler) scoreReps(ctx context.Context, state *framework.CycleState, pod *v1.Pod, f *filterResult, slot []int32) ([]*framework.NodeInfo, error) {
	var classes []uint32
	if f.classes != nil {
		classes, _ = s.nodeClasses(state, pod, f)
	}
	if classes == nil {
		for j := range f.feasible {
			slot[j] = int32(j)
			if err := s.ensureFiltered(ctx, state, pod, f, j); err != nil {
				return nil, err
			}
		}
		return f.feasible, nil
	}
	s.buf.firsts = s.slots(classes).assignAll(f.feasibleIdx, slot, s.buf.firsts[:0])
	reps := s.buf.scoreReps[:0]
	for _, j := range s.buf.firsts {
		reps = append(reps, f.feasible[j])
		if err := s.ensureFiltered(ctx, state, pod, f, j); err != nil {
			return nil, err
		}
	}
	s.buf.scoreReps = reps
	return reps, nil
}

// selectHost returns the index of the feasible node the pod goes to.
func (s *Scheduler) selectHost(sc *scoreResult, feasible []*framework.NodeInfo) int {
	switch s.opts.TieBreak {
	case TieBreakRandom:
		return s.randomHost(sc)
	case TieBreakName:
		return nameHost(sc, feasible, s.opts.TieRank)
	}
	return kubeHost(sc)
}

// nameHost picks the highest total; among equals the node whose name is
// smallest (TieBreakName), or, with ranks, the node of lowest rank (a
// node without one after every ranked node, then by name).
func nameHost(sc *scoreResult, feasible []*framework.NodeInfo, rank map[string]int) int {
	best, bestTotal := 0, sc.total(0)
	for j := 1; j < len(sc.slot); j++ {
		t := sc.total(j)
		if t > bestTotal || t == bestTotal && nameBefore(feasible[j].Node().Name, feasible[best].Node().Name, rank) {
			best, bestTotal = j, t
		}
	}
	return best
}

// nameBefore orders node names for TieBreakName: by rank when ranks are
// given (unranked last), then by name.
func nameBefore(a, b string, rank map[string]int) bool {
	if rank != nil {
		ra, okA := rank[a]
		rb, okB := rank[b]
		switch {
		case okA && okB && ra != rb:
			return ra < rb
		case okA != okB:
			return okA
		}
	}
	return a < b
}

// kubeHost is kube-scheduler v1.37.2's choice: schedulePod pops the first
// node of framework.NewSortedScoredNodes, a container/heap max-heap over
// the feasible nodes in the order the filter pass appended them, ordered
// by total score and then by a Randomizer that only extenders set (so 0
// here). The pop returns the heap's root after heap.Init; among equal
// totals that is whichever node the sift-downs leave on top, which is not
// always the first tied node in filter order. heapFirst says which one
// without building the heap.
func kubeHost(sc *scoreResult) int {
	slot, totals := sc.slot, sc.totals
	best, bestTotal := 0, totals[slot[0]]
	for j := 1; j < len(slot); j++ {
		if t := totals[slot[j]]; t > bestTotal {
			best, bestTotal = j, t
		} else if t == bestTotal && heapFirst(j, best) {
			best = j
		}
	}
	return best
}

// KubeHostIndex returns the index kube-scheduler v1.37.2 binds among n
// feasible nodes listed in filter order, whose totals total(i) gives (see
// kubeHost).
func KubeHostIndex(n int, total func(i int) int64) int {
	sc := &scoreResult{slot: make([]int32, n), totals: make([]int64, n)}
	for i := range n {
		sc.slot[i], sc.totals[i] = int32(i), total(i)
	}
	return kubeHost(sc)
}

// heapFirst reports whether, of two nodes at heap positions p and q that
// both hold the highest total, heap.Init leaves p's on top rather than
// q's. Heapifying a subtree puts its largest total on its root, so
// heap.Init's last sift-down, at the root, keeps the root's node if it
// holds the highest total and otherwise takes its children's tops: the
// right one only when strictly larger, that is when only the right
// subtree holds the highest total. Going down the same way, the node on
// top is the first node with the highest total met on a path that enters
// a left subtree whenever it holds one. So p comes first when it is an
// ancestor of q, or lies left of q where their paths part; for positions
// at one depth, left is the smaller index. Building the heap instead
// (sift-downs over every feasible node) costs more
// (docs/performance.md); TestKubeHostIsContainerHeap holds this to
// container/heap.
func heapFirst(p, q int) bool {
	dp, dq := bits.Len(uint(p+1)), bits.Len(uint(q+1))
	if dp <= dq {
		// q's ancestor at p's depth: p itself, or left of p, or right.
		a := (q+1)>>(dq-dp) - 1
		return p <= a
	}
	a := (p+1)>>(dp-dq) - 1
	return a < q
}

// randomHost picks the highest total; among equals it picks uniformly at
// random with reservoir sampling, from the seeded source.
func (s *Scheduler) randomHost(sc *scoreResult) int {
	best, seen := 0, 1
	bestTotal := sc.total(0)
	for j := 1; j < len(sc.slot); j++ {
		t := sc.total(j)
		switch {
		case t > bestTotal:
			best, seen, bestTotal = j, 1, t
		case t == bestTotal:
			seen++
			if s.rng.IntN(seen) == 0 {
				best = j
			}
		}
	}
	return best
}
