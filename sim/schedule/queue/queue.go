package queue

import (
	"math"
	"slices"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/drasim/drasim/sim/framework"
)

// kube-scheduler v1.37's defaults.
const (
	DefaultInitialBackoff     = 1 * time.Second
	DefaultMaxBackoff         = 10 * time.Second
	DefaultMaxInUnschedulable = 5 * time.Minute
	// backoffWindow is the ordering window of SchedulerPopFromBackoffQ and
	// the period of the backoff flush.
	backoffWindow = time.Second
	// unschedulableFlushPeriod is how often pods that stayed unschedulable
	// too long are looked for.
	unschedulableFlushPeriod = 30 * time.Second
)

// PreEnqueuePlugin can keep a pod out of the activeQ (kube's PreEnqueue
// extension point): a non-success status gates the pod until an event
// the plugin registered moves it.
type PreEnqueuePlugin interface {
	framework.Plugin
	PreEnqueue(pod *v1.Pod) *framework.Status
}

// Options configure a queue; the zero value of a field means kube's
// default, except the gate, which the caller sets from --feature-gates.
type Options struct {
	InitialBackoff     time.Duration
	MaxBackoff         time.Duration
	MaxInUnschedulable time.Duration
	// PopFromBackoffQ is the SchedulerPopFromBackoffQ gate (beta, on in
	// 1.37): with an empty activeQ, Pop takes the pod whose backoff ends
	// first, and backoff times are aligned to one-second windows.
	PopFromBackoffQ bool
	// Plugins are the profile's plugins; those implementing
	// framework.EnqueueExtensions register the events that can move the
	// pods they reject, the others are woken by every event.
	Plugins []framework.Plugin
	// PreEnqueue are the profile's PreEnqueue plugins, in order.
	PreEnqueue []PreEnqueuePlugin
	// Less orders the activeQ (PrioritySort when nil).
	Less func(a, b *Entity) bool
	// Groups, when set, makes gangs of the pods that name a pod group
	// (GenericWorkload).
	Groups Groups
	// ParkStale is drasim's shortcut, not kube's: an entity that comes
	// back on time after a failed attempt (a gang after its backoff, a
	// pod after an error or the unschedulable timeout) with no cluster
	// event since that attempt is not popped, it waits in the
	// unschedulable pool for an event. Its attempt could only fail the
	// same way; without the shortcut a simulation that lets time run
	// retries it forever.
	ParkStale bool
}

// hintFn is one plugin's hint for one registered event.
type hintFn struct {
	event  framework.ClusterEvent
	plugin string
	hint   framework.QueueingHintFn
}

// Queue is the scheduling queue. It is not safe for concurrent use.
type Queue struct {
	opts Options
	seq  uint64
	now  Time

	active       entityHeap
	backoff      entityHeap
	errorBackoff entityHeap
	// unschedulable holds the pods (and gangs) that failed and wait for
	// an event; order keeps the insertion order for deterministic scans,
	// with nil where an entity left (holes counts them) until it is
	// compacted: an event may move most of the pool, and closing each
	// gap at once made that quadratic.
	unschedulable map[string]*Entity
	order         []*Entity
	holes         int
	// floor is the earliest time an entity of the pool was put there or
	// last flushed (poolTime), exact while floorExact: an entity that
	// joins lowers it, one that leaves (or is flushed) makes it a mere
	// bound, and the next nextFlush looks at every entity again. Pop
	// asks for the next flush before every cycle.
	floor      Time
	floorExact bool
	entities   map[string]*Entity

	hints        []hintFn
	pluginEvents map[string][]framework.ClusterEvent
	// matching and moving are Event's lists, kept between events.
	matching []hintFn
	moving   []*Entity

	// lastFlush are the last tick times the periodic flushes ran at.
	lastBackoffFlush       Time
	lastUnschedulableFlush Time
	flushedAtStart         bool

	cycle int64
	// events counts the cluster events delivered so far.
	events uint64
	nominator
	groups groupState
}

// New returns an empty queue.
func New(opts Options) *Queue {
	if opts.InitialBackoff == 0 {
		opts.InitialBackoff = DefaultInitialBackoff
	}
	if opts.MaxBackoff == 0 {
		opts.MaxBackoff = DefaultMaxBackoff
	}
	if opts.MaxInUnschedulable == 0 {
		opts.MaxInUnschedulable = DefaultMaxInUnschedulable
	}
	if opts.Less == nil {
		opts.Less = PrioritySort
	}
	q := &Queue{
		opts:          opts,
		unschedulable: map[string]*Entity{},
		entities:      map[string]*Entity{},
		pluginEvents:  map[string][]framework.ClusterEvent{},
		nominator:     newNominator(),
	}
	q.active.less = opts.Less
	q.backoff.less = func(a, b *Entity) bool {
		ea, eb := q.backoffTime(a), q.backoffTime(b)
		if ea != eb {
			return ea < eb
		}
		if opts.PopFromBackoffQ {
			return opts.Less(a, b)
		}
		return a.Timestamp.Before(b.Timestamp)
	}
	q.errorBackoff.less = func(a, b *Entity) bool {
		ea, eb := q.backoffTime(a), q.backoffTime(b)
		if ea != eb {
			return ea < eb
		}
		return a.Timestamp.Before(b.Timestamp)
	}
	for _, p := range opts.Plugins {
		ext, ok := p.(framework.EnqueueExtensions)
		if !ok {
			// kube registers every event, with no hint, for a plugin that
			// does not say which events help it.
			q.register(p.Name(), framework.ClusterEventWithHint{Event: framework.ClusterEvent{Resource: framework.WildCard, ActionType: framework.All}})
			continue
		}
		for _, ev := range ext.EventsToRegister() {
			q.register(p.Name(), ev)
		}
	}
	return q
}

func (q *Queue) register(plugin string, ev framework.ClusterEventWithHint) {
	q.hints = append(q.hints, hintFn{event: ev.Event, plugin: plugin, hint: ev.Hint})
	q.pluginEvents[plugin] = append(q.pluginEvents[plugin], ev.Event)
}

func (q *Queue) stamp(t Time) Stamp {
	q.seq++
	return Stamp{T: t, Seq: q.seq}
}

// setNow moves the queue's clock; time never goes back.
func (q *Queue) setNow(t Time) {
	if t > q.now {
		q.now = t
	}
}

// Now is the latest time the queue was told.
func (q *Queue) Now() Time { return q.now }

// SchedulingCycle counts the entities popped so far.
func (q *Queue) SchedulingCycle() int64 { return q.cycle }

// Add queues a pod that just arrived at time t. A pod with
// status.nominatedNodeName is nominated to that node.
func (q *Queue) Add(pod *v1.Pod, t Time) {
	q.setNow(t)
	q.AddNominated(pod, nil)
	if q.addGroupMember(pod, t) {
		return
	}
	pi := newPodInfo(pod)
	e := &Entity{key: podKey(pod), Pods: []*PodInfo{pi}, prio: corev1helpers.PodPriority(pod), Timestamp: q.stamp(t), heapIndex: -1}
	pi.Timestamp = e.Timestamp
	q.entities[e.key] = e
	q.moveToActive(e, false)
}

func newPodInfo(pod *v1.Pod) *PodInfo {
	return &PodInfo{Pod: pod, UnschedulablePlugins: noPlugins, PendingPlugins: noPlugins}
}

// orNone is s, or the empty set for nil.
func orNone(s sets.Set[string]) sets.Set[string] {
	if s == nil {
		return noPlugins
	}
	return s
}

// Pop removes and returns the entity to schedule next at time t, running
// first the flushes due by then; nil when none is ready.
//
// A gang whose last attempt failed comes back on time, after its backoff,
// event or not (GroupAttempted), and so does a pod whose attempt failed
// with an error. kube tries it again then; with Options.ParkStale, when
// no cluster event came since it failed, the queue parks the entity in
// the unschedulable pool instead, where the next event that concerns it
// moves it as usual.
func (q *Queue) Pop(t Time) *Entity {
	q.Advance(t)
	for {
		var e *Entity
		switch {
		case q.active.Len() > 0:
			e = q.active.pop()
		case q.opts.PopFromBackoffQ && q.backoff.Len() > 0:
			e = q.backoff.pop()
		default:
			return nil
		}
		e.where = nowhere
		if q.opts.ParkStale && e.UnschedulableCount+e.ConsecutiveErrorsCount > 0 && e.failedAt == q.events {
			q.toUnschedulable(e)
			continue
		}
		e.where = inFlight
		e.Attempts++
		for _, pi := range e.Pods {
			pi.Attempts++
		}
		q.cycle++
		return e
	}
}

// Done forgets an entity that was scheduled (or given up on).
func (q *Queue) Done(e *Entity) {
	q.detach(e)
	delete(q.entities, e.key)
	q.forgetGroupEntity(e)
}

// Result is the outcome of a failed attempt, for Failed. The queue keeps
// the sets it is given, shared and never changed (a pod's sets are
// replaced, not edited): the caller must not change them afterwards.
type Result struct {
	// UnschedulablePlugins and PendingPlugins, per pod of the entity (by
	// pod key "<ns>/<name>"), are the plugins that rejected it. A pod with
	// none failed with an error (or without a plugin to blame): it is
	// retried after its backoff, whatever happens.
	UnschedulablePlugins map[string]sets.Set[string]
	PendingPlugins       map[string]sets.Set[string]
	// Unschedulable and Pending are the same for an entity of one pod,
	// without a map by pod key; they are read when both maps are nil. A
	// replay's waiting pods fail hundreds of thousands of times, and the
	// map, the key and the sets were most of a failure's garbage.
	Unschedulable, Pending sets.Set[string]
	// Error is set when the attempt ended in an error rather than a
	// rejection; the backoff then counts errors.
	Error bool
}

// noPlugins is the empty set a pod's plugins start from; like every set
// the queue keeps, it is replaced, never edited.
var noPlugins = sets.Set[string]{}

// Failed puts back an entity whose attempt at time t did not schedule it
// (kube's AddUnschedulablePodIfNotPresent): it waits in the unschedulable
// pool for an event its rejectors registered, or, rejected by nobody,
// for the end of its backoff.
func (q *Queue) Failed(e *Entity, t Time, r Result) {
	q.setNow(t)
	if r.UnschedulablePlugins == nil && r.PendingPlugins == nil && len(e.Pods) == 1 {
		pi := e.Pods[0]
		pi.UnschedulablePlugins, pi.PendingPlugins = orNone(r.Unschedulable), orNone(r.Pending)
	} else {
		for _, pi := range e.Pods {
			k := pi.Pod.Namespace + "/" + pi.Pod.Name
			pi.UnschedulablePlugins, pi.PendingPlugins = orNone(r.UnschedulablePlugins[k]), orNone(r.PendingPlugins[k])
		}
	}
	if r.Error || !e.hasRejectors() {
		e.ConsecutiveErrorsCount++
	} else {
		e.UnschedulableCount++
		e.ConsecutiveErrorsCount = 0
	}
	e.Timestamp = q.stamp(t)
	for _, pi := range e.Pods {
		pi.Timestamp = e.Timestamp
	}
	e.failedAt = q.events
	e.backoffSet = false
	e.WasFlushed = false
	e.flushTime = 0
	e.where = nowhere
	// A cycle takes no time, so no event can have come while the entity
	// was in flight: it waits for one, unless nothing rejected it.
	strategy := queueSkip
	if !e.hasRejectors() {
		strategy = queueAfterBackoff
	}
	q.requeue(e, strategy)
}

type queueingStrategy int

const (
	queueSkip queueingStrategy = iota
	queueAfterBackoff
	queueImmediately
)

// requeue moves the entity where the strategy says.
func (q *Queue) requeue(e *Entity, s queueingStrategy) {
	switch {
	case s == queueSkip:
		q.toUnschedulable(e)
	case s == queueAfterBackoff && q.backingOff(e):
		q.moveToBackoff(e)
	default:
		q.moveToActive(e, false)
	}
}

// backoffTime is when the entity's backoff ends (aligned to the ordering
// window with SchedulerPopFromBackoffQ), or -1 when it has none.
func (q *Queue) backoffTime(e *Entity) Time {
	count := e.UnschedulableCount
	if e.ConsecutiveErrorsCount > 0 {
		count = e.ConsecutiveErrorsCount
	}
	if count == 0 {
		return -1
	}
	if !e.backoffSet {
		size := len(e.Pods)
		e.backoffExpiry = q.align(e.Timestamp.T + backoff(q.opts.InitialBackoff, q.opts.MaxBackoff, count, size))
		e.backoffSet = true
	}
	return e.backoffExpiry
}

func (q *Queue) align(t Time) Time {
	if !q.opts.PopFromBackoffQ {
		return t
	}
	return t - t%backoffWindow
}

// backingOff reports whether the entity's backoff has not ended yet.
func (q *Queue) backingOff(e *Entity) bool {
	return q.backoffTime(e) >= q.align(q.now)
}

// runPreEnqueue runs the PreEnqueue plugins on every pod of the entity and
// reports whether one of them gates it.
func (q *Queue) runPreEnqueue(e *Entity) bool {
	gated := false
	for _, pi := range e.Pods {
		first := pi.GatingPlugin
		pi.GatingPlugin, pi.gatingEvents = "", nil
		order := q.opts.PreEnqueue
		if first != "" {
			// The plugin that gated the pod last time runs first.
			order = append([]PreEnqueuePlugin(nil), order...)
			sort.SliceStable(order, func(i, j int) bool { return order[i].Name() == first && order[j].Name() != first })
		}
		for _, p := range order {
			if st := p.PreEnqueue(pi.Pod); !st.IsSuccess() {
				// The set may be shared (see Result): a new one.
				pi.UnschedulablePlugins = pi.UnschedulablePlugins.Clone().Insert(p.Name())
				pi.GatingPlugin = p.Name()
				pi.gatingEvents = q.pluginEvents[p.Name()]
				gated = true
				break
			}
		}
	}
	return gated
}

// moveToActive puts the entity in the activeQ unless PreEnqueue gates it
// (then it goes to the unschedulable pool). fromBackoff skips PreEnqueue,
// which ran when the entity entered the backoffQ.
func (q *Queue) moveToActive(e *Entity, fromBackoff bool) bool {
	if !(q.opts.PopFromBackoffQ && fromBackoff) && q.runPreEnqueue(e) {
		e.WasFlushed = false
		q.toUnschedulable(e)
		return false
	}
	if e.InitialAttempt == nil {
		s := q.stamp(q.now)
		e.InitialAttempt = &s
	}
	q.detach(e)
	e.where = inActive
	q.active.add(e)
	return true
}

// moveToBackoff puts the entity in the backoffQ (the error backoffQ when
// nothing rejected it), unless PreEnqueue gates it.
func (q *Queue) moveToBackoff(e *Entity) bool {
	if q.opts.PopFromBackoffQ && q.runPreEnqueue(e) {
		e.WasFlushed = false
		q.toUnschedulable(e)
		return false
	}
	q.detach(e)
	// A gang has no rejectors of its own (its pods do): kube keeps it in
	// the error backoffQ, which Pop never takes from early.
	if e.Group == nil && e.hasRejectors() {
		e.where = inBackoff
		q.backoff.add(e)
	} else {
		e.where = inErrorBackoff
		q.errorBackoff.add(e)
	}
	return true
}

func (q *Queue) toUnschedulable(e *Entity) {
	if e.where == inUnschedulable {
		return
	}
	q.detach(e)
	if t := poolTime(e); q.waiting() == 0 {
		q.floor, q.floorExact = t, true
	} else {
		q.floor = min(q.floor, t)
	}
	e.where = inUnschedulable
	q.unschedulable[e.key] = e
	e.orderIndex = len(q.order)
	q.order = append(q.order, e)
}

// compactOrder closes the holes of the unschedulable order once they are
// half of it.
func (q *Queue) compactOrder() {
	if q.holes < 16 || 2*q.holes < len(q.order) {
		return
	}
	live := q.order[:0]
	for _, e := range q.order {
		if e != nil {
			e.orderIndex = len(live)
			live = append(live, e)
		}
	}
	clear(q.order[len(live):])
	q.order, q.holes = live, 0
}

// Events is the number of cluster events delivered so far: a scheduling
// cycle that follows one may decide otherwise than the cycles before.
func (q *Queue) Events() uint64 { return q.events }

// Len is the number of entities (pods, or gangs) in the queue, in any
// of its sub-queues or being scheduled.
func (q *Queue) Len() int { return len(q.entities) }

// waiting is the number of entities in the unschedulable pool.
func (q *Queue) waiting() int { return len(q.order) - q.holes }

// detach takes the entity out of whatever sub-queue holds it.
func (q *Queue) detach(e *Entity) {
	switch e.where {
	case inActive:
		q.active.remove(e)
	case inBackoff:
		q.backoff.remove(e)
	case inErrorBackoff:
		q.errorBackoff.remove(e)
	case inUnschedulable:
		delete(q.unschedulable, e.key)
		q.order[e.orderIndex] = nil
		q.holes++
		q.floorExact = false
		q.compactOrder()
	}
	e.where = nowhere
}

// Delete removes a pending pod that went away (and its nomination).
func (q *Queue) Delete(pod *v1.Pod) {
	q.DeleteNominated(pod)
	if q.deleteGroupMember(pod) {
		return
	}
	e := q.entities[podKey(pod)]
	if e == nil || e.where == inFlight {
		return
	}
	q.detach(e)
	delete(q.entities, e.key)
}

// Activate moves the pods, if they wait in the unschedulable pool or the
// backoffQ, to the activeQ.
func (q *Queue) Activate(t Time, pods ...*v1.Pod) {
	q.setNow(t)
	for _, pod := range pods {
		e := q.entityOf(pod)
		if e == nil {
			continue
		}
		switch e.where {
		case inUnschedulable:
			q.moveToActive(e, false)
		case inBackoff, inErrorBackoff:
			q.moveToActive(e, true)
		}
	}
}

func (q *Queue) entityOf(pod *v1.Pod) *Entity {
	if e := q.groupEntityOf(pod); e != nil {
		return e
	}
	return q.entities[podKey(pod)]
}

// Event delivers a cluster event at time t (kube's
// MoveAllToActiveOrBackoffQueue): every unschedulable entity one of whose
// rejectors registered the event, and whose hint says Queue, goes to the
// backoffQ or, if its backoff is over, to the activeQ. preCheck, when set,
// limits the pods considered.
func (q *Queue) Event(t Time, ev framework.ClusterEvent, oldObj, newObj any, preCheck func(*v1.Pod) bool) {
	q.setNow(t)
	q.events++
	if q.waiting() == 0 {
		return
	}
	hints, ok := q.matchingHints(ev)
	if !ok {
		return
	}
	// The entities are listed first (moving them changes q.order), in
	// a list kept from event to event: a timeline delivers millions.
	moving := q.moving[:0]
	q.moving = nil // in use
	for _, e := range q.order {
		if e == nil {
			continue
		}
		for _, pi := range e.Pods {
			if preCheck == nil || preCheck(pi.Pod) {
				moving = append(moving, e)
				break
			}
		}
	}
	q.moveEntities(moving, ev, hints, oldObj, newObj)
	clear(moving)
	q.moving = moving[:0]
	q.giveBack(hints)
}

// matchingHints are the hints registered for events ev matches, in
// registration order, looked up once per event rather than once per
// waiting pod; ok is false when there are none and ev is no wildcard:
// no pod can move. Give the list back with giveBack.
func (q *Queue) matchingHints(ev framework.ClusterEvent) (hints []hintFn, ok bool) {
	hints = q.matching[:0]
	q.matching = nil // in use
	for _, h := range q.hints {
		if h.event.Matches(ev) {
			hints = append(hints, h)
		}
	}
	if len(hints) == 0 && !ev.IsWildCard() {
		q.matching = hints
		return nil, false
	}
	return hints, true
}

func (q *Queue) giveBack(hints []hintFn) {
	clear(hints)
	q.matching = hints[:0]
}

// moveEntities requeues those of the entities that wait in the
// unschedulable pool and that ev may help; hints are those matching ev
// (matchingHints).
func (q *Queue) moveEntities(entities []*Entity, ev framework.ClusterEvent, hints []hintFn, oldObj, newObj any) {
	for _, e := range entities {
		if e.where != inUnschedulable {
			continue
		}
		if e.gated() && !ev.IsWildCard() && !q.gatingPluginInterested(e, ev) {
			continue
		}
		s := q.worthRequeuing(e, ev, hints, oldObj, newObj)
		if s == queueSkip {
			continue
		}
		q.detach(e)
		q.requeue(e, s)
	}
}

func (q *Queue) gatingPluginInterested(e *Entity, ev framework.ClusterEvent) bool {
	for _, pi := range e.Pods {
		for _, registered := range pi.gatingEvents {
			if registered.Matches(ev) {
				return true
			}
		}
	}
	return false
}

// worthRequeuing is the best strategy over the entity's pods.
func (q *Queue) worthRequeuing(e *Entity, ev framework.ClusterEvent, hints []hintFn, oldObj, newObj any) queueingStrategy {
	best := queueSkip
	for _, pi := range e.Pods {
		if s := podWorthRequeuing(pi, ev, hints, oldObj, newObj); s > best {
			best = s
			if best == queueImmediately {
				break
			}
		}
	}
	return best
}

// podWorthRequeuing asks the hints (those matching ev) of the plugins
// that rejected the pod: Queue from a Pending plugin skips the backoff,
// Queue from an Unschedulable plugin waits for it.
func podWorthRequeuing(pi *PodInfo, ev framework.ClusterEvent, hints []hintFn, oldObj, newObj any) queueingStrategy {
	if pi.UnschedulablePlugins.Len() == 0 && pi.PendingPlugins.Len() == 0 {
		return queueAfterBackoff
	}
	if ev.IsWildCard() {
		if p, ok := newObj.(*v1.Pod); ok && p.UID != pi.Pod.UID {
			return queueSkip
		}
		return queueAfterBackoff
	}
	strategy := queueSkip
	for _, h := range hints {
		if !pi.UnschedulablePlugins.Has(h.plugin) && !pi.PendingPlugins.Has(h.plugin) {
			continue
		}
		hint := framework.Queue
		if h.hint != nil {
			var err error
			if hint, err = h.hint(pi.Pod, oldObj, newObj); err != nil {
				hint = framework.Queue
			}
		}
		if hint == framework.QueueSkip {
			continue
		}
		if pi.PendingPlugins.Has(h.plugin) {
			return queueImmediately
		}
		if pi.PendingPlugins.Len() == 0 {
			return queueAfterBackoff
		}
		strategy = queueAfterBackoff
	}
	return strategy
}

// Advance runs the periodic flushes due by time t, in time order: every
// second the pods whose backoff ended move to the activeQ, every 30
// seconds the pods unschedulable for more than 5 minutes are retried.
func (q *Queue) Advance(t Time) {
	if !q.flushedAtStart {
		// kube's 30 s loop runs once when the scheduler starts.
		q.flushedAtStart = true
		q.flushUnschedulable(0)
	}
	for {
		next, ok := q.nextFlush()
		if !ok || next > t {
			break
		}
		q.setNow(next)
		if next%unschedulableFlushPeriod == 0 && next > q.lastUnschedulableFlush {
			q.flushBackoff(next)
			q.flushUnschedulable(next)
		} else {
			q.flushBackoff(next)
		}
	}
	q.setNow(t)
}

// NextWake is the earliest time after t at which Advance would move an
// entity, or false when nothing waits on time.
func (q *Queue) NextWake(t Time) (Time, bool) {
	q.setNow(t)
	return q.nextFlush()
}

// NextBackoff is the earliest time after t at which the backoff flush
// moves an entity, or false when none backs off. A caller that lets no
// other time pass (drasim simulate) runs the queue on to that time, so
// that gangs are retried as their backoff ends.
func (q *Queue) NextBackoff(t Time) (Time, bool) {
	q.setNow(t)
	best, ok := Time(0), false
	q.considerBackoff(func(t Time) {
		if !ok || t < best {
			best, ok = t, true
		}
	})
	return best, ok
}

func (q *Queue) considerBackoff(consider func(Time)) {
	for _, h := range []*entityHeap{&q.backoff, &q.errorBackoff} {
		if e := h.peek(); e != nil {
			// The backoff flush at tick τ moves an entity once
			// backoffTime < align(τ); ticks are whole seconds.
			consider(max(nextTick(q.backoffTime(e), backoffWindow), nextTick(q.lastBackoffFlush, backoffWindow)))
		}
	}
}

// nextFlush is the next flush tick after the queue's clock that moves
// something.
func (q *Queue) nextFlush() (Time, bool) {
	best, ok := Time(0), false
	consider := func(t Time) {
		if !ok || t < best {
			best, ok = t, true
		}
	}
	q.considerBackoff(consider)
	if q.waiting() > 0 {
		if !q.floorExact {
			q.floor, q.floorExact = Time(math.MaxInt64), true
			for _, e := range q.order {
				if e != nil {
					q.floor = min(q.floor, poolTime(e))
				}
			}
		}
		// An entity is moved once now - poolTime > MaxInUnschedulable,
		// at a 30 s tick; the earliest is the one with the earliest
		// poolTime (the time is monotone in it).
		consider(max(nextTick(q.floor+q.opts.MaxInUnschedulable, unschedulableFlushPeriod), nextTick(q.lastUnschedulableFlush, unschedulableFlushPeriod)))
	}
	return best, ok
}

// poolTime is when the entity was put in the unschedulable pool or last
// flushed from it, whichever is later.
func poolTime(e *Entity) Time {
	return max(e.Timestamp.T, e.flushTime)
}

// nextTick is the first multiple of period strictly after t.
func nextTick(t Time, period time.Duration) Time {
	if t < 0 {
		return period
	}
	return (t/period + 1) * period
}

func (q *Queue) flushBackoff(t Time) {
	q.lastBackoffFlush = t
	for _, h := range []*entityHeap{&q.backoff, &q.errorBackoff} {
		for e := h.peek(); e != nil && !q.backingOff(e); e = h.peek() {
			h.pop()
			e.where = nowhere
			q.moveToActive(e, true)
		}
	}
}

func (q *Queue) flushUnschedulable(t Time) {
	q.lastUnschedulableFlush = t
	var moving []*Entity
	for _, e := range q.order {
		if e == nil {
			continue
		}
		if t-poolTime(e) > q.opts.MaxInUnschedulable {
			e.WasFlushed = true
			e.flushTime = t
			q.floorExact = false
			moving = append(moving, e)
		}
	}
	if len(moving) == 0 {
		return
	}
	ev := framework.EventUnschedulableTimeout
	if hints, ok := q.matchingHints(ev); ok {
		q.moveEntities(moving, ev, hints, nil, nil)
		q.giveBack(hints)
	}
}

// Counts reports how many entities wait in each sub-queue.
func (q *Queue) Counts() (active, backoff, unschedulable int) {
	return q.active.Len(), q.backoff.Len() + q.errorBackoff.Len(), q.waiting()
}

// Pending lists the pods waiting in the queue (any sub-queue), in a
// stable order: activeQ first, then backoff, then unschedulable.
func (q *Queue) Pending() []*v1.Pod {
	var out []*v1.Pod
	add := func(es []*Entity) {
		for _, e := range es {
			for _, pi := range e.Pods {
				out = append(out, pi.Pod)
			}
		}
	}
	sorted := func(h *entityHeap) []*Entity {
		es := slices.Clone(h.items)
		sort.SliceStable(es, func(i, j int) bool { return h.less(es[i], es[j]) })
		return es
	}
	add(sorted(&q.active))
	add(sorted(&q.backoff))
	add(sorted(&q.errorBackoff))
	add(slices.DeleteFunc(slices.Clone(q.order), func(e *Entity) bool { return e == nil }))
	out = append(out, q.groups.waitingPods()...)
	return out
}
