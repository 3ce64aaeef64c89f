package analysis

import (
	"github.com/drasim/drasim/sim/autoscale"
	"github.com/drasim/drasim/sim/result"
	"github.com/drasim/drasim/sim/whatif"
)

// APIVersion and Kind identify a marshalled Report.
const (
	APIVersion = "drasim.io/v1alpha1"
	Kind       = "CapacityReport"
)

// DefaultGroupBy is the node label that groups nodes when Options.GroupBy
// is empty.
const DefaultGroupBy = "node.kubernetes.io/instance-type"

// NoGroup is the group of nodes without the GroupBy label.
const NoGroup = "<none>"

// Mix sources: where the request shapes of the workload mix come from.
const (
	// MixWorkloads: the shapes of the snapshot's pending and scheduled pods.
	MixWorkloads = "workloads"
	// MixProbe: the pods of a probe file (Options.Probes).
	MixProbe = "probe"
)

// Headroom methods.
const (
	// MethodPerNode counts, node by node, the instances that fit one after
	// another; sound when placing an instance on one node cannot change
	// what fits on another (no pod affinity or topology spread in the
	// shape, node-local devices only).
	MethodPerNode = "per-node"
	// MethodSequential schedules instances one after another on the whole
	// copy of the cluster, as kube-scheduler would, up to Options.MaxSequential.
	MethodSequential = "sequential"
)

// Host resources that can leave devices stranded.
const (
	ResourceCPU    = "cpu"
	ResourceMemory = "memory"
	ResourcePods   = "pods"
)

// Report is the capacity report of one replay. Lists are never nil, so they
// marshal as [] rather than null.
type Report struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Inputs     Inputs `json:"inputs"`
	// Fit is what the replay placed and what it left pending.
	Fit Fit `json:"fit"`
	// Utilization is what is in use after the replay.
	Utilization Utilization `json:"utilization"`
	// PrioritizedList is how firstAvailable requests were served.
	PrioritizedList PrioritizedList `json:"prioritizedList"`
	// Mix is the workload mix M the probes below use.
	Mix []Shape `json:"mix"`
	// Fragmentation is the fragmentation rate of the idle devices for Mix.
	Fragmentation Fragmentation `json:"fragmentation"`
	// Headroom is, per shape of Mix, how many more instances fit.
	Headroom []Headroom `json:"headroom"`
	// LargestRequests is, per DeviceClass, the most devices one claim can
	// get on one node.
	LargestRequests []LargestRequest `json:"largestRequests"`
	// CounterSets are the shared counters of partitionable devices.
	CounterSets []CounterSet `json:"counterSets"`
	// Stranded is capacity that is free but that nothing can use.
	Stranded Stranded `json:"stranded"`
	// Nodes and Pods are the per-object rows (the CSV output).
	Nodes    []Node   `json:"nodes"`
	Pods     []Pod    `json:"pods"`
	Warnings []string `json:"warnings,omitempty"`

	// Edits are the what-if edits applied before the replay.
	Edits []result.Edit `json:"edits,omitempty"`
	// Resilience is the failure-domain analyses asked for
	// (Options.FailureDomains), in that order.
	Resilience []*whatif.Resilience `json:"resilience,omitempty"`
	// Autoscaling is what the snapshot's ProvisioningRequests and
	// CapacityBuffers would get from cluster-autoscaler now
	// (autoscale.Assess; nil without any).
	Autoscaling *autoscale.Assessment `json:"autoscaling,omitempty"`

	// DeviceMap is every device's state after the replay, and
	// DeviceMapBefore the same without the edits (DeviceMapOf); the HTML
	// report draws them. They are left out of the structured outputs.
	DeviceMap       *DeviceMap `json:"-"`
	DeviceMapBefore *DeviceMap `json:"-"`
}

// Inputs says what the report was computed from.
type Inputs struct {
	Files             []string `json:"files,omitempty"`
	KubernetesVersion string   `json:"kubernetesVersion"`
	TieBreak          string   `json:"tieBreak"`
	Seed              int64    `json:"seed"`
	GroupBy           string   `json:"groupBy"`
	// MixSource is MixWorkloads or MixProbe.
	MixSource     string `json:"mixSource"`
	MaxHeadroom   int    `json:"maxHeadroom"`
	MaxSequential int    `json:"maxSequential"`
	Nodes         int    `json:"nodes"`
	Devices       int    `json:"devices"`
	Pods          int    `json:"pods"`
}

// PodCounts counts pods by outcome. Pending counts pods the replay could
// not place (phase Unschedulable); Bound pods ran before the replay.
type PodCounts struct {
	Bound     int `json:"bound"`
	Scheduled int `json:"scheduled"`
	Pending   int `json:"pending"`
	Gated     int `json:"gated,omitempty"`
	Skipped   int `json:"skipped,omitempty"`
	Preempted int `json:"preempted,omitempty"`
}

// Fit is what the replay placed and what it left pending.
type Fit struct {
	Pods       PodCounts      `json:"pods"`
	Namespaces []NamespaceFit `json:"namespaces"`
	Workloads  []WorkloadFit  `json:"workloads"`
	// PendingReasons groups the rejections of pending pods by plugin and
	// reason, most frequent first.
	PendingReasons []PendingReason `json:"pendingReasons"`
	// Preemption is what preemption deleted, by priority class.
	Preemption Preemption `json:"preemption"`
	// PodGroups counts the gangs (omitted without pod groups).
	PodGroups *PodGroupFit `json:"podGroups,omitempty"`
}

// PodGroupFit counts the pod groups: placed whole, not placed (pending
// whole or never tried), and, with GenericWorkload off, placed in part
// (short of minCount). Groups are the result's.
type PodGroupFit struct {
	Placed    int               `json:"placed"`
	NotPlaced int               `json:"notPlaced"`
	Partial   int               `json:"partial,omitempty"`
	Groups    []result.PodGroup `json:"groups"`
}

// Preemption counts the pods preemption deleted (Preempted) and the pods
// that preempted (Preemptors), and which priority classes lost pods.
type Preemption struct {
	Preempted  int `json:"preempted"`
	Preemptors int `json:"preemptors"`
	// PDBViolations counts victims a PodDisruptionBudget did not allow.
	PDBViolations int `json:"pdbViolations,omitempty"`
	// Classes are the priority classes (or bare priorities) of the
	// victims, highest priority first.
	Classes []PreemptedClass `json:"classes"`
}

// PreemptedClass is one priority class that lost pods: how many, out of
// how many of its pods were running or placed before, and to which
// classes.
type PreemptedClass struct {
	// Class is spec.priorityClassName, or "priority N" for pods without one.
	Class     string   `json:"class"`
	Priority  int32    `json:"priority"`
	Preempted int      `json:"preempted"`
	Pods      int      `json:"pods"`
	By        []string `json:"by"`
}

// NamespaceFit counts one namespace's pods.
type NamespaceFit struct {
	Namespace string `json:"namespace"`
	PodCounts
}

// WorkloadFit counts one workload's pods. Workload is the controller as
// "Kind/name"; pods without one are grouped as "Pod/<name>", with a trailing
// "-<number>" replaced by "-*" (so infer-0..infer-9 are "Pod/infer-*").
type WorkloadFit struct {
	Namespace string `json:"namespace"`
	Workload  string `json:"workload"`
	PodCounts
}

// PendingReason is one (plugin, reason) that kept pods pending: Pods is how
// many pending pods were rejected for it by at least one node, Nodes the sum
// of nodes that gave it.
type PendingReason struct {
	Plugin string `json:"plugin"`
	Reason string `json:"reason"`
	Pods   int    `json:"pods"`
	Nodes  int    `json:"nodes"`
}

// Utilization is what is in use after the replay.
type Utilization struct {
	Total Usage `json:"total"`
	// Classes: for each DeviceClass, the devices its selectors match and
	// the nodes that hold at least one of them.
	Classes []Usage `json:"classes"`
	// Drivers: for each DRA driver, its devices and the nodes holding them.
	Drivers []Usage `json:"drivers"`
	// Groups: for each value of the GroupBy label, its nodes and their
	// devices.
	Groups []Usage `json:"groups"`
}

// Usage is device, CPU, memory and pod use over a set of nodes. CPU,
// Memory and Pods are summed over Nodes; devices that no single node holds
// (network-attached pools) count in Devices but add no node.
type Usage struct {
	Name    string      `json:"name"`
	Nodes   int         `json:"nodes"`
	Devices DeviceCount `json:"devices"`
	CPU     Quantity    `json:"cpu"`
	Memory  Quantity    `json:"memory"`
	Pods    Slots       `json:"pods"`
}

// DeviceCount splits devices by state: Allocated (named by a claim's
// allocation, shared allocations included, adminAccess excluded), Blocked
// (free, but a sibling partition took the shared counters it needs) and
// Idle (neither). Share is Allocated/Total (0 when there are none).
type DeviceCount struct {
	Total     int     `json:"total"`
	Allocated int     `json:"allocated"`
	Blocked   int     `json:"blocked"`
	Idle      int     `json:"idle"`
	Share     float64 `json:"share"`
}

// Quantity is requested against allocatable, as Kubernetes quantities and in
// base units (millicores for CPU, bytes for memory); Share is
// RequestedValue/AllocatableValue.
type Quantity struct {
	Requested        string  `json:"requested"`
	Allocatable      string  `json:"allocatable"`
	RequestedValue   int64   `json:"requestedValue"`
	AllocatableValue int64   `json:"allocatableValue"`
	Share            float64 `json:"share"`
}

// Slots is pods against the pod capacity; Share is Used/Total.
type Slots struct {
	Used  int     `json:"used"`
	Total int     `json:"total"`
	Share float64 `json:"share"`
}

// PrioritizedList is how the requests with firstAvailable alternatives were
// served.
type PrioritizedList struct {
	// Allocated counts allocated requests with alternatives; FirstChoice
	// those that got their first alternative; FirstChoiceShare is
	// FirstChoice/Allocated (1 when nothing was allocated).
	Allocated        int                  `json:"allocated"`
	FirstChoice      int                  `json:"firstChoice"`
	FirstChoiceShare float64              `json:"firstChoiceShare"`
	Requests         []AlternativeOutcome `json:"requests"`
}

// AlternativeOutcome is one request with firstAvailable alternatives, over
// the claims of one workload made from one template (or one named claim):
// Allocated[i] claims got Alternatives[i]; Unallocated were not allocated.
type AlternativeOutcome struct {
	Namespace string `json:"namespace"`
	Workload  string `json:"workload"`
	// Template is the ResourceClaimTemplate, or "claim/<name>" for a claim
	// the pods name directly.
	Template         string   `json:"template"`
	Request          string   `json:"request"`
	Alternatives     []string `json:"alternatives"`
	Allocated        []int    `json:"allocated"`
	Unallocated      int      `json:"unallocated"`
	FirstChoiceShare float64  `json:"firstChoiceShare"`
}

// Shape is one request shape of the workload mix: what one pod asks for.
type Shape struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	// Pods is how many pods of the mix have this shape; Weight is Pods over
	// all pods of the mix (the p_m of the fragmentation rate).
	Pods   int     `json:"pods"`
	Weight float64 `json:"weight"`
	CPU    string  `json:"cpu"`
	Memory string  `json:"memory"`
	// Devices lists the shape's device requests.
	Devices []ShapeRequest `json:"devices"`
	// Workloads are the workloads whose pods have this shape.
	Workloads []string `json:"workloads"`
}

// ShapeRequest is one device request of a shape: Classes has one class, or
// the alternatives of a firstAvailable request in order. Count is the
// device count (0 for allocationMode All).
type ShapeRequest struct {
	Claim   string   `json:"claim"`
	Request string   `json:"request"`
	Classes []string `json:"classes"`
	Count   int64    `json:"count"`
	All     bool     `json:"all,omitempty"`
}

// Fragmentation is the fragmentation rate after Weng et al. (USENIX ATC
// 2023): an idle device d on node n is fragmented for shape m when m cannot
// be scheduled on n, or when m cannot use d (no request of m selects it;
// shapes without device requests use no device). With the mix weights p_m:
//
//	Rate = Σ_m p_m · |fragmented idle devices for m| / |idle devices|
//
// Only devices of a single node count (network-attached devices have no
// node to probe), and only devices that some DeviceClass selects: no claim
// can request the others, so they are counted apart, in
// UnselectedIdleDevices. Rate is 0 when there is no idle device.
type Fragmentation struct {
	Rate        float64 `json:"rate"`
	IdleDevices int     `json:"idleDevices"`
	// UnselectedIdleDevices are idle devices on schedulable nodes that no
	// DeviceClass selects; they are not in IdleDevices nor in any rate.
	// Omitted when zero.
	UnselectedIdleDevices int `json:"unselectedIdleDevices,omitempty"`
	// FragmentedDevices is Σ_m p_m · |fragmented for m|.
	FragmentedDevices float64              `json:"fragmentedDevices"`
	Classes           []ClassFragmentation `json:"classes"`
	Shapes            []ShapeFragmentation `json:"shapes"`
}

// ClassFragmentation is the rate over the idle devices a DeviceClass
// matches.
type ClassFragmentation struct {
	Class             string  `json:"class"`
	IdleDevices       int     `json:"idleDevices"`
	FragmentedDevices float64 `json:"fragmentedDevices"`
	Rate              float64 `json:"rate"`
}

// ShapeFragmentation is one shape's part: FeasibleNodes is where one more
// instance fits now; FragmentedDevices the idle devices fragmented for it;
// Rate is FragmentedDevices/IdleDevices (unweighted).
type ShapeFragmentation struct {
	Shape             string  `json:"shape"`
	Weight            float64 `json:"weight"`
	FeasibleNodes     int     `json:"feasibleNodes"`
	FragmentedDevices int     `json:"fragmentedDevices"`
	Rate              float64 `json:"rate"`
}

// Headroom is how many more instances of a shape fit, placed one after
// another on a copy of the cluster. Capped is set when the count reached
// the bound (Options.MaxHeadroom, or MaxSequential for the sequential
// method): at least Fits fit. Nodes is how many nodes take at least one.
// Reason is kube's message for the first instance that did not fit, when
// none fits.
type Headroom struct {
	Shape  string `json:"shape"`
	Fits   int    `json:"fits"`
	Capped bool   `json:"capped,omitempty"`
	Method string `json:"method"`
	Nodes  int    `json:"nodes"`
	Reason string `json:"reason,omitempty"`
}

// LargestRequest is the largest number of devices of a class that one claim
// (one request, allocationMode ExactCount) can get on one schedulable node
// now, as the allocator decides; node taints, CPU and memory are not
// considered. Node is the first node (by name) where it fits. Available is
// the class's idle devices on schedulable nodes. AtLeast says that Devices
// is only a lower bound: on some node the count could not be confirmed
// without the allocator's exhaustive search over partitions
// (docs/metrics.md).
type LargestRequest struct {
	Class     string `json:"class"`
	Devices   int    `json:"devices"`
	Node      string `json:"node,omitempty"`
	Available int    `json:"available"`
	AtLeast   bool   `json:"atLeast,omitempty"`
}

// CounterSet is one shared counter set of a pool (partitionable devices):
// what its counters hold, what the allocated devices consume and what is
// free. FreeShare is the mean over counters of Free/Total. Fits lists the
// unallocated devices drawing on this set whose consumption still fits.
type CounterSet struct {
	Driver    string         `json:"driver"`
	Pool      string         `json:"pool"`
	Node      string         `json:"node,omitempty"`
	Name      string         `json:"name"`
	Counters  []CounterValue `json:"counters"`
	FreeShare float64        `json:"freeShare"`
	Fits      []string       `json:"fits"`
}

// CounterValue is one counter of a set.
type CounterValue struct {
	Name     string `json:"name"`
	Total    string `json:"total"`
	Consumed string `json:"consumed"`
	Free     string `json:"free"`
}

// Stranded is capacity that is free but that nothing can use:
//
//   - idle devices on nodes whose free CPU, memory or pod slots are too
//     small for every device-requesting shape of the mix (for a mix without
//     one: nodes with no CPU, memory or pod slot left), and
//   - free CPU and memory on nodes that have devices, all of them taken.
type Stranded struct {
	Devices     int               `json:"devices"`
	CPU         string            `json:"cpu"`
	Memory      string            `json:"memory"`
	CPUValue    int64             `json:"cpuValue"`
	MemoryValue int64             `json:"memoryValue"`
	DeviceNodes []StrandedDevices `json:"deviceNodes"`
	HostNodes   []StrandedHost    `json:"hostNodes"`
}

// StrandedDevices is a node whose idle devices nothing can use; Exhausted
// names the host resources (cpu, memory, pods) too small for the shapes.
type StrandedDevices struct {
	Node        string   `json:"node"`
	Group       string   `json:"group"`
	IdleDevices int      `json:"idleDevices"`
	Exhausted   []string `json:"exhausted"`
	FreeCPU     string   `json:"freeCPU"`
	FreeMemory  string   `json:"freeMemory"`
	FreePods    int      `json:"freePods"`
}

// StrandedHost is a node whose devices are all taken while CPU or memory
// is left.
type StrandedHost struct {
	Node        string `json:"node"`
	Group       string `json:"group"`
	Devices     int    `json:"devices"`
	FreeCPU     string `json:"freeCPU"`
	FreeMemory  string `json:"freeMemory"`
	CPUValue    int64  `json:"cpuValue"`
	MemoryValue int64  `json:"memoryValue"`
}

// Node is one node after the replay. Stranded is "devices", "host" or "".
type Node struct {
	Name          string      `json:"name"`
	Group         string      `json:"group"`
	Unschedulable bool        `json:"unschedulable,omitempty"`
	CPU           Quantity    `json:"cpu"`
	Memory        Quantity    `json:"memory"`
	Pods          Slots       `json:"pods"`
	Devices       DeviceCount `json:"devices"`
	Stranded      string      `json:"stranded,omitempty"`
}

// Stranded kinds of a Node.
const (
	StrandedKindDevices = "devices"
	StrandedKindHost    = "host"
)

// Pod is one pod's outcome. Reason is the most frequent (plugin: reason) of
// a pending pod.
type Pod struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Workload  string `json:"workload"`
	Phase     string `json:"phase"`
	Node      string `json:"node,omitempty"`
	Devices   int    `json:"devices"`
	Reason    string `json:"reason,omitempty"`
}
