package timeline

import (
	"time"

	"github.com/drasim/drasim/sim/schedule"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
)

// Queue is kube-scheduler's scheduling queue as the timeline drives it:
// pods are added when they arrive, popped one at a time for a scheduling
// cycle, and after a failed cycle wait (backoff, or the unschedulable pool
// until a cluster event may help them). The timeline owns the clock and
// tells the queue the time through the function it was made with; the
// queue never sleeps.
type Queue interface {
	// Add queues a pod that was just created.
	Add(pod *v1.Pod)
	// Pop returns the next pod to schedule now, or nil when none is
	// ready.
	Pop() *v1.Pod
	// Done tells the queue the pod was bound.
	Done(pod *v1.Pod)
	// Unschedulable tells the queue the pod's cycle found no node.
	Unschedulable(pod *v1.Pod, a *schedule.Attempt)
	// Event tells the queue of a cluster change that may make waiting
	// pods schedulable.
	Event(e Event)
	// NextWake returns the next time the queue moves a waiting pod by
	// itself (backoff over, unschedulable pods flushed), if any.
	NextWake() (time.Time, bool)
	// Len is the number of pods waiting in the queue.
	Len() int
}

// EventKind is the kind of a cluster event.
type EventKind string

// Cluster events the timeline reports to the queue.
const (
	EventNodeAdd           EventKind = "NodeAdd"
	EventNodeDelete        EventKind = "NodeDelete"
	EventAssignedPodAdd    EventKind = "AssignedPodAdd"
	EventAssignedPodDelete EventKind = "AssignedPodDelete"
	// EventClaimChange: claims were deallocated or deleted.
	EventClaimChange EventKind = "ResourceClaimChange"
)

// Event is one cluster change.
type Event struct {
	Kind   EventKind
	Node   *v1.Node
	Pod    *v1.Pod
	Claims []*resourceapi.ResourceClaim
	Slices []*resourceapi.ResourceSlice
}

// NewQueue makes the scheduling queue for a timeline; now tells it the
// time.
type NewQueue func(now func() time.Time) Queue
