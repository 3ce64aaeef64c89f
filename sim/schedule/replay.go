package schedule

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/inventory"
	"github.com/drasim/drasim/sim/result"
	"github.com/drasim/drasim/sim/schedule/queue"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	"k8s.io/utils/ptr"
)

// maxCyclesPerPod bounds the scheduling cycles that may run at one
// moment with no cluster event between them (times the pods in the
// queue). Without an event, a pod that failed is not tried again at the
// same moment, so each pod is tried about once; the bound guards against
// a bug turning that into a loop. It bounds nothing else: a pod that
// never fits may be tried for as long as a timeline runs (every flush of
// the unschedulable pool), and a cycle that binds or preempts is an
// event.
const maxCyclesPerPod = 64

// Replay schedules every queued pod of the cluster through kube's
// scheduling queue and returns the result. Every pod arrives at time 0
// and a cycle takes no time (docs/fidelity.md): the queue's order and its
// queueing hints decide which pod is tried when, and a pod that did not
// fit is tried again only when an event may have made room for it. The
// cluster is changed in place: pods get their nodes, claims their
// allocations, preemption victims are deleted.
func Replay(ctx context.Context, c *cluster.Cluster, p *framework.Profile, opts Options) (*result.Result, error) {
	r := NewReplayer(c, p, opts)
	if err := r.ReplayQueue(ctx); err != nil {
		return nil, err
	}
	return r.Result(), nil
}

// ReplayQueue adds the cluster's pending pods as Options.Arrival says and
// schedules them, then lets the clock run on while something backs off:
// a gang that did not fit, or a pod that failed with an error, is tried
// again when its backoff ends (and only when an event came since, see
// queue.Pop), as kube would.
func (r *Replayer) ReplayQueue(ctx context.Context) error {
	var t queue.Time
	if r.opts.Arrival != ArrivalSequential {
		for _, pod := range r.c.Queue() {
			r.Add(pod, 0)
		}
		if err := r.Run(ctx, 0); err != nil {
			return err
		}
	} else {
		// The oracle's replay: pods are created one at a time in the
		// snapshot's order, each waited for until it is bound or found
		// unschedulable, a second apart; the pods of a pod group are
		// created together, where the first of them stands.
		pods := slices.Clone(r.c.Queue())
		sort.SliceStable(pods, func(i, j int) bool { return r.c.Order(pods[i]) < r.c.Order(pods[j]) })
		for i, batch := range arrivalBatches(pods, r.c.GangsEnabled()) {
			t = queue.Time(i) * time.Second
			for _, pod := range batch {
				r.Add(pod, t)
			}
			if err := r.Run(ctx, t); err != nil {
				return err
			}
		}
	}
	// The clock runs on only while backoffs end; rounds that deliver no
	// cluster event change nothing, and a pod parked without an event is
	// not tried again, so they end soon unless a bug loops.
	idle, events := 0, r.q.Events()
	for {
		next, ok := r.q.NextBackoff(t)
		if !ok {
			return nil
		}
		t = next
		if err := r.Run(ctx, t); err != nil {
			return err
		}
		if ev := r.q.Events(); ev != events {
			idle, events = 0, ev
		} else if idle++; idle > maxCyclesPerPod*max(r.q.Len(), 1) {
			return fmt.Errorf("internal error: %d backoff rounds up to %s with no cluster event between them, %d pods queued", idle, t, r.q.Len())
		}
	}
}

// arrivalBatches groups the pods that arrive together: a pod group's
// pods (with gangs on) at the place of its first pod, every other pod
// alone.
func arrivalBatches(pods []*v1.Pod, gangs bool) [][]*v1.Pod {
	var batches [][]*v1.Pod
	where := map[string]int{}
	for _, pod := range pods {
		if name := cluster.PodGroupName(pod); gangs && name != "" {
			k := pod.Namespace + "/" + name
			if i, ok := where[k]; ok {
				batches[i] = append(batches[i], pod)
				continue
			}
			where[k] = len(batches)
		}
		batches = append(batches, []*v1.Pod{pod})
	}
	return batches
}

// Arrival says when the pending pods of a snapshot arrive in the queue.
type Arrival string

const (
	// ArrivalBatch: every pending pod at time 0 (the default).
	ArrivalBatch Arrival = "batch"
	// ArrivalSequential: one a second, in the snapshot's order, each
	// scheduled (or found unschedulable) before the next arrives: how the
	// oracle's replay feeds the real scheduler.
	ArrivalSequential Arrival = "sequential"
)

// Replayer drives one cluster's scheduling: the queue, the scheduler and
// what each pod's attempts decided. Simulate runs it once at time 0; a
// caller that simulates time adds pods and delivers events at their
// times and runs it in between.
type Replayer struct {
	c        *cluster.Cluster
	s        *Scheduler
	q        *queue.Queue
	opts     Options
	outcomes map[*v1.Pod]*result.Pod
	events   []result.Event
	// deleted are the pods preemption deleted; preemptions what each
	// preemptor's last preemption did.
	deleted     []*v1.Pod
	preemptions map[*v1.Pod]*result.Preemption
	// deferred are what other controllers do in reaction to a cycle (the
	// release of a victim's claims): they run after the next cycle, or
	// when the queue has nothing ready; due are those of the cycle before.
	deferred, due []func(t queue.Time)
	cycles        int
	queued        int
	// arrived are the pods added to the queue; gang is the GangScheduling
	// plugin and groupPhases each pod group's condition, with the
	// GenericWorkload gate on.
	arrived     map[*v1.Pod]bool
	gang        framework.GangPlugin
	groupPhases map[string]*result.PodGroup
	// BeforeAttempt and OnAttempt, when set, hear of every scheduling
	// cycle before it runs and what it decided (explain watches one pod
	// with them).
	BeforeAttempt func(pod *v1.Pod)
	OnAttempt     func(pod *v1.Pod, a *Attempt)
	// BeforeGroupAttempt, when set, hears of every pod group cycle, with
	// the gang's pods in the order they will be tried.
	BeforeGroupAttempt func(pods []*v1.Pod)
	// OnPreemption, when set, hears of every PostFilter decision of
	// DefaultPreemption.
	OnPreemption func(pod *v1.Pod, p *Preemption)
	// OnGroupPreemption, when set, hears of every decision of
	// DefaultPreemption's PodGroupPostFilter, with the gang's pods in the
	// order the cycle took them.
	OnGroupPreemption func(pods []*v1.Pod, gp *GroupPreemption)
	// NoDiagnosis leaves the per-request diagnosis of device rejections
	// out of the outcomes: a caller that retries pods for hours and reads
	// only the message (sim/timeline) would spend most of its cycles on
	// it.
	NoDiagnosis bool
	// MemoizeFailures gives a failed cycle's answer again, without running
	// it, to an equivalent pod (or the same one) whose cycle starts from
	// the same state (memo.go); it takes NoDiagnosis. A failure given
	// again has no cycle state (Attempt.State is nil).
	MemoizeFailures bool
	memo            *failureMemo
	// follow is what ScheduleGroup was given, for the pod group cycle it
	// runs (nil otherwise).
	follow *Follow
}

// NewReplayer wires a queue with the profile's plugins to a scheduler on
// the cluster. The replay's claim bookkeeping (a pod's claims, what the
// API server and the controllers do to them) works on the cluster's DRA
// state, as kube's scheduler reads claims from its cache rather than
// through the DynamicResources plugin: the replay reaches plugins only
// through the profile.
func NewReplayer(c *cluster.Cluster, p *framework.Profile, opts Options) *Replayer {
	gates := c.DRA().Gates()
	r := &Replayer{c: c, outcomes: map[*v1.Pod]*result.Pod{}, preemptions: map[*v1.Pod]*result.Preemption{},
		arrived: map[*v1.Pod]bool{}, groupPhases: map[string]*result.PodGroup{}}
	qopts := queue.Options{PopFromBackoffQ: gates["SchedulerPopFromBackoffQ"], Plugins: p.Plugins(), ParkStale: !opts.NoParking}
	if c.GangsEnabled() {
		view := groupView{r}
		qopts.Groups = view
		if p.Gang != nil {
			r.gang = p.Gang(view)
			qopts.Plugins = append(append([]framework.Plugin(nil), qopts.Plugins...), r.gang)
			qopts.PreEnqueue = []queue.PreEnqueuePlugin{r.gang}
		}
	}
	r.q = queue.New(qopts)
	opts.Nominator = r.q
	r.s, r.opts = New(c, p, opts), opts
	return r
}

// Outcome is what the pod's last cycle decided, PostFilter's message
// included (nil before its first cycle). The caller must not change it.
func (r *Replayer) Outcome(pod *v1.Pod) *result.Pod { return r.outcomes[pod] }

// Queue is the replay's scheduling queue.
func (r *Replayer) Queue() *queue.Queue { return r.q }

// Scheduler is the replay's scheduler.
func (r *Replayer) Scheduler() *Scheduler { return r.s }

// Add queues a pending pod arriving at time t.
func (r *Replayer) Add(pod *v1.Pod, t queue.Time) {
	r.queued++
	r.arrived[pod] = true
	r.q.Add(pod, t)
	if r.c.GangsEnabled() {
		// With GenericWorkload, kube tells the queue of every new pending
		// pod: it may complete a gang waiting for minCount pods.
		r.q.Event(t, framework.EventUnscheduledPodAdd, nil, pod, nil)
	}
}

// Run schedules at time t until the queue has nothing ready.
func (r *Replayer) Run(ctx context.Context, t queue.Time) error {
	// Cycles since the last cluster event, at this moment.
	idle, events := 0, r.q.Events()
	for {
		e := r.q.Pop(t)
		if e == nil {
			if len(r.due)+len(r.deferred) == 0 {
				return nil
			}
			// Nothing to schedule: the controllers catch up.
			r.runDeferred(t, append(r.due, r.deferred...))
			r.due, r.deferred = nil, nil
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		r.cycles++
		if ev := r.q.Events(); ev != events {
			idle, events = 0, ev
		}
		if idle++; idle > maxCyclesPerPod*max(r.q.Len(), 1) {
			return fmt.Errorf("internal error: %d scheduling cycles at %s with no cluster event between them, %d pods queued", idle-1, t, r.q.Len())
		}
		schedule := r.schedulePod
		if e.Group != nil {
			schedule = r.scheduleGroup
		}
		if err := schedule(ctx, e, t); err != nil {
			return err
		}
		due := r.due
		r.due, r.deferred = r.deferred, nil
		r.runDeferred(t, due)
		if r.opts.Progress != nil {
			r.opts.Progress(r.cycles, r.queued)
		}
	}
}

func (r *Replayer) runDeferred(t queue.Time, actions []func(queue.Time)) {
	for _, a := range actions {
		a(t)
	}
}

// schedulePod runs one pod's cycle and acts on its outcome.
func (r *Replayer) schedulePod(ctx context.Context, e *queue.Entity, t queue.Time) error {
	pod := e.Pod()
	if r.BeforeAttempt != nil {
		r.BeforeAttempt(pod)
	}
	var a *Attempt
	var claimsBefore map[string]*resourceapi.ResourceClaim
	memo := r.memoLookup(pod)
	if memo != nil && memo.hit != nil {
		a = memo.hit.again(r.s)
	} else {
		claimsBefore = r.claimStatuses(pod)
		a = r.s.SchedulePod(ctx, pod)
	}
	if a.Err != nil {
		return fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, a.Err)
	}
	if r.OnAttempt != nil {
		r.OnAttempt(pod, a)
	}
	// A pod retried for hours keeps one outcome, overwritten by each
	// cycle (nothing keeps the earlier ones).
	out := r.outcomes[pod]
	if out == nil {
		out = &result.Pod{}
		r.outcomes[pod] = out
	}
	*out = result.Pod{Namespace: pod.Namespace, Name: pod.Name, Priority: corev1helpers.PodPriority(pod), FeasibleNodes: a.FeasibleNodes, EvaluatedNodes: a.EvaluatedNodes}
	if a.Error != nil {
		// A plugin error fails this pod's attempt only, as in kube: no
		// node rejected it (the reason counts no nodes), no PostFilter
		// runs, and the pod waits in the error backoff.
		out.Phase, out.Reason, out.Message = result.PhaseUnschedulable, result.ReasonSchedulerError, a.Message
		out.Reasons = []result.Reason{{Plugin: a.Error.Plugin, Reason: result.ReasonSchedulerError}}
		r.q.Failed(e, t, queue.Result{Error: true})
		if pod.Status.NominatedNodeName != "" {
			r.Nominate(pod, "", t) // kube's clearNominatedNode
		}
		return nil
	}
	if a.Node == "" {
		out.Phase = result.PhaseUnschedulable
		out.Message = a.Message
		if !r.NoDiagnosis {
			out.DeviceReasons = diagnose(ctx, r.c, r.s.profile, a)
		}
		if memo != nil && memo.hit != nil {
			out.Reasons = memo.hit.reasons
		} else {
			for _, rj := range a.Rejections {
				out.Reasons = append(out.Reasons, result.Reason{Plugin: rj.Plugin, Reason: rj.Reason, Nodes: rj.Nodes})
			}
		}
		return r.failed(ctx, e, a, out, t, memo)
	}
	r.q.Done(e)
	r.scheduled(pod, a, out, e.Attempts, claimsBefore, t)
	return nil
}

// scheduled records a pod placed by its attempt and tells the queue what
// the informers would: its claims changed, it is assigned.
func (r *Replayer) scheduled(pod *v1.Pod, a *Attempt, out *result.Pod, attempts int, claimsBefore map[string]*resourceapi.ResourceClaim, t queue.Time) {
	r.q.DeleteNominated(pod)
	if prev := r.preemptions[pod]; prev != nil {
		out.Preemption = prev
	}
	out.Phase = result.PhaseScheduled
	out.Node = a.Node
	out.Attempt = attempts
	if a.Chosen != nil && len(a.Chosen.Scores) > 0 {
		sc := &result.Score{Total: a.Chosen.Total}
		for _, ps := range a.Chosen.Scores {
			sc.Plugins = append(sc.Plugins, result.PluginScore{Plugin: ps.Plugin, Raw: ps.Score, Weighted: ps.Weighted})
		}
		out.Score = sc
	}
	setScheduled(pod)
	r.events = append(r.events, result.Event{Seq: len(r.events) + 1, Type: result.EventScheduled, Pod: pod.Namespace + "/" + pod.Name, Node: a.Node,
		Message: fmt.Sprintf("Successfully assigned %s/%s to %s", pod.Namespace, pod.Name, a.Node)})
	// What the informers would tell the queue: the pod's claims changed
	// (allocated, reserved), then the pod is assigned.
	r.claimEvents(pod, claimsBefore, t)
	r.q.Event(t, framework.EventAssignedPodAdd, nil, pod, nil)
}

// followWith sets the attempt's node to the one f picks, when the attempt
// found that node feasible (its statuses kept with
// Options.KeepNodeStatuses), and returns the attempt's node.
func followWith(f func(*v1.Pod, *Attempt) string, pod *v1.Pod, a *Attempt) string {
	node := f(pod, a)
	for _, n := range a.Nodes {
		if n.Node == node && n.Status == nil {
			a.Node = node
			return node
		}
	}
	return a.Node
}

// claimStatuses copies the pod's claims before its cycle, so that the
// claim events after it carry the old and the new object. Only the status
// is copied deeply: a cycle allocates and reserves claims, which changes
// their status, and otherwise only replaces their finalizers (appending
// or cloning), never editing the metadata's maps or the spec in place;
// so the old object shares those with the claim, rather than copy whole
// claims (docs/performance.md).
func (r *Replayer) claimStatuses(pod *v1.Pod) map[string]*resourceapi.ResourceClaim {
	claims, _ := r.c.DRA().PodClaims(pod)
	out := make(map[string]*resourceapi.ResourceClaim, len(claims))
	for _, c := range claims {
		old := &resourceapi.ResourceClaim{TypeMeta: c.TypeMeta, ObjectMeta: c.ObjectMeta, Spec: c.Spec}
		c.Status.DeepCopyInto(&old.Status)
		out[c.Name] = old
	}
	return out
}

func (r *Replayer) claimEvents(pod *v1.Pod, before map[string]*resourceapi.ResourceClaim, t queue.Time) {
	for _, c := range r.ClaimsOf(pod) {
		old := before[c.Name]
		switch {
		case old == nil:
			r.q.Event(t, framework.ClusterEvent{Resource: framework.ResourceClaim, ActionType: framework.Add}, nil, c, nil)
		default:
			r.q.Event(t, framework.ClusterEvent{Resource: framework.ResourceClaim, ActionType: framework.Update}, old, c, nil)
		}
	}
}

// Result builds the replay's result: each pod's last attempt, pending pods
// with the message of their last attempt.
func (r *Replayer) Result() *result.Result {
	r.gangResults()
	for _, pod := range r.c.Queue() {
		out := r.outcomes[pod]
		if out == nil || out.Phase != result.PhaseUnschedulable {
			continue
		}
		setUnschedulable(pod, out.Reason, out.Message)
		r.events = append(r.events, result.Event{Seq: len(r.events) + 1, Type: result.EventFailedScheduling, Pod: pod.Namespace + "/" + pod.Name, Message: out.Message})
	}
	for _, pod := range r.c.Queue() {
		if out := r.outcomes[pod]; out != nil && out.Phase == result.PhaseUnschedulable {
			out.NominatedNode = pod.Status.NominatedNodeName
		}
	}
	res := buildResult(r.c, r.s, r.outcomes, r.events, r.deleted)
	r.addPodGroups(res)
	return res
}

// diagnose asks the profile's NodeDiagnoser (DynamicResources) why it
// rejected the nodes the attempt kept, at the pod's turn, and counts the
// findings over nodes.
func diagnose(ctx context.Context, c *cluster.Cluster, p *framework.Profile, a *Attempt) []result.DeviceReason {
	if len(a.Diagnosed) == 0 {
		return nil
	}
	var diagnoser framework.NodeDiagnoser
	for _, pl := range p.Filter {
		if d, ok := pl.(framework.NodeDiagnoser); ok {
			diagnoser = d
			break
		}
	}
	if diagnoser == nil {
		return nil
	}
	type key struct{ claim, request, reason string }
	counts := map[key]int{}
	var order []key
	for _, name := range a.Diagnosed {
		ni := c.Node(name)
		if ni == nil {
			continue
		}
		for _, f := range diagnoser.DiagnoseNode(ctx, a.State, ni.Node()) {
			k := key{f.Claim, f.Request, f.Reason}
			if counts[k] == 0 {
				order = append(order, k)
			}
			counts[k]++
		}
	}
	out := make([]result.DeviceReason, 0, len(order))
	for _, k := range order {
		out = append(out, result.DeviceReason{Claim: k.claim, Request: k.request, Reason: k.reason, Nodes: counts[k]})
	}
	return out
}

func setScheduled(pod *v1.Pod) {
	setCondition(pod, v1.PodCondition{Type: v1.PodScheduled, Status: v1.ConditionTrue})
}

func setUnschedulable(pod *v1.Pod, reason, msg string) {
	if reason == "" {
		reason = v1.PodReasonUnschedulable
	}
	setCondition(pod, v1.PodCondition{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: reason, Message: msg})
}

func setCondition(pod *v1.Pod, cond v1.PodCondition) {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == cond.Type {
			pod.Status.Conditions[i] = cond
			return
		}
	}
	pod.Status.Conditions = append(pod.Status.Conditions, cond)
}

func buildResult(c *cluster.Cluster, s *Scheduler, outcomes map[*v1.Pod]*result.Pod, events []result.Event, deleted []*v1.Pod) *result.Result {
	r := &result.Result{APIVersion: result.APIVersion, Kind: result.Kind, Events: events, Warnings: c.Warnings()}
	if r.Events == nil {
		r.Events = []result.Event{}
	}
	r.Inputs.Nodes = len(c.Nodes())
	r.Inputs.Pods = len(c.Pods())
	r.Inputs.PendingPods = len(c.Queue())
	r.Inputs.ResourceClaims = len(c.Snapshot().ResourceClaims)
	r.Inputs.Seed = s.opts.Seed
	r.Inputs.TieBreak = string(TieBreakKube)
	if s.opts.TieBreak == TieBreakRandom || s.opts.TieBreak == TieBreakName {
		r.Inputs.TieBreak = string(s.opts.TieBreak)
	}
	r.Inputs.ScoreAllNodes = s.opts.ScoreAllNodes
	for _, sl := range c.DRA().Slices() {
		r.Inputs.Devices += len(sl.Spec.Devices)
	}
	gated, skipped := podSet(c.Gated()), podSet(c.Skipped())
	bound := podSet(c.Bound())
	// Pods preemption deleted are no longer in the cluster; they keep
	// their place in the snapshot's order.
	pods := c.Pods()
	if len(deleted) > 0 {
		pods = append(slices.Clone(c.Pods()), deleted...)
		sort.SliceStable(pods, func(i, j int) bool { return c.Order(pods[i]) < c.Order(pods[j]) })
	}
	for _, pod := range pods {
		out, ok := outcomes[pod]
		switch {
		case ok:
		case s.opts.OnlyQueued:
			continue
		case bound[pod]:
			out = &result.Pod{Phase: result.PhaseBound, Node: pod.Spec.NodeName}
		case gated[pod]:
			out = &result.Pod{Phase: result.PhaseGated, Message: "pod has scheduling gates"}
		case skipped[pod]:
			out = &result.Pod{Phase: result.PhaseSkipped, Message: fmt.Sprintf("pod is for scheduler %q", pod.Spec.SchedulerName)}
		default:
			continue
		}
		out.Namespace, out.Name = pod.Namespace, pod.Name
		out.Priority = corev1helpers.PodPriority(pod)
		out.PriorityClass = pod.Spec.PriorityClassName
		if ref := metav1.GetControllerOf(pod); ref != nil {
			out.Owner = ref.Kind + "/" + ref.Name
		}
		if out.Phase != result.PhasePreempted {
			// A victim keeps the devices it held, as it held them.
			out.Claims = PodClaims(c, pod)
		}
		r.Pods = append(r.Pods, *out)
	}
	r.Recount()
	if !s.opts.OnlyQueued {
		r.Nodes = nodeUsage(c)
	}
	return r
}

func podSet(pods []*v1.Pod) map[*v1.Pod]bool {
	m := make(map[*v1.Pod]bool, len(pods))
	for _, p := range pods {
		m[p] = true
	}
	return m
}

// PodClaims lists the pod's claims in the cluster and their allocated
// devices, with the firstAvailable alternative each request got.
func PodClaims(c *cluster.Cluster, pod *v1.Pod) []result.Claim {
	claims, _ := c.DRA().PodClaims(pod)
	var out []result.Claim
	podClaimName := map[string]string{}
	template := map[string]string{}
	for _, pc := range pod.Spec.ResourceClaims {
		name, _, err := resourceclaim.Name(pod, &pc)
		if err != nil || name == nil {
			continue
		}
		podClaimName[*name] = pc.Name
		if pc.ResourceClaimTemplateName != nil {
			template[*name] = *pc.ResourceClaimTemplateName
		}
	}
	if st := pod.Status.ExtendedResourceClaimStatus; st != nil {
		if claim, err := c.DRA().Claim(pod.Namespace, st.ResourceClaimName); err == nil {
			claims = append(claims, claim)
		}
	}
	for _, claim := range claims {
		rc := result.Claim{PodClaimName: podClaimName[claim.Name], Name: claim.Name, Template: template[claim.Name], Shared: template[claim.Name] == "" && podClaimName[claim.Name] != ""}
		if claim.Status.Allocation != nil {
			for _, d := range claim.Status.Allocation.Devices.Results {
				dev := result.Device{Request: d.Request, Driver: d.Driver, Pool: d.Pool, Device: d.Device, AdminAccess: ptr.Deref(d.AdminAccess, false)}
				if d.ShareID != nil {
					dev.ShareID = string(*d.ShareID)
				}
				dev.Alternative, dev.AlternativeRank = inventory.Alternative(claim, d.Request)
				rc.Devices = append(rc.Devices, dev)
			}
		}
		out = append(out, rc)
	}
	return out
}

// nodeUsage reports each node's requested resources and devices.
func nodeUsage(c *cluster.Cluster) []result.Node {
	used := inventory.AllocatorInUseByPool(c.DRA().AllocatedState())
	devTotal := map[string]int{}
	devUsed := map[string]int{}
	// The devices the allocator can use on the node: older generations of
	// a pool are not, and a device of a per-device slice belongs to the
	// node it names.
	var pool map[string]bool
	var poolKey inventory.PoolID
	// Walked slice by slice rather than through inventory.Devices, whose
	// list of every device is garbage as large as the fleet
	// (docs/performance.md); and counted per run of devices of one node
	// (a slice's, mostly) before they are added to the maps.
	var node string
	var total, inUse int
	flush := func() {
		if node != "" {
			devTotal[node] += total
			devUsed[node] += inUse
		}
	}
	for _, sl := range inventory.Current(c.DRA().Slices()) {
		for i := range sl.Spec.Devices {
			d := inventory.DeviceOf(sl, &sl.Spec.Devices[i])
			if d.Node == "" {
				continue
			}
			if d.Node != node {
				flush()
				node, total, inUse = d.Node, 0, 0
			}
			total++
			if k := (inventory.PoolID{Driver: d.ID.Driver, Pool: d.ID.Pool}); k != poolKey || pool == nil {
				poolKey, pool = k, used[k]
			}
			if pool[d.ID.Device] {
				inUse++
			}
		}
	}
	flush()
	out := make([]result.Node, 0, len(c.Nodes()))
	for _, ni := range c.Snapshot().Nodes {
		info := c.Node(ni.Name)
		if info == nil {
			continue
		}
		n := result.Node{
			Name:          ni.Name,
			Group:         ni.Labels[v1.LabelInstanceTypeStable],
			Unschedulable: ni.Spec.Unschedulable,
			CPU:           quantity(info.Requested.MilliCPU, info.Allocatable.MilliCPU, true),
			Memory:        quantity(info.Requested.Memory, info.Allocatable.Memory, false),
			Pods:          result.Count{Used: len(info.Pods), Total: info.Allocatable.AllowedPodNumber},
			Devices:       result.Count{Used: devUsed[ni.Name], Total: devTotal[ni.Name]},
		}
		out = append(out, n)
	}
	return out
}

func quantity(requested, allocatable int64, milli bool) result.Quantity {
	format := func(v int64) string {
		if milli {
			return resource.NewMilliQuantity(v, resource.DecimalSI).String()
		}
		return resource.NewQuantity(v, resource.BinarySI).String()
	}
	return result.Quantity{Requested: format(requested), Allocatable: format(allocatable), RequestedValue: requested, AllocatableValue: allocatable}
}

// PostFilterResult is what the PostFilter plugins decided for a pod that
// fit nowhere.
type PostFilterResult struct {
	// Message is the pod's PodScheduled message: the attempt's FitError
	// message, then what the PostFilter plugins said (kube's
	// "preemption: ...").
	Message string
	// Deallocate is the pod's claim DynamicResources frees, or nil.
	Deallocate *resourceapi.ResourceClaim
	// Preemption is DefaultPreemption's decision; nil when the profile
	// has no preemption.
	Preemption *Preemption
}

// PostFilter runs the PostFilter plugins for a pod whose attempt found no
// node: DynamicResources, which may free one of the pod's claims, then
// DefaultPreemption. It decides and changes nothing; a replay carries the
// decision out (failed), a step-wise check compares it with the real
// scheduler's.
func (r *Replayer) PostFilter(ctx context.Context, pod *v1.Pod, a *Attempt) (*PostFilterResult, error) {
	pf := &PostFilterResult{Message: a.Message}
	if len(r.c.Nodes()) == 0 || a.State == nil {
		return pf, nil
	}
	var last []framework.PostFilterPlugin
	pre := &preemptionPlugin{s: r.s, a: a}
	if r.s.profile.Preemption {
		last = append(last, pre)
	}
	// kube's DynamicResources PostFilter asks the API server to
	// deallocate; the cycle goes on with the claim as it was.
	res, st := r.s.profile.RunPostFilter(ctx, a.State, pod, &a.Diagnosis, last...)
	if pre.err != nil {
		return nil, fmt.Errorf("pod %s/%s: preemption: %w", pod.Namespace, pod.Name, pre.err)
	}
	if st.Code() == framework.Error {
		return nil, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, st.Err())
	}
	if len(res.Deallocate) > 0 {
		pf.Deallocate = res.Deallocate[0]
	}
	pf.Preemption = pre.result
	if msgs := st.Reasons(); len(msgs) > 0 {
		pf.Message += " " + strings.Join(msgs, ", ")
	}
	return pf, nil
}

// preemptionPlugin is DefaultPreemption as a PostFilter plugin of one
// cycle: the scheduler implements it itself (Preempt), and the framework
// runs it after the profile's PostFilter plugins, as upstream. Its
// decision and a failure are kept for the caller.
type preemptionPlugin struct {
	s      *Scheduler
	a      *Attempt
	result *Preemption
	err    error
}

var _ framework.PostFilterPlugin = (*preemptionPlugin)(nil)

func (p *preemptionPlugin) Name() string { return PreemptionPlugin }

// PostFilter succeeds when preemption found a node, with its message as
// the only word.
func (p *preemptionPlugin) PostFilter(ctx context.Context, _ *framework.CycleState, pod *v1.Pod, _ *framework.Diagnosis) (*framework.PostFilterResult, *framework.Status) {
	if p.result, p.err = p.s.Preempt(ctx, pod, p.a); p.err != nil {
		return nil, framework.AsStatus(p.err)
	}
	code := framework.Unschedulable
	if p.result.Node != "" {
		code = framework.Success
	}
	if p.result.Message == "" { // a quiet success (before 1.37)
		return nil, framework.NewStatus(code)
	}
	return nil, framework.NewStatus(code, p.result.Message)
}

// failed runs the PostFilter plugins for a pod that fit nowhere, puts the
// pod back in the queue, and carries out what they decided: the claim
// freed, the pod's nomination and the victims' deletion.
func (r *Replayer) failed(ctx context.Context, e *queue.Entity, a *Attempt, out *result.Pod, t queue.Time, memo *memoCycle) error {
	pod := e.Pod()
	var pf *PostFilterResult
	var plugins sets.Set[string]
	if memo != nil && memo.hit != nil {
		pf = memo.hit.postFilterAgain(r.s)
		plugins = memo.hit.plugins
	} else {
		var err error
		if pf, err = r.PostFilter(ctx, pod, a); err != nil {
			return err
		}
		plugins = sets.New(a.UnschedulablePlugins...)
		r.memoStore(memo, pod, a, pf, out.Reasons, plugins)
	}
	pre := pf.Preemption
	if pre != nil && r.OnPreemption != nil {
		r.OnPreemption(pod, pre)
	}
	out.Message = pf.Message
	r.q.Failed(e, t, queue.Result{Unschedulable: plugins})
	if pf.Deallocate != nil {
		r.Deallocate(pf.Deallocate, t)
	}
	if pre == nil || pre.Nomination == nil {
		return nil
	}
	r.Nominate(pod, pre.Nomination.Node, t)
	if pre.Node != "" {
		r.preempt(pod, pre, t)
		out.Preemption = r.preemptions[pod]
	}
	return nil
}

// Deallocate frees a claim's devices (DynamicResources' PostFilter, as
// the API server carries it out) and tells the queue.
func (r *Replayer) Deallocate(claim *resourceapi.ResourceClaim, t queue.Time) {
	old := r.c.DRA().Deallocate(claim)
	r.q.Event(t, framework.ClusterEvent{Resource: framework.ResourceClaim, ActionType: framework.Update}, old, claim, nil)
}

// Nominate sets (or, with node "", clears) the pod's nominated node, as
// the scheduler's status patch does; a nomination that moves away from a
// node is, to the queue, a pod leaving that node.
func (r *Replayer) Nominate(pod *v1.Pod, node string, t queue.Time) {
	old := pod.Status.NominatedNodeName
	pod.Status.NominatedNodeName = node
	r.q.AddNominated(pod, &queue.Nomination{Override: true, Node: node})
	if old == "" || old == node {
		return
	}
	oldPod := pod.DeepCopy()
	oldPod.Status.NominatedNodeName = old
	prio := corev1helpers.PodPriority(pod)
	r.q.Event(t, framework.EventAssignedPodDelete, oldPod, nil, func(p *v1.Pod) bool { return corev1helpers.PodPriority(p) <= prio })
}

// ClearLowerNominations is the first thing kube's preemption executor
// does: the pods of lower priority than the preemptor nominated to the
// node lose their nomination.
func (r *Replayer) ClearLowerNominations(preemptor *v1.Pod, node string, t queue.Time) {
	prio := corev1helpers.PodPriority(preemptor)
	for _, p := range r.q.NominatedPodsForNode(node) {
		if corev1helpers.PodPriority(p) < prio {
			r.Nominate(p, "", t)
		}
	}
}

// preempt carries out a preemption, as kube's executor does: the pods of
// lower priority nominated to the node lose their nomination, then every
// victim is deleted (the resource-claim controller and the garbage
// collector then release and delete its claims), and the disruption
// controller counts one disruption less for each budget covering it.
func (r *Replayer) preempt(preemptor *v1.Pod, pre *Preemption, t queue.Time) {
	r.ClearLowerNominations(preemptor, pre.Node, t)
	prio := corev1helpers.PodPriority(preemptor)
	violators := podSet(pre.PDBViolators)
	rec := &result.Preemption{Node: pre.Node, Victims: []string{}, PDBViolations: len(pre.PDBViolators)}
	key := preemptor.Namespace + "/" + preemptor.Name
	for _, v := range pre.Victims {
		rec.Victims = append(rec.Victims, v.Namespace+"/"+v.Name)
		claims := r.ClaimsOf(v)
		r.recordVictim(v, result.PreemptedBy{Pod: key, Priority: prio, Node: pre.Node, PDBViolation: violators[v],
			Reason: fmt.Sprintf(victimConditionMessageFmt, schedulerName(preemptor))},
			fmt.Sprintf("Preempted by pod %s on node %s", key, pre.Node))
		r.DeleteVictim(v, t)
		r.countDisruption(v)
		// The controllers release the victim's claims a moment later:
		// after the scheduler's next cycle (see Run).
		r.deferred = append(r.deferred, func(t queue.Time) { r.releaseClaims(v, claims, t) })
	}
	r.preemptions[preemptor] = rec
}

// recordVictim records a victim's outcome (preempted, by whom, what it
// held before the controllers release it) and the Preempted event.
func (r *Replayer) recordVictim(v *v1.Pod, by result.PreemptedBy, event string) {
	out := r.outcomes[v]
	if out == nil {
		out = &result.Pod{Namespace: v.Namespace, Name: v.Name, Priority: corev1helpers.PodPriority(v)}
		r.outcomes[v] = out
	}
	out.Phase, out.Node, out.Message, out.Score, out.Attempt = result.PhasePreempted, v.Spec.NodeName, "", nil, 0
	out.Claims = PodClaims(r.c, v)
	out.PreemptedBy = &by
	r.events = append(r.events, result.Event{Seq: len(r.events) + 1, Type: result.EventPreempted, Pod: v.Namespace + "/" + v.Name, Node: v.Spec.NodeName,
		Message: event})
}

// BindingFailed takes back a pod that a cycle placed but that did not
// bind: the pod leaves its node and its claims' reservations, a claim no
// other pod reserves any more loses its allocation, and the scheduler's
// nominator forgets the pod. nominated is what the pod object says
// (kube's binding cycle may have written the chosen node there as an
// expectation, and the pod is queued again with it until the scheduler's
// patch clearing it comes back). drasim binds in the cycle and never
// fails there; kube's PreBind can lose a race for a claim shared by a
// gang's pods, and the step-wise check follows the real scheduler's log
// with this.
func (r *Replayer) BindingFailed(pod *v1.Pod, nominated string) {
	if ni := r.c.Node(pod.Spec.NodeName); ni != nil && pod.Spec.NodeName != "" {
		_ = ni.RemovePod(pod)
	}
	pod.Spec.NodeName = ""
	for _, claim := range r.ClaimsOf(pod) {
		r.c.DRA().Release(claim, pod)
	}
	r.q.DeleteNominated(pod)
	pod.Status.NominatedNodeName = nominated
}

// DeleteVictim removes a preempted pod from the cluster and tells the
// queue. Its claims are the controllers' business (ReleaseClaims).
func (r *Replayer) DeleteVictim(v *v1.Pod, t queue.Time) {
	r.c.DeletePod(v)
	r.deleted = append(r.deleted, v)
	r.q.Event(t, framework.EventAssignedPodDelete, v, nil, nil)
}

// ReleaseClaims does what the resource-claim controller and the garbage
// collector do once a pod is gone: its claims are released (deallocated
// when no other pod uses them) and those generated for it deleted.
func (r *Replayer) ReleaseClaims(pod *v1.Pod, t queue.Time) {
	r.releaseClaims(pod, r.ClaimsOf(pod), t)
}

func (r *Replayer) releaseClaims(pod *v1.Pod, claims []*resourceapi.ResourceClaim, t queue.Time) {
	for _, ch := range r.c.ReleaseClaims(pod, claims) {
		if ch.New != nil {
			r.q.Event(t, framework.ClusterEvent{Resource: framework.ResourceClaim, ActionType: framework.Update}, ch.Old, ch.New, nil)
		} else {
			r.q.Event(t, framework.ClusterEvent{Resource: framework.ResourceClaim, ActionType: framework.Delete}, ch.Old, nil, nil)
		}
	}
}

// ClaimsOf lists the pod's claims, its extended-resource claim included.
func (r *Replayer) ClaimsOf(pod *v1.Pod) []*resourceapi.ResourceClaim {
	claims, _ := r.c.DRA().PodClaims(pod)
	if st := pod.Status.ExtendedResourceClaimStatus; st != nil {
		if c, err := r.c.DRA().Claim(pod.Namespace, st.ResourceClaimName); err == nil {
			claims = append(claims, c)
		}
	}
	return claims
}

// countDisruption does what the disruption controller would after a
// covered pod is gone: one healthy pod less, one disruption less allowed.
func (r *Replayer) countDisruption(pod *v1.Pod) {
	for _, pdb := range r.c.PDBs() {
		if pdbSelects(pdb, pod) {
			r.c.UseDisruption(pdb)
		}
	}
}

func schedulerName(pod *v1.Pod) string {
	if pod.Spec.SchedulerName != "" {
		return pod.Spec.SchedulerName
	}
	return v1.DefaultSchedulerName
}
