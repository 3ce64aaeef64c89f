package schedule

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/result"
	"github.com/drasim/drasim/sim/schedule/queue"
)

// DefaultPreemption's PodGroupPostFilter in kube-scheduler v1.37.2
// (framework/preemption/podgrouppreemption.go): a gang that did not fit
// may preempt anywhere in the cluster. Every running unit of lower
// priority (a pod, or all pods of a pod group with disruptionMode All)
// leaves the cluster at once, the pod group algorithm runs again on what
// is left, and if the gang then fits, the units are given back one by
// one, most important first (those whose deletion would violate a
// PodDisruptionBudget before the others), as long as every pod of the
// gang still passes the filters on the node the rerun chose for it. The
// units not given back are the victims; each pod of the gang is
// nominated to its node. As for one pod, taking a victim out frees its
// CPU, memory, pods and ports, not its devices.

// kube's words for a pod group's preemption.
const (
	podGroupPreemptionPrefix = "pod group preemption: "
	msgGroupNoVictims        = "No preemption victims found for incoming preemptor"
	msgGroupOngoing          = "ongoing preemption on nominated nodes"
	msgGroupFoundPlacement   = "found a placement for podgroup, preempting %d victims"
	// podGroupCandidate is the name kube gives the one candidate of a pod
	// group's preemption, the whole cluster: it stands where a pod's
	// preemption names the node (events, logs).
	podGroupCandidate = "cluster"
	// preemptorTypePodGroup is kube's word for a pod group preemptor in
	// the victims' DisruptionTarget condition.
	preemptorTypePodGroup = "podgroup"
)

// GroupPreemption is what DefaultPreemption's PodGroupPostFilter decided
// for a gang that did not fit.
type GroupPreemption struct {
	// Victims are the pods to delete, most important unit first.
	Victims []*v1.Pod
	// PDBViolators are the victims whose deletion a PodDisruptionBudget
	// did not allow.
	PDBViolators []*v1.Pod
	// GroupDisruptions counts the victim units that belong to pod groups.
	GroupDisruptions int
	// Nominations is each gang pod's nominated node after the decision,
	// keyed by the pod ("" clears); pods not listed keep theirs.
	Nominations map[*v1.Pod]string
	// Rerun are the attempts of the pod group algorithm's rerun on the
	// cluster without the potential victims, in the order of the cycle's
	// pods (fewer when it stopped early); nil when it did not run.
	Rerun []*Attempt
	// Message is the plugin's status ("pod group preemption: ...").
	Message string
	// Success is set when the gang waits for its preemption (new or
	// under way): its pods are nominated and it is retried when the
	// victims are gone.
	Success bool
	// Unresolvable is set when the status is UnschedulableAndUnresolvable:
	// the plugins before DefaultPreemption lose their say.
	Unresolvable bool
}

// victimUnit is one unit preemption may delete: a pod, or, with
// GenericWorkload, every placed pod of a pod group with disruptionMode
// All (kube's Victim).
type victimUnit struct {
	pods     []*framework.PodInfo
	priority int32
	// rank is kube's victimRank: 2 for a pod group and for a pod that
	// names one (kube's NewPodVictim counts it so), 1 for a plain pod.
	rank int
	// group is kube's IsGroup (counted in GroupDisruptions).
	group bool
	// started, start and index order units of equal priority, rank and
	// size as in moreImportant: the earliest start among the pods, and a
	// unit without one comes after those with one, in the order listed.
	started bool
	start   time.Time
	index   int
	// violating are its pods whose deletion a PodDisruptionBudget does
	// not allow (set by unitsViolatingPDBs).
	violating []*v1.Pod
}

// moreImportantUnit is kube's MoreImportantVictim: higher priority, then
// pod groups before pods, then more pods, then the earliest start.
func moreImportantUnit(a, b *victimUnit) bool {
	if a.priority != b.priority {
		return a.priority > b.priority
	}
	if a.rank != b.rank {
		return a.rank > b.rank
	}
	if len(a.pods) != len(b.pods) {
		return len(a.pods) > len(b.pods)
	}
	if a.started != b.started {
		return a.started
	}
	if a.started && !a.start.Equal(b.start) {
		return a.start.Before(b.start)
	}
	return a.index < b.index
}

// moreImportantNow is the MoreImportantPod of kube-scheduler before 1.37
// (pkg/scheduler/util): higher priority, then the earlier start time,
// where GetPodStartTime gives a pod without one time.Now() at each call.
// A start time drasim knows is in the past, so a started pod is the more
// important; of two pods without one, the first argument's now comes
// first, so it is the more important either way round.
func moreImportantNow(a, b *victimUnit) bool {
	if a.priority != b.priority {
		return a.priority > b.priority
	}
	switch {
	case a.started && b.started:
		return a.start.Before(b.start)
	case a.started || b.started:
		return a.started
	}
	return true
}

// sortVictims orders potential victims from the most important on, as
// DefaultPreemption's SelectVictimsOnNode does: 1.37's MoreImportantVictim
// (a total order, index last) or, for older releases, sort.Slice with
// MoreImportantPod, which is not an order when pods have no start time:
// the result is what sort.Slice's comparisons make of it, so drasim runs
// the same sort.
func (s *Scheduler) sortVictims(units []*victimUnit) {
	if s.opts.NowVictimOrder {
		sort.Slice(units, func(i, j int) bool { return moreImportantNow(units[i], units[j]) })
		return
	}
	sort.SliceStable(units, func(i, j int) bool { return moreImportantUnit(units[i], units[j]) })
}

// disruptsAll reports whether the pod group is preempted only as a whole.
func disruptsAll(pg *schedulingv1beta1.PodGroup) bool {
	return pg != nil && pg.Spec.DisruptionMode != nil && pg.Spec.DisruptionMode.All != nil
}

// victimUnits lists the running units on the nodes, as kube's
// GetVictimsOnNode and getCrossNodesVictims do: node by node, pod by pod;
// with GenericWorkload, a pod of a pod group with disruptionMode All
// brings in every placed pod of its group, on any node (once), and a
// unit's priority is its pod group's. Any other pod stands alone.
func (s *Scheduler) victimUnits(nodes []*framework.NodeInfo) []*victimUnit {
	var out []*victimUnit
	seen := map[string]bool{}
	add := func(v *victimUnit) {
		v.index = len(out)
		for _, pi := range v.pods {
			if st := pi.Pod.Status.StartTime; st != nil && (!v.started || st.Time.Before(v.start)) {
				v.started, v.start = true, st.Time
			}
		}
		out = append(out, v)
	}
	for _, ni := range nodes {
		for _, pi := range ni.Pods {
			pod := pi.Pod
			pg, name := s.c.PodGroupOf(pod)
			if !disruptsAll(pg) {
				v := &victimUnit{pods: []*framework.PodInfo{pi}, priority: s.victimPriority(pod), rank: 1}
				if name != "" {
					v.rank, v.group = 2, true
				}
				add(v)
				continue
			}
			key := pg.Namespace + "/" + pg.Name
			if seen[key] {
				continue
			}
			seen[key] = true
			v := &victimUnit{priority: cluster.PodGroupPriority(pg), rank: 2, group: true}
			for _, m := range s.c.GroupMembers(pg.Namespace, pg.Name) {
				if n := s.c.Node(m.Spec.NodeName); n != nil && m.Spec.NodeName != "" {
					if mi := podInfoOn(n, m); mi != nil {
						v.pods = append(v.pods, mi)
					}
				}
			}
			if len(v.pods) == 0 {
				v.pods = []*framework.PodInfo{pi}
			}
			add(v)
		}
	}
	return out
}

// victimPriority is a running pod's priority as preemption weighs it: its
// pod group's, when it has one (kube's GetPodPriority).
func (s *Scheduler) victimPriority(pod *v1.Pod) int32 {
	if pg, _ := s.c.PodGroupOf(pod); pg != nil {
		return cluster.PodGroupPriority(pg)
	}
	return corev1helpers.PodPriority(pod)
}

func podInfoOn(ni *framework.NodeInfo, pod *v1.Pod) *framework.PodInfo {
	for _, pi := range ni.Pods {
		if pi.Pod == pod {
			return pi
		}
	}
	return nil
}

// groupPreemption is DefaultPreemption's PodGroupPostFilter for the gang
// whose pods (in the cycle's order) did not fit. It leaves the cluster as
// it found it: victims are deleted by whoever carries the decision out.
func (r *Replayer) groupPreemption(ctx context.Context, pg *schedulingv1beta1.PodGroup, pods []*v1.Pod) (*GroupPreemption, error) {
	gp := &GroupPreemption{}
	done := func(msg string) *GroupPreemption {
		gp.Message = podGroupPreemptionPrefix + msg
		return gp
	}
	for _, pod := range pods {
		if p := pod.Spec.PreemptionPolicy; p != nil && *p == v1.PreemptNever {
			return done(msgPolicyNever), nil
		}
	}
	prio := cluster.PodGroupPriority(pg)
	if r.ongoingGroupPreemption(pods, prio) {
		gp.Success = true
		gp.Nominations = map[*v1.Pod]string{}
		for _, pod := range pods {
			gp.Nominations[pod] = pod.Status.NominatedNodeName
		}
		return done(msgGroupOngoing), nil
	}
	var potential []*victimUnit
	for _, v := range r.s.victimUnits(r.c.Nodes()) {
		if v.priority < prio {
			potential = append(potential, v)
		}
	}
	if len(potential) == 0 {
		gp.Unresolvable = true
		return done(msgGroupNoVictims), nil
	}

	// The dry run works on the cluster itself, as kube's on its mutable
	// snapshot, and puts every node it touched back as it was.
	restore := r.removeUnits(potential)
	defer restore()
	for _, v := range potential {
		for _, pi := range v.pods {
			if err := r.c.Node(pi.Pod.Spec.NodeName).RemovePod(pi.Pod); err != nil {
				return nil, err
			}
		}
	}

	run, err := r.runGroup(ctx, pg, pods, false)
	if err != nil {
		return nil, err
	}
	gp.Rerun = run.attempts
	var assigned []*groupTry
	var assignedPods []*v1.Pod
	for i, try := range run.tries {
		if try.placed {
			assigned = append(assigned, try)
			assignedPods = append(assignedPods, pods[i])
		}
	}
	// The rerun's assumptions are taken back before the victims are
	// given back; each pod keeps its cycle state from the rerun (built
	// with the pods before it assumed).
	nodes := make([]string, len(assigned))
	for i, try := range assigned {
		nodes[i] = try.a.Node
	}
	r.forgetGroup(ctx, pods[:len(run.tries)], run.tries)
	if st := groupRunStatus(run); st.code != framework.Success {
		if run.pluginErr != nil {
			return nil, fmt.Errorf("pod group preemption: %w", run.pluginErr)
		}
		gp.Unresolvable = st.code == framework.UnschedulableAndUnresolvable
		return done(st.message()), nil
	}

	if err := r.groupVictims(ctx, gp, potential, assigned, assignedPods, nodes); err != nil {
		return nil, err
	}
	gp.Success = true
	gp.Nominations = map[*v1.Pod]string{}
	for i, pod := range assignedPods {
		gp.Nominations[pod] = nodes[i]
	}
	return done(fmt.Sprintf(msgGroupFoundPlacement, len(gp.Victims))), nil
}

// removeUnits readies the dry run's removal of the units' pods: it
// returns the function that puts every node they run on back as it was.
func (r *Replayer) removeUnits(units []*victimUnit) (restore func()) {
	saved := map[*framework.NodeInfo][]*framework.PodInfo{}
	var touched []*framework.NodeInfo
	for _, v := range units {
		for _, pi := range v.pods {
			ni := r.c.Node(pi.Pod.Spec.NodeName)
			if _, ok := saved[ni]; !ok {
				saved[ni] = slices.Clone(ni.Pods)
				touched = append(touched, ni)
			}
		}
	}
	return func() {
		for _, ni := range touched {
			for len(ni.Pods) > 0 {
				_ = ni.RemovePod(ni.Pods[len(ni.Pods)-1].Pod)
			}
			for _, pi := range saved[ni] {
				ni.AddPodInfo(pi)
			}
		}
	}
}

// groupVictims gives back ("reprieves") as many of the potential units as
// the gang's placement allows, most important first, those whose
// deletion would violate a PodDisruptionBudget before the others, and
// records the rest as the victims.
func (r *Replayer) groupVictims(ctx context.Context, gp *GroupPreemption, potential []*victimUnit, assigned []*groupTry, assignedPods []*v1.Pod, nodes []string) error {
	sort.SliceStable(potential, func(i, j int) bool { return moreImportantUnit(potential[i], potential[j]) })
	violating, nonViolating := unitsViolatingPDBs(potential, r.c.PDBs())
	var victims []*victimUnit
	for _, v := range violating {
		fits, err := r.reprieveUnit(ctx, v, assigned, assignedPods, nodes)
		if err != nil {
			return err
		}
		if !fits {
			victims = append(victims, v)
			gp.PDBViolators = append(gp.PDBViolators, v.violating...)
		}
	}
	for _, v := range nonViolating {
		fits, err := r.reprieveUnit(ctx, v, assigned, assignedPods, nodes)
		if err != nil {
			return err
		}
		if !fits {
			victims = append(victims, v)
		}
	}
	sort.SliceStable(victims, func(i, j int) bool { return moreImportantUnit(victims[i], victims[j]) })
	for _, v := range victims {
		if v.group {
			gp.GroupDisruptions++
		}
		for _, pi := range v.pods {
			gp.Victims = append(gp.Victims, pi.Pod)
		}
	}
	return nil
}

// groupRunStatus is the status of a pod group algorithm's run as kube's
// runRootSchedulingAlgorithm returns it: a success that placed nobody is
// no success.
func groupRunStatus(run *groupRun) groupStatus {
	if run.pluginErr != nil {
		return groupStatus{code: framework.Error}
	}
	if run.st.code == framework.Success && !run.anyScheduled {
		return groupStatus{code: framework.Unschedulable, wrapped: true}
	}
	return run.st
}

// reprieveUnit gives a unit back to the cluster and checks, pod of the
// gang after pod of the gang in the rerun's order, that each still
// passes the filters on its node with the ones before it assumed there
// (kube's reprieveVictim). When one does not, the unit leaves again and
// is a victim. The gang's pods are taken back either way.
func (r *Replayer) reprieveUnit(ctx context.Context, v *victimUnit, assigned []*groupTry, pods []*v1.Pod, nodes []string) (bool, error) {
	for _, pi := range v.pods {
		ni := r.c.Node(pi.Pod.Spec.NodeName)
		ni.AddPodInfo(pi)
		for i, try := range assigned {
			if err := r.s.profile.RunPreFilterExtensionAddPod(try.a.State, pods[i], pi, ni); err != nil {
				return false, err
			}
		}
	}
	var assumed []int
	defer func() {
		for k := len(assumed) - 1; k >= 0; k-- {
			i := assumed[k]
			r.s.Forget(ctx, pods[i], assigned[i].a, assigned[i].nominated)
		}
	}()
	for i, try := range assigned {
		ni := r.c.Node(nodes[i])
		r.s.prepareNominated(pods[i])
		if st := r.s.filterNode(ctx, try.a.State, pods[i], ni); !st.IsSuccess() {
			for _, pi := range v.pods {
				ni := r.c.Node(pi.Pod.Spec.NodeName)
				if err := ni.RemovePod(pi.Pod); err != nil {
					return false, err
				}
				for j, t := range assigned {
					if err := r.s.profile.RunPreFilterExtensionRemovePod(t.a.State, pods[j], pi, ni); err != nil {
						return false, err
					}
				}
			}
			return false, nil
		}
		if err := r.s.Assume(ctx, pods[i], try.a); err != nil {
			return false, err
		}
		assumed = append(assumed, i)
	}
	return true, nil
}

// unitsViolatingPDBs is kube's FilterVictimsWithPDBViolation over units:
// a unit any of whose pods would exceed a budget is violating as a whole.
func unitsViolatingPDBs(units []*victimUnit, pdbs []*policyv1.PodDisruptionBudget) (violating, nonViolating []*victimUnit) {
	allowed := make([]int32, len(pdbs))
	for i, pdb := range pdbs {
		allowed[i] = pdb.Status.DisruptionsAllowed
	}
	for _, v := range units {
		v.violating = nil
		for _, pi := range v.pods {
			if podViolatesPDB(pi.Pod, pdbs, allowed) {
				v.violating = append(v.violating, pi.Pod)
			}
		}
		if len(v.violating) > 0 {
			violating = append(violating, v)
		} else {
			nonViolating = append(nonViolating, v)
		}
	}
	return violating, nonViolating
}

// ongoingGroupPreemption is kube's isOngoingPreemption for a pod group:
// one of the gang's nominated nodes still holds a pod of lower priority
// that a preemption is deleting.
func (r *Replayer) ongoingGroupPreemption(pods []*v1.Pod, prio int32) bool {
	for _, pod := range pods {
		ni := r.c.Node(pod.Status.NominatedNodeName)
		if ni == nil || pod.Status.NominatedNodeName == "" {
			continue
		}
		for _, pi := range ni.Pods {
			if r.s.victimPriority(pi.Pod) < prio && terminatingByPreemption(pi.Pod) {
				return true
			}
		}
	}
	return false
}

// carryOutGroupPreemption does what kube's executor does with a pod
// group's preemption: every victim gets its DisruptionTarget condition
// and is deleted (the controllers then release its claims), and the
// gang's pods are nominated to the nodes the rerun chose.
func (r *Replayer) carryOutGroupPreemption(pg *schedulingv1beta1.PodGroup, pods []*v1.Pod, gp *GroupPreemption, t queue.Time) {
	for _, pod := range pods {
		if node, ok := gp.Nominations[pod]; ok {
			r.Nominate(pod, node, t)
		}
	}
	if len(gp.Victims) == 0 {
		return
	}
	violators := podSet(gp.PDBViolators)
	key := pg.Namespace + "/" + pg.Name
	var victims []string
	for _, v := range gp.Victims {
		victims = append(victims, v.Namespace+"/"+v.Name)
	}
	// Each pod of the gang shows the gang's preemption, with the node it
	// is nominated to, once it is placed (see scheduled).
	for _, pod := range pods {
		if node, ok := gp.Nominations[pod]; ok && node != "" {
			r.preemptions[pod] = &result.Preemption{Node: node, Victims: victims, PDBViolations: len(gp.PDBViolators)}
		}
	}
	reason := fmt.Sprintf("%s: preempting to accommodate a higher priority %s", schedulerName(pods[0]), preemptorTypePodGroup)
	for _, v := range gp.Victims {
		claims := r.ClaimsOf(v)
		r.recordVictim(v, result.PreemptedBy{Pod: key, PodGroup: true, Priority: cluster.PodGroupPriority(pg), Node: v.Spec.NodeName,
			PDBViolation: violators[v], Reason: reason},
			fmt.Sprintf("Preempted by %s %s on node %s", preemptorTypePodGroup, key, podGroupCandidate))
		r.DeleteVictim(v, t)
		r.countDisruption(v)
		r.deferred = append(r.deferred, func(t queue.Time) { r.releaseClaims(v, claims, t) })
	}
}
