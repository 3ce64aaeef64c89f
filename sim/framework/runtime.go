package framework

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
)

// The runtime: how one profile's plugins are run at each extension point,
// following kube-scheduler v1.37.2's frameworkImpl
// (pkg/scheduler/framework/runtime/framework.go). Every caller that runs
// plugins (the scheduler's cycle, preemption, the pod group cycle, the
// autoscaler's predicate checker, the analysis probes through the
// scheduler) goes through these methods, so they cannot drift apart.

// WeightedScore is a score plugin with its profile weight.
type WeightedScore struct {
	Plugin ScorePlugin
	Weight int64
}

// Framework is the ordered plugin chain of one scheduler profile, per
// extension point.
type Framework struct {
	PreFilter []PreFilterPlugin
	Filter    []FilterPlugin
	// PostFilter are the profile's PostFilter plugins but preemption,
	// which the scheduler implements itself and runs last, as upstream.
	PostFilter []PostFilterPlugin
	// PodGroupPostFilter are the same for a pod group that did not fit.
	PodGroupPostFilter []PodGroupPostFilterPlugin
	PreScore           []PreScorePlugin
	Score              []WeightedScore
	Reserve            []ReservePlugin
}

// PluginError is a plugin's Error status (broken input such as a CEL
// selector reading an attribute a device lacks, not a verdict about a
// node): kube-scheduler fails the pod's attempt with PodScheduled reason
// SchedulerError and the error's text as the message, requeues the pod
// with backoff and goes on with the others.
type PluginError struct {
	// Plugin is the plugin that failed; Node the node it ran on, if any.
	Plugin string
	Node   string
	// Err carries kube's wording ("running %q filter plugin: ...").
	Err error
}

func (e *PluginError) Error() string { return e.Err.Error() }
func (e *PluginError) Unwrap() error { return e.Err }

// StatusError is the error of a failed status, as kube's Status.AsError.
func StatusError(st *Status) error {
	if err := st.Err(); err != nil {
		return err
	}
	return fmt.Errorf("%s", st.Message())
}

// UnsatisfiedPluginsMessage is kube's reason for a node that the
// PreFilter results of plugins (sorted) left out.
func UnsatisfiedPluginsMessage(plugins []string) string {
	return fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", plugins)
}

// RunPreFilter runs the PreFilter plugins as kube's RunPreFilterPlugins:
// a Skip switches the plugin's Filter off for this pod; an Unschedulable
// status does not stop the others (preemption needs their state) and the
// last one is the verdict; an UnschedulableAndUnresolvable status, an
// error or node results that leave no node stop at once. It returns the
// node results merged (nil: every node), the verdict (nil: the pod goes
// on to Filter) and the plugins that narrowed the nodes, sorted.
func (f *Framework) RunPreFilter(ctx context.Context, state *CycleState, pod *v1.Pod, nodes []*NodeInfo) (*PreFilterResult, *Status, []string) {
	defer state.setActiveFilters(f)
	state.ranIn = f
	var narrowed map[string]bool
	var withNodes []string
	var verdict *Status
	for i, p := range f.PreFilter {
		state.preFilterRan = i + 1
		res, st := p.PreFilter(ctx, state, pod, nodes)
		switch {
		case st.IsSkip():
			state.SkipFilterPlugins[p.Name()] = true
			continue
		case st.Code() == Unschedulable:
			verdict = st.WithPlugin(p.Name())
			continue
		case st.Code() == UnschedulableAndUnresolvable:
			return nil, st.WithPlugin(p.Name()), nil
		case !st.IsSuccess():
			err := fmt.Errorf("running PreFilter plugin %q: %w", p.Name(), StatusError(st))
			return nil, AsStatus(err).WithPlugin(p.Name()), nil
		}
		if res.AllNodes() {
			continue
		}
		withNodes = append(withNodes, p.Name())
		if narrowed == nil {
			narrowed = res.NodeNames
		} else {
			narrowed = intersect(narrowed, res.NodeNames)
		}
		if len(narrowed) == 0 {
			names := slices.Sorted(slices.Values(withNodes))
			msg := fmt.Sprintf("node(s) didn't satisfy plugin(s) %v simultaneously", names)
			if len(names) == 1 {
				msg = "node(s) didn't satisfy plugin " + names[0]
			}
			st := NewStatus(UnschedulableAndUnresolvable, msg).WithPlugin(strings.Join(names, ","))
			return &PreFilterResult{NodeNames: narrowed}, st, names
		}
	}
	sort.Strings(withNodes)
	if narrowed == nil {
		return nil, verdict, withNodes
	}
	return &PreFilterResult{NodeNames: narrowed}, verdict, withNodes
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

// RanPreFilter reports whether RunPreFilter ran the named plugin for the
// state (it stops at an unresolvable rejection or an error, and the
// plugins after it do not run).
func (f *Framework) RanPreFilter(state *CycleState, name string) bool {
	for i, p := range f.PreFilter {
		if p.Name() == name {
			return i < state.preFilterRan
		}
	}
	return false
}

// RunPreFilterExtensionAddPod tells the PreFilter plugins with extensions
// that pi now runs on node (kube's RunPreFilterExtensionAddPod).
func (f *Framework) RunPreFilterExtensionAddPod(state *CycleState, pod *v1.Pod, pi *PodInfo, node *NodeInfo) error {
	for _, p := range f.PreFilter {
		ext, ok := p.(PreFilterExtensions)
		if !ok || state.SkipFilterPlugins[p.Name()] {
			continue
		}
		if st := ext.AddPod(state, pod, pi, node); !st.IsSuccess() {
			return fmt.Errorf("running AddPod on PreFilter plugin %q: %s", p.Name(), st.Message())
		}
	}
	return nil
}

// RunPreFilterExtensionRemovePod tells the PreFilter plugins with
// extensions that pi no longer runs on node (kube's
// RunPreFilterExtensionRemovePod).
func (f *Framework) RunPreFilterExtensionRemovePod(state *CycleState, pod *v1.Pod, pi *PodInfo, node *NodeInfo) error {
	for _, p := range f.PreFilter {
		ext, ok := p.(PreFilterExtensions)
		if !ok || state.SkipFilterPlugins[p.Name()] {
			continue
		}
		if st := ext.RemovePod(state, pod, pi, node); !st.IsSuccess() {
			return fmt.Errorf("running RemovePod on PreFilter plugin %q: %s", p.Name(), st.Message())
		}
	}
	return nil
}

// RunFilter runs the Filter plugins on one node as kube's
// RunFilterPlugins: the first that does not pass decides, with its name
// on the status. A status that is neither a rejection nor an Error is
// turned into an Error. It may be called concurrently for different
// nodes.
func (f *Framework) RunFilter(ctx context.Context, state *CycleState, pod *v1.Pod, ni *NodeInfo) *Status {
	known := state.filtersOf == f
	for i, p := range f.Filter {
		if known {
			if state.skipFilters&(1<<i) != 0 {
				continue
			}
		} else if state.SkipFilterPlugins[p.Name()] {
			continue
		}
		if st := p.Filter(ctx, state, pod, ni); !st.IsSuccess() {
			if !st.IsRejected() && st.Code() != Error {
				st = AsStatus(fmt.Errorf("unexpected status %s: %s", st.Code(), st.Message()))
			}
			return st.WithPlugin(p.Name())
		}
	}
	return nil
}

// RunFilterWithNominated runs the filters as kube's
// RunFilterPluginsWithNominatedPods: when the node has nominated pods that
// count (of equal or higher priority), first with them added (on a copy
// of the node and of the cycle state), then, if that passes, once more
// without them, because filters such as inter-pod affinity may need the
// nominated pods to be absent as much as present.
func (f *Framework) RunFilterWithNominated(ctx context.Context, state *CycleState, pod *v1.Pod, ni *NodeInfo, nominated []*PodInfo) *Status {
	if len(nominated) == 0 {
		return f.RunFilter(ctx, state, pod, ni)
	}
	withState, withNode := state.Clone(), ni.Clone()
	for _, pi := range nominated {
		withNode.AddPodInfo(pi)
		if err := f.RunPreFilterExtensionAddPod(withState, pod, pi, withNode); err != nil {
			return AsStatus(err)
		}
	}
	if st := f.RunFilter(ctx, withState, pod, withNode); !st.IsSuccess() {
		return st
	}
	return f.RunFilter(ctx, state, pod, ni)
}

// RunPreScore runs the PreScore plugins with the feasible nodes; a Skip
// switches the plugin's Score off for this pod.
func (f *Framework) RunPreScore(ctx context.Context, state *CycleState, pod *v1.Pod, nodes []*NodeInfo) error {
	for _, p := range f.PreScore {
		st := p.PreScore(ctx, state, pod, nodes)
		switch {
		case st.IsSkip():
			state.SkipScorePlugins[p.Name()] = true
		case !st.IsSuccess():
			return &PluginError{Plugin: p.Name(), Err: fmt.Errorf("running PreScore plugin %q: %w", p.Name(), StatusError(st))}
		}
	}
	return nil
}

// PluginScore is one plugin's normalized and weighted score on a node.
type PluginScore struct {
	Plugin   string
	Score    int64
	Weighted int64
}

// NodeScores are RunScore's outcome, by node in the order given: the
// weighted total and each plugin's score.
type NodeScores struct {
	Totals []int64
	Scores [][]PluginScore
}

// ScoreBuffers are RunScore's working arrays, kept by a caller that
// scores cycle after cycle; the zero value is ready.
type ScoreBuffers struct {
	active       []WeightedScore
	totals       []int64
	scores       [][]PluginScore
	pluginScores []PluginScore
	raw          []int64
	nodeScores   []NodeScore
}

// Parallelizer runs f(0..n-1), on several goroutines or not.
type Parallelizer func(n int, f func(i int))

// RunScore runs the Score plugins on the nodes as kube's RunScorePlugins:
// every plugin scores a node in one pass over the nodes, then each
// plugin's scores are normalized (ScoreNormalizer), checked to lie in
// [MinNodeScore, MaxNodeScore] and multiplied by its weight. The outcome
// lives in b and is valid until its next use. A plugin's Error is a
// *PluginError (the first by plugin, then node); a score out of range is
// a bug and an error of its own.
func (f *Framework) RunScore(ctx context.Context, state *CycleState, pod *v1.Pod, nodes []*NodeInfo, parallel Parallelizer, b *ScoreBuffers) (NodeScores, error) {
	active := b.active[:0]
	for _, ws := range f.Score {
		if !state.SkipScorePlugins[ws.Plugin.Name()] {
			active = append(active, ws)
		}
	}
	b.active = active
	nr, na := len(nodes), len(active)
	out := NodeScores{Totals: Resize(&b.totals, nr), Scores: Resize(&b.scores, nr)}
	clear(out.Totals)
	backing := Resize(&b.pluginScores, nr*na)
	for k := range nodes {
		out.Scores[k] = backing[k*na : k*na : (k+1)*na]
	}
	// raw[a*nr+k] is plugin a's score on node k; one pass per node
	// rather than per plugin, as each pass costs a goroutine.
	raw := Resize(&b.raw, na*nr)
	var errMu sync.Mutex
	errAt, errPlugin := nr, na
	var firstErr *Status
	parallel(nr, func(k int) {
		for a, ws := range active {
			v, st := ws.Plugin.Score(ctx, state, pod, nodes[k])
			if !st.IsSuccess() {
				errMu.Lock()
				if a < errPlugin || a == errPlugin && k < errAt {
					errAt, errPlugin, firstErr = k, a, st
				}
				errMu.Unlock()
				return
			}
			raw[a*nr+k] = v
		}
	})
	if firstErr != nil {
		name := active[errPlugin].Plugin.Name()
		return out, &PluginError{Plugin: name, Node: nodes[errAt].Node().Name, Err: fmt.Errorf("running Score plugins: plugin %q failed with: %w", name, StatusError(firstErr))}
	}
	scores := Resize(&b.nodeScores, nr)
	for a, ws := range active {
		for k := range scores {
			scores[k] = NodeScore{Name: nodes[k].Node().Name, Score: raw[a*nr+k]}
		}
		if err := weigh(ctx, state, pod, ws, scores, out); err != nil {
			return out, err
		}
	}
	return out, nil
}

// weigh normalizes one plugin's scores, checks their range and adds them,
// weighted, to the nodes' totals.
func weigh(ctx context.Context, state *CycleState, pod *v1.Pod, ws WeightedScore, scores []NodeScore, out NodeScores) error {
	p := ws.Plugin
	if norm, ok := p.(ScoreNormalizer); ok {
		if st := norm.NormalizeScore(ctx, state, pod, scores); !st.IsSuccess() {
			return &PluginError{Plugin: p.Name(), Err: fmt.Errorf("running Normalize on Score plugins: plugin %q failed with: %w", p.Name(), StatusError(st))}
		}
	}
	for k := range scores {
		if scores[k].Score > MaxNodeScore || scores[k].Score < MinNodeScore {
			return fmt.Errorf("plugin %q returns an invalid score %d on node %s, it should be in [0, 100]", p.Name(), scores[k].Score, scores[k].Name)
		}
		w := scores[k].Score * ws.Weight
		out.Scores[k] = append(out.Scores[k], PluginScore{Plugin: p.Name(), Score: scores[k].Score, Weighted: w})
		out.Totals[k] += w
	}
	return nil
}

// Resize returns *buf with length n, reallocated only when it is too
// short; the contents are stale.
func Resize[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
	}
	*buf = (*buf)[:n]
	return *buf
}

// RunReserve runs the Reserve plugins for the chosen node as kube's
// RunReservePluginsReserve: the first failure stops them, as a
// *PluginError; the caller then runs RunUnreserve.
func (f *Framework) RunReserve(ctx context.Context, state *CycleState, pod *v1.Pod, node string) error {
	for _, p := range f.Reserve {
		if st := p.Reserve(ctx, state, pod, node); !st.IsSuccess() {
			return &PluginError{Plugin: p.Name(), Node: node, Err: fmt.Errorf("running Reserve plugin %q: %w", p.Name(), StatusError(st))}
		}
	}
	return nil
}

// RunUnreserve runs every Reserve plugin's Unreserve, in reverse order,
// as kube's RunReservePluginsUnreserve (Unreserve must be idempotent:
// plugins whose Reserve did not run are called too).
func (f *Framework) RunUnreserve(ctx context.Context, state *CycleState, pod *v1.Pod, node string) {
	for i := len(f.Reserve) - 1; i >= 0; i-- {
		f.Reserve[i].Unreserve(ctx, state, pod, node)
	}
}

// RunPostFilter runs the PostFilter plugins for a pod that fits nowhere,
// then last (kube's DefaultPreemption stands last), as kube's
// RunPostFilterPlugins: a plugin that succeeds or finds the pod
// unresolvable has the last word; otherwise every plugin runs, their
// reasons are joined and the first rejecting plugin is named. The
// results of the plugins that ran are merged.
func (f *Framework) RunPostFilter(ctx context.Context, state *CycleState, pod *v1.Pod, d *Diagnosis, last ...PostFilterPlugin) (*PostFilterResult, *Status) {
	result := &PostFilterResult{}
	var reasons []string
	var rejector string
	for _, p := range append(slices.Clip(f.PostFilter), last...) {
		r, st := p.PostFilter(ctx, state, pod, d)
		result.merge(r)
		switch {
		case st.IsSuccess():
			return result, st
		case st.Code() == UnschedulableAndUnresolvable:
			return result, st.WithPlugin(p.Name())
		case !st.IsRejected():
			return result, AsStatus(StatusError(st)).WithPlugin(p.Name())
		}
		reasons = append(reasons, st.Reasons()...)
		if rejector == "" {
			rejector = p.Name()
		}
	}
	return result, NewStatus(Unschedulable, reasons...).WithPlugin(rejector)
}

// RunPodGroupPostFilter runs the PodGroupPostFilter plugins for a pod
// group that did not fit, then last, as kube's
// RunPodGroupPostFilterPlugins: states are the cycle states of the
// group's pods (nil for a pod not tried). The rules are RunPostFilter's;
// a failing plugin's error reads as kube's.
func (f *Framework) RunPodGroupPostFilter(ctx context.Context, states []*CycleState, pods []*v1.Pod, last ...PodGroupPostFilterPlugin) (*PostFilterResult, *Status) {
	result := &PostFilterResult{}
	var reasons []string
	var rejector string
	for _, p := range append(slices.Clip(f.PodGroupPostFilter), last...) {
		r, st := p.PodGroupPostFilter(ctx, states, pods)
		result.merge(r)
		switch {
		case st.IsSuccess():
			return result, st
		case st.Code() == UnschedulableAndUnresolvable:
			return result, st.WithPlugin(p.Name())
		case st.Code() != Unschedulable:
			err := fmt.Errorf("error in %q PodGroupPostFilter plugins: %s", p.Name(), st.Message())
			return result, AsStatus(&PluginError{Plugin: p.Name(), Err: err}).WithPlugin(p.Name())
		}
		reasons = append(reasons, st.Reasons()...)
		if rejector == "" {
			rejector = p.Name()
		}
	}
	return result, NewStatus(Unschedulable, reasons...).WithPlugin(rejector)
}
