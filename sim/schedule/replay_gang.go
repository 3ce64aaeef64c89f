package schedule

import (
	"context"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/result"
	"github.com/drasim/drasim/sim/schedule/queue"
)

// errPodGroupUnschedulable is the error kube wraps a gang's failure in; a
// status that carries it starts its message with these words.
const errPodGroupUnschedulable = "pod group is unschedulable"

// gangWaitingMessage is GangScheduling's PreEnqueue message for a gang
// short of minCount pods (gangscheduling.WaitingMessage, which a test
// holds it to): the word for a gang's pod still kept out of the activeQ
// when the run ends.
const gangWaitingMessage = "waiting for minCount pods from a gang to appear in scheduling queue"

// groupView shows the cluster's pod groups to the queue (which pods form
// a gang) and to GangScheduling (how many of a gang's pods exist).
type groupView struct{ r *Replayer }

func (g groupView) GroupOf(pod *v1.Pod) (*queue.Group, bool) {
	pg, name := g.r.c.PodGroupOf(pod)
	if name == "" {
		return nil, false
	}
	if pg == nil {
		return nil, true
	}
	return &queue.Group{Namespace: pg.Namespace, Name: pg.Name, Priority: cluster.PodGroupPriority(pg)}, true
}

func (g groupView) PodGroup(namespace, name string) *schedulingv1beta1.PodGroup {
	return g.r.c.PodGroup(namespace, name)
}

// AllPodsCount counts the pods of the group that are bound or have
// arrived in the queue: those kube-scheduler's cache knows.
func (g groupView) AllPodsCount(namespace, name string) int {
	n := 0
	for _, p := range g.r.c.GroupMembers(namespace, name) {
		if p.Spec.NodeName != "" || g.r.arrived[p] {
			n++
		}
	}
	return n
}

// groupStatus is the status of a pod group cycle as kube builds it: a
// code, the reasons, and whether it wraps errPodGroupUnschedulable.
type groupStatus struct {
	code    framework.Code
	reasons []string
	wrapped bool
}

func (gs groupStatus) message() string {
	parts := gs.reasons
	if gs.wrapped {
		parts = append([]string{errPodGroupUnschedulable}, parts...)
	}
	return strings.Join(parts, ", ")
}

// groupTry is one pod's attempt in a pod group cycle.
type groupTry struct {
	a            *Attempt
	placed       bool
	nominated    string
	claimsBefore map[string]*resourceapi.ResourceClaim
}

// scheduleGroup runs the pod group cycle of a gang popped from the queue
// (groupCycle) and gives the gang back to the queue.
func (r *Replayer) scheduleGroup(ctx context.Context, e *queue.Entity, t queue.Time) error {
	pods := make([]*v1.Pod, len(e.Pods))
	attempts := make([]int, len(e.Pods))
	for i, pi := range e.Pods {
		pods[i], attempts[i] = pi.Pod, pi.Attempts
	}
	gc, err := r.groupCycle(ctx, e.Group.Namespace, e.Group.Name, pods, attempts, t)
	if err != nil {
		return err
	}
	r.q.GroupAttempted(e, t, gc.back, gc.res, gc.outcome)
	for _, claim := range gc.Deallocate {
		r.Deallocate(claim, t)
	}
	if gp := gc.Preemption; gp != nil && r.OnGroupPreemption != nil {
		r.OnGroupPreemption(pods, gp)
	}
	if gp := gc.Preemption; gp != nil && gp.Success {
		r.carryOutGroupPreemption(r.c.PodGroup(e.Group.Namespace, e.Group.Name), pods, gp, t)
	}
	return nil
}

// GroupCycle is what one pod group cycle did.
type GroupCycle struct {
	// Attempts[i] is the i-th pod's attempt; nil for a pod the cycle did
	// not reach.
	Attempts []*Attempt
	// Results[i] is the i-th pod's outcome: bound, or pending with kube's
	// message.
	Results []*result.Pod
	// Placed is set when the gang was placed: every pod tried is bound.
	Placed bool
	// Message is the cycle's status when the gang was not placed, as kube
	// logs it; it becomes the PodGroup's condition unless the gang was
	// placed before (Condition).
	Message string
	// Condition is the PodGroup's PodGroupInitiallyScheduled condition
	// after the cycle.
	Condition result.PodGroup
	// Deallocate are the claims PodGroupPostFilter frees.
	Deallocate []*resourceapi.ResourceClaim
	// Preemption is DefaultPreemption's PodGroupPostFilter decision; nil
	// when it did not run.
	Preemption *GroupPreemption

	back    []*v1.Pod
	res     queue.Result
	outcome queue.GroupOutcome
}

// Follow is how a caller that follows another scheduler's cycles
// steers a pod group cycle: each picks the node of a pod whose attempt
// found one, among the nodes the attempt found feasible (a pick it did
// not find feasible leaves the attempt's own choice), so that a step-wise
// check takes the real scheduler's choice among equally scored nodes.
type Follow struct {
	// Pod picks for the pods of the cycle (nil: the scheduler's choice).
	Pod func(pod *v1.Pod, a *Attempt) string
	// Rerun picks for the pods of PodGroupPostFilter's rerun of the pod
	// group algorithm (a pod group's preemption; nil: the scheduler's).
	Rerun func(pod *v1.Pod, a *Attempt) string
}

// ScheduleGroup runs one pod group cycle for the given pods of a gang, in
// the given order, as groupCycle does, without the queue: for a caller
// that follows another scheduler's cycles (the step-wise check takes the
// pods and their order from the real scheduler's log, and its choice of
// nodes with follow, which may be nil). The claims PodGroupPostFilter
// frees are returned, not freed.
func (r *Replayer) ScheduleGroup(ctx context.Context, namespace, name string, pods []*v1.Pod, t queue.Time, follow *Follow) (*GroupCycle, error) {
	r.follow = follow
	defer func() { r.follow = nil }()
	return r.groupCycle(ctx, namespace, name, pods, make([]int, len(pods)), t)
}

// groupCycle runs the pod group cycle of a gang (kube's
// scheduleOnePodGroup with the default algorithm): each pod, in the
// gang's order, is filtered and scored on the cluster as the pods before
// it left it, and assumed on its node; after each, GangScheduling checks
// that minCount can still be met. When the gang is placed, every pod
// binds; when not, every pod is taken back, PodGroupPostFilter runs once
// for the gang (no pod runs PostFilter on its own), and the pods wait
// together for the gang's next attempt. attempts[i] counts the i-th pod's
// attempts so far.
func (r *Replayer) groupCycle(ctx context.Context, namespace, name string, pods []*v1.Pod, attempts []int, t queue.Time) (*GroupCycle, error) {
	pg := r.c.PodGroup(namespace, name)
	if pg == nil {
		return nil, fmt.Errorf("internal error: pod group %s/%s is queued but not in the cluster", namespace, name)
	}
	gc := &GroupCycle{Attempts: make([]*Attempt, len(pods))}
	if err := r.validateGroup(pg, pods); err != nil {
		return r.groupInvalid(gc, pg, pods, err), nil
	}

	if r.BeforeGroupAttempt != nil {
		r.BeforeGroupAttempt(pods)
	}
	r.s.SetInFlight(pods)
	defer r.s.SetInFlight(nil)
	run, err := r.runGroup(ctx, pg, pods, true)
	if err != nil {
		return nil, err
	}
	tries, st, pluginErr, anyScheduled := run.tries, run.st, run.pluginErr, run.anyScheduled
	copy(gc.Attempts, run.attempts)
	success := pluginErr == nil && st.code == framework.Success
	if success && !anyScheduled {
		success, st = false, groupStatus{code: framework.Unschedulable, wrapped: true}
	}
	if !success {
		r.forgetGroup(ctx, pods, tries)
	}

	// The pods the cycle did not reach get the gang's status as it stood
	// at the end of the algorithm; PodGroupPostFilter's verdict is then
	// appended to the gang's own status, which the pods placed in vain
	// report. An error (a pod's plugin, or PodGroupPostFilter's) fails
	// every pod with it.
	unreached := st.message()
	var groupErr error
	if pluginErr != nil {
		groupErr = fmt.Errorf("failed to schedule other pod from a pod group: %w", pluginErr)
	}
	if !success && pluginErr == nil {
		pf, deallocate, gp, err := r.podGroupPostFilter(ctx, pg, pods, tries)
		if err != nil {
			groupErr = err
		} else {
			st.reasons = append(st.reasons, pf)
			gc.Deallocate = deallocate
			gc.Preemption = gp
		}
	}
	// A gang that waits for its preemption: the pods it placed report the
	// gang's status as it is, not wrapped as a failure.
	waiting := gc.Preemption != nil && gc.Preemption.Success

	res := queue.Result{UnschedulablePlugins: map[string]sets.Set[string]{}}
	var back []*v1.Pod
	for i, pod := range pods {
		switch {
		case groupErr != nil:
			msg := groupErr.Error()
			if i < len(tries) && tries[i].a.Error != nil {
				msg = tries[i].a.Error.Error()
			}
			r.groupPodFailed(pod, result.ReasonSchedulerError, msg, tryAt(tries, i))
		case i >= len(tries):
			r.groupPodFailed(pod, "", unreached, nil)
		case tries[i].a.Node != "" && tries[i].a.Error == nil:
			if success {
				out := r.groupPodOutcome(pod, tries[i].a)
				r.scheduled(pod, tries[i].a, out, attempts[i], tries[i].claimsBefore, t)
				continue
			}
			if waiting {
				r.groupPodFailed(pod, "", st.message(), tries[i])
				break
			}
			r.groupPodFailed(pod, "", errPodGroupUnschedulable+", "+st.message(), tries[i])
		default:
			r.groupPodFailed(pod, "", tries[i].a.Message, tries[i])
			res.UnschedulablePlugins[pod.Namespace+"/"+pod.Name] = sets.New(tries[i].a.UnschedulablePlugins...)
		}
		back = append(back, pod)
	}
	outcome := queue.GroupScheduled
	switch {
	case groupErr != nil:
		outcome = queue.GroupError
		res.Error = true
		gc.Message = groupErr.Error()
	case !success:
		outcome = queue.GroupUnschedulable
		gc.Message = st.message()
	}
	gc.Placed = success
	gc.back, gc.res, gc.outcome = back, res, outcome
	r.setOutcomeCondition(gc, pg)
	r.setGroupBlocker(pg, pods, tries)
	return r.groupOutcomes(gc, pg, pods), nil
}

// groupInvalid fails every pod of a gang that the API server's rules
// refuse (validateGroup) with the error.
func (r *Replayer) groupInvalid(gc *GroupCycle, pg *schedulingv1beta1.PodGroup, pods []*v1.Pod, err error) *GroupCycle {
	for _, pod := range pods {
		r.groupPodFailed(pod, result.ReasonSchedulerError, err.Error(), nil)
	}
	gc.Message = err.Error()
	gc.back, gc.res, gc.outcome = pods, queue.Result{Error: true}, queue.GroupError
	r.setOutcomeCondition(gc, pg)
	return r.groupOutcomes(gc, pg, pods)
}

// setOutcomeCondition sets the PodGroup's condition for the cycle's
// outcome.
func (r *Replayer) setOutcomeCondition(gc *GroupCycle, pg *schedulingv1beta1.PodGroup) {
	switch gc.outcome {
	case queue.GroupError:
		r.setGroupCondition(pg, result.PodGroupError, gc.Message)
	case queue.GroupUnschedulable:
		r.setGroupCondition(pg, result.PodGroupUnschedulable, gc.Message)
	default:
		r.setGroupCondition(pg, result.PodGroupScheduled, "")
	}
}

// groupRun is what the pod group algorithm did with a gang's pods: the
// pods it tried (placed ones assumed on their nodes), the gang's status,
// the plugin error that stopped it.
type groupRun struct {
	tries        []*groupTry
	attempts     []*Attempt
	st           groupStatus
	pluginErr    *SchedulingError
	anyScheduled bool
}

// runGroup is kube's default pod group algorithm: each pod, in the
// gang's order, is filtered and scored on the cluster as the pods before
// it left it, and assumed on its node; after each, GangScheduling checks
// that minCount can still be met. The pods it placed stay assumed: the
// caller keeps or forgets them. main is set for the cycle itself, unset
// for PodGroupPostFilter's rerun, which the hooks do not hear of.
func (r *Replayer) runGroup(ctx context.Context, pg *schedulingv1beta1.PodGroup, pods []*v1.Pod, main bool) (*groupRun, error) {
	namespace, name := pg.Namespace, pg.Name
	run := &groupRun{}
	minCount := cluster.MinCount(pg)
	scheduled := r.c.ScheduledMembers(namespace, name)
	remaining := len(pods)
	feasible := func() groupStatus {
		if r.gang == nil {
			return groupStatus{}
		}
		st := r.gang.PlacementFeasible(minCount, scheduled, remaining)
		return groupStatus{code: st.Code(), reasons: st.Reasons()}
	}
	st := feasible()
	var tries []*groupTry
	var pluginErr *SchedulingError
	anyScheduled := false
	if st.code == framework.Unschedulable {
		st.wrapped = true
	} else {
		for _, pod := range pods {
			if main && r.BeforeAttempt != nil {
				r.BeforeAttempt(pod)
			}
			try := &groupTry{nominated: pod.Status.NominatedNodeName, claimsBefore: r.claimStatuses(pod)}
			a := r.s.Evaluate(ctx, pod)
			if a.Err != nil {
				return nil, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, a.Err)
			}
			if a.Node != "" && a.Error == nil {
				switch f := r.follow; {
				case f == nil:
				case main && f.Pod != nil:
					followWith(f.Pod, pod, a)
				case !main && f.Rerun != nil:
					followWith(f.Rerun, pod, a)
				}
			}
			if a.Node != "" && a.Error == nil {
				if err := r.s.Assume(ctx, pod, a); err != nil {
					a.fail(err)
					if a.Err != nil {
						return nil, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, a.Err)
					}
				} else {
					try.placed = true
					r.q.DeleteNominated(pod)
				}
			}
			try.a = a
			run.attempts = append(run.attempts, a)
			tries = append(tries, try)
			if main && r.OnAttempt != nil {
				r.OnAttempt(pod, a)
			}
			if a.Error != nil {
				pluginErr = a.Error
				break
			}
			remaining--
			if try.placed {
				scheduled++
			}
			if st = feasible(); st.code == framework.Unschedulable {
				break
			}
			anyScheduled = anyScheduled || try.placed
		}
		if st.code == framework.Wait {
			st = groupStatus{code: framework.Unschedulable, reasons: st.reasons, wrapped: true}
		}
	}
	run.tries, run.st, run.pluginErr, run.anyScheduled = tries, st, pluginErr, anyScheduled
	return run, nil
}

// forgetGroup takes back the pods a pod group algorithm assumed, last
// first, with the nominations they had.
func (r *Replayer) forgetGroup(ctx context.Context, pods []*v1.Pod, tries []*groupTry) {
	for i := len(tries) - 1; i >= 0; i-- {
		if tries[i].placed {
			r.s.Forget(ctx, pods[i], tries[i].a, tries[i].nominated)
			if tries[i].nominated != "" {
				r.q.AddNominated(pods[i], &queue.Nomination{Override: true, Node: tries[i].nominated})
			}
			tries[i].placed = false
		}
	}
}

// groupOutcomes fills in the pods' outcomes and the PodGroup's condition
// after a pod group cycle.
func (r *Replayer) groupOutcomes(gc *GroupCycle, pg *schedulingv1beta1.PodGroup, pods []*v1.Pod) *GroupCycle {
	for _, pod := range pods {
		gc.Results = append(gc.Results, r.outcomes[pod])
	}
	if ph := r.groupPhases[pg.Namespace+"/"+pg.Name]; ph != nil {
		gc.Condition = *ph
	}
	return gc
}

// groupPodOutcome is the result entry of a gang's pod after an attempt.
func (r *Replayer) groupPodOutcome(pod *v1.Pod, a *Attempt) *result.Pod {
	out := &result.Pod{Namespace: pod.Namespace, Name: pod.Name, Priority: corev1helpers.PodPriority(pod)}
	if a != nil {
		out.FeasibleNodes, out.EvaluatedNodes = a.FeasibleNodes, a.EvaluatedNodes
	}
	r.outcomes[pod] = out
	return out
}

func tryAt(tries []*groupTry, i int) *groupTry {
	if i < len(tries) {
		return tries[i]
	}
	return nil
}

// groupPodFailed records a gang's pod that stays pending with kube's
// message; try, when the cycle reached the pod, is its attempt.
func (r *Replayer) groupPodFailed(pod *v1.Pod, reason, msg string, try *groupTry) {
	var a *Attempt
	if try != nil {
		a = try.a
	}
	out := r.groupPodOutcome(pod, a)
	out.Phase, out.Reason, out.Message = result.PhaseUnschedulable, reason, msg
	if a == nil || a.Node != "" {
		return
	}
	if a.Error != nil {
		out.Reasons = []result.Reason{{Plugin: a.Error.Plugin, Reason: result.ReasonSchedulerError}}
		return
	}
	out.DeviceReasons = diagnose(context.Background(), r.c, r.s.profile, a)
	for _, rj := range a.Rejections {
		out.Reasons = append(out.Reasons, result.Reason{Plugin: rj.Plugin, Reason: rj.Reason, Nodes: rj.Nodes})
	}
}

// setGroupCondition records the pod group's PodGroupInitiallyScheduled
// condition; once the gang was placed, a later failure (of pods added
// after it) does not take that back, as in kube.
func (r *Replayer) setGroupCondition(pg *schedulingv1beta1.PodGroup, phase, msg string) {
	key := pg.Namespace + "/" + pg.Name
	if prev := r.groupPhases[key]; prev != nil && prev.Phase == result.PodGroupScheduled && phase != result.PodGroupScheduled {
		return
	}
	r.groupPhases[key] = &result.PodGroup{Phase: phase, Message: msg}
	setPodGroupCondition(pg, phase, msg)
}

// setGroupBlocker names the member that fit nowhere in the last attempt.
func (r *Replayer) setGroupBlocker(pg *schedulingv1beta1.PodGroup, pods []*v1.Pod, tries []*groupTry) {
	ph := r.groupPhases[pg.Namespace+"/"+pg.Name]
	if ph == nil || ph.Phase == result.PodGroupScheduled {
		return
	}
	ph.Blocker = ""
	for i, try := range tries {
		if try.a.Node == "" || try.a.Error != nil {
			ph.Blocker = pods[i].Namespace + "/" + pods[i].Name
			return
		}
	}
}

// validateGroup is kube's validatePodGroup with PodGroupPreemptionPolicy
// off: every pod of the gang, pending or placed, has the gang's priority,
// and they all have the same preemption policy.
func (r *Replayer) validateGroup(pg *schedulingv1beta1.PodGroup, pods []*v1.Pod) error {
	prio := cluster.PodGroupPriority(pg)
	var policy v1.PreemptionPolicy
	check := func(pod *v1.Pod) error {
		if p := corev1helpers.PodPriority(pod); p != prio {
			return fmt.Errorf("all pods in a single pod group should have the same priority as the pod group's priority, got %d and %d", p, prio)
		}
		pp := v1.PreemptLowerPriority
		if pod.Spec.PreemptionPolicy != nil {
			pp = *pod.Spec.PreemptionPolicy
		}
		if policy == "" {
			policy = pp
		} else if pp != policy {
			return fmt.Errorf("all pods in a single pod group should have the same preemption policy, got %v and %v", pp, policy)
		}
		return nil
	}
	for _, pod := range pods {
		if err := check(pod); err != nil {
			return err
		}
	}
	for _, pod := range r.c.GroupMembers(pg.Namespace, pg.Name) {
		if pod.Spec.NodeName == "" {
			continue
		}
		if err := check(pod); err != nil {
			return err
		}
	}
	return nil
}

// podGroupPostFilter runs the PodGroupPostFilter plugins for a gang that
// did not fit (kube's RunPodGroupPostFilterPlugins): DynamicResources
// frees the allocated claims of the gang's pods that no node could use,
// as its PostFilter does for one pod, then DefaultPreemption looks for
// victims for the whole gang (groupPreemption). It returns the verdict's
// message (a plugin that succeeds or finds the gang unresolvable has the
// only word), the claims to deallocate and the preemption decision, or
// the error a plugin failed with.
func (r *Replayer) podGroupPostFilter(ctx context.Context, pg *schedulingv1beta1.PodGroup, pods []*v1.Pod, tries []*groupTry) (string, []*resourceapi.ResourceClaim, *GroupPreemption, error) {
	states := make([]*framework.CycleState, len(tries))
	for i, try := range tries {
		states[i] = try.a.State
	}
	pre := &groupPreemptionPlugin{r: r, pg: pg, pods: pods}
	var last []framework.PodGroupPostFilterPlugin
	if r.s.profile.Preemption {
		last = append(last, pre)
	}
	res, st := r.s.profile.RunPodGroupPostFilter(ctx, states, pods, last...)
	if pre.err != nil {
		return "", nil, nil, fmt.Errorf("pod group %s/%s: %w", pg.Namespace, pg.Name, pre.err)
	}
	if st.Code() == framework.Error {
		return "", nil, nil, st.Err()
	}
	return st.Message(), res.Deallocate, pre.result, nil
}

// groupPreemptionPlugin is DefaultPreemption's PodGroupPostFilter
// (groupPreemption) for one pod group cycle, run by the framework after
// the profile's plugins; its decision and a failure are kept for the
// caller.
type groupPreemptionPlugin struct {
	r      *Replayer
	pg     *schedulingv1beta1.PodGroup
	pods   []*v1.Pod
	result *GroupPreemption
	err    error
}

var _ framework.PodGroupPostFilterPlugin = (*groupPreemptionPlugin)(nil)

func (p *groupPreemptionPlugin) Name() string { return PreemptionPlugin }

// PodGroupPostFilter succeeds when the gang can be placed after the
// victims go, and finds it unresolvable when no victims could help: in
// both cases its message is the only word.
func (p *groupPreemptionPlugin) PodGroupPostFilter(ctx context.Context, _ []*framework.CycleState, _ []*v1.Pod) (*framework.PostFilterResult, *framework.Status) {
	if p.result, p.err = p.r.groupPreemption(ctx, p.pg, p.pods); p.err != nil {
		return nil, framework.AsStatus(p.err)
	}
	switch gp := p.result; {
	case gp.Success:
		return nil, framework.NewStatus(framework.Success, gp.Message)
	case gp.Unresolvable:
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, gp.Message)
	}
	return nil, framework.NewStatus(framework.Unschedulable, p.result.Message)
}

// setPodGroupCondition sets the PodGroupInitiallyScheduled condition the
// scheduler writes to a pod group after each attempt.
func setPodGroupCondition(pg *schedulingv1beta1.PodGroup, phase, msg string) {
	cond := metav1.Condition{Type: schedulingv1beta1.PodGroupInitiallyScheduled, Status: metav1.ConditionFalse, Reason: phase, Message: msg, ObservedGeneration: pg.Generation}
	if phase == result.PodGroupScheduled {
		cond.Status = metav1.ConditionTrue
	}
	for i := range pg.Status.Conditions {
		if pg.Status.Conditions[i].Type == cond.Type {
			pg.Status.Conditions[i] = cond
			return
		}
	}
	pg.Status.Conditions = append(pg.Status.Conditions, cond)
}

// gangResults gives the gangs' pods that were never tried (GangScheduling
// kept them out of the activeQ, or their PodGroup does not exist) an
// outcome: pending, with PreEnqueue's word for why.
func (r *Replayer) gangResults() {
	if !r.c.GangsEnabled() {
		return
	}
	for _, pod := range r.c.Queue() {
		if r.outcomes[pod] != nil || pod.Spec.NodeName != "" {
			continue
		}
		pg, name := r.c.PodGroupOf(pod)
		if name == "" {
			continue
		}
		msg := fmt.Sprintf("waiting for pods's pod group %q to appear in scheduling queue", name)
		if pg != nil {
			msg = gangWaitingMessage
		}
		r.outcomes[pod] = &result.Pod{Namespace: pod.Namespace, Name: pod.Name, Priority: corev1helpers.PodPriority(pod), Phase: result.PhaseGated, Message: msg}
	}
}

// addPodGroups lists the pod groups in the result, and each pod's group.
// With the gate off they are listed as the snapshot has them (phase
// GateOff), to show which gangs were placed only in part.
func (r *Replayer) addPodGroups(res *result.Result) {
	gangs := r.c.GangsEnabled()
	groups := r.c.PodGroups()
	if !gangs {
		groups = r.c.Snapshot().PodGroups
	}
	index := map[string]*result.PodGroup{}
	for _, pg := range groups {
		key := pg.Namespace + "/" + pg.Name
		out := result.PodGroup{Namespace: pg.Namespace, Name: pg.Name, MinCount: cluster.MinCount(pg), Priority: cluster.PodGroupPriority(pg), Phase: result.PodGroupWaiting}
		if !gangs {
			out.Phase = result.PodGroupGateOff
		}
		if ph := r.groupPhases[key]; ph != nil {
			out.Phase, out.Message, out.Blocker = ph.Phase, ph.Message, ph.Blocker
		}
		res.PodGroups = append(res.PodGroups, out)
	}
	for i := range res.PodGroups {
		index[res.PodGroups[i].Namespace+"/"+res.PodGroups[i].Name] = &res.PodGroups[i]
	}
	groupOf := map[string]string{}
	if gangs {
		for _, list := range [][]*v1.Pod{r.c.Pods(), r.deleted} {
			for _, pod := range list {
				if name := cluster.PodGroupName(pod); name != "" {
					groupOf[pod.Namespace+"/"+pod.Name] = name
				}
			}
		}
	} else {
		// The cluster's pods lost the field, as the API server drops it;
		// the snapshot's still have it.
		for _, pod := range r.c.Snapshot().Pods {
			if name := cluster.PodGroupName(pod); name != "" {
				groupOf[pod.Namespace+"/"+pod.Name] = name
			}
		}
	}
	for i := range res.Pods {
		p := &res.Pods[i]
		name := groupOf[p.Namespace+"/"+p.Name]
		if name == "" {
			continue
		}
		if gangs {
			p.PodGroup = name
		}
		g := index[p.Namespace+"/"+name]
		if g == nil || p.Phase == result.PhasePreempted {
			continue
		}
		g.Pods++
		if p.Node != "" {
			g.Placed++
		} else {
			g.Pending++
		}
	}
	for i := range res.PodGroups {
		g := &res.PodGroups[i]
		g.Partial = g.Phase == result.PodGroupGateOff && g.Placed > 0 && g.Placed < g.MinCount
	}
}
