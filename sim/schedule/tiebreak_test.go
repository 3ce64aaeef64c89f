package schedule

import (
	"container/heap"
	"math/rand/v2"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/framework"
)

// scoresOf is a score result with one slot per feasible node.
func scoresOf(totals ...int64) *scoreResult {
	sc := &scoreResult{slot: make([]int32, len(totals)), totals: totals}
	for j := range totals {
		sc.slot[j] = int32(j)
	}
	return sc
}

// TestKubeHost checks the heap rule against picks worked out by hand from
// container/heap's sift-down: heap.Init walks i = n/2-1 .. 0 and swaps a
// parent with its larger child only when the child is strictly larger, and
// the right child wins over the left only when strictly larger.
func TestKubeHost(t *testing.T) {
	tests := []struct {
		name   string
		totals []int64
		want   int
	}{
		{name: "unique best", totals: []int64{3, 9, 4}, want: 1},
		{name: "all tied: the first node stays on top", totals: []int64{7, 7, 7, 7, 7}, want: 0},
		{name: "tie on top: the first node", totals: []int64{468, 468}, want: 0},
		// i=0: children 10 (node 1) and 10 (node 2); the right child is not
		// strictly larger, so the left one rises.
		{name: "tied children: the left one rises", totals: []int64{5, 10, 10}, want: 1},
		// i=1: node 3 (10) rises over node 1 (5); i=0: children are node 3
		// (10, now at position 1) and node 2 (10): the left one, node 3,
		// rises although node 2 comes first in filter order.
		{name: "not the first tied node", totals: []int64{5, 5, 10, 10}, want: 3},
		// i=2: node 5 (9) rises over node 2 (1); i=1: children node 3 (9)
		// and node 4 (2): node 3 rises; i=0: children at 1 (node 3, 9) and
		// 2 (node 5, 9): left wins, node 3.
		{name: "deeper heap", totals: []int64{0, 1, 1, 9, 2, 9}, want: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := kubeHost(scoresOf(tt.totals...)); got != tt.want {
				t.Errorf("kubeHost(%v) = node %d, want node %d", tt.totals, got, tt.want)
			}
		})
	}
}

// TestKubeHostIsContainerHeap holds kubeHost to container/heap
// itself (what kube-scheduler runs) on random totals: few distinct values,
// so that most heaps have many ties, and sizes from 1 to 600 (and a few
// of 2,500, the feasible nodes of a cycle at 50,000 nodes).
func TestKubeHostIsContainerHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 5000 {
		n := 1 + rng.IntN(600)
		switch {
		case round%2 == 0:
			n = 1 + rng.IntN(12)
		case round%100 == 1:
			n = 2500
		}
		totals := make([]int64, n)
		values := 1 + rng.IntN(4)
		for i := range totals {
			totals[i] = int64(rng.IntN(values)) * 100
		}
		want := containerHeapRoot(totals)
		if got := kubeHost(scoresOf(totals...)); got != want {
			t.Fatalf("kubeHost(%v) = node %d, container/heap puts node %d on top", totals, got, want)
		}
	}
}

// containerHeapRoot is kube's nodeScoreHeap with container/heap: the root
// after heap.Init.
func containerHeapRoot(totals []int64) int {
	h := &indexHeap{totals: totals}
	for i := range totals {
		h.order = append(h.order, i)
	}
	heap.Init(h)
	return h.order[0]
}

type indexHeap struct {
	totals []int64
	order  []int
}

var _ heap.Interface = (*indexHeap)(nil)

func (h *indexHeap) Len() int           { return len(h.order) }
func (h *indexHeap) Less(i, j int) bool { return h.totals[h.order[i]] > h.totals[h.order[j]] }
func (h *indexHeap) Swap(i, j int)      { h.order[i], h.order[j] = h.order[j], h.order[i] }
func (h *indexHeap) Push(x any)         { h.order = append(h.order, x.(int)) }
func (h *indexHeap) Pop() any {
	x := h.order[len(h.order)-1]
	h.order = h.order[:len(h.order)-1]
	return x
}

// TestRandomHostOnlyPicksTopScores checks the seeded random tie-break: it
// never picks a node below the top score, and it reaches every tied node.
func TestRandomHostOnlyPicksTopScores(t *testing.T) {
	sc := scoresOf(1, 8, 3, 8, 8)
	seen := map[int]bool{}
	for seed := int64(0); seed < 64; seed++ {
		s := New(nil, &framework.Profile{}, Options{TieBreak: TieBreakRandom, Seed: seed, Parallelism: 1})
		j := s.selectHost(sc, nil)
		if sc.totals[j] != 8 {
			t.Fatalf("seed %d: picked node %d scoring %d, want one of the nodes scoring 8", seed, j, sc.totals[j])
		}
		seen[j] = true
	}
	if len(seen) != 3 {
		t.Errorf("64 seeds reached nodes %v, want all three tied nodes (1, 3, 4)", seen)
	}
}

// TestNameHostPicksSmallestTiedName checks the paper simulator's rule:
// the top total first, then the smallest name among the nodes holding
// it, wherever they sit in filter order.
func TestNameHostPicksSmallestTiedName(t *testing.T) {
	sc := scoresOf(9, 8, 3, 9, 9, 2)
	var feasible []*framework.NodeInfo
	for _, name := range []string{"node-c", "node-a", "node-0", "node-b", "node-bb", "node-00"} {
		n := &v1.Node{}
		n.Name = name
		feasible = append(feasible, framework.NewNodeInfo(n))
	}
	s := New(nil, &framework.Profile{}, Options{TieBreak: TieBreakName, Parallelism: 1})
	if j := s.selectHost(sc, feasible); feasible[j].Node().Name != "node-b" {
		t.Errorf("picked %s (total %d), want node-b: the smallest name among the totals of 9 (node-c, node-b, node-bb)", feasible[j].Node().Name, sc.total(j))
	}
}

// TestNameHostRanks checks TieBreakName with ranks (the paper's
// simulator's permuted names): the lowest rank among the top totals,
// unranked nodes after every ranked one, then by name.
func TestNameHostRanks(t *testing.T) {
	var feasible []*framework.NodeInfo
	for _, name := range []string{"node-c", "node-a", "node-0", "node-b", "node-bb", "node-00"} {
		n := &v1.Node{}
		n.Name = name
		feasible = append(feasible, framework.NewNodeInfo(n))
	}
	for _, tc := range []struct {
		totals []int64
		rank   map[string]int
		want   string
	}{
		{[]int64{9, 8, 3, 9, 9, 2}, map[string]int{"node-c": 4, "node-a": 0, "node-b": 7, "node-bb": 2}, "node-bb"},
		{[]int64{9, 8, 3, 9, 9, 2}, map[string]int{"node-c": 4, "node-b": 1}, "node-b"},
		{[]int64{9, 8, 3, 9, 9, 2}, map[string]int{"node-a": 0}, "node-b"},
		{[]int64{1, 9, 3, 1, 1, 9}, map[string]int{"node-a": 5, "node-00": 3}, "node-00"},
	} {
		s := New(nil, &framework.Profile{}, Options{TieBreak: TieBreakName, TieRank: tc.rank, Parallelism: 1})
		if j := s.selectHost(scoresOf(tc.totals...), feasible); feasible[j].Node().Name != tc.want {
			t.Errorf("totals %v, ranks %v: picked %s, want %s", tc.totals, tc.rank, feasible[j].Node().Name, tc.want)
		}
	}
}

func TestParseTieBreak(t *testing.T) {
	for in, want := range map[string]TieBreak{"": TieBreakKube, "kube": TieBreakKube, "random": TieBreakRandom, "name": TieBreakName} {
		if got, err := ParseTieBreak(in); err != nil || got != want {
			t.Errorf("ParseTieBreak(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseTieBreak("first"); err == nil {
		t.Error("ParseTieBreak(\"first\") succeeded, want an error naming the choices")
	}
}
