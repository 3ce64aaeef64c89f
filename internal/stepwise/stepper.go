package stepwise

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/result"
	"github.com/drasim/drasim/sim/schedule"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
)

// Stepper runs scheduling cycles one at a time in an order the caller
// chooses, binds each pod where the caller says, and changes the cluster
// as the caller reports other components did. It exists to hold drasim
// to a recording of the real kube-scheduler cycle by cycle: every cycle
// is evaluated on the state the real scheduler had (earlier pods where
// kube put them, nominations as kube set them, preemption victims
// terminating and gone when they were, claims released when they were),
// so that one difference does not hide or cause the next. The decisions
// are drasim's own (the scheduler, DefaultPreemption, the pod group
// cycle of a replay); only what follows from them is the caller's.
type Stepper struct {
	e     *sim.Engine
	c     *cluster.Cluster
	r     *schedule.Replayer
	sched *schedule.Scheduler
	// pods are every pod of the snapshot, pending or bound; deleted the
	// ones the caller reported gone, in that order.
	pods    map[string]*v1.Pod
	deleted []*v1.Pod
}

// New builds the cluster of a snapshot for step-wise evaluation, as
// sim.Simulate would (the snapshot admitted unless opts.Admitted says the
// caller did). Every node's status and score is kept
// (schedule.Options.KeepNodeStatuses).
func New(snap *snapshot.Snapshot, opts sim.Options) (*Stepper, error) {
	e, err := sim.NewEngineFor(snap, opts)
	if err != nil {
		return nil, err
	}
	so := opts.ScheduleOptions()
	so.KeepNodeStatuses = true
	r := e.Replayer(so)
	c := e.Cluster()
	s := &Stepper{e: e, c: c, r: r, sched: r.Scheduler(), pods: map[string]*v1.Pod{}}
	for _, p := range c.Pods() {
		s.pods[p.Namespace+"/"+p.Name] = p
	}
	return s, nil
}

// pod returns a pod of the snapshot by "namespace/name".
func (s *Stepper) pod(name string) (*v1.Pod, error) {
	p := s.pods[name]
	if p == nil {
		return nil, fmt.Errorf("pod %s is not in the snapshot", name)
	}
	return p, nil
}

// pending returns a pod that is waiting to be scheduled.
func (s *Stepper) pending(name string) (*v1.Pod, error) {
	p, err := s.pod(name)
	if err != nil {
		return nil, err
	}
	if p.Spec.NodeName != "" {
		return nil, fmt.Errorf("pod %s is already bound to %s", name, p.Spec.NodeName)
	}
	return p, nil
}

// Evaluate runs one scheduling cycle for a pending pod ("namespace/name")
// without binding it.
func (s *Stepper) Evaluate(ctx context.Context, pod string) (*schedule.Attempt, error) {
	p, err := s.pending(pod)
	if err != nil {
		return nil, err
	}
	a := s.sched.Evaluate(ctx, p)
	if a.Err != nil {
		return nil, fmt.Errorf("pod %s: %w", pod, a.Err)
	}
	return a, nil
}

// PostFilter runs the PostFilter plugins (DynamicResources, then
// DefaultPreemption) for a pod whose attempt found no node: the pod's
// full message and the preemption decision. It changes nothing; what kube
// then did is reported with Nominate, Preempting, Terminating, Deleted and
// Deallocated.
func (s *Stepper) PostFilter(ctx context.Context, pod string, a *schedule.Attempt) (*schedule.PostFilterResult, error) {
	p, err := s.pending(pod)
	if err != nil {
		return nil, err
	}
	return s.r.PostFilter(ctx, p, a)
}

// Devices returns what the allocator chose for the pod's unallocated
// claims on a node that the attempt found feasible.
func (s *Stepper) Devices(pod string, a *schedule.Attempt, node string) []result.Device {
	p := s.pods[pod]
	if p == nil {
		return nil
	}
	return s.e.ChosenDevices(p, a, node)
}

// Bind reserves the pod's claims on a node that the attempt found feasible
// and binds the pod there; a bound pod is nominated nowhere.
func (s *Stepper) Bind(ctx context.Context, pod string, a *schedule.Attempt, node string) error {
	p, err := s.pending(pod)
	if err != nil {
		return err
	}
	if err := s.sched.Bind(ctx, p, a, node); err != nil {
		return err
	}
	s.r.Queue().DeleteNominated(p)
	return nil
}

// ScheduleGroup runs a pod group cycle ("namespace/name") for the given
// pods, in that order, as the real scheduler's cycle took them; choose
// picks the node of each pod whose attempt found one (the real
// scheduler's choice among equally scored nodes) and may look at the
// attempt. The gang is bound when it is placed and taken back when not.
func (s *Stepper) ScheduleGroup(ctx context.Context, group string, pods []string, choose, chooseRerun func(pod string, a *schedule.Attempt) string) (*schedule.GroupCycle, error) {
	list := make([]*v1.Pod, len(pods))
	for i, name := range pods {
		p, err := s.pending(name)
		if err != nil {
			return nil, err
		}
		list[i] = p
	}
	ns, name, ok := splitKey(group)
	if !ok || s.c.PodGroup(ns, name) == nil {
		return nil, fmt.Errorf("pod group %s is not in the snapshot (or GenericWorkload is off)", group)
	}
	follow := &schedule.Follow{Pod: func(p *v1.Pod, a *schedule.Attempt) string { return choose(p.Namespace+"/"+p.Name, a) }}
	if chooseRerun != nil {
		follow.Rerun = func(p *v1.Pod, a *schedule.Attempt) string { return chooseRerun(p.Namespace+"/"+p.Name, a) }
	}
	return s.r.ScheduleGroup(ctx, ns, name, list, 0, follow)
}

// Nominate records the pod's nominated node as the real scheduler set it
// ("" clears it): filters count nominated pods of equal or higher
// priority.
func (s *Stepper) Nominate(pod, node string) error {
	p, err := s.pod(pod)
	if err != nil {
		return err
	}
	s.r.Nominate(p, node, 0)
	return nil
}

// NominatedNode returns the node the pod is nominated to, as the
// scheduler's record of nominations has it ("" when none).
func (s *Stepper) NominatedNode(pod string) string {
	p := s.pods[pod]
	if p == nil {
		return ""
	}
	return s.r.Queue().NominatedNode(p)
}

// Preempting reports that the preemption for a pod on a node started:
// the pods of lower priority nominated there lose their nomination.
func (s *Stepper) Preempting(preemptor, node string) error {
	if s.podGroup(preemptor) != nil {
		// A pod group preempts on the whole cluster: no node's nominated
		// pods lose their nomination.
		return nil
	}
	p, err := s.pod(preemptor)
	if err != nil {
		return err
	}
	s.r.ClearLowerNominations(p, node, 0)
	return nil
}

// Terminating reports that a victim of a preemptor is being deleted: it
// keeps its place and its devices until Deleted, and its preemptor waits
// for it.
func (s *Stepper) Terminating(victim, preemptor string) error {
	v, err := s.pod(victim)
	if err != nil {
		return err
	}
	// The victim's deletion timestamp is read by preemption: an edit
	// the cluster records.
	if pg := s.podGroup(preemptor); pg != nil {
		members := s.c.GroupMembers(pg.Namespace, pg.Name)
		s.c.EditPod(v, func(v *v1.Pod) { schedule.MarkTerminatingByGroup(v, members) })
		return nil
	}
	p, err := s.pod(preemptor)
	if err != nil {
		return err
	}
	s.c.EditPod(v, func(v *v1.Pod) { schedule.MarkTerminating(v, p) })
	return nil
}

// podGroup is the pod group named "namespace/name" when there is one and
// no pod has that name.
func (s *Stepper) podGroup(name string) *schedulingv1beta1.PodGroup {
	if _, err := s.pod(name); err == nil {
		return nil
	}
	ns, n, ok := splitKey(name)
	if !ok {
		return nil
	}
	return s.c.PodGroup(ns, n)
}

// Deleted reports that a victim is gone. Its claims stay as they are
// until Deallocated reports one of them released.
func (s *Stepper) Deleted(pod string) error {
	v, err := s.pod(pod)
	if err != nil {
		return err
	}
	s.r.DeleteVictim(v, 0)
	s.deleted = append(s.deleted, v)
	delete(s.pods, pod)
	return nil
}

// Released reports that the resource-claim controller released the
// claims of a deleted pod (and the garbage collector deleted those made
// for it).
func (s *Stepper) Released(pod string) error {
	for _, v := range s.deleted {
		if v.Namespace+"/"+v.Name == pod {
			s.r.ReleaseClaims(v, 0)
			return nil
		}
	}
	return fmt.Errorf("pod %s: its claims are released, but it was not deleted", pod)
}

// Deallocated reports that DynamicResources' PostFilter freed a pending
// pod's claim ("namespace/name").
func (s *Stepper) Deallocated(claim string) error {
	ns, name, ok := splitKey(claim)
	if !ok {
		return fmt.Errorf("claim %q: want namespace/name", claim)
	}
	c, err := s.claim(ns, name)
	if err != nil {
		return err
	}
	if c.Status.Allocation != nil {
		s.r.Deallocate(c, 0)
	}
	return nil
}

func (s *Stepper) claim(ns, name string) (*resourceapi.ResourceClaim, error) {
	c, err := s.c.DRA().Claim(ns, name)
	if err != nil {
		return nil, fmt.Errorf("claim %s/%s: %w", ns, name, err)
	}
	return c, nil
}

// BindingFailed reports that a pod a cycle placed did not bind: it is
// pending again, its claims released, and its object says nominated node
// nominated (schedule.Replayer.BindingFailed).
func (s *Stepper) BindingFailed(pod, nominated string) error {
	p, err := s.pod(pod)
	if err != nil {
		return err
	}
	if p.Spec.NodeName == "" {
		return fmt.Errorf("pod %s failed to bind, but it is not placed", pod)
	}
	s.r.BindingFailed(p, nominated)
	return nil
}

// NominatedSeen reports that the pod object now says nominated node node
// (a status patch of kube's came back), which its next cycle tries first;
// the scheduler's own record of nominations is not changed.
func (s *Stepper) NominatedSeen(pod, node string) error {
	p, err := s.pod(pod)
	if err != nil {
		return err
	}
	p.Status.NominatedNodeName = node
	return nil
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
	for _, c := range schedule.PodClaims(s.c, p) {
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

// splitKey splits "namespace/name".
func splitKey(key string) (ns, name string, ok bool) {
	ns, name, ok = strings.Cut(key, "/")
	return ns, name, ok && ns != "" && name != ""
}
