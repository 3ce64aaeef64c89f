package timeline

import (
	"container/heap"
	"time"

	"github.com/drasim/drasim/sim/schedule"
	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// interimQueue stands in for kube's scheduling queue until the project's
// one model of it (sim/schedule/queue) is merged: PrioritySort order, no
// backoff, every unschedulable pod retried on any cluster event. It is
// replaced, not extended.
type interimQueue struct {
	now           func() time.Time
	active        podHeap
	unschedulable []*v1.Pod
	seq           uint64
}

func newInterimQueue(now func() time.Time) Queue { return &interimQueue{now: now} }

// defaultQueue and queueName are the queue a timeline uses unless told.
func defaultQueue(now func() time.Time) Queue { return newInterimQueue(now) }

const queueName = "interim (no backoff; every event retries every pod)"

type queued struct {
	pod  *v1.Pod
	prio int32
	at   time.Time
	seq  uint64
}

type podHeap []queued

func (h podHeap) Len() int { return len(h) }
func (h podHeap) Less(i, j int) bool {
	if h[i].prio != h[j].prio {
		return h[i].prio > h[j].prio
	}
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h podHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *podHeap) Push(x any)   { *h = append(*h, x.(queued)) }
func (h *podHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (q *interimQueue) push(pod *v1.Pod) {
	q.seq++
	heap.Push(&q.active, queued{pod: pod, prio: corev1helpers.PodPriority(pod), at: q.now(), seq: q.seq})
}

func (q *interimQueue) Add(pod *v1.Pod) { q.push(pod) }

func (q *interimQueue) Pop() *v1.Pod {
	if q.active.Len() == 0 {
		return nil
	}
	return heap.Pop(&q.active).(queued).pod
}

func (q *interimQueue) Done(*v1.Pod) {}

func (q *interimQueue) Unschedulable(pod *v1.Pod, _ *schedule.Attempt) {
	q.unschedulable = append(q.unschedulable, pod)
}

func (q *interimQueue) Event(Event) {
	for _, p := range q.unschedulable {
		q.push(p)
	}
	q.unschedulable = nil
}

func (q *interimQueue) NextWake() (time.Time, bool) { return time.Time{}, false }

func (q *interimQueue) Len() int { return q.active.Len() + len(q.unschedulable) }
