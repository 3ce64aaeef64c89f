package schedule

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/drasim/drasim/sim/framework"
	v1 "k8s.io/api/core/v1"
)

// The scheduling cycle, in the shape of kube-scheduler v1.37.2's
// schedule_one.go: schedulePod finds the nodes that fit
// (findNodesThatFitPod: PreFilter, the pod's nominated node, the filter
// walk), scores them (prioritizeNodes) and picks one (selectHost). The
// framework runtime runs the plugins; the walk over the nodes
// (walk.go) is the one place where drasim's fast path differs from a
// node-by-node loop, and it gives the loop's outcome.

// newAttempt starts a cycle's record.
func (s *Scheduler) newAttempt() *Attempt {
	a := &Attempt{NumAllNodes: len(s.c.Nodes()), State: framework.NewCycleState()}
	if a.NumAllNodes == 0 {
		a.Message = "no nodes available to schedule pods"
	}
	return a
}

// schedulePod is kube's schedulePod: nothing is reserved or bound.
func (s *Scheduler) schedulePod(ctx context.Context, pod *v1.Pod) *Attempt {
	a := s.newAttempt()
	if a.NumAllNodes == 0 {
		return a
	}
	f, err := s.findNodesThatFitPod(ctx, pod, a)
	if err != nil {
		a.fail(err)
		return a
	}
	if f == nil {
		return a // decided before the walk: PreFilter, or the nominated node
	}
	s.diagnose(a, f)
	if len(f.feasible) == 0 {
		a.Message = a.FitMessage(a.NumAllNodes)
		return a
	}
	chosen := 0 // index into f.feasible
	if len(f.feasible) == 1 {
		// kube skips scoring when only one node fits.
		a.Chosen = &NodeResult{Node: f.feasible[0].Node().Name}
		if s.opts.KeepNodeStatuses {
			a.Nodes = append(a.Nodes, *a.Chosen)
		}
	} else {
		sc, err := s.prioritizeNodes(ctx, a.State, pod, f)
		if err != nil {
			a.fail(err)
			return a
		}
		chosen = s.selectHost(sc, f.feasible)
		a.Chosen = sc.result(chosen, f.feasible[chosen].Node().Name)
		if s.opts.KeepNodeStatuses {
			for j := range f.feasible {
				a.Nodes = append(a.Nodes, *sc.result(j, f.feasible[j].Node().Name))
			}
		}
	}
	a.Node = a.Chosen.Node
	// The chosen node may have had its outcome from an equivalent node;
	// run the filters on it so that plugins keep what Reserve needs.
	if err := s.ensureFiltered(ctx, a.State, pod, f, chosen); err != nil {
		a.fail(err)
		a.Node = ""
	}
	return a
}

// findNodesThatFitPod is kube's findNodesThatFitPod: PreFilter, then the
// pod's nominated node if it has one and it fits, then the filter walk
// over the nodes PreFilter left (findNodesThatPassFilters). It returns
// nil when the cycle was decided before the walk (the attempt says how),
// and sets the attempt's FeasibleNodes and EvaluatedNodes.
func (s *Scheduler) findNodesThatFitPod(ctx context.Context, pod *v1.Pod, a *Attempt) (*filterResult, error) {
	nodes := s.c.Nodes()
	res, st, narrowing := s.profile.RunPreFilter(ctx, a.State, pod, nodes)
	if st.Code() == framework.Error {
		return nil, pluginError(st.Plugin(), "", st.Err())
	}
	if !st.IsSuccess() {
		plugins := []string{st.Plugin()}
		if res != nil && len(res.NodeNames) == 0 {
			plugins = narrowing // the node results left no node
		}
		s.preFilterRejected(a, st, plugins)
		return nil, nil
	}
	candidates, absent := nodes, 0
	if !res.AllNodes() {
		candidates = make([]*framework.NodeInfo, 0, len(res.NodeNames))
		for _, n := range nodes {
			if res.NodeNames[n.Node().Name] {
				candidates = append(candidates, n)
			}
		}
		absent = len(nodes) - len(candidates)
		if len(candidates) == 0 {
			// The names PreFilter kept are not nodes of the cluster: every
			// node gets the absent nodes' status, counted as kube's
			// FitError counts it.
			s.noCandidates(a, narrowing)
			return nil, nil
		}
	}
	// The nominated pods of equal or higher priority count on their
	// nodes (RunFilterPluginsWithNominatedPods); the pod's own nominated
	// node is tried first and taken if it fits (evaluateNominatedNode).
	s.prepareNominated(pod)
	if s.tryNominatedNode(ctx, a, pod) {
		return nil, nil
	}
	var walk nodeWalk = &s.plain
	var classes []uint32
	var classKeys string
	if res.AllNodes() && s.cycleNominated == nil {
		// Nodes with nominated pods are not like their equals: without
		// classes while any are.
		if classes, classKeys = s.nodeClasses(a.State, pod, nil); classes != nil {
			walk = &s.classes
		}
	}
	start := 0
	if len(candidates) == len(nodes) {
		start = s.nextStart % len(nodes)
	}
	s.walkIn = walkInput{state: a.State, pod: pod, candidates: candidates, classes: classes,
		start: start, want: s.numFeasibleNodesToFind(len(candidates))}
	f, err := walk.walk(ctx, &s.walkIn)
	s.walkIn = walkInput{} // nothing kept past the cycle
	// kube moves the start index on even when the pass failed.
	s.nextStart = (s.nextStart + f.processed) % len(nodes)
	a.moved, a.advance = true, f.processed
	if err != nil {
		return nil, err
	}
	f.classKeys, f.absent, f.narrowing = classKeys, absent, narrowing
	a.FeasibleNodes = len(f.feasible)
	a.EvaluatedNodes = f.processed + absent
	return f, nil
}

// preFilterRejected records a PreFilter verdict that fails the pod on
// every node.
func (s *Scheduler) preFilterRejected(a *Attempt, st *framework.Status, plugins []string) {
	a.PreFilterStatus = st
	a.Rejections = []Rejection{{Plugin: st.Plugin(), Reason: st.Message(), Nodes: a.NumAllNodes}}
	a.UnschedulablePlugins = plugins
	if st.Code() == framework.Unschedulable {
		a.Potential = s.c.Nodes() // preemption may help anywhere
	}
	a.Message = fmt.Sprintf("0/%d nodes are available: %s.", a.NumAllNodes, st.Message())
}

// noCandidates records a cycle whose PreFilter results name no node of
// the cluster.
func (s *Scheduler) noCandidates(a *Attempt, narrowing []string) {
	plugin, msg := strings.Join(narrowing, ","), framework.UnsatisfiedPluginsMessage(narrowing)
	a.PreFilterStatus = framework.NewStatus(framework.UnschedulableAndUnresolvable, msg).WithPlugin(plugin)
	a.Rejections = []Rejection{{Plugin: plugin, Reason: msg, Nodes: a.NumAllNodes}}
	a.UnschedulablePlugins = narrowing
	a.Message = a.FitMessage(a.NumAllNodes)
}

// diagnose fills in the attempt's Diagnosis from the walk (kube's
// Diagnosis, which findNodesThatPassFilters fills as it goes).
func (s *Scheduler) diagnose(a *Attempt, f *filterResult) {
	if len(f.feasible) == 0 {
		// Read the names only now: nothing reads them when a node is
		// found (the first read of a node object is a cache miss).
		for _, ni := range f.diagnosed {
			a.Diagnosed = append(a.Diagnosed, ni.Node().Name)
		}
	}
	rejections := map[[2]string]int{}
	for i, st := range f.rejected {
		for _, r := range st.Reasons() {
			rejections[[2]string{st.Plugin(), r}] += f.rejectedNodes[i]
		}
	}
	if s.opts.KeepNodeStatuses {
		a.Nodes = append(a.Nodes, f.rejectedList...)
	}
	if f.absent > 0 {
		rejections[[2]string{strings.Join(f.narrowing, ","), framework.UnsatisfiedPluginsMessage(f.narrowing)}] += f.absent
	}
	a.Rejections = framework.SortRejections(rejections)
	a.UnschedulablePlugins = unschedulablePlugins(f)
	a.Potential = f.potential
	inNodeOrder(a.Potential)
}

// unschedulablePlugins lists the plugins that rejected some node in the
// cycle, with the PreFilter plugins that narrowed the nodes, sorted.
func unschedulablePlugins(f *filterResult) []string {
	set := map[string]bool{}
	for _, p := range f.narrowing {
		set[p] = true
	}
	for i, st := range f.rejected {
		if f.rejectedNodes[i] > 0 && st.Plugin() != "" {
			set[st.Plugin()] = true
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// inNodeOrder sorts nodes by their index. The filter walk meets them from
// the rotating start index on, wrapping around once, so they come as a
// rotation of their node order: it is undone in place, in linear time;
// any other order is sorted.
func inNodeOrder(nodes []*framework.NodeInfo) {
	k := 0 // where the second run starts
	for i := 1; i < len(nodes); i++ {
		if nodes[i].Index > nodes[i-1].Index {
			continue
		}
		if k != 0 || nodes[i].Index == nodes[i-1].Index {
			k = -1
			break
		}
		k = i
	}
	switch {
	case k == 0:
		return
	case k > 0 && nodes[len(nodes)-1].Index < nodes[0].Index:
		slices.Reverse(nodes[:k])
		slices.Reverse(nodes[k:])
		slices.Reverse(nodes)
	default:
		sort.Slice(nodes, func(i, j int) bool { return nodes[i].Index < nodes[j].Index })
	}
}

// numFeasibleNodesToFind is kube's sampling rule: one node when no plugin
// scores (findNodesThatPassFilters: nothing to choose between), all nodes
// below 100, otherwise percentageOfNodesToScore (adaptive: 50% minus 1%
// per 125 nodes, at least 5%), but never fewer than 100.
func (s *Scheduler) numFeasibleNodesToFind(numAllNodes int) int {
	const minFeasibleNodesToFind, minFeasibleNodesPercentageToFind = 100, 5
	switch {
	case s.opts.ScoreAllNodes:
		return numAllNodes
	case len(s.profile.Score) == 0:
		return 1
	case numAllNodes < minFeasibleNodesToFind:
		return numAllNodes
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
