package queue

import (
	"container/heap"
	"math"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/drasim/drasim/sim/framework"
)

// Time is a point on the caller's logical clock: the time since the start
// of the simulation.
type Time = time.Duration

// Stamp is a time with the order of the call that made it, so that two
// things that happen at the same instant still have an order.
type Stamp struct {
	T   Time
	Seq uint64
}

// Before orders stamps by time, then by call order.
func (s Stamp) Before(o Stamp) bool { return s.T < o.T || s.T == o.T && s.Seq < o.Seq }

// PodInfo is one pending pod in the queue and what its last scheduling
// attempt learned.
type PodInfo struct {
	Pod *v1.Pod
	// UnschedulablePlugins rejected the pod in its last attempt;
	// PendingPlugins asked it to wait. Only events these plugins
	// registered can move the pod back to the activeQ.
	UnschedulablePlugins sets.Set[string]
	PendingPlugins       sets.Set[string]
	// GatingPlugin is the PreEnqueue plugin keeping the pod out of the
	// activeQ, if any.
	GatingPlugin string
	gatingEvents []framework.ClusterEvent
	// Timestamp and Attempts order the members of a gang (memberLess).
	Timestamp Stamp
	Attempts  int
}

func (pi *PodInfo) gated() bool { return pi.GatingPlugin != "" }

// where an entity is.
type location int

const (
	nowhere location = iota
	inActive
	inBackoff
	inErrorBackoff
	inUnschedulable
	inFlight
)

// Entity is what the queue orders and pops: one pod, or the pending pods
// of a pod group (a gang), which are scheduled together.
type Entity struct {
	key  string
	Pods []*PodInfo
	// Group is the pod group of a gang entity, nil for a single pod.
	Group *Group
	// prio is a single pod's priority, read once: a pod's spec.priority
	// is immutable, and the heaps compare it on every sift (reading it
	// through the pod costs: docs/performance.md).
	prio int32

	// Timestamp is when the entity last entered the queue (its arrival,
	// or the end of its last failed attempt): PrioritySort's second key.
	Timestamp Stamp
	// InitialAttempt is when the entity first entered the activeQ.
	InitialAttempt *Stamp
	// Attempts counts the times it was popped.
	Attempts int
	// UnschedulableCount counts attempts that ended unschedulable,
	// ConsecutiveErrorsCount the attempts in a row that ended in an error;
	// the backoff grows with them.
	UnschedulableCount     int
	ConsecutiveErrorsCount int
	// WasFlushed is set when the unschedulable timeout moved the entity.
	WasFlushed bool

	// failedAt is the count of events the queue had received when the
	// gang's last attempt failed (see Pop).
	failedAt      uint64
	flushTime     Time
	backoffExpiry Time
	backoffSet    bool
	where         location
	heapIndex     int
	// orderIndex is its place in the unschedulable order (Queue.order).
	orderIndex int
}

// Pod returns the pod of a single-pod entity (the first pod of a gang).
func (e *Entity) Pod() *v1.Pod { return e.Pods[0].Pod }

// Key identifies the entity: "pod/<ns>/<name>" or "podgroup/<ns>/<name>".
func (e *Entity) Key() string { return e.key }

// Priority is the pod's priority, or the pod group's.
func (e *Entity) Priority() int32 {
	if e.Group != nil {
		return e.Group.Priority
	}
	return e.prio
}

func (e *Entity) gated() bool {
	for _, pi := range e.Pods {
		if pi.gated() {
			return true
		}
	}
	return false
}

// hasRejectors reports whether some pod of the entity was rejected by a
// plugin; without one, the attempt ended in an error.
func (e *Entity) hasRejectors() bool {
	for _, pi := range e.Pods {
		if pi.UnschedulablePlugins.Len() > 0 || pi.PendingPlugins.Len() > 0 {
			return true
		}
	}
	return false
}

func podKey(pod *v1.Pod) string { return "pod/" + pod.Namespace + "/" + pod.Name }

// PrioritySort is kube's default queue order: higher priority first, then
// the entity that entered the queue first.
func PrioritySort(a, b *Entity) bool {
	pa, pb := a.Priority(), b.Priority()
	return pa > pb || pa == pb && a.Timestamp.Before(b.Timestamp)
}

// backoff is the backoff time of one more attempt after count failures, for
// an entity of size pods: initial doubling per failure, at most max (times
// the square root of the size for a gang).
func backoff(initial, maxBackoff time.Duration, count, size int) time.Duration {
	if count == 0 {
		return 0
	}
	if size > 1 {
		maxBackoff = time.Duration(float64(maxBackoff) * math.Sqrt(float64(size)))
	}
	shift := count - 1
	if shift >= 63 || initial > maxBackoff>>shift {
		return maxBackoff
	}
	return initial << shift
}

// entityHeap is a binary heap of entities; each entity sits in at most one
// heap at a time and remembers its index.
type entityHeap struct {
	items []*Entity
	less  func(a, b *Entity) bool
}

func (h *entityHeap) Len() int           { return len(h.items) }
func (h *entityHeap) Less(i, j int) bool { return h.less(h.items[i], h.items[j]) }
func (h *entityHeap) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].heapIndex, h.items[j].heapIndex = i, j
}
func (h *entityHeap) Push(x any) {
	e := x.(*Entity)
	e.heapIndex = len(h.items)
	h.items = append(h.items, e)
}
func (h *entityHeap) Pop() any {
	n := len(h.items)
	e := h.items[n-1]
	h.items[n-1] = nil
	h.items = h.items[:n-1]
	e.heapIndex = -1
	return e
}

func (h *entityHeap) add(e *Entity)    { heap.Push(h, e) }
func (h *entityHeap) remove(e *Entity) { heap.Remove(h, e.heapIndex) }
func (h *entityHeap) peek() *Entity {
	if len(h.items) == 0 {
		return nil
	}
	return h.items[0]
}
func (h *entityHeap) pop() *Entity { return heap.Pop(h).(*Entity) }
