package inspect

// APIVersion and Kind identify a marshalled Summary.
const (
	APIVersion = "drasim.io/v1alpha1"
	Kind       = "SnapshotSummary"
)

// DefaultGroupBy is the node label nodes are grouped by when
// Options.GroupBy is empty.
const DefaultGroupBy = "node.kubernetes.io/instance-type"

// NoGroup is the group of nodes that lack the GroupBy label.
const NoGroup = "<none>"

// MultiNode is the node of a pool whose slices are not bound to a single node
// (nodeSelector, allNodes or perDeviceNodeSelection).
const MultiNode = "<multi-node>"

// Options controls Summarize.
type Options struct {
	// GroupBy is the node label whose value groups nodes; DefaultGroupBy
	// when empty.
	GroupBy string
}

// Summary is what a snapshot holds. It marshals to JSON and, through
// sigs.k8s.io/yaml, to YAML; lists are never nil so that they marshal as []
// rather than null.
type Summary struct {
	APIVersion string        `json:"apiVersion"`
	Kind       string        `json:"kind"`
	Nodes      NodeSummary   `json:"nodes"`
	Devices    DeviceSummary `json:"devices"`
	Pools      []Pool        `json:"pools"`
	Claims     ClaimSummary  `json:"claims"`
	Pods       PodSummary    `json:"pods"`
	Workloads  []Workload    `json:"workloads"`
	Skipped    []SkippedKind `json:"skipped"`
}

// NodeSummary counts nodes. Tainted counts nodes with at least one NoSchedule
// or NoExecute taint (PreferNoSchedule keeps no pod away).
type NodeSummary struct {
	Total         int         `json:"total"`
	Schedulable   int         `json:"schedulable"`
	Unschedulable int         `json:"unschedulable"`
	Tainted       int         `json:"tainted"`
	GroupBy       string      `json:"groupBy"`
	Groups        []NodeGroup `json:"groups"`
}

// NodeGroup is the nodes that share one value of the GroupBy label. CPU and
// Memory are sums of status.allocatable as Kubernetes quantities; Pods is the
// summed pod capacity (allocatable pods). A node without status.allocatable
// counts its capacity, as the API server defaults allocatable to capacity.
// Devices counts the devices published for these nodes (slices with
// spec.nodeName, or devices with nodeName under perDeviceNodeSelection).
type NodeGroup struct {
	Name    string `json:"name"`
	Nodes   int    `json:"nodes"`
	CPU     string `json:"cpu"`
	Memory  string `json:"memory"`
	Pods    int64  `json:"pods"`
	Devices int    `json:"devices"`
}

// DeviceSummary describes the devices of the snapshot. Only slices of a pool's
// newest generation count: the scheduler ignores older ones.
type DeviceSummary struct {
	Total   int           `json:"total"`
	Drivers []Driver      `json:"drivers"`
	Classes []DeviceClass `json:"classes"`
}

// Driver counts what one DRA driver publishes. Nodes is how many distinct
// nodes have at least one of its devices; devices of multi-node slices count
// toward no node. Allocated counts devices that some claim's allocation names
// (adminAccess results excluded, see DeviceClass).
type Driver struct {
	Name      string `json:"name"`
	Pools     int    `json:"pools"`
	Slices    int    `json:"slices"`
	Nodes     int    `json:"nodes"`
	Devices   int    `json:"devices"`
	Allocated int    `json:"allocated"`
}

// DeviceClass says how many devices a class selects and how many of those are
// in use.
//
// Matching counts devices for which every CEL selector of the class is true;
// a class without selectors matches every device. Allocated counts matching
// devices named by a non-adminAccess allocation result: such a device is taken
// (for devices with allowMultipleAllocations: at least partly). Devices named
// only by adminAccess results stay available to others, so they are counted in
// AdminAccess instead and not in Allocated. A partition that is free but whose
// shared counters a sibling consumed is not counted as allocated.
//
// A selector that fails on a device (for example by reading an attribute the
// device lacks without checking for it) does not match that device;
// EvalErrors counts such devices and Error holds the first message. A selector
// that does not compile matches nothing, and Error says why. The scheduler
// fails any claim of the class on either error, so both are worth showing.
type DeviceClass struct {
	Name        string `json:"name"`
	Selectors   int    `json:"selectors"`
	Matching    int    `json:"matching"`
	Allocated   int    `json:"allocated"`
	AdminAccess int    `json:"adminAccess"`
	EvalErrors  int    `json:"evalErrors,omitempty"`
	Error       string `json:"error,omitempty"`
}

// Pool is one resource pool of a driver. Generation is the newest generation
// seen; Slices counts the slices of that generation and ResourceSliceCount is
// what they declare; the pool is complete when the two are equal (as the
// scheduler judges it). StaleSlices counts slices of older generations.
type Pool struct {
	Driver             string `json:"driver"`
	Name               string `json:"name"`
	Node               string `json:"node"`
	Generation         int64  `json:"generation"`
	Slices             int    `json:"slices"`
	ResourceSliceCount int64  `json:"resourceSliceCount"`
	StaleSlices        int    `json:"staleSlices,omitempty"`
	Complete           bool   `json:"complete"`
	Devices            int    `json:"devices"`
}

// ClaimSummary counts ResourceClaims: Allocated + Pending = Total; Reserved
// counts claims with a consumer in status.reservedFor.
type ClaimSummary struct {
	Total     int `json:"total"`
	Allocated int `json:"allocated"`
	Pending   int `json:"pending"`
	Reserved  int `json:"reserved"`
	Templates int `json:"templates"`
}

// PodSummary counts pods: Bound (spec.nodeName set) + Pending = Total, and
// FromDump + Generated = Total, where Generated pods are those drasim made
// for workload controllers.
type PodSummary struct {
	Total     int `json:"total"`
	Bound     int `json:"bound"`
	Pending   int `json:"pending"`
	FromDump  int `json:"fromDump"`
	Generated int `json:"generated"`
}

// Workload is one pod controller, or the bare pods (no controller) of one
// namespace, which have Kind "Pod" and no name.
//
// Desired is how many pods the controller wants: replicas, the Job's active
// pods (parallelism bounded by the completions left) or the nodes a DaemonSet
// runs on. It is nil for bare pods and for pods whose controller is not in the
// snapshot (ControllerMissing). Pods counts the workload's pods in the
// snapshot, WithClaims those of them that request ResourceClaims.
type Workload struct {
	Kind              string `json:"kind"`
	Namespace         string `json:"namespace"`
	Name              string `json:"name,omitempty"`
	Desired           *int   `json:"desired,omitempty"`
	Pods              int    `json:"pods"`
	WithClaims        int    `json:"withClaims"`
	ControllerMissing bool   `json:"controllerMissing,omitempty"`
}

// SkippedKind is a kind the loader read but drasim does not model, as
// "apiVersion/kind".
type SkippedKind struct {
	Kind  string `json:"kind"`
	Count int    `json:"count"`
}
