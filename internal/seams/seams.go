package seams

import (
	"io"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/cluster"
)

// Checkpoint is what a scheduler carries from one cycle to the next
// besides the cluster: the node index the next cycle starts filtering at
// (kube's nextStartNodeIndex) and the state of the seeded tie-break
// source. schedule.Scheduler.Checkpoint makes one; a scheduler resumed
// from it (schedule.Options.Resume, sim.Options.Resume) decides a moment
// of a longer run as that run did.
type Checkpoint struct {
	NextStart int
	Rand      []byte
}

// Moment is a timeline's cluster just before a scheduling cycle, which can
// be exported and replayed with drasim simulate's engine, resumed at
// Checkpoint.
type Moment struct {
	Time       time.Duration
	Pod        *v1.Pod
	Checkpoint Checkpoint
	// Node and Message are what the cycle decided (set for
	// TimelineHooks.After): the pod's node, or none and kube's message of
	// the failed cycle, PostFilter's included.
	Node    string
	Message string
	c       *cluster.Cluster
}

// NewMoment is the moment of c at time t, before the pod's cycle, with
// the scheduler at cp.
func NewMoment(c *cluster.Cluster, t time.Duration, pod *v1.Pod, cp Checkpoint) *Moment {
	return &Moment{Time: t, Pod: pod, Checkpoint: cp, c: c}
}

// WriteSnapshot writes the cluster of the moment with the pod as its only
// pending pod: what drasim simulate, resumed at Checkpoint, would decide
// on.
func (m *Moment) WriteSnapshot(w io.Writer) error {
	return m.c.WriteSnapshotOf(w, m.keep)
}

// WriteSnapshotJSON writes the same as one JSON document (faster).
func (m *Moment) WriteSnapshotJSON(w io.Writer) error {
	return m.c.WriteSnapshotJSON(w, m.keep)
}

func (m *Moment) keep(p *v1.Pod) bool { return p == m.Pod || p.Spec.NodeName != "" }

// Devices lists the devices the moment's pod holds now, as
// driver/pool/device.
func (m *Moment) Devices() []string {
	var out []string
	for _, c := range m.c.DRA().ClaimsInUse(m.Pod) {
		if c.Status.Allocation == nil {
			continue
		}
		for _, r := range c.Status.Allocation.Devices.Results {
			out = append(out, r.Driver+"/"+r.Pool+"/"+r.Device)
		}
	}
	return out
}

// TimelineHooks hear of every scheduling cycle of a timeline
// (timeline.Options.Hooks): Before with the moment just before it, After
// with the same moment and the cycle's decision, once the PostFilter
// plugins (preemption) of a cycle that failed have run.
type TimelineHooks struct {
	Before func(*Moment)
	After  func(*Moment)
}
