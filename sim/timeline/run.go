package timeline

import (
	"container/heap"
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/drasim/drasim/sim/nodegroup"
	"github.com/drasim/drasim/sim/policy"

	"github.com/drasim/drasim/internal/kubenames"
	"github.com/drasim/drasim/internal/seams"
	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/analysis"
	"github.com/drasim/drasim/sim/autoscale"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/inventory"
	"github.com/drasim/drasim/sim/schedule"
	"github.com/drasim/drasim/sim/schedule/queue"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// Defaults of Options.
const (
	// DefaultScanInterval is cluster-autoscaler's --scan-interval.
	DefaultScanInterval = 10 * time.Second
	// DefaultResolution is the time series' step.
	DefaultResolution = 5 * time.Minute
	// DefaultTail is how long a timeline without an end goes on after the
	// last arrival, completion or node change: long enough for the
	// autoscaler to remove idle nodes at its defaults.
	DefaultTail = 30 * time.Minute
)

// DefaultStart is the wall-clock time of the timeline's time 0: pods'
// creation timestamps and the autoscaler's clock count from it.
var DefaultStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Options configure a timeline.
type Options struct {
	// Name names the run (for comparisons).
	Name string
	// Sim configures the scheduler (gates, plugins, seed, parallelism).
	Sim sim.Options
	// Autoscale turns cluster-autoscaler on with these settings (nil:
	// off); ScaleDown are its scale-down settings (DefaultScaleDownOptions).
	Autoscale *autoscale.Options
	ScaleDown autoscale.ScaleDownOptions
	// ScanInterval is the autoscaler's loop interval (default 10s).
	ScanInterval time.Duration
	// Resolution is the time series' step (default: DefaultResolutionFor
	// the horizon, 5m up to a week).
	Resolution time.Duration
	// FragmentationEvery samples the fragmentation rate at the first
	// sample of each such period (0: never; FragmentationAuto:
	// DefaultFragmentationEvery for the horizon, hourly up to a week).
	FragmentationEvery time.Duration
	// End stops the timeline at this time; 0 runs it until Tail after the
	// last arrival, completion or node change.
	End  time.Duration
	Tail time.Duration
	// Start is the wall-clock time of time 0 (DefaultStart when zero).
	Start time.Time
	// Hooks, when set, hear of every scheduling cycle with its moment,
	// which can be exported: the exactness test replays moments with
	// drasim simulate's engine. A test-only seam (internal/seams).
	Hooks *seams.TimelineHooks
	// Progress, when set, is called now and then (every few hundred
	// events, and at every sample) with how far the run is.
	Progress func(Progress)
	// NoFailureMemo runs every failed scheduling cycle instead of giving
	// an equivalent pod's answer again (schedule.Replayer.MemoizeFailures):
	// the same result, slower; for the tests that prove it.
	NoFailureMemo bool
	// Memo, when set, gets the memo's counts at the end: the cycles it
	// answered (Hits) and those it had to run (Misses). They are not part
	// of the result, which is the same without the memo.
	Memo *MemoStats
}

// Progress is how far a running timeline is.
type Progress struct {
	// Now is the simulated time reached; End is where the run is
	// expected to end (Options.End, else Input.Horizon: an open timeline
	// may run past it while pods wait).
	Now, End time.Duration
	// Events are the events handled so far: arrivals, completions, nodes
	// ready, the autoscaler's loops, the queue's wake-ups and samples.
	Events int
	// Pending are the pods in the scheduling queue, Running those bound.
	Pending, Running int
	// Arrived of Arrivals have arrived: a trace whose arrivals crowd
	// into its last weeks does most of its work there.
	Arrived, Arrivals int
}

// progressEvery is how many events pass between calls of
// Options.Progress (samples call it too).
const progressEvery = 256

// MemoStats counts the answers of the memo of failed cycles.
type MemoStats struct {
	Hits, Misses int
}

func (o Options) withDefaults(in *Input) Options {
	if o.ScanInterval <= 0 {
		o.ScanInterval = DefaultScanInterval
	}
	if o.Tail <= 0 {
		o.Tail = DefaultTail
	}
	horizon := in.Horizon(o.End, o.Tail)
	if o.Resolution <= 0 {
		o.Resolution = DefaultResolutionFor(horizon)
	}
	if o.FragmentationEvery < 0 {
		o.FragmentationEvery = DefaultFragmentationEvery(horizon, o.Resolution)
	}
	if o.Start.IsZero() {
		o.Start = DefaultStart
	}
	if o.Sim.Parallelism <= 0 && !o.Sim.Reference {
		// One goroutine runs the events, and a cycle filters a handful of
		// node classes: more filter workers only look further ahead than
		// a cycle that stops early needs, and leave the garbage collector
		// less of the second core (docs/benchmarks-archive.md, "Timeline (issue 13)"). The decisions
		// are the same with any number of workers.
		o.Sim.Parallelism = 1
	}
	if a := o.Autoscale; a != nil && a.Sim.Parallelism <= 0 && !a.Sim.Reference {
		one := *a
		one.Sim.Parallelism = 1
		o.Autoscale = &one
	}
	return o
}

// Input is what a timeline runs on: the cluster at the start and the pods
// that arrive (Prepare makes it).
type Input struct {
	// Snapshot is the cluster at the start; its pods are there at time 0.
	Snapshot *snapshot.Snapshot
	// Initial gives the run times of the snapshot's pods, by pod.
	Initial map[*v1.Pod]Arrival
	// Arrivals are the pods that arrive later, in time order.
	Arrivals Arrivals
	// Workloads are the workloads the traces made pods for (their Jobs
	// are not objects of the snapshot but exist for the autoscaler).
	Workloads map[string]bool
	// Requests are the snapshot's ProvisioningRequests with the time each
	// is created.
	Requests []RequestArrival
	Files    []string
	Warnings []string
}

// Event kinds, in the order they are handled at the same time: nodes
// before pods, pods leaving before pods arriving, the autoscaler after
// the scheduler, the sample last.
const (
	evNodeReady = iota
	evFinish
	evArrival
	evRequest
	evWake
	evLoop
	evSample
)

type event struct {
	at   time.Duration
	kind int
	seq  uint64
	pod  *podState
	gen  int
	node string
	arr  *Arrival
	req  *RequestArrival
}

// isActivity says whether an event keeps an open timeline going:
// arrivals (of pods and of ProvisioningRequests), completions and nodes.
func isActivity(kind int) bool { return kind <= evRequest }

type eventHeap []event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	if h[i].kind != h[j].kind {
		return h[i].kind < h[j].kind
	}
	return h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(event)) }
func (h *eventHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// podState is a pod the timeline follows.
type podState struct {
	pod *v1.Pod
	rec *PodRecord // nil for pods that are no arrival (DaemonSet pods of new nodes)
	arr Arrival
	// pendingSince is when it last became pending; gen invalidates the
	// completion event of an earlier run (after an eviction).
	pendingSince time.Duration
	gen          int
}

// billing is a node being paid for.
type billing struct {
	group string
	price float64
	since time.Duration
}

type upcomingNode struct {
	name, group string
	ready       time.Duration
}

type engine struct {
	ctx  context.Context
	opts Options
	in   *Input
	work *snapshot.Snapshot
	c    *cluster.Cluster
	r    *schedule.Replayer
	q    *queue.Queue
	as   *autoscale.Autoscaler

	now    time.Duration
	seq    uint64
	events eventHeap
	wakeAt time.Duration
	waking bool
	// lastActivity is the time of the last arrival, completion, node or
	// eviction, for the end of an open timeline.
	lastActivity time.Duration
	activity     int // activity events in the heap

	pods          map[*v1.Pod]*podState
	unschedulable map[*v1.Pod]bool
	// gangPods are the pods of each gang (namespace/podgroup) in the
	// order they came; gangsTried the gangs a Run's cycles tried.
	gangPods   map[string][]*podState
	gangsTried map[string]bool
	// victims are the pods the replayer's preemptions deleted, to follow
	// up after its cycles; controllerExists says whether a deleted pod's
	// controller makes it again.
	victims          []*v1.Pod
	controllerExists func(kind, ns, name string) bool
	// daemons are the DaemonSet pods made for each new node.
	daemons map[string][]*v1.Pod
	records []*PodRecord
	running int

	upcoming   []upcomingNode
	billed     map[string]billing
	cost       float64
	nodeHours  map[string]float64
	groupCost  map[string]float64
	alternates []int

	sampler  *analysis.Sampler
	lastFrag time.Duration
	fragDone bool
	workload func(*v1.Pod) string

	res           *Result
	cycles        int
	handled       int
	arrived       int
	horizon       time.Duration
	draPlugin     *dra.Plugin
	moment        *seams.Moment
	failedCycle   *failedCycle
	initialGroups []GroupInputs
}

// Run runs the timeline.
func Run(ctx context.Context, in *Input, opts Options) (*Result, error) {
	opts = opts.withDefaults(in)
	e, err := newEngine(ctx, in, opts)
	if err != nil {
		return nil, err
	}
	if err := e.run(); err != nil {
		return nil, err
	}
	if n := e.c.Forks(); n > 0 {
		// Every what-if of the autoscaler's loops closes its fork; one
		// left open would take back later changes with it.
		return nil, fmt.Errorf("internal error: %d what-if fork(s) of the cluster left open", n)
	}
	return e.finish(), nil
}

func newEngine(ctx context.Context, in *Input, opts Options) (*engine, error) {
	opts.Sim = opts.Sim.WithRelease()
	snap, err := opts.Sim.ForRelease(in.Snapshot)
	if err != nil {
		return nil, err
	}
	gates := opts.Sim.Gates
	// Nodes and slices come and go: the caller's snapshot stays as loaded.
	work := snap.Copy()
	e := &engine{
		ctx: ctx, opts: opts, in: in, work: work, horizon: in.Horizon(opts.End, opts.Tail),
		pods: map[*v1.Pod]*podState{}, unschedulable: map[*v1.Pod]bool{}, daemons: map[string][]*v1.Pod{},
		gangPods: map[string][]*podState{}, gangsTried: map[string]bool{},
		billed: map[string]billing{}, nodeHours: map[string]float64{}, groupCost: map[string]float64{},
		workload: analysis.WorkloadNamer(work), controllerExists: controllerCheck(work, in.Workloads),
	}
	e.c = cluster.BuildOrdered(work, gates, opts.Sim.NodeOrder)
	plugins := opts.Sim.Plugins
	if pol := plugins.Policy; pol != nil && pol.Policy == policy.FGD && pol.Workload == nil {
		// FGD's workload is the trace's: the pods there at the start and
		// every pod that arrives, as the simulator reads its pod list.
		w, err := arrivalsWorkload(work, e.c, in, *pol)
		if err != nil {
			return nil, fmt.Errorf("scheduler profile: %w", err)
		}
		args := *pol
		args.Workload = w
		plugins.Policy = &args
	}
	eopts := opts.Sim
	eopts.Plugins = plugins
	eng, err := sim.NewEngine(e.c, eopts)
	if err != nil {
		return nil, err
	}
	e.draPlugin = eng.DRA()
	// The scheduling queue and the scheduler are the replay's: kube's
	// queue on the timeline's clock, one scheduler for the whole run.
	so := opts.Sim.ScheduleOptions()
	so.Progress, so.Arrival = nil, ""
	// Every retry kube makes, the 5-minute flush of the unschedulable pool
	// included, whether or not an event came since: a timeline's attempts
	// are kube's, and its end bounds time.
	so.NoParking = true
	e.r = eng.Replayer(so)
	e.q = e.r.Queue()
	e.r.BeforeAttempt = e.beforeAttempt
	e.r.OnAttempt = e.onAttempt
	e.r.OnPreemption = e.onPreemption
	e.r.NoDiagnosis = true // the records keep the message only
	// Pods that wait for hours are retried on every event that may help
	// them; between two changes of the cluster their failed cycles are
	// given again (schedule.Replayer.MemoizeFailures).
	e.r.MemoizeFailures = !opts.NoFailureMemo
	e.res = &Result{APIVersion: APIVersion, Kind: Kind, Pods: []PodRecord{}, Series: []Sample{}, ScaleUps: []ScaleUpRecord{}, ScaleDowns: []ScaleDownRecord{}}
	e.res.Warnings = append(e.res.Warnings, in.Warnings...)
	e.res.Warnings = append(e.res.Warnings, e.c.Warnings()...)
	if opts.Autoscale != nil {
		groups, warnings, err := nodegroup.Resolve(work)
		if err != nil {
			return nil, err
		}
		e.res.Warnings = append(e.res.Warnings, warnings...)
		for _, g := range groups {
			e.initialGroups = append(e.initialGroups, GroupInputs{GroupInfo: autoscale.InfoOf(g), ProvisioningDelay: secondsOf(g.ProvisioningDelay)})
		}
		if e.as, err = autoscale.NewAutoscaler(ctx, e.c, groups, *opts.Autoscale, opts.ScaleDown, e.controllerExists, e.draPlugin); err != nil {
			return nil, err
		}
	}
	mix := append([]*v1.Pod(nil), e.c.Queue()...)
	for i := range in.Arrivals {
		mix = append(mix, in.Arrivals[i].Pod)
	}
	if opts.FragmentationEvery > 0 {
		e.sampler = analysis.NewSampler(ctx, e.c, mix, analysis.Options{Engine: opts.Sim})
	} else {
		e.sampler = analysis.NewSampler(ctx, e.c, nil, analysis.Options{Engine: sim.Options{Plugins: opts.Sim.Plugins, Reference: opts.Sim.Reference}})
	}
	e.res.Warnings = append(e.res.Warnings, e.sampler.Warnings...)
	if err := e.start(); err != nil {
		return nil, err
	}
	return e, nil
}

// controllerCheck says whether a pod's controller exists: in the snapshot,
// or a trace workload (a Job by its name).
func controllerCheck(s *snapshot.Snapshot, traced map[string]bool) func(kind, ns, name string) bool {
	known := map[string]bool{}
	for _, j := range s.Jobs {
		known["Job/"+j.Namespace+"/"+j.Name] = true
	}
	for _, rs := range s.ReplicaSets {
		known["ReplicaSet/"+rs.Namespace+"/"+rs.Name] = true
	}
	for _, ss := range s.StatefulSets {
		known["StatefulSet/"+ss.Namespace+"/"+ss.Name] = true
	}
	for _, ds := range s.DaemonSets {
		known["DaemonSet/"+ds.Namespace+"/"+ds.Name] = true
	}
	deployments := map[string]bool{}
	for _, d := range s.Deployments {
		deployments[d.Namespace+"/"+d.Name] = true
	}
	return func(kind, ns, name string) bool {
		if known[kind+"/"+ns+"/"+name] || (kind == "Job" && traced[ns+"/"+name]) {
			return true
		}
		// A Deployment's ReplicaSet the dump does not list exists as long
		// as the Deployment does.
		if kind == "ReplicaSet" {
			if i := strings.LastIndexByte(name, '-'); i > 0 && deployments[ns+"/"+name[:i]] {
				return true
			}
		}
		return false
	}
}

func (e *engine) clock() time.Time { return e.opts.Start.Add(e.now) }

func (e *engine) push(ev event) {
	e.seq++
	ev.seq = e.seq
	if isActivity(ev.kind) {
		e.activity++
	}
	heap.Push(&e.events, ev)
}

// start sets up time 0: the pods of the snapshot (bound ones run, pending
// ones are queued), the arrivals, the nodes being billed, the first loop
// and sample.
func (e *engine) start() error {
	byKey := map[string]Arrival{}
	for p, a := range e.in.Initial {
		byKey[p.Namespace+"/"+p.Name] = a
	}
	for _, n := range e.c.Nodes() {
		e.startBilling(n.Node().Name)
	}
	gated, skipped := podSet(e.c.Gated()), podSet(e.c.Skipped())
	for _, pod := range e.c.Pods() {
		a, ok := byKey[pod.Namespace+"/"+pod.Name]
		if !ok {
			a = Arrival{Endless: true}
		}
		a.Pod = pod
		if pod.CreationTimestamp.IsZero() {
			pod.CreationTimestamp = metav1.NewTime(e.opts.Start)
		}
		ps := e.track(pod, a)
		switch {
		case pod.Spec.NodeName != "":
			ps.rec.Bound, ps.rec.Started = ptrSeconds(0), ptrSeconds(0)
			ps.rec.Node = pod.Spec.NodeName
			e.bound(ps)
		case gated[pod]:
			ps.rec.Message = "pod has scheduling gates"
		case skipped[pod]:
			ps.rec.Message = fmt.Sprintf("pod is for scheduler %q", pod.Spec.SchedulerName)
		default:
			e.r.Add(pod, 0)
		}
	}
	for i := range e.in.Arrivals {
		e.push(event{at: e.in.Arrivals[i].At, kind: evArrival, arr: &e.in.Arrivals[i]})
	}
	if e.as != nil {
		// A request CA cannot serve is refused before the run, not at its
		// arrival.
		for _, r := range e.in.Requests {
			if err := e.as.CheckProvisioningRequest(r.PR); err != nil {
				return err
			}
		}
		for i := range e.in.Requests {
			e.push(event{at: e.in.Requests[i].At, kind: evRequest, req: &e.in.Requests[i]})
		}
		e.push(event{at: 0, kind: evLoop})
	} else if len(e.in.Requests) > 0 {
		e.res.Warnings = append(e.res.Warnings, "the snapshot's ProvisioningRequests are not served: cluster-autoscaler is off (no NodeGroups, or --autoscale=false)")
	}
	e.push(event{at: 0, kind: evSample})
	return nil
}

func podSet(pods []*v1.Pod) map[*v1.Pod]bool {
	m := make(map[*v1.Pod]bool, len(pods))
	for _, p := range pods {
		m[p] = true
	}
	return m
}

func ptrSeconds(d time.Duration) *Seconds {
	s := secondsOf(d)
	return &s
}

// track starts following a pod with a record.
func (e *engine) track(pod *v1.Pod, a Arrival) *podState {
	rec := &PodRecord{
		Namespace: pod.Namespace, Name: pod.Name, Workload: e.workloadOf(pod),
		Priority: corev1helpers.PodPriority(pod), Arrival: secondsOf(a.At), Phase: PhasePending,
	}
	e.records = append(e.records, rec)
	ps := &podState{pod: pod, rec: rec, arr: a, pendingSince: a.At}
	e.pods[pod] = ps
	if key := e.gangOf(pod); key != "" {
		e.gangPods[key] = append(e.gangPods[key], ps)
	}
	return ps
}

func (e *engine) workloadOf(pod *v1.Pod) string {
	if w := pod.Labels[LabelWorkload]; w != "" {
		return w
	}
	return e.workload(pod)
}

// run handles the events in time order until the end.
func (e *engine) run() error {
	for e.events.Len() > 0 {
		if err := e.ctx.Err(); err != nil {
			return err
		}
		ev := e.events[0]
		if end, ok := e.end(); ok && ev.at > end {
			e.now = max(e.now, end)
			return nil
		}
		heap.Pop(&e.events)
		if isActivity(ev.kind) {
			e.activity--
		}
		e.now = ev.at
		if err := e.handle(ev); err != nil {
			return err
		}
		if e.handled++; e.handled%progressEvery == 0 {
			e.progress()
		}
		// Schedule what is ready once every change of this moment that
		// comes before the scheduler is in.
		if e.events.Len() == 0 || e.events[0].at != e.now || e.events[0].kind > evWake {
			if err := e.scheduleReady(); err != nil {
				return err
			}
		}
	}
	return nil
}

// end is the time the timeline stops at: Options.End, or, for an open
// timeline, Tail after the last activity once no arrival, completion or
// node is due.
func (e *engine) end() (time.Duration, bool) {
	if e.opts.End > 0 {
		return e.opts.End, true
	}
	if e.activity > 0 || len(e.upcoming) > 0 {
		return 0, false
	}
	return max(e.lastActivity+e.opts.Tail, e.now), true
}

func (e *engine) handle(ev event) error {
	switch ev.kind {
	case evNodeReady:
		e.lastActivity = e.now
		return e.nodeReady(ev.node)
	case evFinish:
		ps := ev.pod
		if ps.gen != ev.gen || e.pods[ps.pod] != ps {
			return nil // the run it ended was cut short by an eviction
		}
		e.lastActivity = e.now
		return e.finishPod(ps)
	case evArrival:
		e.lastActivity = e.now
		return e.arrive(*ev.arr)
	case evRequest:
		e.lastActivity = e.now
		return e.requestArrived(ev.req)
	case evWake:
		e.waking = false
		return nil
	case evLoop:
		e.push(event{at: e.now + e.opts.ScanInterval, kind: evLoop})
		return e.loop()
	case evSample:
		e.push(event{at: e.now + e.opts.Resolution, kind: evSample})
		e.progress()
		return e.sample()
	}
	return nil
}

// progress tells Options.Progress how far the run is.
func (e *engine) progress() {
	if e.opts.Progress == nil {
		return
	}
	e.opts.Progress(Progress{Now: e.now, End: e.horizon, Events: e.handled, Pending: e.q.Len(), Running: e.running,
		Arrived: e.arrived, Arrivals: len(e.in.Arrivals)})
}

func (e *engine) arrive(a Arrival) error {
	pod := a.Pod.DeepCopy()
	pod.CreationTimestamp = metav1.NewTime(e.opts.Start.Add(a.At))
	if err := e.c.AddPod(pod); err != nil {
		return fmt.Errorf("%s: %w", a.Source, err)
	}
	e.track(pod, a)
	e.r.Add(pod, e.now)
	e.arrived++
	return nil
}

// scheduleReady runs scheduling cycles for every pod the queue has ready
// now, then books a wake-up for the next pod the queue holds back.
func (e *engine) scheduleReady() error {
	for {
		if err := e.r.Run(e.ctx, e.now); err != nil {
			return fmt.Errorf("at %s: %w", e.now, err)
		}
		e.settle()
		e.gangsSettled()
		if len(e.victims) == 0 {
			break
		}
		// Preemption victims' controllers make them again, and the new
		// pods are tried at once.
		victims := e.victims
		e.victims = nil
		for _, v := range victims {
			if err := e.preempted(v); err != nil {
				return err
			}
		}
	}
	if at, ok := e.q.NextWake(e.now); ok {
		at = max(at, e.now)
		if !e.waking || at < e.wakeAt {
			e.waking, e.wakeAt = true, at
			e.push(event{at: at, kind: evWake})
		}
	}
	return nil
}

func (e *engine) beforeAttempt(pod *v1.Pod) {
	e.settle()
	e.moment = nil
	if h := e.opts.Hooks; h != nil {
		e.moment = seams.NewMoment(e.c, e.now, pod, e.r.Scheduler().Checkpoint())
		if h.Before != nil {
			h.Before(e.moment)
		}
	}
}

// onAttempt records a scheduling cycle's outcome; the replayer has told
// the queue.
func (e *engine) onAttempt(pod *v1.Pod, a *schedule.Attempt) {
	e.cycles++
	if a.Node == "" {
		// PostFilter has yet to run: see settle.
		e.failedCycle = &failedCycle{pod: pod, a: a, moment: e.moment}
	} else if e.moment != nil && e.opts.Hooks.After != nil {
		e.moment.Node = a.Node
		e.opts.Hooks.After(e.moment)
	}
	ps := e.pods[pod]
	if ps == nil {
		return
	}
	rec := ps.rec
	if rec != nil {
		rec.Attempts++
		if rec.FirstAttempt == nil {
			rec.FirstAttempt = ptrSeconds(e.now)
		}
	}
	if key := e.gangOf(pod); key != "" {
		// A gang's pod is only assumed here: the pod group cycle binds
		// all of minCount or takes them back (gangsSettled).
		e.gangsTried[key] = true
		return
	}
	if a.Node == "" {
		e.unschedulable[pod] = true
		return
	}
	e.placed(ps, a.Node)
}

// placed records a pod bound to node now and starts its run.
func (e *engine) placed(ps *podState, node string) {
	delete(e.unschedulable, ps.pod)
	if rec := ps.rec; rec != nil {
		rec.Message = ""
		rec.Bound, rec.Started = ptrSeconds(e.now), ptrSeconds(e.now)
		rec.Node = node
		rec.Wait += secondsOf(e.now - ps.pendingSince)
	}
	e.bound(ps)
}

// gangOf names the pod's gang when pod groups are scheduled as gangs
// (GenericWorkload), else "".
func (e *engine) gangOf(pod *v1.Pod) string {
	if !e.c.GangsEnabled() {
		return ""
	}
	if pg, name := e.c.PodGroupOf(pod); pg != nil {
		return pod.Namespace + "/" + name
	}
	return ""
}

// gangsSettled records what the pod group cycles of a Run decided, once
// they are over: the pods of a gang tried are bound (all of minCount) or
// all unschedulable, with kube's message — those the cycle did not reach
// too, as kube marks every pod of a failed group (cluster-autoscaler then
// sees the whole gang).
func (e *engine) gangsSettled() {
	if len(e.gangsTried) == 0 {
		return
	}
	for _, key := range sortedKeys(e.gangsTried) {
		for _, ps := range e.gangPods[key] {
			if e.pods[ps.pod] != ps || (ps.rec != nil && ps.rec.Phase != PhasePending) {
				continue
			}
			if node := ps.pod.Spec.NodeName; node != "" {
				e.placed(ps, node)
				continue
			}
			e.unschedulable[ps.pod] = true
			if out := e.r.Outcome(ps.pod); out != nil && ps.rec != nil {
				ps.rec.Message = out.Message
			}
		}
	}
	clear(e.gangsTried)
}

// failedCycle is a cycle that found no node, until its PostFilter plugins
// have run.
type failedCycle struct {
	pod    *v1.Pod
	a      *schedule.Attempt
	moment *seams.Moment
}

// settle records the message of the last failed cycle, once the replayer
// is done with it: kube's message, with what preemption found.
func (e *engine) settle() {
	f := e.failedCycle
	if f == nil {
		return
	}
	e.failedCycle = nil
	msg := f.a.Message
	if out := e.r.Outcome(f.pod); out != nil {
		msg = out.Message
	}
	if ps := e.pods[f.pod]; ps != nil && ps.rec != nil {
		ps.rec.Message = msg
	}
	if f.moment != nil && e.opts.Hooks.After != nil {
		f.moment.Node, f.moment.Message = f.a.Node, msg
		e.opts.Hooks.After(f.moment)
	}
}

// bound starts a bound pod's run: its devices and alternatives are
// recorded, its completion booked.
func (e *engine) bound(ps *podState) {
	e.running++
	if ps.pod.Status.StartTime == nil {
		// The kubelet's start time (preemption ranks victims by it), in
		// the API's precision.
		t := metav1.NewTime(e.clock().Truncate(time.Second))
		ps.pod.Status.StartTime = &t
	}
	if ps.rec != nil {
		ps.rec.Phase = PhaseRunning
		ps.rec.Devices, ps.rec.Alternatives = nil, nil
		for _, c := range e.c.DRA().ClaimsInUse(ps.pod) {
			devs, ranks := claimDevices(c)
			ps.rec.Devices = append(ps.rec.Devices, devs...)
			ps.rec.Alternatives = append(ps.rec.Alternatives, ranks...)
		}
		for _, r := range ps.rec.Alternatives {
			for len(e.alternates) < r {
				e.alternates = append(e.alternates, 0)
			}
			e.alternates[r-1]++
		}
	}
	if !ps.arr.Endless {
		e.push(event{at: e.now + ps.arr.Duration, kind: evFinish, pod: ps, gen: ps.gen})
	}
}

// claimDevices lists a claim's allocated devices as driver/pool/device
// and the prioritized-list rank of each request with alternatives.
func claimDevices(c *resourceapi.ResourceClaim) ([]string, []int) {
	if c.Status.Allocation == nil {
		return nil, nil
	}
	var devs []string
	var ranks []int
	seen := map[string]bool{}
	for _, r := range c.Status.Allocation.Devices.Results {
		devs = append(devs, r.Driver+"/"+r.Pool+"/"+r.Device)
		if _, rank := inventory.Alternative(c, r.Request); rank > 0 {
			base, _, _ := strings.Cut(r.Request, "/")
			if !seen[base] {
				seen[base] = true
				ranks = append(ranks, rank)
			}
		}
	}
	return devs, ranks
}

// finishPod ends a pod's run: it leaves its node, its claims are released.
func (e *engine) finishPod(ps *podState) error {
	if err := e.removePod(ps); err != nil {
		return err
	}
	if ps.rec != nil {
		ps.rec.Finished = ptrSeconds(e.now)
		ps.rec.Phase = PhaseFinished
	}
	return nil
}

// removePod deletes a running pod and tells the queue what it freed.
func (e *engine) removePod(ps *podState) error {
	pod := ps.pod
	changes, err := e.c.RemovePod(pod)
	if err != nil {
		return fmt.Errorf("pod %s/%s at %s: %w", pod.Namespace, pod.Name, e.now, err)
	}
	delete(e.pods, pod)
	if pod.Spec.NodeName != "" {
		e.running--
	}
	// What the informers tell the queue: the pod is gone, then its claims
	// changed (unreserved, deallocated) or were deleted.
	e.q.Event(e.now, framework.EventAssignedPodDelete, pod, nil, nil)
	for _, ch := range changes {
		if ch.New == nil {
			e.q.Event(e.now, framework.ClusterEvent{Resource: framework.ResourceClaim, ActionType: framework.Delete}, ch.Old, nil, nil)
		} else {
			e.q.Event(e.now, framework.ClusterEvent{Resource: framework.ResourceClaim, ActionType: framework.Update}, ch.Old, ch.New, nil)
		}
	}
	return nil
}

// evict deletes a pod a scale-down drains and has its controller make it
// again.
func (e *engine) evict(ps *podState) error {
	if err := e.removePod(ps); err != nil {
		return err
	}
	if ps.rec != nil {
		ps.rec.Evictions++
	}
	return e.recreate(ps)
}

// recreate is a controller making a deleted pod again: a new pod of the
// same name, pending now, that runs its whole duration once bound again.
func (e *engine) recreate(ps *podState) error {
	old := ps.pod
	pod := old.DeepCopy()
	pod.Spec.NodeName = ""
	pod.Status = v1.PodStatus{Phase: v1.PodPending}
	pod.CreationTimestamp = metav1.NewTime(e.clock())
	ps.gen++
	pod.UID = types.UID(kubenames.UID(fmt.Sprintf("pod/%s/%s/%d", pod.Namespace, pod.Name, ps.gen)))
	if err := e.c.AddPod(pod); err != nil {
		return err
	}
	ps.pod, ps.pendingSince = pod, e.now
	e.pods[pod] = ps
	if ps.rec != nil {
		ps.rec.Phase = PhasePending
		ps.rec.Node, ps.rec.Bound, ps.rec.Started = "", nil, nil
	}
	e.r.Add(pod, e.now)
	return nil
}

// onPreemption hears of the replayer's preemptions: the victims it is
// about to delete are followed up once its cycles are done (preempted).
func (e *engine) onPreemption(_ *v1.Pod, p *schedule.Preemption) {
	if p.Node != "" {
		e.victims = append(e.victims, p.Victims...)
	}
}

// preempted follows up a victim the replayer deleted (its claims released
// by then): its run ends, and its controller makes it again as after an
// eviction; a pod without one is gone for good. A DaemonSet pod made for a
// new node is not made again.
func (e *engine) preempted(v *v1.Pod) error {
	ps := e.pods[v]
	if ps == nil {
		return nil
	}
	delete(e.pods, v)
	e.running--
	e.lastActivity = e.now
	if ps.rec == nil {
		return nil
	}
	ps.rec.Preemptions++
	if ref := metav1.GetControllerOf(v); ref == nil || !e.controllerExists(ref.Kind, v.Namespace, ref.Name) {
		ps.gen++ // its completion event is void
		ps.rec.Phase = PhasePreempted
		ps.rec.Finished = ptrSeconds(e.now)
		return nil
	}
	return e.recreate(ps)
}

// nodeReady brings a node a scale-up asked for into the cluster: Ready,
// its slices published, its DaemonSet pods created.
func (e *engine) nodeReady(name string) error {
	var up upcomingNode
	for i, u := range e.upcoming {
		if u.name == name {
			up = u
			e.upcoming = append(e.upcoming[:i], e.upcoming[i+1:]...)
			break
		}
	}
	g := e.group(up.group)
	if g == nil {
		return fmt.Errorf("internal error: node %s of unknown group %q became ready", name, up.group)
	}
	node, slices, daemons := g.NewNode(name)
	e.c.AddNode(node, slices)
	e.c.Reorder()
	e.work.Nodes = append(e.work.Nodes, node)
	e.work.ResourceSlices = append(e.work.ResourceSlices, slices...)
	e.q.Event(e.now, framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add}, nil, node, nil)
	for _, sl := range slices {
		e.q.Event(e.now, framework.ClusterEvent{Resource: framework.ResourceSlice, ActionType: framework.Add}, nil, sl, nil)
	}
	// The DaemonSet controller makes the node's daemon pods.
	for _, p := range daemons {
		p.CreationTimestamp = metav1.NewTime(e.clock())
		if err := e.c.AddPod(p); err != nil {
			return err
		}
		e.pods[p] = &podState{pod: p, arr: Arrival{At: e.now, Endless: true}, pendingSince: e.now}
		e.daemons[name] = append(e.daemons[name], p)
		e.r.Add(p, e.now)
	}
	return nil
}

func (e *engine) group(name string) *nodegroup.Group {
	if e.as == nil {
		return nil
	}
	for _, g := range e.as.Groups() {
		if g.Name == name {
			return g
		}
	}
	return nil
}

// loop runs one cluster-autoscaler loop and carries its decisions out.
func (e *engine) loop() error {
	in := autoscale.LoopInput{Now: e.clock(), Upcoming: map[string][]string{}}
	type ordered struct {
		pod   *v1.Pod
		order int
	}
	var pending []ordered
	for pod := range e.unschedulable {
		// A pod nominated to a node by preemption waits for its victims:
		// cluster-autoscaler counts it as allocated, not as unschedulable
		// (ArrangePodsBySchedulability).
		if pod.Status.NominatedNodeName == "" {
			pending = append(pending, ordered{pod, e.c.Order(pod)})
		}
	}
	// The loop sees the pods in the cluster's order, not map order (each
	// pod's place looked up once, not in every comparison).
	sort.Slice(pending, func(i, j int) bool { return pending[i].order < pending[j].order })
	for _, p := range pending {
		in.Unschedulable = append(in.Unschedulable, p.pod)
	}
	for _, u := range e.upcoming {
		in.Upcoming[u.group] = append(in.Upcoming[u.group], u.name)
	}
	res, err := e.as.RunOnce(in)
	if err != nil {
		return fmt.Errorf("autoscaler loop at %s: %w", e.now, err)
	}
	if su := res.ScaleUp; su != nil {
		g := e.group(su.Group)
		ready := e.now + g.ProvisioningDelay
		for _, name := range su.Nodes {
			e.upcoming = append(e.upcoming, upcomingNode{name: name, group: g.Name, ready: ready})
			e.startBilling(name)
			e.push(event{at: ready, kind: evNodeReady, node: name})
		}
		rec := ScaleUpRecord{Time: secondsOf(e.now), Group: g.Name, Nodes: su.Nodes, Ready: secondsOf(ready), Triggered: len(su.Loop.Triggered),
			ProvisioningRequest: su.Loop.ProvisioningRequest}
		if d := su.Loop.Decision; d != nil {
			rec.By = d.By
		}
		for _, o := range su.Loop.Options {
			rec.Options = append(rec.Options, o.Group)
		}
		e.res.ScaleUps = append(e.res.ScaleUps, rec)
		e.lastActivity = e.now
	}
	for _, d := range res.Deletions {
		if err := e.deleteNode(d); err != nil {
			return err
		}
	}
	return nil
}

// deleteNode carries out a scale-down: the pods to move are evicted (and
// made again by their controllers), the node and its slices go.
func (e *engine) deleteNode(d autoscale.Deletion) error {
	for _, pod := range d.Evict {
		ps := e.pods[pod]
		if ps == nil {
			continue
		}
		if err := e.evict(ps); err != nil {
			return err
		}
	}
	ni := e.c.Node(d.Node)
	if ni == nil {
		return fmt.Errorf("internal error: the autoscaler deletes node %s, which is not in the cluster", d.Node)
	}
	for _, pi := range ni.Pods {
		if ps := e.pods[pi.Pod]; ps != nil {
			delete(e.pods, pi.Pod)
			e.running--
		}
	}
	// Daemon pods made for the node that never ran there go with it.
	for _, p := range e.daemons[d.Node] {
		if p.Spec.NodeName == "" && e.pods[p] != nil {
			e.q.Delete(p)
			delete(e.unschedulable, p)
			if _, err := e.c.RemovePod(p); err != nil {
				return err
			}
			delete(e.pods, p)
		}
	}
	delete(e.daemons, d.Node)
	node, slices, err := e.c.RemoveNode(d.Node)
	if err != nil {
		return err
	}
	e.c.Reorder()
	e.removeFromSnapshot(d.Node, slices)
	e.as.NodeDeleted(d.Node)
	e.stopBilling(d.Node)
	e.q.Event(e.now, framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Delete}, node, nil, nil)
	for _, sl := range slices {
		e.q.Event(e.now, framework.ClusterEvent{Resource: framework.ResourceSlice, ActionType: framework.Delete}, sl, nil, nil)
	}
	e.res.ScaleDowns = append(e.res.ScaleDowns, ScaleDownRecord{Time: secondsOf(e.now), Node: d.Node, Group: d.Group, UnneededFor: secondsOf(d.UnneededFor), Evicted: len(d.Evict)})
	e.lastActivity = e.now
	return nil
}

func (e *engine) removeFromSnapshot(node string, slices []*resourceapi.ResourceSlice) {
	gone := map[*resourceapi.ResourceSlice]bool{}
	for _, sl := range slices {
		gone[sl] = true
	}
	nodes := e.work.Nodes[:0:0]
	for _, n := range e.work.Nodes {
		if n.Name != node {
			nodes = append(nodes, n)
		}
	}
	e.work.Nodes = nodes
	kept := e.work.ResourceSlices[:0:0]
	for _, sl := range e.work.ResourceSlices {
		if !(sl.Spec.NodeName != nil && *sl.Spec.NodeName == node) {
			kept = append(kept, sl)
		}
	}
	e.work.ResourceSlices = kept
}

// priceOf returns a node's group and price per hour ("<none>" and 0 for a
// node of no group).
func (e *engine) priceOf(node string) (string, float64) {
	if e.as == nil {
		return analysis.NoGroup, 0
	}
	g := e.as.GroupOf(node)
	if g == nil {
		return analysis.NoGroup, 0
	}
	if g.PricePerHour == nil {
		return g.Name, 0
	}
	return g.Name, *g.PricePerHour
}

func (e *engine) startBilling(node string) {
	group, price := e.priceOf(node)
	e.billed[node] = billing{group: group, price: price, since: e.now}
}

func (e *engine) stopBilling(node string) {
	b, ok := e.billed[node]
	if !ok {
		return
	}
	hours := (e.now - b.since).Hours()
	e.nodeHours[b.group] += hours
	e.groupCost[b.group] += hours * b.price
	e.cost += hours * b.price
	delete(e.billed, node)
}

// openCost is the cost of the nodes still billed, up to now, and their
// price per hour.
func (e *engine) openCost() (cost, rate float64) {
	for _, b := range e.billed {
		cost += (e.now - b.since).Hours() * b.price
		rate += b.price
	}
	return cost, rate
}

// sample records the cluster now.
func (e *engine) sample() error {
	s := Sample{Time: secondsOf(e.now), Running: e.running, Provisioning: len(e.upcoming)}
	for _, ps := range e.pods {
		if ps.rec != nil && ps.pod.Spec.NodeName == "" {
			s.Pending++
		}
	}
	// Every NodeGroup counts, at 0 too: a group scaled to zero stays on
	// the charts.
	counts := map[string]int{}
	for _, g := range e.initialGroups {
		counts[g.Name] = 0
	}
	for _, ni := range e.c.Nodes() {
		group, _ := e.priceOf(ni.Node().Name)
		counts[group]++
	}
	for _, g := range sortedKeys(counts) {
		s.Nodes = append(s.Nodes, GroupCount{Group: g, Nodes: counts[g]})
	}
	open, rate := e.openCost()
	s.CostRate, s.Cost = roundCost(rate), roundCost(e.cost+open)
	s.Devices = e.sampler.Devices(e.c)
	s.Alternatives = append([]int{}, e.alternates...)
	if e.opts.FragmentationEvery > 0 && (!e.fragDone || e.now-e.lastFrag >= e.opts.FragmentationEvery) {
		f, err := e.sampler.Fragmentation(e.c)
		if err != nil {
			return fmt.Errorf("fragmentation at %s: %w", e.now, err)
		}
		rate := f.Rate
		s.Fragmentation = &rate
		e.fragDone, e.lastFrag = true, e.now
	}
	e.res.Series = append(e.res.Series, s)
	return nil
}

// arrivalsWorkload is FGD's distribution of shapes over the snapshot's
// pods and the arrivals.
func arrivalsWorkload(work *snapshot.Snapshot, c *cluster.Cluster, in *Input, args policy.Args) (*policy.Workload, error) {
	shaper := policy.NewShaper(work, c.DRA().Gates())
	shapes := make([]policy.Shape, 0, len(c.Pods())+len(in.Arrivals))
	for _, p := range c.Pods() {
		shapes = append(shapes, shaper.Shape(p))
	}
	for _, a := range in.Arrivals {
		shapes = append(shapes, shaper.Shape(a.Pod))
	}
	return policy.NewWorkload(shapes, args.PopularityThreshold)
}
