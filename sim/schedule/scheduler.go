package schedule

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
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
	// all lists every plugin of the profile once, in order.
	all []framework.Plugin
	// Requests are the pods' requests, added up once per pod for the
	// plugins and the binding (nil: each adds them up on its own).
	Requests *framework.PodRequestCache
	// PercentageOfNodesToScore: 0 means kube's adaptive default.
	PercentageOfNodesToScore int32
	// Preemption is set when DefaultPreemption is enabled (PostFilter).
	Preemption bool
	// Gang is set when GangScheduling is enabled (GenericWorkload).
	Gang bool
}

// TieBreak is the rule that picks among feasible nodes with the same top
// score.
type TieBreak string

const (
	// TieBreakKube is kube-scheduler v1.37.2's rule (the default): the
	// root of a max-heap built over the feasible nodes in the order the
	// filter pass found them (see kubeHost).
	TieBreakKube TieBreak = "kube"
	// TieBreakRandom picks uniformly among the tied nodes from a source
	// seeded by Options.Seed (kube before v1.35, or with extenders), for
	// studying how much the choice among equals matters.
	TieBreakRandom TieBreak = "random"
)

// ParseTieBreak reads a --tie-break value; empty means kube's rule.
func ParseTieBreak(s string) (TieBreak, error) {
	switch TieBreak(s) {
	case "", TieBreakKube:
		return TieBreakKube, nil
	case TieBreakRandom:
		return TieBreakRandom, nil
	}
	return "", fmt.Errorf("unknown tie-break %q: use kube or random", s)
}

// Options tune a replay.
type Options struct {
	// TieBreak picks among equally scored nodes; the zero value is kube's
	// rule.
	TieBreak TieBreak
	// Seed drives the random tie-break (TieBreakRandom).
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
	// Reference evaluates every node on its own, without node classes:
	// the plain loop, kept to prove that classes change no decision.
	Reference bool
	// OnlyQueued limits the result to the pods of the queue, without the
	// per-node usage: for callers that read only those pods' outcomes (a
	// failure domain's fork replays a few pods, and the rest of the result
	// would cost more than the replay).
	OnlyQueued bool
	// Arrival says when the pending pods arrive (Replay); "" is batch.
	Arrival Arrival
	// NoParking lets the queue retry, on time, an entity whose retry
	// could only fail as before (queue.Options.ParkStale); a caller that
	// wants every attempt kube makes sets it, and bounds time itself.
	NoParking bool
	// Nominator knows the pods nominated to each node (by preemption);
	// filters count those of equal or higher priority as running
	// (nominated.go). Nil: no pod is nominated.
	Nominator Nominator
	// Resume starts the scheduler where another one stood (Checkpoint):
	// the same rotating start index and tie-break source, so that a
	// replay of a moment of a longer run decides as that run did.
	Resume *Checkpoint
	// QuietPreemption: a preemption that found a node says nothing in the
	// pod's message, as before kube-scheduler 1.37 (kubernetes#140180 added
	// "preemption: found a potential placement ..."; sim/kubeversion).
	QuietPreemption bool
	// DRAPostFilterReasons: DynamicResources' PostFilter that freed no claim
	// says why ("no new claims to deallocate", "still not schedulable"), as
	// before kube-scheduler 1.37; the reason joins the pod's message.
	DRAPostFilterReasons bool
}

// Checkpoint is what a scheduler carries from one cycle to the next
// besides the cluster: the node index the next cycle starts filtering at
// (kube's nextStartNodeIndex) and the state of the seeded tie-break
// source.
type Checkpoint struct {
	NextStart int
	Rand      []byte
}

// Scheduler runs scheduling cycles against one cluster.
type Scheduler struct {
	c         *cluster.Cluster
	profile   *Profile
	opts      Options
	rng       *rand.Rand
	pcg       *rand.PCG
	nextStart int

	// Node classes (classes.go): the classifier, and the slot table of
	// the cycle's current phase.
	classifier *classifier
	slotTab    slotTable
	// direct marks, per node index, the nodes the filters ran on in the
	// cycle numbered markCycle.
	direct    []uint64
	markCycle uint64
	buf       cycleBuffers
	// cycleNominated are, per node, the nominated pods the current cycle
	// counts as running (nominated.go); nil when there are none.
	cycleNominated map[string][]*framework.PodInfo
	// inFlight are the pods of the pod group cycle under way (see
	// prepareNominated).
	inFlight map[*v1.Pod]bool
	// preemptRng draws kube's random choices in preemption.
	preemptRng *rand.Rand
	// lowest is each node's lowest pod priority (hasVictimBelow), by
	// node index.
	lowest          []lowestPriority
	noVictimsStatus *framework.Status
	// filters are the Filter plugins on for the latest cycle's state
	// (setActiveFilters); other states (clones, older attempts) look
	// each plugin up.
	filters struct {
		state  *framework.CycleState
		active []framework.FilterPlugin
	}
}

// New returns a scheduler for the cluster.
func New(c *cluster.Cluster, p *Profile, opts Options) *Scheduler {
	if opts.Parallelism <= 0 {
		opts.Parallelism = runtime.GOMAXPROCS(0)
	}
	pcg := rand.NewPCG(uint64(opts.Seed), 0x64726173696d)
	s := &Scheduler{c: c, profile: p, opts: opts, rng: rand.New(pcg), pcg: pcg, classifier: newClassifier()}
	if r := opts.Resume; r != nil {
		s.nextStart = r.NextStart
		if len(r.Rand) > 0 {
			// A checkpoint is only ever made by Checkpoint: its bytes are
			// a PCG state.
			_ = pcg.UnmarshalBinary(r.Rand)
		}
	}
	return s
}

// Checkpoint returns where the scheduler stands between cycles (see
// Options.Resume).
func (s *Scheduler) Checkpoint() Checkpoint {
	state, _ := s.pcg.MarshalBinary()
	return Checkpoint{NextStart: s.nextStart, Rand: state}
}

// KeepNodeStatuses switches Options.KeepNodeStatuses for the next cycles.
func (s *Scheduler) KeepNodeStatuses(keep bool) { s.opts.KeepNodeStatuses = keep }

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
	// Error is set when a plugin returned an Error status: kube-scheduler
	// fails the pod's attempt with reason SchedulerError and this message,
	// and goes on with the other pods.
	Error *SchedulingError
	// Err is set when drasim itself is broken (an internal invariant
	// failed); the replay stops.
	Err error
	// PreFilterStatus is set when PreFilter rejected the pod outright.
	PreFilterStatus *framework.Status
	// Rejections counts the filter rejections: plugin -> reason -> nodes.
	Rejections []Rejection
	// UnschedulablePlugins are the plugins that rejected the pod on some
	// node (kube's Diagnosis.UnschedulablePlugins), sorted: the queue
	// retries the pod on the events they registered.
	UnschedulablePlugins []string
	// Potential are the nodes that rejected the pod with Unschedulable
	// (not UnschedulableAndUnresolvable), in node order: the nodes where
	// preemption might help.
	Potential []*framework.NodeInfo
	// OnNominatedNode is set when the pod fit its nominated node, which
	// was tried first.
	OnNominatedNode bool
	NumAllNodes     int
	FeasibleNodes   int
	EvaluatedNodes  int
	// Chosen is the chosen node's score breakdown.
	Chosen *NodeResult
	// Nodes holds every evaluated node (Options.KeepNodeStatuses).
	Nodes []NodeResult
	// State is the cycle state, for plugins' explanations.
	State *framework.CycleState
	// Message is kube's FitError message for a pod that does not fit.
	Message string
	// DeviceRejected names (up to MaxDiagnosedNodes) nodes that
	// DynamicResources rejected, for a per-request diagnosis, when no
	// node was found feasible (nothing is diagnosed otherwise).
	DeviceRejected []string
	// preFilterRan counts the PreFilter plugins that ran, in the
	// profile's order: all of them unless one stopped the cycle.
	preFilterRan int
	// moved says that the filter pass moved the rotating start index on,
	// by advance nodes (kube's nextStartNodeIndex).
	moved   bool
	advance int
}

// fail records err on the attempt: a plugin's Error status fails the pod
// (SchedulerError), anything else is drasim's own breakage.
func (a *Attempt) fail(err error) {
	var se *SchedulingError
	if errors.As(err, &se) {
		a.Error = se
		a.Message = se.Error()
		return
	}
	a.Err = err
}

// SchedulingError is a plugin's Error status (broken input such as a CEL
// selector reading an attribute a device lacks, not a verdict about a
// node): kube-scheduler fails the pod's attempt with PodScheduled reason
// SchedulerError and the error's text as the message, requeues the pod
// with backoff and goes on with the others.
type SchedulingError struct {
	// Plugin is the plugin that failed; Node the node it ran on, if any.
	Plugin string
	Node   string
	// Err carries kube's wording ("running %q filter plugin: ...").
	Err error
}

func (e *SchedulingError) Error() string { return e.Err.Error() }
func (e *SchedulingError) Unwrap() error { return e.Err }

func pluginError(plugin, node string, err error) *SchedulingError {
	return &SchedulingError{Plugin: plugin, Node: node, Err: err}
}

// statusErr is the error of a failed status, as kube's Status.AsError.
func statusErr(st *framework.Status) error {
	if err := st.Err(); err != nil {
		return err
	}
	return errors.New(st.Message())
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
	if a.Node == "" || a.Err != nil || a.Error != nil {
		return a
	}
	if err := s.reserveAndBind(ctx, pod, a, a.Node); err != nil {
		a.fail(err)
		a.Node = ""
	}
	return a
}

// Bind reserves and binds the pod on a node that the attempt (an Evaluate
// keeping every node's status) found feasible: what SchedulePod does with
// its own choice, for callers that choose the node themselves (the
// step-wise check follows the real scheduler's choice among ties).
func (s *Scheduler) Bind(ctx context.Context, pod *v1.Pod, a *Attempt, node string) error {
	feasible := node == a.Node
	for _, n := range a.Nodes {
		if n.Node == node && n.Status == nil {
			feasible = true
		}
	}
	if !feasible {
		return fmt.Errorf("node %s was not found feasible for pod %s/%s in this attempt", node, pod.Namespace, pod.Name)
	}
	return s.reserveAndBind(ctx, pod, a, node)
}

func (s *Scheduler) reserveAndBind(ctx context.Context, pod *v1.Pod, a *Attempt, node string) error {
	for _, p := range s.profile.Reserve {
		if st := p.Reserve(ctx, a.State, pod, node); !st.IsSuccess() {
			for _, done := range s.profile.Reserve {
				done.Unreserve(ctx, a.State, pod, node)
				if done == p {
					break
				}
			}
			return pluginError(p.Name(), node, fmt.Errorf("running Reserve plugin %q: %w", p.Name(), statusErr(st)))
		}
	}
	pod.Spec.NodeName = node
	// ClearingNominatedNodeNameAfterBinding (beta, on): a bound pod is
	// nominated nowhere.
	pod.Status.NominatedNodeName = ""
	s.c.Node(node).AddPodInfo(framework.NewPodInfoWithRequests(pod, s.profile.Requests.Get(pod)))
	s.profile.Requests.Forget(pod)
	return nil
}

func (s *Scheduler) findNode(ctx context.Context, pod *v1.Pod) *Attempt {
	return s.findNodeUpTo(ctx, pod, false)
}

// findNodeUpTo is findNode; with onlyFeasible it stops once the nodes are
// filtered, with FeasibleNodes and EvaluatedNodes set and no score, no
// node chosen, no message and no rejections counted.
func (s *Scheduler) findNodeUpTo(ctx context.Context, pod *v1.Pod, onlyFeasible bool) *Attempt {
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
	// An Unschedulable PreFilter status does not stop the others (kube
	// runs them all, so that preemption has their state); the first one
	// is the cycle's verdict unless an UnschedulableAndUnresolvable one
	// or an empty node set comes first.
	var rejected *framework.Status
	reject := func(st *framework.Status, plugins []string) *Attempt {
		a.PreFilterStatus = st
		a.Rejections = []Rejection{{Plugin: st.Plugin(), Reason: st.Message(), Nodes: len(nodes)}}
		a.UnschedulablePlugins = plugins
		if st.Code() == framework.Unschedulable {
			a.Potential = nodes // preemption may help anywhere
		}
		a.Message = fmt.Sprintf("0/%d nodes are available: %s.", len(nodes), st.Message())
		return a
	}
	for i, p := range s.profile.PreFilter {
		a.preFilterRan = i + 1
		res, st := p.PreFilter(ctx, state, pod, nodes)
		switch {
		case st.IsSkip():
			state.SkipFilterPlugins[p.Name()] = true
			continue
		case st.Code() == framework.Error:
			a.fail(pluginError(p.Name(), "", fmt.Errorf("running PreFilter plugin %q: %w", p.Name(), statusErr(st))))
			return a
		case st.Code() == framework.Unschedulable:
			if rejected == nil {
				rejected = st.WithPlugin(p.Name())
			}
			continue
		case !st.IsSuccess():
			return reject(st.WithPlugin(p.Name()), []string{p.Name()})
		}
		if !res.AllNodes() {
			narrowingPlugins = append(narrowingPlugins, p.Name())
			if narrowed == nil {
				narrowed = res.NodeNames
			} else {
				narrowed = intersect(narrowed, res.NodeNames)
			}
			if len(narrowed) == 0 {
				// kube's RunPreFilterPlugins stops here, before the
				// remaining plugins, with its own wording.
				names := slices.Sorted(slices.Values(narrowingPlugins))
				msg := fmt.Sprintf("node(s) didn't satisfy plugin(s) %v simultaneously", names)
				if len(names) == 1 {
					msg = "node(s) didn't satisfy plugin " + names[0]
				}
				return reject(framework.NewStatus(framework.UnschedulableAndUnresolvable, msg).WithPlugin(strings.Join(names, ",")), names)
			}
		}
	}
	if rejected != nil {
		return reject(rejected, []string{rejected.Plugin()})
	}
	s.setActiveFilters(state)
	candidates := nodes
	absent := 0
	var classes []uint32
	var classKeys string
	if narrowed != nil {
		candidates = make([]*framework.NodeInfo, 0, len(narrowed))
		for _, n := range nodes {
			if narrowed[n.Node().Name] {
				candidates = append(candidates, n)
			}
		}
		absent = len(nodes) - len(candidates)
		if len(candidates) == 0 {
			// The names PreFilter kept are not nodes of the cluster: every
			// node gets the absent nodes' status, counted as kube's
			// FitError counts it.
			sort.Strings(narrowingPlugins)
			msg := fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", narrowingPlugins)
			a.PreFilterStatus = framework.NewStatus(framework.UnschedulableAndUnresolvable, msg).WithPlugin(strings.Join(narrowingPlugins, ","))
			a.Rejections = []Rejection{{Plugin: strings.Join(narrowingPlugins, ","), Reason: msg, Nodes: len(nodes)}}
			a.UnschedulablePlugins = narrowingPlugins
			a.Message = fitMessage(len(nodes), a.Rejections)
			return a
		}
	}
	// The nominated pods of equal or higher priority count on their
	// nodes (RunFilterPluginsWithNominatedPods); the pod's own nominated
	// node is tried first and taken if it fits (evaluateNominatedNode).
	s.prepareNominated(pod)
	if s.tryNominatedNode(ctx, a, pod) {
		return a
	}
	if narrowed == nil && s.cycleNominated == nil {
		// Nodes with nominated pods are not like their equals: without
		// classes while any are.
		classes, classKeys = s.nodeClasses(state, pod, nil)
	}

	f, err := s.filter(ctx, state, pod, candidates, classes)
	if len(candidates) > 0 {
		// kube moves the start index on even when the pass failed.
		s.nextStart = (s.nextStart + f.processed) % len(nodes)
		a.moved, a.advance = true, f.processed
	}
	if err != nil {
		a.fail(err)
		return a
	}
	f.classKeys = classKeys
	a.FeasibleNodes = len(f.feasible)
	a.EvaluatedNodes = f.processed + absent
	if onlyFeasible {
		return a
	}
	if len(f.feasible) == 0 {
		// Read the names only now: the first read of a node object is
		// a cache miss, 32 of them in every cycle that nothing reads
		// when a node is found.
		for _, ni := range f.deviceRejected {
			a.DeviceRejected = append(a.DeviceRejected, ni.Node().Name)
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
	if absent > 0 {
		sort.Strings(narrowingPlugins)
		rejections[[2]string{strings.Join(narrowingPlugins, ","), fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", narrowingPlugins)}] += absent
	}
	a.Rejections = sortedRejections(rejections)
	a.UnschedulablePlugins = unschedulablePlugins(f, narrowingPlugins)
	a.Potential = f.potential
	inNodeOrder(a.Potential)

	if len(f.feasible) == 0 {
		a.Message = fitMessage(len(nodes), a.Rejections)
		return a
	}
	var chosen int // index into f.feasible
	if len(f.feasible) == 1 {
		// kube skips scoring when only one node fits.
		a.Chosen = &NodeResult{Node: f.feasible[0].Node().Name}
		if s.opts.KeepNodeStatuses {
			a.Nodes = append(a.Nodes, *a.Chosen)
		}
	} else {
		sc, err := s.score(ctx, state, pod, f)
		if err != nil {
			a.fail(err)
			return a
		}
		chosen = s.selectHost(sc)
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
	if err := s.ensureFiltered(ctx, state, pod, f, chosen); err != nil {
		a.fail(err)
		a.Node = ""
	}
	return a
}

// inNodeOrder sorts nodes by their index. The filter walk meets them from
// the rotating start index on, wrapping around once, so they come as a
// rotation of their node order: it is undone in place, in linear time
// (sorting was 0.2 CPU-s of the 20,000-arrival timeline); any other
// order is sorted.
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

// nodeClasses returns each node's class for the pod, or nil when some
// plugin must see every node on its own (or the engine is the reference).
// The score phase asks again, since PreScore may bring label keys; when
// they are the filter's, the filter's classes are reused.
func (s *Scheduler) nodeClasses(state *framework.CycleState, pod *v1.Pod, prev *filterResult) ([]uint32, string) {
	if s.opts.Reference || s.opts.KeepNodeStatuses {
		return nil, ""
	}
	var keys []string
	for _, p := range s.profile.plugins() {
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
	for _, p := range s.profile.plugins() {
		k, ok := p.(framework.NodeStateKeyer)
		if !ok {
			continue
		}
		if stateKeys != nil {
			return nil, "" // one keyer is all the classifier combines
		}
		if stateKeys, ok = k.NodeStateKeys(s.c.Nodes); !ok {
			return nil, ""
		}
		stateLog, _ = p.(framework.NodeStateChanges)
	}
	return s.classifier.classes(s.c.Nodes, s.c, keys, name, stateKeys, stateLog), name
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

// filterResult is what filtering found in one cycle.
type filterResult struct {
	// feasible are the feasible nodes in the order they were visited;
	// feasibleClass their class slots (see score).
	feasible    []*framework.NodeInfo
	feasibleIdx []int
	// rejected are the distinct rejection statuses and rejectedNodes how
	// many nodes got each.
	rejected      []*framework.Status
	rejectedNodes []int
	// rejectedList lists every rejected node (Options.KeepNodeStatuses).
	rejectedList []NodeResult
	// deviceRejected are the first nodes DynamicResources rejected.
	deviceRejected []*framework.NodeInfo
	// potential are the nodes rejected as Unschedulable, in node order.
	potential []*framework.NodeInfo
	processed int
	// classes are the nodes' classes (nil: every node on its own), for
	// the label keys classKeys.
	classes   []uint32
	classKeys string
}

// filter runs the Filter plugins over the candidates, starting at the
// rotating start index as kube does, and stops once enough feasible nodes
// are found. With classes, the plugins run on the first node of each class
// met and the other nodes of the class take its status. Representatives
// are filtered in parallel but the outcome is the one a sequential pass
// would give, so it does not depend on timing.
func (s *Scheduler) filter(ctx context.Context, state *framework.CycleState, pod *v1.Pod, candidates []*framework.NodeInfo, classes []uint32) (*filterResult, error) {
	n := len(candidates)
	want := s.numFeasibleNodesToFind(n)
	start := 0
	if n == len(s.c.Nodes) {
		start = s.nextStart % n
	}
	f := &filterResult{classes: classes}
	if classes != nil {
		s.markCycle++
		if len(s.direct) < n {
			s.direct = make([]uint64, n)
		}
	}
	// The cycle's working arrays are the scheduler's, reused from cycle
	// to cycle; nothing keeps them past the cycle.
	b := &s.buf
	// The feasible nodes' indexes are written in place (no more than
	// want are ever found), and handed to f with the nodes at the end.
	feasible, feasibleIdx := resize(&b.feasible, min(want, n)), resize(&b.feasibleIdx, min(want, n))
	found := 0
	f.deviceRejected = b.deviceRejected[:0]
	processed := 0
	slots := s.slots(s.walkClasses(classes, n))
	reps := b.reps[:0]           // candidate index of each slot's representative
	repStatus := b.repStatus[:0] // each slot's status
	nodes := b.slotNodes[:0]     // how many nodes each slot gave its outcome
	// What the walk needs of each distinct rejection, without reading
	// the status for every node it gives.
	type rejection struct{ potential, byDRA bool }
	var rejectedInfo []rejection
	rejectedSlot := b.rejectedSlot
	if rejectedSlot == nil {
		rejectedSlot = map[*framework.Status]int32{}
		b.rejectedSlot = rejectedSlot
	}
	clear(rejectedSlot)
	walkClasses, entry, cycle := slots.classes, slots.entry, slots.cycle
	// special says whether a node with outcome out needs more than its
	// count: a failure, or a rejection that lists the node.
	special := func(out int32) bool {
		if out == outcomeFailed || out >= 0 && s.opts.KeepNodeStatuses {
			return true
		}
		if out < 0 {
			return false
		}
		r := rejectedInfo[out]
		return r.potential || r.byDRA && len(f.deviceRejected) < MaxDiagnosedNodes
	}
	defer func() {
		// The pointers are written once the walk is over, out of its
		// loop (each is a write barrier check).
		for j, i := range feasibleIdx[:found] {
			feasible[j] = candidates[i]
		}
		f.feasible, f.feasibleIdx, f.processed = feasible[:found], feasibleIdx[:found], processed
		f.rejectedNodes = make([]int, len(f.rejected))
		for k, c := range nodes {
			if o := entry[walkClasses[reps[k]]].out; o >= 0 {
				f.rejectedNodes[o] += int(c)
			}
		}
		b.reps, b.repStatus, b.slotNodes = reps, repStatus, nodes
		b.deviceRejected = f.deviceRejected
	}()
	// Batches of new classes grow from a few per worker, so that a cycle
	// that stops early wastes little, up to the node-by-node chunk. One
	// worker gains nothing from a batch: it filters each new class as
	// the walk meets it, without looking ahead (the look-ahead goes over
	// the nodes the walk then hands out: 80 % of them at 50,000 nodes).
	chunk := s.opts.Parallelism * 4
	maxChunk := max(64, s.opts.Parallelism*16)
	if s.opts.Parallelism <= 1 {
		chunk, maxChunk = 1, 1
	}
	for i := start; processed < n && found < want; {
		// Most nodes are of classes met earlier in the cycle whose
		// nodes need only be counted: handOut takes them in one tight
		// loop, and stops at any other.
		left := n - processed
		i, left, found = handOut(walkClasses, entry, cycle, i, n, left, found, want, feasibleIdx, nodes)
		if processed = n - left; processed == n || found == want {
			break
		}
		e := &entry[walkClasses[i]]
		if e.stamp != cycle {
			// A class not met yet in this cycle: look ahead for up to
			// chunk new classes, giving each a slot, then filter the
			// new classes' representatives in parallel. Every class met
			// has its outcome in its entry from then on: at 50,000
			// nodes most of a cycle's nodes go that way.
			first := len(reps)
			reps = slots.visit(i, n, n-processed, chunk, want-found, reps)
			chunk = min(2*chunk, maxChunk)
			for range len(reps) - first {
				repStatus = append(repStatus, nil)
				nodes = append(nodes, 0)
			}
			if s.opts.Parallelism <= 1 || len(reps)-first == 1 {
				// One at a time, without the workers' closure (made
				// for every new class, and the lists it shares moved to
				// the heap: 150 MB of the 20,000-arrival timeline's
				// garbage).
				for k := first; k < len(reps); k++ {
					repStatus[k] = s.filterNode(ctx, state, pod, candidates[reps[k]])
				}
			} else {
				rs, rp := repStatus[first:], reps[first:]
				s.parallel(len(rp), func(k int) {
					rs[k] = s.filterNode(ctx, state, pod, candidates[rp[k]])
				})
			}
			for k := first; k < len(reps); k++ {
				st := repStatus[k]
				out := outcomeFeasible
				switch {
				case st.IsSuccess():
				case st.Code() == framework.Error:
					out = outcomeFailed
				default:
					// Plugins may return one status value for many nodes.
					r, seen := rejectedSlot[st]
					if !seen {
						r = int32(len(f.rejected))
						rejectedSlot[st] = r
						f.rejected = append(f.rejected, st)
						rejectedInfo = append(rejectedInfo, rejection{potential: st.Code() == framework.Unschedulable, byDRA: st.Plugin() == dra.Name})
					}
					out = r
				}
				re := &entry[walkClasses[reps[k]]]
				re.out, re.special = out, special(out)
				if out == outcomeFeasible {
					re.feasible = 1
				}
				if classes != nil {
					s.direct[reps[k]] = s.markCycle
				}
			}
			continue // handOut takes the node, or it is special
		}
		// A node that needs more than being counted.
		nodes[e.slot]++
		switch o := e.out; o {
		case outcomeFeasible:
			feasibleIdx[found] = i
			found++
		case outcomeFailed:
			// The failed node is not counted as processed: kube keeps
			// no status for it.
			st := repStatus[e.slot]
			return f, pluginError(st.Plugin(), candidates[i].Node().Name, fmt.Errorf("running %q filter plugin: %w", st.Plugin(), statusErr(st)))
		default:
			r := rejectedInfo[o]
			if r.potential {
				f.potential = append(f.potential, candidates[i])
			}
			if r.byDRA && len(f.deviceRejected) < MaxDiagnosedNodes {
				f.deviceRejected = append(f.deviceRejected, candidates[i])
				if len(f.deviceRejected) == MaxDiagnosedNodes {
					// The list is full: its rejections need no more
					// than their counts from now on.
					for _, rep := range reps {
						re := &entry[walkClasses[rep]]
						re.special = special(re.out)
					}
				}
			}
			if s.opts.KeepNodeStatuses {
				f.rejectedList = append(f.rejectedList, NodeResult{Node: candidates[i].Node().Name, Status: f.rejected[o]})
			}
		}
		processed++
		if i++; i == n {
			i = 0
		}
	}
	return f, nil
}

// handOut gives the nodes from i on their classes' outcomes, in walk
// order, while their classes were met and filtered in this cycle and
// need nothing but counting (not special), for at most left nodes and
// until found reaches want. It returns where it stopped, how many nodes
// are left and how many feasible nodes are found. Feasible and rejected
// nodes follow each other in no pattern, so it takes no branch on the
// outcome: every node is written as the next feasible one and counted as
// found only if it is feasible, and counted for its slot, whose rejection
// counts its nodes at the end. This is the loop over every node a cycle
// visits (4,800 per cycle at 50,000 nodes).
func handOut(classes []uint32, entry []slotEntry, cycle uint32, i, n, left, found, want int, feasibleIdx []int, nodes []int32) (int, int, int) {
	for ; left > 0 && found < want; left-- {
		e := &entry[classes[i]]
		if e.stamp != cycle || e.special {
			break
		}
		feasibleIdx[found] = i
		found += int(e.feasible)
		nodes[e.slot]++
		if i++; i == n {
			i = 0
		}
	}
	return i, left, found
}

// walkClasses returns the classes the filter walk goes by: the nodes'
// classes, or without classes one of its own for each node.
func (s *Scheduler) walkClasses(classes []uint32, n int) []uint32 {
	if classes != nil {
		return classes
	}
	own := s.buf.ownClasses
	for i := len(own); i < n; i++ {
		own = append(own, uint32(i))
	}
	s.buf.ownClasses = own
	return own[:n]
}

// Filter outcomes of a class slot besides an index into the rejections.
const (
	outcomeFeasible int32 = -1
	outcomeFailed   int32 = -2
	// outcomePending is a class met whose representative is not
	// filtered yet.
	outcomePending int32 = -3
)

// cycleBuffers are working arrays reused from cycle to cycle.
type cycleBuffers struct {
	feasible    []*framework.NodeInfo
	feasibleIdx []int
	reps        []int
	repStatus   []*framework.Status
	slotNodes   []int32
	// ownClasses gives every node a class of its own (walkClasses).
	ownClasses []uint32
	firsts     []int
	scoreSlot  []int32
	scoreReps  []*framework.NodeInfo
	// deviceRejected backs filterResult.deviceRejected, which findNode
	// reads before the next cycle.
	deviceRejected []*framework.NodeInfo
	// rejectedSlot indexes the cycle's distinct rejection statuses.
	rejectedSlot map[*framework.Status]int32
	// score's arrays (see score).
	active       []WeightedScore
	totals       []int64
	scores       [][]PluginScore
	pluginScores []PluginScore
	raw          []int64
	nodeScores   []framework.NodeScore
}

// slotTable maps the nodes of one cycle to dense class slots, in the
// order the classes are met.
type slotTable struct {
	classes []uint32
	// per class id: the cycle it was last met in, its slot then and the
	// slot's filter outcome, side by side (one memory access per node).
	entry []slotEntry
	cycle uint32
	next  int32
}

type slotEntry struct {
	stamp uint32
	slot  int32
	// The slot's filter outcome; feasible is 1 when it is
	// outcomeFeasible, special when a node of it needs more than being
	// counted (see filter).
	out      int32
	feasible uint16
	special  bool
}

// slots readies the table for a cycle over the classes (never nil: see
// walkClasses).
func (s *Scheduler) slots(classes []uint32) *slotTable {
	t := &s.slotTab
	t.classes = classes
	t.next = 0
	m := s.classifier.numClasses()
	if len(classes) > 0 && classes[len(classes)-1] >= uint32(m) {
		// A class of its own per node (walkClasses): ids up to the
		// last node's.
		m = int(classes[len(classes)-1]) + 1
	}
	if len(t.entry) < m {
		t.entry = append(t.entry, make([]slotEntry, m-len(t.entry))...)
	}
	if t.cycle++; t.cycle == 0 {
		// The stamps wrapped around: forget them all.
		clear(t.entry)
		t.cycle = 1
	}
	return t
}

// classSlot returns class c's slot in this cycle, giving it the next one
// (isNew, its outcome pending) when the class has none yet. Small enough
// to be inlined in assignAll's loop. Every node reads the table, even
// when its class is the one of the node before it (half the nodes at
// 5,000 nodes): the table is small and in cache, and a test against the
// last class, true or false in no pattern, cost more in mispredicted
// branches than the read (the walk's loop took half the time without it).
func (t *slotTable) classSlot(c uint32) (slot int32, isNew bool) {
	e := &t.entry[c]
	if e.stamp == t.cycle {
		return e.slot, false
	}
	*e = slotEntry{stamp: t.cycle, slot: t.next, out: outcomePending}
	t.next++
	return e.slot, true
}

// visit gives slots to at most count nodes' classes from node i on,
// wrapping around at n, and stops after the node that brings the
// limit-th new slot, or after the need-th node of a class known to be
// feasible (from earlier batches): the filter pass stops there at the
// latest, and looking further would filter classes for nothing. It
// appends each new slot's first node to reps and returns them. This is
// the look-ahead of the filter walk; the walk itself then reads each
// node's outcome from the table.
func (t *slotTable) visit(i, n, count, limit, need int, reps []int) []int {
	newSlots, feasible := 0, 0
	for count > 0 && newSlots < limit && feasible < need {
		var known int
		i, known, feasible = t.countKnown(i, n, count, feasible, need)
		if count -= known; count == 0 || feasible >= need {
			break
		}
		t.entry[t.classes[i]] = slotEntry{stamp: t.cycle, slot: t.next, out: outcomePending}
		t.next++
		reps = append(reps, i)
		newSlots++
		count--
		if i++; i == n {
			i = 0
		}
	}
	return reps
}

// countKnown goes over at most count nodes from i on while their classes
// have slots in this cycle and feasible, which it adds the nodes of known
// feasible classes to, is below need. It returns where it stopped, the
// nodes it went over and feasible. No branch on the outcome (see
// handOut); a new slot's feasible is 0.
func (t *slotTable) countKnown(i, n, count, feasible, need int) (int, int, int) {
	classes, entry, cycle := t.classes, t.entry, t.cycle
	k := 0
	for ; k < count && feasible < need; k++ {
		e := &entry[classes[i]]
		if e.stamp != cycle {
			break
		}
		feasible += int(e.feasible)
		if i++; i == n {
			i = 0
		}
	}
	return i, k, feasible
}

// assignAll gives slots to the nodes idx (with classes), writing node
// idx[j]'s slot to slot[j], and appends to first each j whose node is the
// first of a new slot.
func (t *slotTable) assignAll(idx []int, slot []int32, first []int) []int {
	classes := t.classes
	for j, i := range idx {
		s, isNew := t.classSlot(classes[i])
		if isNew {
			first = append(first, j)
		}
		slot[j] = s
	}
	return first
}

func (s *Scheduler) runFilters(ctx context.Context, state *framework.CycleState, pod *v1.Pod, ni *framework.NodeInfo) *framework.Status {
	plugins, active := s.profile.Filter, false
	if state == s.filters.state {
		plugins, active = s.filters.active, true
	}
	for _, p := range plugins {
		if !active && state.SkipFilterPlugins[p.Name()] {
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

// setActiveFilters lists the Filter plugins that PreFilter left on for
// the cycle's state, so that the filters of every node need not look
// each plugin up in SkipFilterPlugins. PreFilter is over by then: nothing
// changes the set for this state afterwards.
func (s *Scheduler) setActiveFilters(state *framework.CycleState) {
	s.filters.state = state
	s.filters.active = s.filters.active[:0]
	for _, p := range s.profile.Filter {
		if !state.SkipFilterPlugins[p.Name()] {
			s.filters.active = append(s.filters.active, p)
		}
	}
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
	// the other core. Waiting for the workers to start and end cost more
	// wall time than they saved (5,000 nodes x 10,000 pods: 4.2 s of
	// replay on two cores, 2.8 s on one). A worker that starts after the
	// last item was taken returns without calling f.
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

// score runs PreScore and Score, normalizes per plugin and applies
// weights. Score runs once per class of feasible nodes (the classes may
// be finer than the filter's: PreScore can bring more label keys), on the
// first node of each.
func (s *Scheduler) score(ctx context.Context, state *framework.CycleState, pod *v1.Pod, f *filterResult) (*scoreResult, error) {
	feasible := f.feasible
	for _, p := range s.profile.PreScore {
		st := p.PreScore(ctx, state, pod, feasible)
		switch {
		case st.IsSkip():
			state.SkipScorePlugins[p.Name()] = true
		case !st.IsSuccess():
			return nil, pluginError(p.Name(), "", fmt.Errorf("running PreScore plugin %q: %w", p.Name(), statusErr(st)))
		}
	}
	var classes []uint32
	if f.classes != nil {
		classes, _ = s.nodeClasses(state, pod, f)
	}
	if cap(s.buf.scoreSlot) < len(feasible) {
		s.buf.scoreSlot = make([]int32, len(feasible))
	}
	sc := &scoreResult{slot: s.buf.scoreSlot[:len(feasible)]}
	var reps []*framework.NodeInfo
	if classes == nil {
		// Every feasible node scores on its own; those that took their
		// feasibility from an equivalent node still need their own
		// Filter, for plugins that score from what Filter found.
		for j := range feasible {
			sc.slot[j] = int32(j)
			if err := s.ensureFiltered(ctx, state, pod, f, j); err != nil {
				return nil, err
			}
		}
		reps = feasible
	} else {
		s.buf.firsts = s.slots(classes).assignAll(f.feasibleIdx, sc.slot, s.buf.firsts[:0])
		reps = s.buf.scoreReps[:0]
		for _, j := range s.buf.firsts {
			reps = append(reps, feasible[j])
			if err := s.ensureFiltered(ctx, state, pod, f, j); err != nil {
				return nil, err
			}
		}
		s.buf.scoreReps = reps
	}
	b := &s.buf
	active := b.active[:0]
	for _, ws := range s.profile.Score {
		if !state.SkipScorePlugins[ws.Plugin.Name()] {
			active = append(active, ws)
		}
	}
	b.active = active
	nr, na := len(reps), len(active)
	sc.totals = resize(&b.totals, nr)
	clear(sc.totals)
	sc.scores = resize(&b.scores, nr)
	backing := resize(&b.pluginScores, nr*na)
	for k := range reps {
		sc.scores[k] = backing[k*na : k*na : (k+1)*na]
	}
	// Every plugin scores a node in one pass over the nodes, as kube's
	// RunScorePlugins does, rather than one parallel pass per plugin: a
	// pass costs a goroutine, and with classes there are a few dozen
	// nodes to score. raw[a*nr+k] is plugin a's score on node k.
	raw := resize(&b.raw, na*nr)
	var errMu sync.Mutex
	errAt, errPlugin := nr, na // the first failure, by plugin then node
	var firstErr *framework.Status
	s.parallel(nr, func(k int) {
		for a, ws := range active {
			v, st := ws.Plugin.Score(ctx, state, pod, reps[k])
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
		p := active[errPlugin].Plugin
		return nil, pluginError(p.Name(), reps[errAt].Node().Name, fmt.Errorf("running Score plugins: plugin %q failed with: %w", p.Name(), statusErr(firstErr)))
	}
	scores := resize(&b.nodeScores, nr)
	for a, ws := range active {
		p := ws.Plugin
		for k := range scores {
			scores[k] = framework.NodeScore{Name: reps[k].Node().Name, Score: raw[a*nr+k]}
		}
		if norm, ok := p.(framework.ScoreNormalizer); ok {
			if st := norm.NormalizeScore(ctx, state, pod, scores); !st.IsSuccess() {
				return nil, pluginError(p.Name(), "", fmt.Errorf("running Normalize on Score plugins: plugin %q failed with: %w", p.Name(), statusErr(st)))
			}
		}
		for k := range scores {
			if scores[k].Score > framework.MaxNodeScore || scores[k].Score < framework.MinNodeScore {
				return nil, fmt.Errorf("plugin %q returns an invalid score %d on node %s, it should be in [0, 100]", p.Name(), scores[k].Score, scores[k].Name)
			}
			w := scores[k].Score * ws.Weight
			sc.scores[k] = append(sc.scores[k], PluginScore{Plugin: p.Name(), Score: scores[k].Score, Weighted: w})
			sc.totals[k] += w
		}
	}
	return sc, nil
}

// resize returns *buf with length n, reallocated only when it is too
// short; the contents are stale.
func resize[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
	}
	*buf = (*buf)[:n]
	return *buf
}

// selectHost returns the index of the feasible node the pod goes to.
func (s *Scheduler) selectHost(sc *scoreResult) int {
	if s.opts.TieBreak == TieBreakRandom {
		return s.randomHost(sc)
	}
	return kubeHost(sc)
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
// (sift-downs over every feasible node, 2,500 a cycle at 50,000 nodes)
// was 3 % of a replay; TestKubeHostIsContainerHeap holds this to
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

// Evaluate runs one cycle for the pod without reserving or binding
// anything: what SchedulePod would decide now.
func (s *Scheduler) Evaluate(ctx context.Context, pod *v1.Pod) *Attempt {
	return s.findNode(ctx, pod)
}

// ForgetPod drops what the scheduler and its plugins keep of a pod that
// will not be scheduled again (a probe pod after Evaluate): their caches
// per pod would otherwise keep it alive.
func (s *Scheduler) ForgetPod(pod *v1.Pod) {
	s.profile.Requests.Forget(pod)
	for _, pl := range s.profile.plugins() {
		if f, ok := pl.(framework.PodForgetter); ok {
			f.ForgetPod(pod)
		}
	}
}

// Feasible runs the filtering of one cycle for the pod, as Evaluate does
// (the same nodes visited, the same start index after it), and stops
// there: FeasibleNodes and EvaluatedNodes say whether and where it fits,
// and Err or Error what went wrong, but nothing is scored or chosen.
// For callers that only ask whether the pod fits somewhere.
func (s *Scheduler) Feasible(ctx context.Context, pod *v1.Pod) *Attempt {
	return s.findNodeUpTo(ctx, pod, true)
}
