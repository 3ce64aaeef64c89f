package sim

import (
	"context"
	"fmt"
	"sort"

	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/result"
	"github.com/drasim/drasim/sim/schedule"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
)

// Stepper runs scheduling cycles one at a time in an order the caller
// chooses, and binds each pod where the caller says. It exists to hold
// drasim to a recording of the real kube-scheduler cycle by cycle: every
// cycle is evaluated on the state the real scheduler had (earlier pods
// where kube put them), so that one difference does not hide or cause the
// next.
type Stepper struct {
	c     *cluster.Cluster
	dra   *dra.Plugin
	sched *schedule.Scheduler
	pods  map[string]*v1.Pod
}

// NewStepper builds the cluster of a snapshot for step-wise evaluation.
// Every node's status and score is kept (schedule.Options.KeepNodeStatuses).
func NewStepper(snap *snapshot.Snapshot, opts Options) (*Stepper, error) {
	c, draPlugin, profile, err := setup(snap, opts)
	if err != nil {
		return nil, err
	}
	so := opts.ScheduleOptions()
	so.KeepNodeStatuses = true
	s := &Stepper{c: c, dra: draPlugin, sched: schedule.New(c, profile, so), pods: map[string]*v1.Pod{}}
	for _, p := range c.Queue {
		s.pods[p.Namespace+"/"+p.Name] = p
	}
	return s, nil
}

// Evaluate runs one scheduling cycle for a pending pod ("namespace/name")
// without binding it.
func (s *Stepper) Evaluate(ctx context.Context, pod string) (*schedule.Attempt, error) {
	p := s.pods[pod]
	if p == nil {
		return nil, fmt.Errorf("pod %s is not pending in the snapshot", pod)
	}
	if p.Spec.NodeName != "" {
		return nil, fmt.Errorf("pod %s is already bound to %s", pod, p.Spec.NodeName)
	}
	a := s.sched.Evaluate(ctx, p)
	if a.Err != nil {
		return nil, fmt.Errorf("pod %s: %w", pod, a.Err)
	}
	return a, nil
}

// Devices returns what the allocator chose for the pod's unallocated
// claims on a node that the attempt found feasible.
func (s *Stepper) Devices(pod string, a *schedule.Attempt, node string) []result.Device {
	p := s.pods[pod]
	if p == nil {
		return nil
	}
	return devicesOf(unallocatedClaims(s.dra, p), s.dra.ChosenAllocation(a.State, node))
}

// Bind reserves the pod's claims on a node that the attempt found feasible
// and binds the pod there.
func (s *Stepper) Bind(ctx context.Context, pod string, a *schedule.Attempt, node string) error {
	p := s.pods[pod]
	if p == nil {
		return fmt.Errorf("pod %s is not pending in the snapshot", pod)
	}
	return s.sched.Bind(ctx, p, a, node)
}

// PodDevices lists the devices allocated to the pod's claims (its own, the
// shared ones it references and its extended-resource claim) as
// "request|driver/pool/device", sorted: the oracle's summarize.py format.
func (s *Stepper) PodDevices(pod string) []string {
	p := s.pods[pod]
	if p == nil {
		return nil
	}
	var out []string
	for _, c := range schedule.PodClaims(p, s.dra) {
		for _, d := range c.Devices {
			out = append(out, d.ID())
		}
	}
	sort.Strings(out)
	return out
}

// ClaimNames maps each of the pod's claims made from templates ("pod claim
// name") to the claim's name.
func (s *Stepper) ClaimNames(pod string) map[string]string {
	p := s.pods[pod]
	if p == nil {
		return nil
	}
	out := map[string]string{}
	for _, st := range p.Status.ResourceClaimStatuses {
		if st.ResourceClaimName != nil {
			out[st.Name] = *st.ResourceClaimName
		}
	}
	return out
}
