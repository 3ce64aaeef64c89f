package schedule

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/queue"
)

// The DefaultPreemption PostFilter of kube-scheduler v1.37.2
// (framework/plugins/defaultpreemption and framework/preemption): when a
// pod fits nowhere, find nodes where deleting lower-priority pods would let
// it pass every filter, pick one, delete the fewest and least important
// pods there and nominate the pod to the node.
//
// What the dry run frees: removing a victim gives back its CPU, memory,
// pods and ports (NodeInfo.RemovePod) and changes what topology spread and
// inter-pod affinity count (their PreFilter extensions). It does NOT free
// the victim's devices: DynamicResources has no PreFilter extensions in
// v1.37.2 and its allocator keeps the allocated devices it saw in PreFilter,
// so a node where the pod needs the victims' devices fails the dry run
// ("cannot allocate all claims"), and a node DynamicResources rejected is
// UnschedulableAndUnresolvable and never a candidate.

// PreemptionPlugin is DefaultPreemption's name in kube's profile.
const PreemptionPlugin = "DefaultPreemption"

// kube's DefaultPreemptionArgs defaults.
const (
	minCandidateNodesPercentage = 10
	minCandidateNodesAbsolute   = 100
)

// kube's words.
const (
	preemptionPrefix          = "preemption: "
	msgPolicyNever            = "not eligible due to preemptionPolicy=Never."
	msgVictimsTerminating     = "not eligible due to a terminating pod on the nominated node."
	msgNoVictims              = "No preemption victims found for incoming pod"
	msgNotHelpful             = "Preemption is not helpful for scheduling"
	msgFoundPlacement         = "found a potential placement for pod on node %v, preempting %d victims"
	victimConditionMessageFmt = "%s: preempting to accommodate a higher priority pod"
)

// Preemption is what DefaultPreemption decided for a pod that fit nowhere.
type Preemption struct {
	// Node is the node the pod is nominated to; empty when preemption did
	// not help (or the pod may not preempt).
	Node string
	// Victims are the pods to delete on Node, most important first.
	Victims []*v1.Pod
	// PDBViolators are the victims whose deletion a PodDisruptionBudget
	// did not allow.
	PDBViolators []*v1.Pod
	// Candidates are the nodes where the dry run found victims, in the
	// order it visited them.
	Candidates []PreemptionCandidate
	// Rejected are the nodes where it did not, with the reason.
	Rejected []NodeResult
	// Message is kube's PostFilter message ("preemption: ..."), which
	// follows the pod's FitError message.
	Message string
	// Nomination is what happens to the pod's nominated node: nil keeps
	// it, otherwise it is set to Node (cleared when Node is empty).
	Nomination *queue.Nomination
	// offsetDraw is the bound of the dry run's draw of its random offset
	// (the number of potential nodes), 0 when there was no dry run.
	offsetDraw int
}

// PreemptionCandidate is one node where deleting victims would let the
// pod fit.
type PreemptionCandidate struct {
	Node         string
	Victims      []*v1.Pod
	PDBViolators []*v1.Pod
	// LostOn names the rule that ruled the node out when another was
	// chosen: "pdb-violations", "highest-priority", "sum-of-priorities",
	// "number-of-victims", "start-time" or "random" (kube's last
	// tie-break is the order of a map).
	LostOn string
}

// Preempt runs DefaultPreemption's PostFilter for a pod whose attempt a
// found no node. It decides; it deletes nothing.
func (s *Scheduler) Preempt(ctx context.Context, pod *v1.Pod, a *Attempt) (*Preemption, error) {
	p := &Preemption{}
	if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy == v1.PreemptNever {
		p.Message = preemptionPrefix + msgPolicyNever
		return p, nil
	}
	if s.waitsForVictims(pod, a) {
		p.Message = preemptionPrefix + msgVictimsTerminating
		return p, nil
	}
	nodes := s.c.Nodes()
	potential := a.Potential
	if len(potential) > 0 && a.State != nil {
		if err := s.dryRun(ctx, pod, a.State, potential, p); err != nil {
			return nil, err
		}
	}
	if len(p.Candidates) == 0 {
		p.Nomination = &queue.Nomination{Override: true}
		rejections := map[[2]string]int{}
		for _, r := range p.Rejected {
			for _, reason := range r.Status.Reasons() {
				rejections[[2]string{r.Status.Plugin(), reason}]++
			}
		}
		if absent := len(nodes) - len(p.Rejected); absent > 0 {
			rejections[[2]string{PreemptionPlugin, msgNotHelpful}] += absent
		}
		d := framework.Diagnosis{Rejections: framework.SortRejections(rejections)}
		p.Message = preemptionPrefix + d.FitMessage(len(nodes))
		return p, nil
	}
	best := s.pickOneNodeForPreemption(p.Candidates)
	c := p.Candidates[best]
	p.Node, p.Victims, p.PDBViolators = c.Node, c.Victims, c.PDBViolators
	p.Nomination = &queue.Nomination{Override: true, Node: c.Node}
	if !s.opts.QuietPreemption {
		p.Message = preemptionPrefix + fmt.Sprintf(msgFoundPlacement, c.Node, len(c.Victims))
	}
	return p, nil
}

// waitsForVictims is the rest of kube's PodEligibleToPreemptOthers: a
// pod whose nominated node still holds a pod of lower priority that a
// preemption is deleting waits for it to be gone rather than preempt
// again, unless the filters found that node UnschedulableAndUnresolvable
// (not among the attempt's potential nodes). A replay deletes victims at
// once, so it never waits; the step-wise check, which follows the real
// scheduler's log, has victims terminate for a while (MarkTerminating).
func (s *Scheduler) waitsForVictims(pod *v1.Pod, a *Attempt) bool {
	ni := s.c.Node(pod.Status.NominatedNodeName)
	if ni == nil || !slices.Contains(a.Potential, ni) {
		return false
	}
	prio := corev1helpers.PodPriority(pod)
	for _, pi := range ni.Pods {
		if s.victimPriority(pi.Pod) < prio && terminatingByPreemption(pi.Pod) {
			return true
		}
	}
	return false
}

// terminatingByPreemption is kube's PodTerminatingByPreemption: the pod is
// being deleted, and a scheduler's preemption is why.
func terminatingByPreemption(p *v1.Pod) bool {
	if p.DeletionTimestamp == nil {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == v1.DisruptionTarget {
			return c.Status == v1.ConditionTrue && c.Reason == v1.PodReasonPreemptionByScheduler
		}
	}
	return false
}

// MarkTerminating does to a victim what kube's preemption executor does
// before the victim is gone: the DisruptionTarget condition, then the
// deletion that sets its deletion timestamp. The pod stays on its node
// (and counts there) until it is deleted. A replay deletes victims at
// once; the step-wise check uses this to follow the real scheduler's log.
func MarkTerminating(victim, preemptor *v1.Pod) {
	markTerminating(victim, fmt.Sprintf(victimConditionMessageFmt, schedulerName(preemptor)))
}

// MarkTerminatingByGroup is MarkTerminating for a victim of a pod group's
// preemption (members are the group's pods: kube names the scheduler of
// the first).
func MarkTerminatingByGroup(victim *v1.Pod, members []*v1.Pod) {
	name := v1.DefaultSchedulerName
	if len(members) > 0 {
		name = schedulerName(members[0])
	}
	markTerminating(victim, fmt.Sprintf("%s: preempting to accommodate a higher priority %s", name, preemptorTypePodGroup))
}

func markTerminating(victim *v1.Pod, msg string) {
	setCondition(victim, v1.PodCondition{Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: v1.PodReasonPreemptionByScheduler,
		Message: msg})
	if victim.DeletionTimestamp == nil {
		// Any time will do: only its presence is read.
		victim.DeletionTimestamp = &metav1.Time{}
	}
}

// dryRun visits the potential nodes from a random offset, as kube does,
// until it has enough candidates (at least one without PDB violations),
// and records each node's outcome in p. kube visits the nodes with 16
// workers; drasim's outcome is the one a sequential visit gives.
func (s *Scheduler) dryRun(ctx context.Context, pod *v1.Pod, state *framework.CycleState, potential []*framework.NodeInfo, p *Preemption) error {
	n := len(potential)
	want := min(max(n*minCandidateNodesPercentage/100, minCandidateNodesAbsolute), n)
	offset := s.preemptionRand().IntN(n)
	p.offsetDraw = n
	var nonViolating, violating []PreemptionCandidate
	// Most nodes of a dry run that finds no candidate are rejected.
	p.Rejected = slices.Grow(p.Rejected, n)
	for i := 0; i < n; i++ {
		if len(nonViolating) > 0 && len(nonViolating)+len(violating) >= want {
			break
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		ni := potential[(offset+i)%n]
		victims, violators, st, err := s.selectVictimsOnNode(ctx, state, pod, ni)
		if err != nil {
			return fmt.Errorf("preemption dry run on node %s: %w", ni.Node().Name, err)
		}
		if st.IsSuccess() {
			if len(victims) == 0 {
				return fmt.Errorf("preemption dry run: expected at least one victim pod on node %q", ni.Node().Name)
			}
			c := PreemptionCandidate{Node: ni.Node().Name, Victims: victims, PDBViolators: violators}
			if len(violators) == 0 {
				nonViolating = append(nonViolating, c)
			} else {
				violating = append(violating, c)
			}
			continue
		}
		if st.Code() == framework.Error {
			return fmt.Errorf("preemption dry run on node %s: %w", ni.Node().Name, st.Err())
		}
		if st.Plugin() == "" {
			st.WithPlugin(PreemptionPlugin)
		}
		p.Rejected = append(p.Rejected, NodeResult{Node: ni.Node().Name, Status: st})
	}
	p.Candidates = append(nonViolating, violating...)
	return nil
}

// preemptionRand is the source of kube's random choices in preemption
// (the dry run's offset, the last tie between candidates), seeded by the
// run's seed apart from the host tie-break's source.
func (s *Scheduler) preemptionRand() *rand.Rand {
	if s.preemptRng == nil {
		s.preemptRng = rand.New(rand.NewPCG(uint64(s.opts.Seed), 0x707265656d7074))
	}
	return s.preemptRng
}

// lowestPriority is a node's lowest pod priority, as computed for a
// NodeInfo at a Generation.
type lowestPriority struct {
	ni     *framework.NodeInfo
	gen    int64
	lowest int32
	pods   bool
}

// hasVictimBelow reports whether a pod of the node has a victimPriority
// below prio. Most dry runs end there on most nodes: a pod that waits in a
// full cluster looks at every node's pods in each dry run, and reading
// them was most of preemption's time in the timeline. Without pod groups
// a victim's priority is its pod's own, which never changes, so the
// lowest one is kept per node until its NodeInfo changes (its Generation)
// or is replaced.
func (s *Scheduler) hasVictimBelow(ni *framework.NodeInfo, prio int32) bool {
	if s.c.GangsEnabled() || ni.Index < 0 {
		return slices.ContainsFunc(ni.Pods, func(pi *framework.PodInfo) bool { return s.victimPriority(pi.Pod) < prio })
	}
	if ni.Index >= len(s.lowest) {
		s.lowest = append(s.lowest, make([]lowestPriority, ni.Index+1-len(s.lowest))...)
	}
	l := &s.lowest[ni.Index]
	if l.ni != ni || l.gen != ni.Generation {
		*l = lowestPriority{ni: ni, gen: ni.Generation, pods: len(ni.Pods) > 0}
		for i, pi := range ni.Pods {
			if p := corev1helpers.PodPriority(pi.Pod); i == 0 || p < l.lowest {
				l.lowest = p
			}
		}
	}
	return l.pods && l.lowest < prio
}

// noVictims is the status of a node without a pod to preempt, one value
// for every such node (most of a dry run's nodes); it names its plugin
// already, so that nothing changes it.
func (s *Scheduler) noVictims() *framework.Status {
	if s.noVictimsStatus == nil {
		s.noVictimsStatus = framework.NewStatus(framework.UnschedulableAndUnresolvable, msgNoVictims).WithPlugin(PreemptionPlugin)
	}
	return s.noVictimsStatus
}

// selectVictimsOnNode is kube's SelectVictimsOnNode: remove every
// lower-priority unit (a pod; with GenericWorkload, every placed pod of a
// pod group with disruptionMode All, wherever it runs), check that the
// pod then fits, and give back ("reprieve") as many units as possible,
// most important first, those whose deletion would violate a
// PodDisruptionBudget before the others. Only the node's own copy loses
// and regains pods; a unit's pods on other nodes leave only the PreFilter
// extensions' state, as in kube. Neither cycleState nor nodeInfo is
// changed.
func (s *Scheduler) selectVictimsOnNode(ctx context.Context, cycleState *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) (victimPods, violators []*v1.Pod, _ *framework.Status, _ error) {
	prio := corev1helpers.PodPriority(pod)
	main := nodeInfo.Node().Name
	// A unit's priority is that of each of its pods (victimPriority), so
	// a node without a lower-priority pod has no unit to look at.
	if !s.hasVictimBelow(nodeInfo, prio) {
		return nil, nil, s.noVictims(), nil
	}
	var potential []*victimUnit
	for _, v := range s.victimUnits([]*framework.NodeInfo{nodeInfo}) {
		if v.priority < prio {
			potential = append(potential, v)
		}
	}
	if len(potential) == 0 {
		return nil, nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, msgNoVictims), nil
	}
	// kube copies the cycle state and the node before it looks for
	// victims; nothing reads the copies on a node without any, where most
	// dry runs end, so drasim copies them only now.
	state, ni := cycleState.Clone(), nodeInfo.Clone()
	nodeOf := func(pi *framework.PodInfo) *framework.NodeInfo {
		if pi.Pod.Spec.NodeName == main {
			return ni
		}
		return s.c.Node(pi.Pod.Spec.NodeName)
	}
	remove := func(v *victimUnit) error {
		for _, pi := range v.pods {
			if pi.Pod.Spec.NodeName == main {
				if err := ni.RemovePod(pi.Pod); err != nil {
					return err
				}
			}
			if err := s.profile.RunPreFilterExtensionRemovePod(state, pod, pi, nodeOf(pi)); err != nil {
				return err
			}
		}
		return nil
	}
	add := func(v *victimUnit) error {
		for _, pi := range v.pods {
			if pi.Pod.Spec.NodeName == main {
				ni.AddPodInfo(pi)
			}
			if err := s.profile.RunPreFilterExtensionAddPod(state, pod, pi, nodeOf(pi)); err != nil {
				return err
			}
		}
		return nil
	}
	for _, v := range potential {
		if err := remove(v); err != nil {
			return nil, nil, nil, err
		}
	}
	if st := s.filterNode(ctx, state, pod, ni); !st.IsSuccess() {
		return nil, nil, st, nil
	}
	s.sortVictims(potential)
	violating, nonViolating := unitsViolatingPDBs(potential, s.c.PDBs())
	var victims []*victimUnit
	reprieve := func(v *victimUnit) (bool, error) {
		if err := add(v); err != nil {
			return false, err
		}
		if st := s.filterNode(ctx, state, pod, ni); st.IsSuccess() {
			return true, nil
		}
		if err := remove(v); err != nil {
			return false, err
		}
		victims = append(victims, v)
		return false, nil
	}
	for _, v := range violating {
		fits, err := reprieve(v)
		if err != nil {
			return nil, nil, nil, err
		}
		if !fits {
			violators = append(violators, v.violating...)
		}
	}
	for _, v := range nonViolating {
		if _, err := reprieve(v); err != nil {
			return nil, nil, nil, err
		}
	}
	if len(violating) > 0 && len(nonViolating) > 0 {
		s.sortVictims(victims)
	}
	for _, v := range victims {
		for _, pi := range v.pods {
			victimPods = append(victimPods, pi.Pod)
		}
	}
	return victimPods, violators, nil, nil
}

func podViolatesPDB(pod *v1.Pod, pdbs []*policyv1.PodDisruptionBudget, allowed []int32) bool {
	if len(pod.Labels) == 0 {
		return false
	}
	for i, pdb := range pdbs {
		if !pdbSelects(pdb, pod) {
			continue
		}
		if _, disrupted := pdb.Status.DisruptedPods[pod.Name]; disrupted {
			continue
		}
		allowed[i]--
		if allowed[i] < 0 {
			return true
		}
	}
	return false
}

// pdbSelects reports whether the budget covers the pod: same namespace, a
// non-empty selector that matches.
func pdbSelects(pdb *policyv1.PodDisruptionBudget, pod *v1.Pod) bool {
	if pdb.Namespace != pod.Namespace {
		return false
	}
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil || sel.Empty() {
		return false
	}
	return sel.Matches(labels.Set(pod.Labels))
}

// pickOneNodeForPreemption is kube's choice among candidates: fewest PDB
// violations, then the lowest highest-victim priority, the lowest sum of
// priorities, the fewest victims, the latest start of the most important
// victims; what is still tied is kube's map order, drawn here from the
// seeded source. It records in each losing candidate why it lost.
func (s *Scheduler) pickOneNodeForPreemption(cands []PreemptionCandidate) int {
	if len(cands) == 1 {
		return 0
	}
	now := time.Unix(math.MaxInt32, 0) // later than any start time in a dump
	startOf := func(p *v1.Pod) time.Time {
		if p.Status.StartTime != nil {
			return p.Status.StartTime.Time
		}
		return now
	}
	rules := []struct {
		name  string
		score func(c *PreemptionCandidate) int64
	}{
		{"pdb-violations", func(c *PreemptionCandidate) int64 { return -int64(len(c.PDBViolators)) }},
		{"highest-priority", func(c *PreemptionCandidate) int64 { return -int64(corev1helpers.PodPriority(c.Victims[0])) }},
		{"sum-of-priorities", func(c *PreemptionCandidate) int64 {
			var sum int64
			for _, p := range c.Victims {
				sum += int64(corev1helpers.PodPriority(p)) + int64(math.MaxInt32+1)
			}
			return -sum
		}},
		{"number-of-victims", func(c *PreemptionCandidate) int64 { return -int64(len(c.Victims)) }},
		{"start-time", func(c *PreemptionCandidate) int64 {
			// The earliest start among the victims of the highest priority.
			earliest, maxPrio := startOf(c.Victims[0]), corev1helpers.PodPriority(c.Victims[0])
			for _, p := range c.Victims {
				switch prio := corev1helpers.PodPriority(p); {
				case prio == maxPrio && startOf(p).Before(earliest):
					earliest = startOf(p)
				case prio > maxPrio:
					maxPrio, earliest = prio, startOf(p)
				}
			}
			return earliest.UnixNano()
		}},
	}
	alive := make([]int, len(cands))
	for i := range alive {
		alive[i] = i
	}
	for _, rule := range rules {
		best := int64(math.MinInt64)
		for _, i := range alive {
			best = max(best, rule.score(&cands[i]))
		}
		var kept []int
		for _, i := range alive {
			if rule.score(&cands[i]) == best {
				kept = append(kept, i)
			} else {
				cands[i].LostOn = rule.name
			}
		}
		alive = kept
		if len(alive) == 1 {
			return alive[0]
		}
	}
	chosen := alive[s.preemptionRand().IntN(len(alive))]
	for _, i := range alive {
		if i != chosen {
			cands[i].LostOn = "random"
		}
	}
	return chosen
}
