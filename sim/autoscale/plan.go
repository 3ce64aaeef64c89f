package autoscale

import "github.com/drasim/drasim/sim/result"

// APIVersion and Kind of a serialized plan.
const (
	APIVersion = "drasim.io/v1alpha1"
	Kind       = "ScaleUpPlan"
)

// StopReason says why the scale-up loop ended.
type StopReason string

// Stop reasons.
const (
	// StopNoPending: every pod that was pending has a node.
	StopNoPending StopReason = "NoPendingPods"
	// StopNoOption: no group can help any pod that is still pending.
	StopNoOption StopReason = "NoScaleUpOption"
	// StopMaxLoops: --max-loops scale-ups were applied.
	StopMaxLoops StopReason = "MaxLoopsReached"
	// StopNoProgress: the replay placed no pending pod on the nodes the
	// last loop added (the estimate and the scheduler disagree).
	StopNoProgress StopReason = "NoProgress"
	// StopNoExpanderChoice: the expanders kept no option (e.g. price
	// without a price on any group).
	StopNoExpanderChoice StopReason = "NoExpanderChoice"
)

// Plan is a ScaleUpPlan: every scale-up loop with the options it weighed
// and why the expanders chose one, the nodes to add per group, the pods no
// group can help and why, and the replay after the scale-up.
type Plan struct {
	APIVersion string      `json:"apiVersion"`
	Kind       string      `json:"kind"`
	Inputs     Inputs      `json:"inputs"`
	Groups     []GroupInfo `json:"groups"`
	Loops      []Loop      `json:"loops"`
	// ScaleUp is the final plan: nodes to add, per group that grows.
	ScaleUp []GroupScaleUp `json:"scaleUp"`
	// NodesAdded and CostPerHour total ScaleUp; CostPerHour counts the
	// groups with a price (UnpricedNodes counts the others).
	NodesAdded    int     `json:"nodesAdded"`
	CostPerHour   float64 `json:"costPerHour"`
	UnpricedNodes int     `json:"unpricedNodes,omitempty"`
	Stop          Stop    `json:"stop"`
	// Pending are the pods still pending after the last loop, with why no
	// group helps them.
	Pending []PendingPod `json:"pending"`
	// Result is the replay after the scale-up: the replay of the snapshot
	// merged with each loop's replay of the pending pods on the new nodes.
	Result   *result.Result `json:"result"`
	Warnings []string       `json:"warnings,omitempty"`
	// ProvisioningRequests and Buffers are the autoscaling.x-k8s.io
	// objects of the snapshot and what the run did for them.
	ProvisioningRequests []ProvReqOutcome `json:"provisioningRequests,omitempty"`
	Buffers              []BufferOutcome  `json:"capacityBuffers,omitempty"`
}

// Inputs are the autoscaler's settings.
type Inputs struct {
	Expanders          []string           `json:"expanders"`
	MaxNodesTotal      int                `json:"maxNodesTotal,omitempty"`
	MaxNodesPerScaleUp int                `json:"maxNodesPerScaleUp"`
	MaxLoops           int                `json:"maxLoops"`
	Seed               int64              `json:"seed"`
	DeviceClassWeights map[string]float64 `json:"deviceClassWeights,omitempty"`
	// PendingPods is the number of pods pending after the first replay.
	PendingPods int `json:"pendingPods"`
	// Nodes is the number of nodes before the scale-up.
	Nodes int `json:"nodes"`
}

// GroupInfo describes a node group and its template.
type GroupInfo struct {
	Name         string   `json:"name"`
	MinSize      int      `json:"minSize"`
	MaxSize      int      `json:"maxSize"`
	Size         int      `json:"size"`
	PricePerHour *float64 `json:"pricePerHour,omitempty"`
	TemplateFrom string   `json:"templateFrom,omitempty"`
	CPU          string   `json:"cpu"`
	Memory       string   `json:"memory"`
	Devices      int      `json:"devices"`
}

// Loop is one scale-up: the options, the expanders' decision, and what
// the replay on the new nodes placed.
type Loop struct {
	Index       int `json:"index"`
	PendingPods int `json:"pendingPods"`
	// Options are the groups that could help, in group order.
	Options []Option `json:"options"`
	// Skipped are the groups that could not, with why.
	Skipped  []SkippedGroup `json:"skipped,omitempty"`
	Decision *Decision      `json:"decision,omitempty"`
	// Added are the nodes added for the chosen option.
	Added []string `json:"added,omitempty"`
	// Triggered are the pods of the chosen option's estimate (CA's
	// TriggeredScaleUp event).
	Triggered []string `json:"triggered,omitempty"`
	// Placed counts the pending pods the replay put on a node after the
	// scale-up (daemon pods of the new nodes do not count).
	Placed       int `json:"placed"`
	StillPending int `json:"stillPending"`
	// ProvisioningRequest is set on a loop CA gave to a request (namespace/
	// name), with the class's answer: CapacityIsFound,
	// CapacityIsProvisioned, CapacityIsNotFound or Failed.
	ProvisioningRequest string `json:"provisioningRequest,omitempty"`
	ProvisioningResult  string `json:"provisioningResult,omitempty"`
}

// Option is one group's scale-up option, as the expanders see it.
type Option struct {
	Group string `json:"group"`
	// Nodes is the estimator's node count; Pods the pods it placed.
	Nodes   int      `json:"nodes"`
	Pods    int      `json:"pods"`
	PodKeys []string `json:"podKeys"`
	// CPUWaste and MemoryWaste are cluster-autoscaler's least-waste
	// fractions: 1 - requested/capacity over the new nodes.
	CPUWaste    float64 `json:"cpuWaste"`
	MemoryWaste float64 `json:"memoryWaste"`
	// DeviceWaste is drasim's idle share of the new nodes' devices and
	// shared counters, weighted per DeviceClass (0 without devices).
	DeviceWaste float64 `json:"deviceWaste"`
	// Devices and IdleDevices count device units (a device without
	// counters, or a counter set) on the new nodes.
	Devices     int     `json:"devices"`
	IdleDevices float64 `json:"idleDevices"`
	// CostPerHour is Nodes times the group's price, when it has one.
	CostPerHour *float64 `json:"costPerHour,omitempty"`
	// PriceScore is cluster-autoscaler's price expander score (lower is
	// better), when the price expander ran.
	PriceScore *float64 `json:"priceScore,omitempty"`
	// PrioritizedListScore is the scheduler's DynamicResources score of
	// the allocations, summed over the pods with firstAvailable requests
	// (per claim: 8 minus the index of the chosen subrequest), and
	// PrioritizedListPods counts those pods.
	PrioritizedListScore int64 `json:"prioritizedListScore"`
	PrioritizedListPods  int   `json:"prioritizedListPods"`
	// Priority is the group's priority in the priority expander's config.
	Priority *int `json:"priority,omitempty"`
	// Limited is set when the estimate stopped at a node limit.
	Limited bool `json:"limited,omitempty"`
}

// SkippedGroup is a group that could not help any pending pod.
type SkippedGroup struct {
	Group  string `json:"group"`
	Reason string `json:"reason"`
}

// Decision is how the expander chain chose: each expander's kept options,
// then the chosen group.
type Decision struct {
	Chosen string `json:"chosen"`
	// By is the expander that narrowed the options to one.
	By    string         `json:"by"`
	Steps []ExpanderStep `json:"steps"`
}

// ExpanderStep is one expander's filter.
type ExpanderStep struct {
	Expander string   `json:"expander"`
	Kept     []string `json:"kept"`
	Why      string   `json:"why"`
}

// GroupScaleUp is the final plan for one group.
type GroupScaleUp struct {
	Group       string   `json:"group"`
	From        int      `json:"from"`
	To          int      `json:"to"`
	Max         int      `json:"max"`
	Nodes       []string `json:"nodes"`
	CostPerHour *float64 `json:"costPerHour,omitempty"`
}

// Stop says why the loop ended.
type Stop struct {
	Reason  StopReason `json:"reason"`
	Message string     `json:"message"`
}

// PendingPod is a pod still pending after the scale-up.
type PendingPod struct {
	Pod   string `json:"pod"`
	Owner string `json:"owner,omitempty"`
	// NeverFits is set when no group's template can run the pod, however
	// many nodes it adds.
	NeverFits bool `json:"neverFits"`
	// Reason sums up Groups in one sentence.
	Reason string        `json:"reason"`
	Groups []GroupReason `json:"groups,omitempty"`
}

// GroupReason is why one group does not help a pod.
type GroupReason struct {
	Group string `json:"group"`
	// Plugin is the filter that rejected the pod on the template node
	// ("" for limits).
	Plugin string `json:"plugin,omitempty"`
	Reason string `json:"reason"`
}
