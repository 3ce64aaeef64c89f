package schedule

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"

	"github.com/drasim/drasim/internal/seams"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/framework"
	v1 "k8s.io/api/core/v1"
)

// WeightedScore is a score plugin with its profile weight.
type WeightedScore = framework.WeightedScore

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
	// TieBreakName picks the tied node with the smallest name, as the
	// simulator of Weng et al. (ATC'23, hkust-adsl/kubernetes-scheduler-
	// simulator) patched kube 1.20's selectHost "for reproducibility": the
	// rule its published fragmentation results were produced with.
	TieBreakName TieBreak = "name"
)

// ParseTieBreak reads a --tie-break value; empty means kube's rule.
func ParseTieBreak(s string) (TieBreak, error) {
	switch TieBreak(s) {
	case "", TieBreakKube:
		return TieBreakKube, nil
	case TieBreakRandom:
		return TieBreakRandom, nil
	case TieBreakName:
		return TieBreakName, nil
	}
	return "", fmt.Errorf("unknown tie-break %q: use kube, random or name", s)
}

// Options tune a replay.
type Options struct {
	// TieBreak picks among equally scored nodes; the zero value is kube's
	// rule.
	TieBreak TieBreak
	// Seed drives the random tie-break (TieBreakRandom).
	Seed int64
	// TieRank, with TieBreakName, orders the tied nodes by rank instead
	// of by name (lowest first; nodes without a rank after, by name):
	// the paper's simulator compares names it prefixed with a seeded
	// permutation (sim/fill computes it).
	TieRank map[string]int
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
	// Resume starts the scheduler where another one stood
	// (Scheduler.Checkpoint): the same rotating start index and tie-break
	// source, so that a replay of a moment of a longer run decides as that
	// run did. A test-only seam (internal/seams): only the module's tests
	// can make a checkpoint.
	Resume *seams.Checkpoint
	// QuietPreemption: a preemption that found a node says nothing in the
	// pod's message, as before kube-scheduler 1.37 (kubernetes#140180 added
	// "preemption: found a potential placement ..."; sim/kubeversion).
	QuietPreemption bool
	// NowVictimOrder: DefaultPreemption orders equal-priority victims
	// without a start time as kube-scheduler before 1.37 did
	// (moreImportantNow; sim/kubeversion).
	NowVictimOrder bool
}

// Scheduler runs scheduling cycles against one cluster.
type Scheduler struct {
	c         *cluster.Cluster
	profile   *framework.Profile
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
	// plain and classes are the two filter walks (walk.go), walkIn
	// their input in the current cycle.
	plain   plainWalk
	classes classWalk
	walkIn  walkInput
	// parallelFn is s.parallel, made once (a method value is a closure).
	parallelFn framework.Parallelizer
}

// New returns a scheduler for the cluster.
func New(c *cluster.Cluster, p *framework.Profile, opts Options) *Scheduler {
	if opts.Parallelism <= 0 {
		opts.Parallelism = runtime.GOMAXPROCS(0)
	}
	pcg := rand.NewPCG(uint64(opts.Seed), 0x64726173696d)
	s := &Scheduler{c: c, profile: p, opts: opts, rng: rand.New(pcg), pcg: pcg, classifier: newClassifier()}
	s.plain.s, s.classes.s = s, s
	s.parallelFn = s.parallel
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
func (s *Scheduler) Checkpoint() seams.Checkpoint {
	state, _ := s.pcg.MarshalBinary()
	return seams.Checkpoint{NextStart: s.nextStart, Rand: state}
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
type PluginScore = framework.PluginScore

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
	// Diagnosis is why the pod fits nowhere (the rejections are counted
	// even when some node fits).
	framework.Diagnosis
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

// SchedulingError is a plugin's Error status (framework.PluginError):
// kube-scheduler fails the pod's attempt with PodScheduled reason
// SchedulerError, requeues the pod with backoff and goes on with the
// others.
type SchedulingError = framework.PluginError

func pluginError(plugin, node string, err error) *SchedulingError {
	return &SchedulingError{Plugin: plugin, Node: node, Err: err}
}

// MaxDiagnosedNodes bounds how many nodes the NodeDiagnoser rejected are
// kept per attempt for diagnosis.
const MaxDiagnosedNodes = framework.MaxDiagnosedNodes

// Rejection is one (plugin, reason) with the number of nodes that gave it.
type Rejection = framework.Rejection

// SchedulePod runs one cycle. On success the pod is reserved and bound in
// the cluster state.
func (s *Scheduler) SchedulePod(ctx context.Context, pod *v1.Pod) *Attempt {
	a := s.schedulePod(ctx, pod)
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
	if err := s.profile.RunReserve(ctx, a.State, pod, node); err != nil {
		s.profile.RunUnreserve(ctx, a.State, pod, node)
		return err
	}
	pod.Spec.NodeName = node
	// ClearingNominatedNodeNameAfterBinding (beta, on): a bound pod is
	// nominated nowhere.
	pod.Status.NominatedNodeName = ""
	s.c.Node(node).AddPodInfo(framework.NewPodInfoWithRequests(pod, s.profile.Requests.Get(pod)))
	s.profile.Requests.Forget(pod)
	return nil
}

// Evaluate runs one cycle for the pod without reserving or binding
// anything: what SchedulePod would decide now.
func (s *Scheduler) Evaluate(ctx context.Context, pod *v1.Pod) *Attempt {
	return s.schedulePod(ctx, pod)
}

// ForgetPod drops what the scheduler and its plugins keep of a pod that
// will not be scheduled again (a probe pod after Evaluate): their caches
// per pod would otherwise keep it alive.
func (s *Scheduler) ForgetPod(pod *v1.Pod) {
	s.profile.Requests.Forget(pod)
	for _, pl := range s.profile.Plugins() {
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
	a := s.newAttempt()
	if a.NumAllNodes > 0 {
		if _, err := s.findNodesThatFitPod(ctx, pod, a); err != nil {
			a.fail(err)
		}
	}
	return a
}
