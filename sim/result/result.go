package result

// APIVersion and Kind of a serialized result.
const (
	APIVersion = "drasim.io/v1alpha1"
	Kind       = "SimulationResult"
)

// Pod phases in a result.
const (
	// PhaseScheduled: drasim placed the pod in this replay.
	PhaseScheduled = "Scheduled"
	// PhaseUnschedulable: no node fits; Message says why.
	PhaseUnschedulable = "Unschedulable"
	// PhaseBound: the pod was already running in the snapshot.
	PhaseBound = "Bound"
	// PhaseGated: the pod has scheduling gates and is not attempted.
	PhaseGated = "Gated"
	// PhaseSkipped: the pod is for another scheduler.
	PhaseSkipped = "Skipped"
	// PhasePreempted: the pod was running (or placed earlier in this
	// replay) and was deleted to make room for a higher-priority pod;
	// PreemptedBy says by which.
	PhasePreempted = "Preempted"
)

// Result is everything one replay decided.
type Result struct {
	APIVersion string  `json:"apiVersion"`
	Kind       string  `json:"kind"`
	Inputs     Inputs  `json:"inputs"`
	Summary    Summary `json:"summary"`
	Pods       []Pod   `json:"pods"`
	Nodes      []Node  `json:"nodes"`
	// PodGroups are the gangs (GenericWorkload): whether each was placed.
	PodGroups []PodGroup `json:"podGroups,omitempty"`
	Events    []Event    `json:"events"`
	Warnings  []string   `json:"warnings,omitempty"`

	// Edits are the what-if edits applied to the snapshot before the
	// replay, with what each changed (docs/whatif.md).
	Edits []Edit `json:"edits,omitempty"`
}

// Inputs summarizes what the replay started from and how it was configured.
type Inputs struct {
	Files          []string `json:"files,omitempty"`
	Nodes          int      `json:"nodes"`
	Pods           int      `json:"pods"`
	PendingPods    int      `json:"pendingPods"`
	Devices        int      `json:"devices"`
	ResourceClaims int      `json:"resourceClaims"`
	// TieBreak is how ties between top-scored nodes were broken: "kube"
	// (kube-scheduler v1.37.2's rule) or "random" (seeded by Seed).
	TieBreak        string `json:"tieBreak"`
	Seed            int64  `json:"seed"`
	FeatureGates    string `json:"featureGates,omitempty"`
	ScoringStrategy string `json:"scoringStrategy"`
	// Policy is the research scoring policy the run added (DrasimPolicy,
	// docs/policies.md); empty for kube's profile.
	Policy            string `json:"policy,omitempty"`
	ScoreAllNodes     bool   `json:"scoreAllNodes,omitempty"`
	KubernetesVersion string `json:"kubernetesVersion"`
	// NodeOrder is the order the scheduler met the nodes in, when it is
	// not by name ("creation" or "file"; see cluster.NodeOrder).
	NodeOrder string `json:"nodeOrder,omitempty"`
}

// Summary counts pods by outcome.
type Summary struct {
	Scheduled     int `json:"scheduled"`
	Unschedulable int `json:"unschedulable"`
	// SchedulerErrors counts the unschedulable pods whose attempt failed
	// with an error (Reason SchedulerError); they are in Unschedulable too.
	SchedulerErrors int `json:"schedulerErrors,omitempty"`
	AlreadyBound    int `json:"alreadyBound"`
	Gated           int `json:"gated,omitempty"`
	Skipped         int `json:"skipped,omitempty"`
	Preempted       int `json:"preempted,omitempty"`
}

// Pod is one pod's outcome.
type Pod struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Owner is "Kind/name" of the controlling workload, if any.
	Owner    string `json:"owner,omitempty"`
	Priority int32  `json:"priority"`
	// PriorityClass is spec.priorityClassName, if any.
	PriorityClass string `json:"priorityClass,omitempty"`
	Phase         string `json:"phase"`
	Node          string `json:"node,omitempty"`
	// Reason is the PodScheduled condition's reason for a pending pod
	// when it is not Unschedulable: ReasonSchedulerError when a plugin
	// failed with an error (broken input) rather than finding no node.
	Reason string `json:"reason,omitempty"`
	// Message is the PodScheduled condition's message for pending pods,
	// worded as kube-scheduler words it.
	Message string `json:"message,omitempty"`
	// Reasons counts the nodes that rejected the pod, by plugin and reason.
	Reasons []Reason `json:"reasons,omitempty"`
	Claims  []Claim  `json:"claims,omitempty"`
	// DeviceReasons says, for nodes where DynamicResources rejected the
	// pod, which claim and request failed and why (drasim's diagnosis; kube
	// only says "cannot allocate all claims").
	DeviceReasons []DeviceReason `json:"deviceReasons,omitempty"`
	// Score is the chosen node's score, per plugin, after weighting.
	Score          *Score `json:"score,omitempty"`
	FeasibleNodes  int    `json:"feasibleNodes,omitempty"`
	EvaluatedNodes int    `json:"evaluatedNodes,omitempty"`
	// Attempt counts the scheduling cycles the pod went through until it
	// was scheduled (1 = at its first try).
	Attempt int `json:"attempt,omitempty"`
	// NominatedNode is the node a preemption nominated the pod to, while
	// it waits (status.nominatedNodeName).
	NominatedNode string `json:"nominatedNode,omitempty"`
	// Preemption is set for a pod that preempted others: where, and whom.
	Preemption *Preemption `json:"preemption,omitempty"`
	// PreemptedBy is set for a pod deleted by a preemption.
	PreemptedBy *PreemptedBy `json:"preemptedBy,omitempty"`
	// PodGroup names the pod group (gang) the pod is scheduled with, when
	// the GenericWorkload gate is on.
	PodGroup string `json:"podGroup,omitempty"`
}

// PodGroup is one pod group's outcome: its PodGroupInitiallyScheduled
// condition as kube-scheduler sets it, and its pods by phase.
type PodGroup struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// MinCount is the gang's minCount (1 for a basic group).
	MinCount int   `json:"minCount"`
	Priority int32 `json:"priority"`
	// Pods counts the group's pods; Placed those on a node (bound before
	// or scheduled in this replay), Pending the others.
	Pods    int `json:"pods"`
	Placed  int `json:"placed"`
	Pending int `json:"pending"`
	// Phase: PodGroupScheduled, PodGroupUnschedulable, PodGroupError or
	// PodGroupWaiting (fewer than minCount pods exist, never attempted).
	Phase string `json:"phase"`
	// Message is the condition's message (the gang's failure).
	Message string `json:"message,omitempty"`
	// Blocker is the member ("ns/name") that fit nowhere in the gang's
	// last attempt; its entry in pods says why.
	Blocker string `json:"blocker,omitempty"`
	// Partial is set, with the gate off, when some of the group's pods
	// were placed but fewer than minCount: what kube with GenericWorkload
	// would not have placed at all.
	Partial bool `json:"partial,omitempty"`
}

// NotPlaced reports a pod group that was not placed whole: not scheduled
// (or never tried), or, with the gate off, placed short of minCount.
func (g *PodGroup) NotPlaced() bool {
	if g.Phase == PodGroupGateOff {
		return g.Placed < g.MinCount
	}
	return g.Phase != PodGroupScheduled
}

// Pod group phases.
const (
	PodGroupScheduled     = "Scheduled"
	PodGroupUnschedulable = "Unschedulable"
	PodGroupError         = "SchedulerError"
	PodGroupWaiting       = "Waiting"
	// PodGroupGateOff: GenericWorkload is off, the pods were scheduled
	// one by one.
	PodGroupGateOff = "GateOff"
)

// Preemption is what a pod's preemption did: the node it made room on and
// the pods it deleted there ("ns/name"), in kube's order (most important
// first).
type Preemption struct {
	Node    string   `json:"node"`
	Victims []string `json:"victims"`
	// PDBViolations counts the victims a PodDisruptionBudget did not allow
	// to be disrupted.
	PDBViolations int `json:"pdbViolations,omitempty"`
}

// PreemptedBy says which pod preempted this one, on which node, and why.
type PreemptedBy struct {
	// Pod is the preemptor ("namespace/name"): a pod, or, with PodGroup
	// set, a pod group (a gang preempts as a whole; Node is then the
	// victim's own node).
	Pod      string `json:"pod"`
	PodGroup bool   `json:"podGroup,omitempty"`
	Priority int32  `json:"priority"`
	Node     string `json:"node"`
	// Reason is the DisruptionTarget condition kube sets on the victim.
	Reason string `json:"reason"`
	// PDBViolation is set when a PodDisruptionBudget covering the pod did
	// not allow the disruption (kube preempts anyway when no other node
	// would do with fewer violations).
	PDBViolation bool `json:"pdbViolation,omitempty"`
}

// ReasonSchedulerError is kube's PodScheduled reason for a pod whose
// scheduling attempt failed with an error (v1.PodReasonSchedulerError).
const ReasonSchedulerError = "SchedulerError"

// Key returns "namespace/name".
func (p *Pod) Key() string { return p.Namespace + "/" + p.Name }

// Reason is one rejection reason with how many nodes gave it.
type Reason struct {
	Plugin string `json:"plugin"`
	Reason string `json:"reason"`
	Nodes  int    `json:"nodes"`
}

// DeviceReason is one diagnosed DRA failure with how many nodes gave it.
type DeviceReason struct {
	Claim   string `json:"claim"`
	Request string `json:"request,omitempty"`
	Reason  string `json:"reason"`
	Nodes   int    `json:"nodes"`
}

// Claim is one of the pod's ResourceClaims and what it got.
type Claim struct {
	// PodClaimName is the entry in pod.spec.resourceClaims ("" for the
	// scheduler-made extended-resource claim).
	PodClaimName string   `json:"podClaimName,omitempty"`
	Name         string   `json:"name"`
	Template     string   `json:"template,omitempty"`
	Shared       bool     `json:"shared,omitempty"`
	Devices      []Device `json:"devices,omitempty"`
}

// Device is one allocated device.
type Device struct {
	Request string `json:"request"`
	Driver  string `json:"driver"`
	Pool    string `json:"pool"`
	Device  string `json:"device"`
	// Alternative is the chosen firstAvailable subrequest and its 1-based
	// rank, when the request had alternatives.
	Alternative     string `json:"alternative,omitempty"`
	AlternativeRank int    `json:"alternativeRank,omitempty"`
	AdminAccess     bool   `json:"adminAccess,omitempty"`
	ShareID         string `json:"shareID,omitempty"`
}

// ID returns "request|driver/pool/device", the oracle's device key.
func (d Device) ID() string { return d.Request + "|" + d.Driver + "/" + d.Pool + "/" + d.Device }

// Score is a node's total score and its parts.
type Score struct {
	Total   int64         `json:"total"`
	Plugins []PluginScore `json:"plugins"`
}

// PluginScore is one plugin's normalized score and its weighted value.
type PluginScore struct {
	Plugin   string `json:"plugin"`
	Raw      int64  `json:"raw"`
	Weighted int64  `json:"weighted"`
}

// Node is one node's usage after the replay.
type Node struct {
	Name          string   `json:"name"`
	Group         string   `json:"group,omitempty"`
	CPU           Quantity `json:"cpu"`
	Memory        Quantity `json:"memory"`
	Pods          Count    `json:"pods"`
	Devices       Count    `json:"devices"`
	Unschedulable bool     `json:"unschedulable,omitempty"`
}

// Quantity is requested against allocatable, in canonical Kubernetes form
// and in base units (millicores for CPU, bytes for memory).
type Quantity struct {
	Requested        string `json:"requested"`
	Allocatable      string `json:"allocatable"`
	RequestedValue   int64  `json:"requestedValue"`
	AllocatableValue int64  `json:"allocatableValue"`
}

// Count is used against total.
type Count struct {
	Used  int `json:"used"`
	Total int `json:"total"`
}

// Event is one scheduling decision, in the order they were made.
type Event struct {
	Seq     int    `json:"seq"`
	Type    string `json:"type"`
	Pod     string `json:"pod"`
	Node    string `json:"node,omitempty"`
	Message string `json:"message,omitempty"`
}

// Event types.
const (
	EventScheduled        = "Scheduled"
	EventFailedScheduling = "FailedScheduling"
	// EventPreempted: the pod was deleted by a preemption.
	EventPreempted = "Preempted"
)

// Recount sets the summary from the pods' phases.
func (r *Result) Recount() {
	r.Summary = Summary{}
	for _, p := range r.Pods {
		switch p.Phase {
		case PhaseScheduled:
			r.Summary.Scheduled++
		case PhaseUnschedulable:
			r.Summary.Unschedulable++
			if p.Reason == ReasonSchedulerError {
				r.Summary.SchedulerErrors++
			}
		case PhaseBound:
			r.Summary.AlreadyBound++
		case PhaseGated:
			r.Summary.Gated++
		case PhaseSkipped:
			r.Summary.Skipped++
		case PhasePreempted:
			r.Summary.Preempted++
		}
	}
}
