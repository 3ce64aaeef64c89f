package sim

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/inventory"
	"github.com/drasim/drasim/sim/result"
	"github.com/drasim/drasim/sim/schedule"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// Explanation tells, for one pod, what every node said in the pod's
// scheduling cycle.
type Explanation struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Pod        string `json:"pod"`
	// QueuePosition is the pod's 1-based place in the scheduling queue
	// when the replay starts; Attempts counts its scheduling cycles (a pod
	// that did not fit is tried again when an event may help it), and the
	// explanation is of the last one.
	QueuePosition int    `json:"queuePosition"`
	QueueLength   int    `json:"queueLength"`
	Attempts      int    `json:"attempts"`
	Node          string `json:"node,omitempty"`
	// OnNominatedNode is set when the pod fit the node a preemption had
	// nominated it to, which is tried alone, first.
	OnNominatedNode bool   `json:"onNominatedNode,omitempty"`
	Message         string `json:"message,omitempty"`
	// Reason is "SchedulerError" when a plugin failed with an error (the
	// attempt failed; no node was judged), empty otherwise.
	Reason string `json:"reason,omitempty"`
	// ErrorPlugin and ErrorNode say where that error came from.
	ErrorPlugin string `json:"errorPlugin,omitempty"`
	ErrorNode   string `json:"errorNode,omitempty"`
	// PreFilter is set when the pod was rejected before any node was tried.
	PreFilter string            `json:"preFilter,omitempty"`
	Nodes     []NodeExplanation `json:"nodes"`

	// Edits are the what-if edits applied to the snapshot first (their
	// moved pods' outcomes are not resolved: explain replays only up to
	// the pod).
	Edits []result.Edit `json:"edits,omitempty"`
	// Preemption is the last preemption decision taken for the pod (in
	// the attempt explained, or an earlier one), when it did not fit.
	Preemption *PreemptionExplanation `json:"preemption,omitempty"`
	// PodGroup is set for a pod scheduled as part of a gang
	// (GenericWorkload): the gang's verdict, which decides the pod's.
	PodGroup *PodGroupExplanation `json:"podGroup,omitempty"`
	// GroupPreemption is the last decision of DefaultPreemption's
	// PodGroupPostFilter for the pod's gang, when a cycle of the gang
	// failed.
	GroupPreemption *GroupPreemptionExplanation `json:"groupPreemption,omitempty"`
}

// GroupPreemptionExplanation is what DefaultPreemption decided for a gang
// that did not fit: it removed every pod of lower priority, reran the pod
// group algorithm without them (Pods: where each pod would go), then gave
// the victims back most important first; Victims are the ones it could
// not give back.
type GroupPreemptionExplanation struct {
	// Cycle is the gang's pod group cycle (1-based, counting those that
	// took the explained pod) the decision was taken in: a cycle may stop
	// before it reaches the pod, so the pod's own attempts do not count it.
	Cycle int `json:"cycle"`
	// Message is kube's "pod group preemption: ..." status.
	Message string `json:"message"`
	// Success is set when the gang waits for its victims: its pods are
	// nominated.
	Success bool                    `json:"success,omitempty"`
	Pods    []GroupPreemptionPod    `json:"pods,omitempty"`
	Victims []GroupPreemptionVictim `json:"victims,omitempty"`
}

// GroupPreemptionPod is one pod of the gang in the decision.
type GroupPreemptionPod struct {
	Pod string `json:"pod"`
	// RerunNode is the node the rerun of the pod group algorithm put the
	// pod on ("" when the rerun did not reach it or it fit nowhere).
	RerunNode string `json:"rerunNode,omitempty"`
	// Nominated is the node the pod is nominated to after the decision.
	Nominated string `json:"nominated,omitempty"`
}

// GroupPreemptionVictim is one pod the gang's preemption deletes.
type GroupPreemptionVictim struct {
	Pod          string `json:"pod"`
	Node         string `json:"node"`
	Priority     int32  `json:"priority"`
	PDBViolation bool   `json:"pdbViolation,omitempty"`
}

// PodGroupExplanation is the pod group's last attempt, as it concerns the
// explained pod.
type PodGroupExplanation struct {
	result.PodGroup
	// Reached is set when the gang's last cycle got to the pod; the nodes
	// above are from that cycle. When it did not (a pod before it fit
	// nowhere and minCount could no longer be met), they are from the
	// last cycle that did.
	Reached bool `json:"reached"`
	// PodMessage is the pod's PodScheduled message after that attempt
	// (the gang's failure for a pod that fit, its own for the one that
	// did not).
	PodMessage string `json:"podMessage,omitempty"`
}

// PreemptionExplanation is what DefaultPreemption decided for the pod.
type PreemptionExplanation struct {
	// Attempt is the pod's attempt (1-based) the decision was taken in.
	Attempt int `json:"attempt"`
	// Node is the node the pod was nominated to ("" when preemption did
	// not help); Victims the pods deleted there.
	Node    string   `json:"node,omitempty"`
	Victims []string `json:"victims,omitempty"`
	// Message is kube's "preemption: ..." message.
	Message string `json:"message"`
	// Candidates are the nodes where deleting pods would let the pod fit,
	// with why each one that was not chosen lost.
	Candidates []PreemptionCandidate `json:"candidates,omitempty"`
	// Rejected are the nodes the dry run tried in vain, with why.
	Rejected []NodeExplanation `json:"rejected,omitempty"`
}

// PreemptionCandidate is one node preemption could have used.
type PreemptionCandidate struct {
	Node          string   `json:"node"`
	Victims       []string `json:"victims"`
	PDBViolations int      `json:"pdbViolations,omitempty"`
	Chosen        bool     `json:"chosen,omitempty"`
	// LostOn is the rule that ruled the node out (see docs/fidelity.md).
	LostOn string `json:"lostOn,omitempty"`
}

// NodeExplanation is one node's verdict.
type NodeExplanation struct {
	Name     string `json:"name"`
	Feasible bool   `json:"feasible"`
	Chosen   bool   `json:"chosen,omitempty"`
	// Plugin and Reason name the first filter that rejected the node.
	Plugin string               `json:"plugin,omitempty"`
	Reason string               `json:"reason,omitempty"`
	Total  int64                `json:"total,omitempty"`
	Scores []result.PluginScore `json:"scores,omitempty"`
	// Devices are what the allocator would give the pod on this node.
	Devices []result.Device `json:"devices,omitempty"`
	// DeviceReasons say why the pod's claims fail on this node, request by
	// request, when DynamicResources rejected it.
	DeviceReasons []dra.Finding `json:"deviceReasons,omitempty"`
}

// Explain replays the queue and reports the pod's last scheduling cycle
// (the one its final state comes from) node by node. It returns an error
// when the pod is not in the snapshot or not pending.
func Explain(ctx context.Context, snap *snapshot.Snapshot, opts Options, namespace, name string) (*Explanation, error) {
	e, err := NewEngineFor(snap, opts)
	if err != nil {
		return nil, err
	}
	c, draPlugin := e.Cluster(), e.DRA()
	ex := &Explanation{APIVersion: "drasim.io/v1alpha1", Kind: "PodExplanation", Pod: namespace + "/" + name, QueueLength: len(c.Queue()), Nodes: []NodeExplanation{}}
	var target *v1.Pod
	for i, pod := range c.Queue() {
		if pod.Namespace == namespace && pod.Name == name {
			ex.QueuePosition, target = i+1, pod
		}
	}
	if target == nil {
		return nil, notPending(c.Pods(), namespace, name)
	}
	r := e.Replayer(opts.ScheduleOptions())
	var toAllocate []*resourceapi.ResourceClaim
	// Only the explained pod's cycles keep every node's verdict (they
	// cost node classes); the other pods run as in simulate.
	r.BeforeAttempt = func(pod *v1.Pod) {
		r.Scheduler().KeepNodeStatuses(pod == target)
		if pod == target {
			toAllocate = unallocatedClaims(draPlugin, pod)
		}
	}
	reached, groupCycles := false, 0
	r.BeforeGroupAttempt = func(pods []*v1.Pod) {
		if slices.Contains(pods, target) {
			reached = false
			groupCycles++
		}
	}
	r.OnAttempt = func(pod *v1.Pod, a *schedule.Attempt) {
		if pod == target {
			ex.Attempts++
			reached = true
			explainAttempt(ctx, ex, c, draPlugin, toAllocate, a)
		}
	}
	r.OnPreemption = func(pod *v1.Pod, p *schedule.Preemption) {
		if pod == target {
			ex.Preemption = explainPreemption(ex.Attempts, p)
		}
	}
	r.OnGroupPreemption = func(pods []*v1.Pod, gp *schedule.GroupPreemption) {
		if slices.Contains(pods, target) {
			ex.GroupPreemption = explainGroupPreemption(groupCycles, pods, gp)
		}
	}
	if err := r.ReplayQueue(ctx); err != nil {
		return nil, err
	}
	res := r.Result()
	for i := range res.Pods {
		p := &res.Pods[i]
		if p.Key() != ex.Pod || p.PodGroup == "" {
			continue
		}
		for _, g := range res.PodGroups {
			if g.Namespace == p.Namespace && g.Name == p.PodGroup {
				ex.PodGroup = &PodGroupExplanation{PodGroup: g, Reached: reached, PodMessage: p.Message}
			}
		}
	}
	return ex, nil
}

// explainAttempt fills the explanation from one cycle of its pod.
func explainAttempt(ctx context.Context, ex *Explanation, c *cluster.Cluster, draPlugin *dra.Plugin, toAllocate []*resourceapi.ResourceClaim, a *schedule.Attempt) {
	ex.Node, ex.Message, ex.PreFilter, ex.OnNominatedNode = a.Node, a.Message, "", a.OnNominatedNode
	ex.Reason, ex.ErrorPlugin, ex.ErrorNode = "", "", ""
	ex.Nodes = []NodeExplanation{}
	if a.Error != nil {
		ex.Reason, ex.ErrorPlugin, ex.ErrorNode = result.ReasonSchedulerError, a.Error.Plugin, a.Error.Node
	}
	if a.PreFilterStatus != nil {
		ex.PreFilter = fmt.Sprintf("%s: %s", a.PreFilterStatus.Plugin(), a.PreFilterStatus.Message())
	}
	for _, nr := range a.Nodes {
		ne := NodeExplanation{Name: nr.Node, Feasible: nr.Status == nil, Chosen: nr.Node == a.Node, Total: nr.Total}
		if nr.Status != nil {
			ne.Plugin, ne.Reason = nr.Status.Plugin(), nr.Status.Message()
			if ne.Plugin == dra.Name {
				if ni := c.Node(nr.Node); ni != nil {
					ne.DeviceReasons = draPlugin.Diagnose(ctx, a.State, ni.Node())
				}
			}
		}
		for _, ps := range nr.Scores {
			ne.Scores = append(ne.Scores, result.PluginScore{Plugin: ps.Plugin, Raw: ps.Score, Weighted: ps.Weighted})
		}
		if ne.Feasible {
			ne.Devices = devicesOf(toAllocate, draPlugin.ChosenAllocation(a.State, nr.Node))
		}
		ex.Nodes = append(ex.Nodes, ne)
	}
	sort.SliceStable(ex.Nodes, func(i, j int) bool {
		a, b := ex.Nodes[i], ex.Nodes[j]
		if a.Feasible != b.Feasible {
			return a.Feasible
		}
		if a.Total != b.Total {
			return a.Total > b.Total
		}
		return a.Name < b.Name
	})
}

// notPending says why a pod is not one explain can look at.
func notPending(pods []*v1.Pod, namespace, name string) error {
	for _, pod := range pods {
		if pod.Namespace == namespace && pod.Name == name {
			if pod.Spec.NodeName != "" {
				return fmt.Errorf("pod %s/%s is already bound to node %s; explain looks at pending pods", namespace, name, pod.Spec.NodeName)
			}
			return fmt.Errorf("pod %s/%s is not in the scheduling queue (scheduling gates or another scheduler)", namespace, name)
		}
	}
	return fmt.Errorf("pod %s/%s is not in the snapshot", namespace, name)
}

func unallocatedClaims(p *dra.Plugin, pod *v1.Pod) []*resourceapi.ResourceClaim {
	claims, _ := p.PodClaims(pod)
	var out []*resourceapi.ResourceClaim
	for _, c := range claims {
		if c.Status.Allocation == nil {
			out = append(out, c)
		}
	}
	return out
}

func devicesOf(claims []*resourceapi.ResourceClaim, results []resourceapi.AllocationResult) []result.Device {
	var out []result.Device
	for i, r := range results {
		for _, d := range r.Devices.Results {
			dev := result.Device{Request: d.Request, Driver: d.Driver, Pool: d.Pool, Device: d.Device}
			if i < len(claims) {
				dev.Alternative, dev.AlternativeRank = inventory.Alternative(claims[i], d.Request)
			}
			out = append(out, dev)
		}
	}
	return out
}

func explainPreemption(attempt int, p *schedule.Preemption) *PreemptionExplanation {
	names := func(pods []*v1.Pod) []string {
		out := make([]string, len(pods))
		for i, pod := range pods {
			out[i] = pod.Namespace + "/" + pod.Name
		}
		return out
	}
	pe := &PreemptionExplanation{Attempt: attempt, Node: p.Node, Victims: names(p.Victims), Message: p.Message}
	for _, c := range p.Candidates {
		pe.Candidates = append(pe.Candidates, PreemptionCandidate{Node: c.Node, Victims: names(c.Victims), PDBViolations: len(c.PDBViolators), Chosen: c.Node == p.Node, LostOn: c.LostOn})
	}
	for _, r := range p.Rejected {
		pe.Rejected = append(pe.Rejected, NodeExplanation{Name: r.Node, Plugin: r.Status.Plugin(), Reason: r.Status.Message()})
	}
	return pe
}

func explainGroupPreemption(cycle int, pods []*v1.Pod, gp *schedule.GroupPreemption) *GroupPreemptionExplanation {
	ge := &GroupPreemptionExplanation{Cycle: cycle, Message: gp.Message, Success: gp.Success}
	for i, pod := range pods {
		gpod := GroupPreemptionPod{Pod: pod.Namespace + "/" + pod.Name, Nominated: gp.Nominations[pod]}
		if i < len(gp.Rerun) && gp.Rerun[i] != nil {
			gpod.RerunNode = gp.Rerun[i].Node
		}
		ge.Pods = append(ge.Pods, gpod)
	}
	for _, v := range gp.Victims {
		ge.Victims = append(ge.Victims, GroupPreemptionVictim{Pod: v.Namespace + "/" + v.Name, Node: v.Spec.NodeName,
			Priority: corev1helpers.PodPriority(v), PDBViolation: slices.Contains(gp.PDBViolators, v)})
	}
	return ge
}
