package schedule

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/drasim/drasim/internal/build"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/profile"
)

// TestNumFeasibleNodesToFind pins kube-scheduler v1.37.2's sampling rule
// (schedule_one.go numFeasibleNodesToFind and findNodesThatPassFilters):
// every node below 100; otherwise percentageOfNodesToScore of them, or
// adaptively 50% minus 1% per 125 nodes but at least 5%, and never fewer
// than 100; and one node when no plugin scores (hasScoring). The figures
// are worked out by hand from that rule.
func TestNumFeasibleNodesToFind(t *testing.T) {
	tests := []struct {
		name     string
		nodes    int
		pct      int32
		all      bool
		noScores bool
		want     int
	}{
		{name: "one node", nodes: 1, want: 1},
		{name: "below 100: all", nodes: 99, want: 99},
		{name: "100: 50% is 50, raised to 100", nodes: 100, want: 100},
		{name: "125: 49% is 61, raised to 100", nodes: 125, want: 100},
		{name: "1000: 42%", nodes: 1000, want: 420},
		{name: "5000: 10%", nodes: 5000, want: 500},
		{name: "5625: 5%", nodes: 5625, want: 281},
		{name: "6000: 2%, raised to the 5% floor", nodes: 6000, want: 300},
		{name: "100000: 5%", nodes: 100000, want: 5000},
		{name: "configured 30%", nodes: 1000, pct: 30, want: 300},
		{name: "configured 5% of 1000 is 50, raised to 100", nodes: 1000, pct: 5, want: 100},
		{name: "configured 100%", nodes: 1000, pct: 100, want: 1000},
		{name: "configured, below 100 nodes: all", nodes: 60, pct: 10, want: 60},
		{name: "--score-all-nodes", nodes: 5000, all: true, want: 5000},
		{name: "no score plugin: one node", nodes: 1000, noScores: true, want: 1},
		{name: "no score plugin, below 100 nodes: still one", nodes: 50, noScores: true, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &framework.Profile{PercentageOfNodesToScore: tt.pct}
			if !tt.noScores {
				p.Score = []WeightedScore{{Weight: 1}}
			}
			s := New(nil, p, Options{ScoreAllNodes: tt.all, Parallelism: 1})
			if got := s.numFeasibleNodesToFind(tt.nodes); got != tt.want {
				t.Errorf("numFeasibleNodesToFind(%d nodes, percentage %d, score all %v, no scores %v) = %d, want %d", tt.nodes, tt.pct, tt.all, tt.noScores, got, tt.want)
			}
		})
	}
}

// samplingCluster has n CPU nodes named so that kube's node tree keeps
// them in index order; the first cordoned ones are cordoned.
func samplingCluster(n, cordoned int) *cluster.Cluster {
	b := build.NewCluster()
	for i := range n {
		b.Node(fmt.Sprintf("n%03d", i), 8, 0)
	}
	b.Pod(build.PodSpec{Name: "p", CPU: "1"})
	s := b.Snapshot()
	for i := range cordoned {
		s.Nodes[i].Spec.Unschedulable = true
	}
	return cluster.Build(s, feature.Defaults())
}

func newTestScheduler(t *testing.T, c *cluster.Cluster, cfg profile.Config, opts Options) *Scheduler {
	t.Helper()
	prof, err := profile.New(c, dra.New(c.DRA()), cfg)
	if err != nil {
		t.Fatal(err)
	}
	opts.Parallelism = 1
	return New(c, prof, opts)
}

// TestRotatingStartIndex follows kube's nextStartNodeIndex over cycles: each
// filter pass starts where the last one stopped and moves the index on by
// the nodes it processed (feasible and rejected), modulo the nodes.
func TestRotatingStartIndex(t *testing.T) {
	ctx := context.Background()
	// 150 nodes, the first 10 cordoned: each pass wants 100 feasible nodes.
	type cycle struct {
		start, evaluated, feasible, nextStart int
		first                                 string
	}
	want := []cycle{
		// n000..n009 rejected, n010..n109 feasible.
		{start: 0, evaluated: 110, feasible: 100, nextStart: 110, first: "n010"},
		// n110..n149 (40 feasible), n000..n009 rejected, n010..n069 (60).
		{start: 110, evaluated: 110, feasible: 100, nextStart: 70, first: "n110"},
		// n070..n149 (80), n000..n009 rejected, n010..n029 (20).
		{start: 70, evaluated: 110, feasible: 100, nextStart: 30, first: "n070"},
	}
	for _, keep := range []bool{false, true} {
		// KeepNodeStatuses lists the feasible nodes in filter order and
		// filters every node on its own; without it nodes are filtered by
		// class. Both must walk the nodes alike.
		t.Run(fmt.Sprintf("KeepNodeStatuses=%v", keep), func(t *testing.T) {
			c := samplingCluster(150, 10)
			s := newTestScheduler(t, c, profile.Config{}, Options{KeepNodeStatuses: keep})
			pod := c.Queue()[0]
			for i, w := range want {
				if s.nextStart != w.start {
					t.Fatalf("cycle %d: start index %d, want %d", i, s.nextStart, w.start)
				}
				a := s.Evaluate(ctx, pod)
				if a.EvaluatedNodes != w.evaluated || a.FeasibleNodes != w.feasible || s.nextStart != w.nextStart {
					t.Errorf("cycle %d: evaluated %d, feasible %d, next start %d; want %d, %d, %d", i, a.EvaluatedNodes, a.FeasibleNodes, s.nextStart, w.evaluated, w.feasible, w.nextStart)
				}
				if keep {
					var feasible []string
					for _, n := range a.Nodes {
						if n.Status == nil {
							feasible = append(feasible, n.Node)
						}
					}
					if len(feasible) == 0 || feasible[0] != w.first {
						t.Errorf("cycle %d: feasible nodes in filter order start %v, want %s first", i, feasible[:min(3, len(feasible))], w.first)
					}
				}
			}
		})
	}
}

// A pass that finds no node moves the start index by every node, which is
// where it was; with fewer than 100 nodes each pass looks at all of them.
func TestRotatingStartIndexSmallClusters(t *testing.T) {
	ctx := context.Background()
	c := samplingCluster(40, 40)
	s := newTestScheduler(t, c, profile.Config{}, Options{})
	s.nextStart = 7
	a := s.Evaluate(ctx, c.Queue()[0])
	if a.FeasibleNodes != 0 || a.EvaluatedNodes != 40 || s.nextStart != 7 {
		t.Errorf("all cordoned: feasible %d, evaluated %d, next start %d; want 0, 40, 7", a.FeasibleNodes, a.EvaluatedNodes, s.nextStart)
	}
}

// Without score plugins kube stops at the first feasible node, even with
// fewer than 100 nodes, and moves the start index by the nodes it looked
// at: one here.
func TestNoScorePluginsFindOneNode(t *testing.T) {
	ctx := context.Background()
	c := samplingCluster(50, 0)
	disabled := map[string]bool{}
	for name := range profile.DefaultWeights() {
		disabled[name] = true
	}
	s := newTestScheduler(t, c, profile.Config{Disabled: disabled}, Options{})
	if len(s.profile.Score) != 0 {
		t.Fatalf("fixture: want no score plugin, got %d", len(s.profile.Score))
	}
	for i, want := range []string{"n000", "n001", "n002"} {
		a := s.Evaluate(ctx, c.Queue()[0])
		if a.Node != want || a.EvaluatedNodes != 1 || s.nextStart != i+1 {
			t.Errorf("cycle %d: node %s, evaluated %d, next start %d; want %s, 1, %d", i, a.Node, a.EvaluatedNodes, s.nextStart, want, i+1)
		}
	}
}

// KubeHostIndex is the exported heap rule (used by the step-wise oracle
// check): it agrees with kubeHost on every order of a few tied and untied
// totals.
func TestKubeHostIndexAgreesWithKubeHost(t *testing.T) {
	for _, totals := range [][]int64{{1}, {2, 2}, {5, 5, 10, 10}, {0, 1, 1, 9, 2, 9}, {3, 9, 4}, {9, 9, 9, 1, 9, 9, 9}} {
		got := KubeHostIndex(len(totals), func(i int) int64 { return totals[i] })
		if want := kubeHost(scoresOf(totals...)); got != want {
			t.Errorf("KubeHostIndex(%v) = %d, kubeHost = %d", totals, got, want)
		}
		if totals[got] != maxOf(totals) {
			t.Errorf("KubeHostIndex(%v) = node %d scoring %d, below the top score %d", totals, got, totals[got], maxOf(totals))
		}
	}
}

func maxOf(v []int64) int64 {
	m := v[0]
	for _, x := range v[1:] {
		m = max(m, x)
	}
	return m
}

// Forget undoes Assume (a pod group cycle taking its pods back): the pod
// leaves its node, its claim loses the allocation Reserve made, its old
// nomination comes back, and the next cycle decides as if nothing had
// happened.
func TestForgetRevertsAssume(t *testing.T) {
	ctx := context.Background()
	snap := build.NewCluster().Node("n1", 8, 2).Node("n2", 8, 2).
		Pod(build.PodSpec{Name: "p", CPU: "2", GPUs: 1}).Snapshot()
	c := cluster.Build(snap, feature.Defaults())
	s := newTestScheduler(t, c, profile.Config{}, Options{})
	pod := c.Queue()[0]
	claimName := *pod.Status.ResourceClaimStatuses[0].ResourceClaimName
	claim, err := c.DRA().Claim("default", claimName)
	if err != nil {
		t.Fatal(err)
	}
	type state struct {
		Pods     map[string]int
		CPU      map[string]int64
		Devices  int
		Claim    bool
		Reserved int
	}
	observe := func() state {
		st := state{Pods: map[string]int{}, CPU: map[string]int64{}, Devices: c.DRA().AllocatedState().AllocatedDevices.Len(), Claim: claim.Status.Allocation != nil, Reserved: len(claim.Status.ReservedFor)}
		for _, n := range c.Nodes() {
			st.Pods[n.Node().Name] = len(n.Pods)
			st.CPU[n.Node().Name] = n.Requested.MilliCPU
		}
		return st
	}
	before := observe()
	a := s.Evaluate(ctx, pod)
	if a.Node == "" {
		t.Fatalf("fixture: the pod should fit, got %q", a.Message)
	}
	pod.Status.NominatedNodeName = "n2"
	if err := s.Assume(ctx, pod, a); err != nil {
		t.Fatalf("Assume: %v", err)
	}
	assumed := observe()
	if pod.Spec.NodeName != a.Node || !assumed.Claim || assumed.Devices != before.Devices+1 || assumed.Pods[a.Node] != 1 {
		t.Fatalf("after Assume: node %q, claim allocated %v, %d devices allocated, %d pods on %s; want %s, true, %d, 1",
			pod.Spec.NodeName, assumed.Claim, assumed.Devices, assumed.Pods[a.Node], a.Node, a.Node, before.Devices+1)
	}
	s.Forget(ctx, pod, a, "n2")
	if diff := cmp.Diff(before, observe()); diff != "" {
		t.Errorf("the cluster after Forget differs from before Assume (-before +after):\n%s", diff)
	}
	if pod.Spec.NodeName != "" || pod.Status.NominatedNodeName != "n2" {
		t.Errorf("the pod after Forget: node %q, nominated %q; want none and n2 back", pod.Spec.NodeName, pod.Status.NominatedNodeName)
	}
	// The nomination would have the next cycle try n2 alone first.
	pod.Status.NominatedNodeName = ""
	again := s.Evaluate(ctx, pod)
	if again.Node != a.Node || again.FeasibleNodes != a.FeasibleNodes {
		t.Errorf("the cycle after Forget: node %q, %d feasible; want %q and %d feasible, as before Assume", again.Node, again.FeasibleNodes, a.Node, a.FeasibleNodes)
	}
}

// TestFeasibleFiltersAsEvaluate: Feasible visits the nodes Evaluate
// visits, finds the same feasible nodes and moves the start index alike,
// cycle after cycle, with random tie-breaking too (Evaluate draws from the
// scheduler's random source to choose; Feasible does not choose), and
// says nothing about a node it did not choose.
func TestFeasibleFiltersAsEvaluate(t *testing.T) {
	ctx := context.Background()
	for _, tb := range []TieBreak{TieBreakKube, TieBreakRandom} {
		t.Run(string(tb), func(t *testing.T) {
			full := samplingCluster(150, 10)
			only := samplingCluster(150, 10)
			sf := newTestScheduler(t, full, profile.Config{}, Options{TieBreak: tb, Seed: 3})
			so := newTestScheduler(t, only, profile.Config{}, Options{TieBreak: tb, Seed: 3})
			for i := range 4 {
				want := sf.Evaluate(ctx, full.Queue()[0])
				got := so.Feasible(ctx, only.Queue()[0])
				if got.FeasibleNodes != want.FeasibleNodes || got.EvaluatedNodes != want.EvaluatedNodes || so.nextStart != sf.nextStart {
					t.Errorf("cycle %d: feasible %d, evaluated %d, next start %d; want Evaluate's %d, %d, %d",
						i, got.FeasibleNodes, got.EvaluatedNodes, so.nextStart, want.FeasibleNodes, want.EvaluatedNodes, sf.nextStart)
				}
				if got.Node != "" || got.Chosen != nil || want.Node == "" {
					t.Errorf("cycle %d: Feasible chose %q (%v), Evaluate %q; want no choice from Feasible", i, got.Node, got.Chosen, want.Node)
				}
			}
		})
	}
}
