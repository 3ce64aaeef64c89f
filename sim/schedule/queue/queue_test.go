package queue

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/ptr"

	"github.com/drasim/drasim/sim/framework"
)

func pod(name string, prio int32) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name)},
		Spec:       v1.PodSpec{Priority: ptr.To(prio)},
	}
}

// fakePlugin registers one event with a hint that queues only pods whose
// name is in queue.
type fakePlugin struct {
	name  string
	event framework.ClusterEvent
	queue map[string]bool
}

func (p *fakePlugin) Name() string { return p.name }
func (p *fakePlugin) EventsToRegister() []framework.ClusterEventWithHint {
	return []framework.ClusterEventWithHint{{Event: p.event, Hint: func(pod *v1.Pod, _, _ any) (framework.QueueingHint, error) {
		if p.queue[pod.Name] {
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	}}}
}

func rejectedBy(e *Entity, plugins ...string) Result {
	r := Result{UnschedulablePlugins: map[string]sets.Set[string]{}}
	for _, pi := range e.Pods {
		r.UnschedulablePlugins[pi.Pod.Namespace+"/"+pi.Pod.Name] = sets.New(plugins...)
	}
	return r
}

func popNames(q *Queue, t Time) []string {
	var out []string
	for e := q.Pop(t); e != nil; e = q.Pop(t) {
		out = append(out, e.Pod().Name)
		q.Done(e)
	}
	return out
}

func TestPopOrderIsPriorityThenArrival(t *testing.T) {
	q := New(Options{PopFromBackoffQ: true})
	q.Add(pod("low", 0), 0)
	q.Add(pod("high", 100), 0)
	q.Add(pod("low2", 0), 0)
	q.Add(pod("high2", 100), 0)
	want := []string{"high", "high2", "low", "low2"}
	if diff := cmp.Diff(want, popNames(q, 0)); diff != "" {
		t.Errorf("pop order (-want +got):\n%s", diff)
	}
}

func TestFailedPodWaitsForAnEventItsRejectorRegistered(t *testing.T) {
	fit := &fakePlugin{name: "Fit", event: framework.EventAssignedPodDelete, queue: map[string]bool{"a": true}}
	q := New(Options{PopFromBackoffQ: true, Plugins: []framework.Plugin{fit}})
	q.Add(pod("a", 0), 0)
	q.Add(pod("b", 0), 0)
	for _, name := range []string{"a", "b"} {
		e := q.Pop(0)
		if e.Pod().Name != name {
			t.Fatalf("popped %s, want %s", e.Pod().Name, name)
		}
		q.Failed(e, 0, rejectedBy(e, "Fit"))
	}
	if e := q.Pop(0); e != nil {
		t.Fatalf("popped %s with no event; want nothing", e.Pod().Name)
	}
	// An event nobody registered moves nothing.
	q.Event(0, framework.EventAssignedPodAdd, nil, pod("x", 0), nil)
	if e := q.Pop(0); e != nil {
		t.Fatalf("AssignedPod/Add moved %s; Fit only registered deletes", e.Pod().Name)
	}
	// The hint queues a but not b; a still backs off, and the backoffQ is
	// popped at once because the activeQ is empty.
	q.Event(0, framework.EventAssignedPodDelete, pod("x", 0), nil, nil)
	if _, backoff, unsched := q.Counts(); backoff != 1 || unsched != 1 {
		t.Fatalf("after the event: %d in backoff, %d unschedulable; want 1 and 1", backoff, unsched)
	}
	if got := popNames(q, 0); !cmp.Equal(got, []string{"a"}) {
		t.Errorf("popped %v, want [a]", got)
	}
}

func TestBackoffWithoutPopFromBackoffQ(t *testing.T) {
	fit := &fakePlugin{name: "Fit", event: framework.EventAssignedPodDelete, queue: map[string]bool{"a": true}}
	q := New(Options{Plugins: []framework.Plugin{fit}})
	q.Add(pod("a", 0), 0)
	e := q.Pop(0)
	q.Failed(e, 0, rejectedBy(e, "Fit"))
	q.Event(0, framework.EventAssignedPodDelete, pod("x", 0), nil, nil)
	// Failed at 0 with a 1 s backoff: still backing off at the 1 s tick
	// (kube compares with !Before), moved at the 2 s tick.
	if wake, ok := q.NextWake(0); !ok || wake != 2*time.Second {
		t.Fatalf("NextWake = %v %v, want 2s", wake, ok)
	}
	if e := q.Pop(1500 * time.Millisecond); e != nil {
		t.Fatalf("popped %s at 1.5s, still backing off", e.Pod().Name)
	}
	if e := q.Pop(2 * time.Second); e == nil || e.Pod().Name != "a" {
		t.Fatalf("popped %v at 2s, want a", e)
	}
}

func TestBackoffDoublesUpToTheMaximum(t *testing.T) {
	var got []time.Duration
	for count := 1; count <= 6; count++ {
		got = append(got, backoff(time.Second, 10*time.Second, count, 1))
	}
	want := []time.Duration{1 * time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("backoff per failure count (-want +got):\n%s", diff)
	}
	// A gang of four may back off up to 10 s * sqrt(4).
	if b := backoff(time.Second, 10*time.Second, 6, 4); b != 20*time.Second {
		t.Errorf("gang of 4 after 6 failures: %v, want 20s", b)
	}
}

func TestUnschedulableFlushAfterFiveMinutes(t *testing.T) {
	q := New(Options{PopFromBackoffQ: true, Plugins: []framework.Plugin{&fakePlugin{name: "Fit", event: framework.EventAssignedPodDelete}}})
	q.Add(pod("a", 0), 0)
	e := q.Pop(0)
	q.Failed(e, 10*time.Second, rejectedBy(e, "Fit"))
	// Unschedulable since 10 s: moved at the first 30 s tick more than
	// 5 min later, 330 s.
	if wake, ok := q.NextWake(10 * time.Second); !ok || wake != 330*time.Second {
		t.Fatalf("NextWake = %v %v, want 330s", wake, ok)
	}
	if e := q.Pop(329 * time.Second); e != nil {
		t.Fatalf("popped at 329s")
	}
	e = q.Pop(330 * time.Second)
	if e == nil || !e.WasFlushed {
		t.Fatalf("popped %v at 330s, want the flushed pod", e)
	}
	if e.Attempts != 2 {
		t.Errorf("attempts = %d, want 2", e.Attempts)
	}
}

func TestErrorsBackOffAndAreNotPoppedEarly(t *testing.T) {
	q := New(Options{PopFromBackoffQ: true})
	q.Add(pod("a", 0), 0)
	for i, wantWake := range []time.Duration{2 * time.Second, 5 * time.Second} {
		e := q.Pop(q.Now())
		if e == nil {
			t.Fatalf("round %d: nothing to pop", i)
		}
		q.Failed(e, q.Now(), Result{Error: true})
		if e := q.Pop(q.Now()); e != nil {
			t.Fatalf("round %d: an errored pod was popped before its backoff ended", i)
		}
		wake, ok := q.NextWake(q.Now())
		if !ok || wake != wantWake {
			t.Fatalf("round %d: NextWake = %v, want %v", i, wake, wantWake)
		}
		q.Advance(wake)
	}
}

type gate struct{ blocked map[string]bool }

func (g *gate) Name() string { return "Gate" }
func (g *gate) PreEnqueue(pod *v1.Pod) *framework.Status {
	if g.blocked[pod.Name] {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, "gated")
	}
	return nil
}
func (g *gate) EventsToRegister() []framework.ClusterEventWithHint {
	return []framework.ClusterEventWithHint{{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add}}}
}

func TestPreEnqueueGatesUntilItsEvent(t *testing.T) {
	g := &gate{blocked: map[string]bool{"a": true}}
	q := New(Options{PopFromBackoffQ: true, Plugins: []framework.Plugin{g}, PreEnqueue: []PreEnqueuePlugin{g}})
	q.Add(pod("a", 0), 0)
	if e := q.Pop(0); e != nil {
		t.Fatalf("a gated pod was popped")
	}
	g.blocked["a"] = false
	q.Event(0, framework.EventAssignedPodDelete, pod("x", 0), nil, nil)
	if e := q.Pop(0); e != nil {
		t.Fatalf("an event the gate did not register released the pod")
	}
	q.Event(0, framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add}, nil, &v1.Node{}, nil)
	if e := q.Pop(0); e == nil {
		t.Fatalf("the gate's event did not release the pod")
	}
}

func TestNominator(t *testing.T) {
	q := New(Options{})
	a, b := pod("a", 10), pod("b", 5)
	b.Status.NominatedNodeName = "n2"
	q.Add(a, 0)
	q.Add(b, 0)
	if got := q.NominatedNode(b); got != "n2" {
		t.Errorf("b nominated to %q, want n2 from its status", got)
	}
	q.AddNominated(a, &Nomination{Override: true, Node: "n2"})
	var names []string
	for _, p := range q.NominatedPodsForNode("n2") {
		names = append(names, p.Name)
	}
	if !cmp.Equal(names, []string{"b", "a"}) {
		t.Errorf("nominated to n2: %v, want [b a]", names)
	}
	q.AddNominated(a, &Nomination{Override: true})
	q.Delete(b)
	if q.HasNominations() {
		t.Errorf("nominations left after clearing a and deleting b")
	}
}

// Failed keeps the sets it is given and shares them between pods; a gate
// that adds itself to one pod's plugins must not add itself to the
// other's, or the gate's events would move a pod it never rejected.
func TestSharedPluginSetsStayApart(t *testing.T) {
	fit := &fakePlugin{name: "Fit", event: framework.EventAssignedPodDelete, queue: map[string]bool{"a": true}}
	g := &gate{blocked: map[string]bool{}}
	q := New(Options{PopFromBackoffQ: true, Plugins: []framework.Plugin{fit, g}, PreEnqueue: []PreEnqueuePlugin{g}})
	q.Add(pod("a", 0), 0)
	q.Add(pod("b", 0), 0)
	shared := sets.New("Fit")
	for range 2 {
		q.Failed(q.Pop(0), 0, Result{Unschedulable: shared})
	}
	// a is moved by Fit's event, then gated on its way to the backoffQ.
	g.blocked["a"] = true
	q.Event(0, framework.EventAssignedPodDelete, pod("x", 0), nil, nil)
	if !shared.Equal(sets.New("Fit")) {
		t.Fatalf("the shared set became %v, want [Fit]", sets.List(shared))
	}
	// The gate's event may release a, never b.
	g.blocked["a"] = false
	q.Event(10*time.Second, framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add}, nil, &v1.Node{}, nil)
	if got := popNames(q, 10*time.Second); !cmp.Equal(got, []string{"a"}) {
		t.Errorf("popped %v after the gate's event, want [a]", got)
	}
}

// The unschedulable pool keeps its insertion order, which its scans (and
// so the order pods move in) follow, while most of it moves and comes
// back: the pods that stayed keep their places, those that failed again
// come after them in the order they failed.
func TestUnschedulableOrderSurvivesMovesAndComebacks(t *testing.T) {
	fit := &fakePlugin{name: "Fit", event: framework.EventAssignedPodDelete, queue: map[string]bool{}}
	q := New(Options{PopFromBackoffQ: true, Plugins: []framework.Plugin{fit}})
	var names []string
	for i := range 40 {
		name := fmt.Sprintf("p%02d", i)
		names = append(names, name)
		q.Add(pod(name, 0), 0)
	}
	for range names {
		e := q.Pop(0)
		q.Failed(e, 0, rejectedBy(e, "Fit"))
	}
	var stayed, moved []string
	for i, name := range names {
		if i%3 == 0 {
			stayed = append(stayed, name)
		} else {
			moved = append(moved, name)
			fit.queue[name] = true
		}
	}
	q.Event(time.Minute, framework.EventAssignedPodDelete, pod("x", 0), nil, nil)
	if _, _, unsched := q.Counts(); unsched != len(stayed) {
		t.Fatalf("%d pods left unschedulable, want %d", unsched, len(stayed))
	}
	// The moved pods fail again, last moved first.
	for e := q.Pop(time.Minute); e != nil; e = q.Pop(time.Minute) {
		q.Failed(e, time.Minute, rejectedBy(e, "Fit"))
	}
	var got []string
	for _, p := range q.Pending() {
		got = append(got, p.Name)
	}
	want := append(append([]string(nil), stayed...), moved...)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("unschedulable order (-want +got):\n%s", diff)
	}
	// Now the pods that stayed move (their places were renumbered when
	// the pool was compacted), and only the others are left.
	for _, name := range names {
		fit.queue[name] = false
	}
	for _, name := range stayed {
		fit.queue[name] = true
	}
	q.Event(2*time.Minute, framework.EventAssignedPodDelete, pod("x", 0), nil, nil)
	if _, _, unsched := q.Counts(); unsched != len(moved) {
		t.Fatalf("%d pods left unschedulable, want %d", unsched, len(moved))
	}
	got = nil
	for _, p := range q.Pending()[len(stayed):] {
		got = append(got, p.Name)
	}
	if diff := cmp.Diff(moved, got); diff != "" {
		t.Errorf("unschedulable order after the second event (-want +got):\n%s", diff)
	}
}

// The unschedulable flush is due 5 minutes after the earliest time a pod
// still in the pool entered it: when that pod leaves, the next one's
// time counts, not the time kept for the pool before.
func TestUnschedulableFlushFollowsThePool(t *testing.T) {
	fit := &fakePlugin{name: "Fit", event: framework.EventAssignedPodDelete, queue: map[string]bool{"a": true}}
	q := New(Options{PopFromBackoffQ: true, Plugins: []framework.Plugin{fit}})
	q.Add(pod("a", 0), 0)
	e := q.Pop(0)
	q.Failed(e, 0, rejectedBy(e, "Fit"))
	q.Add(pod("b", 0), 100*time.Second)
	e = q.Pop(100 * time.Second)
	q.Failed(e, 100*time.Second, rejectedBy(e, "Fit"))
	if wake, ok := q.NextWake(100 * time.Second); !ok || wake != 330*time.Second {
		t.Fatalf("NextWake with a and b waiting = %v %v, want 5m30s (a's flush)", wake, ok)
	}
	// a leaves the pool (and the queue); b's flush is next: more than 5
	// minutes after 100 s, at a 30 s tick.
	q.Event(100*time.Second, framework.EventAssignedPodDelete, pod("x", 0), nil, nil)
	if got := popNames(q, 100*time.Second); !cmp.Equal(got, []string{"a"}) {
		t.Fatalf("popped %v after the event, want [a]", got)
	}
	if wake, ok := q.NextWake(100 * time.Second); !ok || wake != 420*time.Second {
		t.Errorf("NextWake with b waiting = %v %v, want 7m0s (b's flush)", wake, ok)
	}
}
