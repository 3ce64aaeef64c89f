package queue

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/drasim/drasim/sim/framework"
)

// groups is a fixed set of pod groups; a pod names its group in
// spec.schedulingGroup.
type groups map[string]*Group

func (g groups) GroupOf(pod *v1.Pod) (*Group, bool) {
	name := groupName(pod)
	if name == "" {
		return nil, false
	}
	return g[name], true
}

func member(name, group string) *v1.Pod {
	p := pod(name, 0)
	p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To(group)}
	return p
}

// quorum gates a gang's pods until want pods of it were added.
type quorum struct {
	want  int
	count map[string]int
}

func (q *quorum) Name() string { return "GangScheduling" }
func (q *quorum) PreEnqueue(pod *v1.Pod) *framework.Status {
	if q.count[groupName(pod)] < q.want {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, "waiting for minCount pods from a gang to appear in scheduling queue")
	}
	return nil
}
func (q *quorum) EventsToRegister() []framework.ClusterEventWithHint {
	return []framework.ClusterEventWithHint{{Event: framework.EventUnscheduledPodAdd}}
}

func names(e *Entity) []string {
	var out []string
	for _, pi := range e.Pods {
		out = append(out, pi.Pod.Name)
	}
	return out
}

func TestGangWaitsForMinCountThenPopsWhole(t *testing.T) {
	gate := &quorum{want: 3, count: map[string]int{}}
	q := New(Options{PopFromBackoffQ: true, Groups: groups{"g": {Namespace: "default", Name: "g"}},
		Plugins: []framework.Plugin{gate}, PreEnqueue: []PreEnqueuePlugin{gate}})
	for i, name := range []string{"m-2", "m-0", "m-1"} {
		p := member(name, "g")
		gate.count["g"]++
		q.Add(p, Time(i)*time.Millisecond)
		q.Event(Time(i)*time.Millisecond, framework.EventUnscheduledPodAdd, nil, p, nil)
		if i < 2 {
			if e := q.Pop(q.Now()); e != nil {
				t.Fatalf("popped %v with %d of 3 pods", names(e), i+1)
			}
		}
	}
	e := q.Pop(q.Now())
	if e == nil || e.Group == nil {
		t.Fatalf("the complete gang was not popped")
	}
	// Members in arrival order (same priority and attempts).
	if diff := cmp.Diff([]string{"m-2", "m-0", "m-1"}, names(e)); diff != "" {
		t.Errorf("member order (-want +got):\n%s", diff)
	}
	if e.Attempts != 1 || e.Pods[0].Attempts != 1 {
		t.Errorf("attempts: entity %d, first pod %d; want 1 and 1", e.Attempts, e.Pods[0].Attempts)
	}
}

func TestFailedGangBacksOffOnTimeAndParks(t *testing.T) {
	for _, park := range []bool{false, true} {
		fit := &fakePlugin{name: "Fit", event: framework.EventAssignedPodDelete, queue: map[string]bool{"a": true}}
		q := New(Options{PopFromBackoffQ: true, ParkStale: park, Plugins: []framework.Plugin{fit}, Groups: groups{"g": {Namespace: "default", Name: "g"}}})
		a, b := member("a", "g"), member("b", "g")
		q.Add(a, 0)
		q.Add(b, 0)
		e := q.Pop(0)
		q.GroupAttempted(e, 0, []*v1.Pod{a, b}, rejectedBy(e, "Fit"), GroupUnschedulable)
		// A gang goes to the error backoffQ, never popped early.
		if e := q.Pop(0); e != nil {
			t.Fatalf("park=%v: the gang was popped before its backoff ended", park)
		}
		next, ok := q.NextBackoff(0)
		if !ok || next != 2*time.Second {
			t.Fatalf("park=%v: NextBackoff = %v %v, want 2s", park, next, ok)
		}
		e = q.Pop(next)
		if park {
			if e != nil {
				t.Fatalf("a stale gang was popped with ParkStale")
			}
			// An event moves it again (its pods have rejectors).
			q.Event(next, framework.EventAssignedPodDelete, pod("x", 0), nil, nil)
			if e := q.Pop(next); e == nil || e.Attempts != 2 {
				t.Fatalf("after an event the parked gang was not retried")
			}
			continue
		}
		if e == nil || e.Attempts != 2 {
			t.Fatalf("the gang was not retried after its backoff")
		}
	}
}

func TestMemberArrivingDuringAttemptJoinsAfter(t *testing.T) {
	q := New(Options{PopFromBackoffQ: true, Groups: groups{"g": {Namespace: "default", Name: "g"}}})
	a, b, c := member("a", "g"), member("b", "g"), member("c", "g")
	q.Add(a, 0)
	q.Add(b, 0)
	e := q.Pop(0)
	q.Add(c, 0) // in flight: waits
	if got := q.Pending(); len(got) != 1 || got[0].Name != "c" {
		t.Fatalf("pending during the attempt: %v, want [c]", got)
	}
	// a and b are placed; c is tried at once, its timestamp preserved.
	q.GroupAttempted(e, 0, nil, Result{}, GroupScheduled)
	e = q.Pop(0)
	if e == nil || !cmp.Equal(names(e), []string{"c"}) {
		t.Fatalf("after the attempt popped %v, want [c]", e)
	}
}

func TestMissingPodGroupHoldsPods(t *testing.T) {
	gs := groups{}
	q := New(Options{PopFromBackoffQ: true, Groups: gs})
	a := member("a", "later")
	q.Add(a, 0)
	if e := q.Pop(0); e != nil {
		t.Fatalf("a pod of a missing pod group was popped")
	}
	g := &Group{Namespace: "default", Name: "later"}
	gs["later"] = g
	q.GroupAdded(g, 0)
	if e := q.Pop(0); e == nil || e.Group != g {
		t.Fatalf("the pod did not join its group once it appeared")
	}
}
