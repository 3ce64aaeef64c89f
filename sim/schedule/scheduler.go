package schedule

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/schedule/framework"
	v1 "k8s.io/api/core/v1"
)

// WeightedScore is a score plugin with its profile weight.
type WeightedScore struct {
	Plugin framework.ScorePlugin
	Weight int64
}

// Profile is the ordered plugin chain of one scheduler profile.
type Profile struct {
	PreFilter []framework.PreFilterPlugin
	Filter    []framework.FilterPlugin
	PreScore  []framework.PreScorePlugin
	Score     []WeightedScore
	Reserve   []framework.ReservePlugin
	// PercentageOfNodesToScore: 0 means kube's adaptive default.
	PercentageOfNodesToScore int32
}

// Options tune a replay.
type Options struct {
	// Seed drives the tie-break between equally scored nodes.
	Seed int64
	// ScoreAllNodes evaluates every node instead of kube's sample.
	ScoreAllNodes bool
	// Parallelism is the number of goroutines filtering nodes (default:
	// GOMAXPROCS, as kube-scheduler uses 16 workers).
	Parallelism int
	// KeepNodeStatuses keeps every node's filter status and score in the
	// attempt (for explain); it costs memory on large clusters.
	KeepNodeStatuses bool
	// Progress, when set, is called after each scheduling cycle with the
	// cycles done and the pods in the queue (for a progress bar).
	Progress func(done, total int)
}

// Scheduler runs scheduling cycles against one cluster.
type Scheduler struct {
	c         *cluster.Cluster
	profile   *Profile
	opts      Options
	rng       *rand.Rand
	nextStart int
}

// New returns a scheduler for the cluster.
func New(c *cluster.Cluster, p *Profile, opts Options) *Scheduler {
	if opts.Parallelism <= 0 {
		opts.Parallelism = runtime.GOMAXPROCS(0)
	}
	return &Scheduler{c: c, profile: p, opts: opts, rng: rand.New(rand.NewPCG(uint64(opts.Seed), 0x64726173696d))}
}

// NodeResult is one node's outcome in a cycle.
type NodeResult struct {
	Node   string
	Status *framework.Status // nil: feasible
	Scores []PluginScore     // only for scored nodes
	Total  int64
}

// PluginScore is one plugin's normalized and weighted score on a node.
type PluginScore struct {
	Plugin   string
	Score    int64
	Weighted int64
}

// Attempt is the outcome of one scheduling cycle for one pod.
type Attempt struct {
	// Node is the chosen node; empty when the pod does not fit.
	Node string
	// Err is set when a plugin failed with an error (broken input).
	Err error
	// PreFilterStatus is set when PreFilter rejected the pod outright.
	PreFilterStatus *framework.Status
	// Rejections counts the filter rejections: plugin -> reason -> nodes.
	Rejections     []Rejection
	NumAllNodes    int
	FeasibleNodes  int
	EvaluatedNodes int
	// Chosen is the chosen node's score breakdown.
	Chosen *NodeResult
	// Nodes holds every evaluated node (Options.KeepNodeStatuses).
	Nodes []NodeResult
	// State is the cycle state, for plugins' explanations.
	State *framework.CycleState
	// Message is kube's FitError message for a pod that does not fit.
	Message string
	// DeviceRejected names (up to MaxDiagnosedNodes) nodes that
	// DynamicResources rejected, for a per-request diagnosis.
	DeviceRejected []string
}

// MaxDiagnosedNodes bounds how many DRA-rejected nodes are kept per attempt
// for diagnosis.
const MaxDiagnosedNodes = 32

// Rejection is one (plugin, reason) with the number of nodes that gave it.
type Rejection struct {
	Plugin string
	Reason string
	Nodes  int
}

// SchedulePod runs one cycle. On success the pod is reserved and bound in
// the cluster state.
func (s *Scheduler) SchedulePod(ctx context.Context, pod *v1.Pod) *Attempt {
	a := s.findNode(ctx, pod)
	if a.Node == "" || a.Err != nil {
		return a
	}
	for _, p := range s.profile.Reserve {
		if st := p.Reserve(ctx, a.State, pod, a.Node); !st.IsSuccess() {
			for _, done := range s.profile.Reserve {
				done.Unreserve(ctx, a.State, pod, a.Node)
				if done == p {
					break
				}
			}
			a.Err = fmt.Errorf("reserve %s on node %s: %s", p.Name(), a.Node, st.Message())
			a.Node = ""
			return a
		}
	}
	pod.Spec.NodeName = a.Node
	s.c.Node(a.Node).AddPod(pod)
	return a
}

func (s *Scheduler) findNode(ctx context.Context, pod *v1.Pod) *Attempt {
	nodes := s.c.Nodes
	a := &Attempt{NumAllNodes: len(nodes), State: framework.NewCycleState()}
	if len(nodes) == 0 {
		a.Message = "no nodes available to schedule pods"
		return a
	}
	state := a.State

	// PreFilter: every plugin sees the pod once; a rejection fails it on
	// every node, a Skip switches the plugin's Filter off for this pod.
	var narrowed map[string]bool
	var narrowingPlugins []string
	for _, p := range s.profile.PreFilter {
		res, st := p.PreFilter(ctx, state, pod, nodes)
		switch {
		case st.IsSkip():
			state.SkipFilterPlugins[p.Name()] = true
			continue
		case st.Code() == framework.Error:
			a.Err = fmt.Errorf("running PreFilter plugin %q: %w", p.Name(), st.Err())
			return a
		case !st.IsSuccess():
			st.WithPlugin(p.Name())
			a.PreFilterStatus = st
			a.Rejections = []Rejection{{Plugin: p.Name(), Reason: st.Message(), Nodes: len(nodes)}}
			a.Message = fmt.Sprintf("0/%d nodes are available: %s.", len(nodes), st.Message())
			return a
		}
		if !res.AllNodes() {
			narrowingPlugins = append(narrowingPlugins, p.Name())
			if narrowed == nil {
				narrowed = res.NodeNames
			} else {
				narrowed = intersect(narrowed, res.NodeNames)
			}
		}
	}
	candidates := nodes
	absent := 0
	if narrowed != nil {
		candidates = make([]*framework.NodeInfo, 0, len(narrowed))
		for _, n := range nodes {
			if narrowed[n.Node().Name] {
				candidates = append(candidates, n)
			}
		}
		absent = len(nodes) - len(candidates)
		if len(candidates) == 0 {
			sort.Strings(narrowingPlugins)
			msg := fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", narrowingPlugins)
			a.PreFilterStatus = framework.NewStatus(framework.UnschedulableAndUnresolvable, msg)
			a.Rejections = []Rejection{{Plugin: strings.Join(narrowingPlugins, ","), Reason: msg, Nodes: len(nodes)}}
			a.Message = fmt.Sprintf("0/%d nodes are available: %s.", len(nodes), msg)
			return a
		}
	}

	feasible, statuses, processed, err := s.filter(ctx, state, pod, candidates)
	if err != nil {
		a.Err = err
		return a
	}
	if len(candidates) > 0 {
		s.nextStart = (s.nextStart + processed) % len(nodes)
	}
	a.FeasibleNodes = len(feasible)
	a.EvaluatedNodes = len(feasible) + len(statuses) + absent
	rejections := map[[2]string]int{}
	for _, ns := range statuses {
		if ns.Status.Plugin() == dra.Name && len(a.DeviceRejected) < MaxDiagnosedNodes {
			a.DeviceRejected = append(a.DeviceRejected, ns.Node)
		}
		for _, r := range ns.Status.Reasons() {
			rejections[[2]string{ns.Status.Plugin(), r}]++
		}
		if s.opts.KeepNodeStatuses {
			a.Nodes = append(a.Nodes, ns)
		}
	}
	if absent > 0 {
		sort.Strings(narrowingPlugins)
		rejections[[2]string{strings.Join(narrowingPlugins, ","), fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", narrowingPlugins)}] += absent
	}
	a.Rejections = sortedRejections(rejections)

	if len(feasible) == 0 {
		a.Message = fitMessage(len(nodes), a.Rejections)
		return a
	}
	if len(feasible) == 1 {
		// kube skips scoring when only one node fits.
		a.Node = feasible[0].Node().Name
		a.Chosen = &NodeResult{Node: a.Node}
		if s.opts.KeepNodeStatuses {
			a.Nodes = append(a.Nodes, *a.Chosen)
		}
		return a
	}
	scored, err := s.score(ctx, state, pod, feasible)
	if err != nil {
		a.Err = err
		return a
	}
	best := s.selectHost(scored)
	a.Node = scored[best].Node
	a.Chosen = &scored[best]
	if s.opts.KeepNodeStatuses {
		a.Nodes = append(a.Nodes, scored...)
	}
	return a
}

func intersect(a, b map[string]bool) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		if b[k] {
			out[k] = true
		}
	}
	return out
}

func sortedRejections(m map[[2]string]int) []Rejection {
	out := make([]Rejection, 0, len(m))
	for k, n := range m {
		out = append(out, Rejection{Plugin: k[0], Reason: k[1], Nodes: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Reason != out[j].Reason {
			return out[i].Reason < out[j].Reason
		}
		return out[i].Plugin < out[j].Plugin
	})
	return out
}

// fitMessage words a failure as kube's FitError does: reasons counted over
// nodes, "N reason" entries sorted as strings.
func fitMessage(numAllNodes int, rejections []Rejection) string {
	counts := map[string]int{}
	for _, r := range rejections {
		counts[r.Reason] += r.Nodes
	}
	parts := make([]string, 0, len(counts))
	for reason, n := range counts {
		parts = append(parts, fmt.Sprintf("%d %s", n, reason))
	}
	sort.Strings(parts)
	msg := fmt.Sprintf("0/%d nodes are available:", numAllNodes)
	if len(parts) > 0 {
		msg += " " + strings.Join(parts, ", ") + "."
	}
	return msg
}

// numFeasibleNodesToFind is kube's sampling rule: all nodes below 100,
// otherwise percentageOfNodesToScore (adaptive: 50% minus 1% per 125
// nodes, at least 5%), but never fewer than 100.
func (s *Scheduler) numFeasibleNodesToFind(numAllNodes int) int {
	const minFeasibleNodesToFind, minFeasibleNodesPercentageToFind = 100, 5
	if s.opts.ScoreAllNodes || numAllNodes < minFeasibleNodesToFind {
		return numAllNodes
	}
	if len(s.profile.Score) == 0 {
		return 1
	}
	pct := int(s.profile.PercentageOfNodesToScore)
	if pct <= 0 {
		pct = 50 - numAllNodes/125
		if pct < minFeasibleNodesPercentageToFind {
			pct = minFeasibleNodesPercentageToFind
		}
	}
	n := numAllNodes * pct / 100
	if n < minFeasibleNodesToFind {
		return minFeasibleNodesToFind
	}
	return n
}

// filter runs the Filter plugins over the candidates, starting at the
// rotating start index as kube does, and stops once enough feasible nodes
// are found. Chunks are filtered in parallel but the outcome is the one a
// sequential pass would give, so it does not depend on timing.
func (s *Scheduler) filter(ctx context.Context, state *framework.CycleState, pod *v1.Pod, candidates []*framework.NodeInfo) ([]*framework.NodeInfo, []NodeResult, int, error) {
	n := len(candidates)
	want := s.numFeasibleNodesToFind(n)
	statuses := make([]*framework.Status, n)
	start := 0
	if n == len(s.c.Nodes) {
		start = s.nextStart % n
	}
	var feasible []*framework.NodeInfo
	var rejected []NodeResult
	chunk := max(64, s.opts.Parallelism*16)
	processed := 0
	for lo := 0; lo < n && len(feasible) < want; lo += chunk {
		hi := min(n, lo+chunk)
		s.parallel(hi-lo, func(i int) {
			ni := candidates[(start+lo+i)%n]
			statuses[lo+i] = s.runFilters(ctx, state, pod, ni)
		})
		for i := lo; i < hi && len(feasible) < want; i++ {
			ni := candidates[(start+i)%n]
			st := statuses[i]
			processed++
			switch {
			case st.IsSuccess():
				feasible = append(feasible, ni)
			case st.Code() == framework.Error:
				return nil, nil, processed, fmt.Errorf("running Filter plugin %q on node %s: %w", st.Plugin(), ni.Node().Name, st.Err())
			default:
				rejected = append(rejected, NodeResult{Node: ni.Node().Name, Status: st})
			}
		}
	}
	return feasible, rejected, processed, nil
}

func (s *Scheduler) runFilters(ctx context.Context, state *framework.CycleState, pod *v1.Pod, ni *framework.NodeInfo) *framework.Status {
	for _, p := range s.profile.Filter {
		if state.SkipFilterPlugins[p.Name()] {
			continue
		}
		if st := p.Filter(ctx, state, pod, ni); !st.IsSuccess() {
			if !st.IsRejected() && st.Code() != framework.Error {
				st = framework.AsStatus(fmt.Errorf("unexpected status %s: %s", st.Code(), st.Message()))
			}
			return st.WithPlugin(p.Name())
		}
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
	var wg sync.WaitGroup
	var next atomic.Int64
	take := func() int { return int(next.Add(1) - 1) }
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := take(); i < n; i = take() {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// score runs PreScore and Score, normalizes per plugin and applies weights.
func (s *Scheduler) score(ctx context.Context, state *framework.CycleState, pod *v1.Pod, feasible []*framework.NodeInfo) ([]NodeResult, error) {
	for _, p := range s.profile.PreScore {
		st := p.PreScore(ctx, state, pod, feasible)
		switch {
		case st.IsSkip():
			state.SkipScorePlugins[p.Name()] = true
		case !st.IsSuccess():
			return nil, fmt.Errorf("running PreScore plugin %q: %s", p.Name(), st.Message())
		}
	}
	out := make([]NodeResult, len(feasible))
	for i, ni := range feasible {
		out[i] = NodeResult{Node: ni.Node().Name, Scores: make([]PluginScore, 0, len(s.profile.Score))}
	}
	for _, ws := range s.profile.Score {
		p := ws.Plugin
		if state.SkipScorePlugins[p.Name()] {
			continue
		}
		scores := make([]framework.NodeScore, len(feasible))
		var firstErr error
		var errMu sync.Mutex
		s.parallel(len(feasible), func(i int) {
			v, st := p.Score(ctx, state, pod, feasible[i])
			if !st.IsSuccess() {
				errMu.Lock()
				if firstErr == nil {
					firstErr = fmt.Errorf("running Score plugin %q on node %s: %s", p.Name(), feasible[i].Node().Name, st.Message())
				}
				errMu.Unlock()
			}
			scores[i] = framework.NodeScore{Name: feasible[i].Node().Name, Score: v}
		})
		if firstErr != nil {
			return nil, firstErr
		}
		if norm, ok := p.(framework.ScoreNormalizer); ok {
			if st := norm.NormalizeScore(ctx, state, pod, scores); !st.IsSuccess() {
				return nil, fmt.Errorf("normalizing scores of plugin %q: %s", p.Name(), st.Message())
			}
		}
		for i := range scores {
			if scores[i].Score > framework.MaxNodeScore || scores[i].Score < framework.MinNodeScore {
				return nil, fmt.Errorf("plugin %q returns an invalid score %d on node %s, it should be in [0, 100]", p.Name(), scores[i].Score, scores[i].Name)
			}
			w := scores[i].Score * ws.Weight
			out[i].Scores = append(out[i].Scores, PluginScore{Plugin: p.Name(), Score: scores[i].Score, Weighted: w})
			out[i].Total += w
		}
	}
	return out, nil
}

// selectHost picks the highest total; among equals it picks uniformly at
// random with reservoir sampling, as kube does, but from a seeded source.
func (s *Scheduler) selectHost(scored []NodeResult) int {
	best, seen := 0, 1
	for i := 1; i < len(scored); i++ {
		switch {
		case scored[i].Total > scored[best].Total:
			best, seen = i, 1
		case scored[i].Total == scored[best].Total:
			seen++
			if s.rng.IntN(seen) == 0 {
				best = i
			}
		}
	}
	return best
}

// Evaluate runs one cycle for the pod without reserving or binding
// anything: what SchedulePod would decide now.
func (s *Scheduler) Evaluate(ctx context.Context, pod *v1.Pod) *Attempt {
	return s.findNode(ctx, pod)
}
