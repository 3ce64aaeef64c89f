package timeline

import (
	"math"
	"time"

	"github.com/drasim/drasim/sim/analysis"
	"github.com/drasim/drasim/sim/autoscale"
)

// APIVersion and Kind of a serialized timeline.
const (
	APIVersion = "drasim.io/v1alpha1"
	Kind       = "Timeline"
)

// Seconds is a time from the start of the timeline, or a duration, in
// seconds (millisecond precision).
type Seconds float64

// secondsOf rounds a duration to milliseconds.
func secondsOf(d time.Duration) Seconds {
	return Seconds(math.Round(float64(d)/float64(time.Millisecond)) / 1000)
}

// Duration is the value as a time.Duration.
func (s Seconds) Duration() time.Duration { return time.Duration(float64(s) * float64(time.Second)) }

// Result is a finished timeline: what happened to every pod, the cluster
// over time, and the summary.
type Result struct {
	APIVersion string  `json:"apiVersion"`
	Kind       string  `json:"kind"`
	Inputs     Inputs  `json:"inputs"`
	Summary    Summary `json:"summary"`
	// Pods are the pods of the timeline in arrival order (pods at the
	// start first).
	Pods []PodRecord `json:"pods"`
	// Series is the cluster sampled every Inputs.Resolution.
	Series []Sample `json:"series"`
	// ScaleUps and ScaleDowns are the autoscaler's actions.
	ScaleUps   []ScaleUpRecord   `json:"scaleUps"`
	ScaleDowns []ScaleDownRecord `json:"scaleDowns"`
	// ProvisioningRequests are the snapshot's requests and what
	// cluster-autoscaler did with them (none: the field is left out).
	ProvisioningRequests []ProvReqRecord `json:"provisioningRequests,omitempty"`
	Warnings             []string        `json:"warnings,omitempty"`
}

// Inputs are the settings of the run.
type Inputs struct {
	Name              string   `json:"name,omitempty"`
	Files             []string `json:"files,omitempty"`
	KubernetesVersion string   `json:"kubernetesVersion"`
	// TieBreak is the scheduler's tie-break (kube or random); Seed drives
	// the random tie-break and the random expander.
	TieBreak string `json:"tieBreak"`
	Seed     int64  `json:"seed"`
	// NodeOrder is the order the scheduler met the nodes in, when it is
	// not by name (see cluster.NodeOrder).
	NodeOrder string `json:"nodeOrder,omitempty"`
	// Start is the wall-clock time the timeline's time 0 stands for.
	Start      time.Time `json:"start"`
	End        Seconds   `json:"end"`
	Resolution Seconds   `json:"resolution"`
	// FragmentationEvery is how often the fragmentation rate is sampled
	// (0: never).
	FragmentationEvery Seconds `json:"fragmentationEvery"`
	Arrivals           int     `json:"arrivals"`
	Nodes              int     `json:"nodes"`
	ScoringStrategy    string  `json:"scoringStrategy"`
	// Autoscaler is nil when the autoscaler is off.
	Autoscaler *AutoscalerInputs `json:"autoscaler,omitempty"`
}

// AutoscalerInputs are cluster-autoscaler's settings.
type AutoscalerInputs struct {
	Expanders    []string         `json:"expanders"`
	ScanInterval Seconds          `json:"scanInterval"`
	ScaleDown    *ScaleDownInputs `json:"scaleDown,omitempty"`
	// Groups are the node groups at the start, each with its
	// provisioning delay.
	Groups             []GroupInputs `json:"groups"`
	MaxNodesTotal      int           `json:"maxNodesTotal,omitempty"`
	MaxNodesPerScaleUp int           `json:"maxNodesPerScaleUp"`
}

// GroupInputs is a node group at the start.
type GroupInputs struct {
	autoscale.GroupInfo `json:",inline"`
	ProvisioningDelay   Seconds `json:"provisioningDelay"`
}

// ScaleDownInputs are the scale-down settings (nil when disabled).
type ScaleDownInputs struct {
	UnneededTime         Seconds `json:"unneededTime"`
	UtilizationThreshold float64 `json:"utilizationThreshold"`
	DelayAfterAdd        Seconds `json:"delayAfterAdd"`
	DelayAfterDelete     Seconds `json:"delayAfterDelete"`
	MaxParallelism       int     `json:"maxParallelism"`
	MaxDrainParallelism  int     `json:"maxDrainParallelism"`
}

// Pod phases at the end of a timeline.
const (
	PhaseFinished = "Finished"
	PhaseRunning  = "Running"
	PhasePending  = "Pending"
	// PhasePreempted: deleted by a preemption, with no controller to make
	// it again.
	PhasePreempted = "Preempted"
)

// PodRecord is what happened to one pod. Times are seconds from the start;
// nil when it did not happen.
type PodRecord struct {
	Namespace string  `json:"namespace"`
	Name      string  `json:"name"`
	Workload  string  `json:"workload"`
	Priority  int32   `json:"priority"`
	Arrival   Seconds `json:"arrival"`
	// FirstAttempt is the first scheduling cycle; Bound the (last) binding;
	// Started is when it began to run (at binding: drasim models no start
	// latency); Finished when it ended.
	FirstAttempt *Seconds `json:"firstAttempt,omitempty"`
	Bound        *Seconds `json:"bound,omitempty"`
	Started      *Seconds `json:"started,omitempty"`
	Finished     *Seconds `json:"finished,omitempty"`
	// Wait is the time spent pending: from arrival to binding, summed
	// over its evictions; up to the end for a pod never placed.
	Wait     Seconds  `json:"wait"`
	Attempts int      `json:"attempts"`
	Node     string   `json:"node,omitempty"`
	Devices  []string `json:"devices,omitempty"`
	// Alternatives are the prioritized-list ranks (1 = first choice) of
	// the pod's requests with firstAvailable, in claim order.
	Alternatives []int `json:"alternatives,omitempty"`
	// Evictions counts the scale-downs that evicted the pod, Preemptions
	// the preemptions that deleted it.
	Evictions   int    `json:"evictions,omitempty"`
	Preemptions int    `json:"preemptions,omitempty"`
	Phase       string `json:"phase"`
	// Message is kube's message of the pod's last failed cycle, for a pod
	// still pending at the end.
	Message string `json:"message,omitempty"`
}

// Sample is the cluster at one moment.
type Sample struct {
	Time    Seconds `json:"time"`
	Pending int     `json:"pending"`
	Running int     `json:"running"`
	// Nodes counts Ready nodes per group ("<none>" for nodes of no group),
	// every NodeGroup of the run, at 0 too; Provisioning the nodes asked
	// for and not Ready yet.
	Nodes        []GroupCount `json:"nodes"`
	Provisioning int          `json:"provisioning"`
	// CostRate is the price per hour of the nodes (provisioning ones
	// included: they are billed from the scale-up); Cost the cost so far.
	CostRate float64 `json:"costRate"`
	Cost     float64 `json:"cost"`
	// Devices are allocated and total devices per DeviceClass.
	Devices []analysis.ClassDevices `json:"devices"`
	// Fragmentation is the fragmentation rate of the idle devices for the
	// arrivals' workload mix (docs/metrics.md), when measured at this
	// sample.
	Fragmentation *float64 `json:"fragmentation,omitempty"`
	// Alternatives count, for the requests with firstAvailable of the pods
	// bound so far, how many got their first, second, ... alternative.
	Alternatives []int `json:"alternatives"`
}

// GroupCount is a number of nodes of one group.
type GroupCount struct {
	Group string `json:"group"`
	Nodes int    `json:"nodes"`
}

// ScaleUpRecord is one scale-up.
type ScaleUpRecord struct {
	Time  Seconds  `json:"time"`
	Group string   `json:"group"`
	Nodes []string `json:"nodes"`
	// Ready is when the nodes become Ready.
	Ready Seconds `json:"ready"`
	// By is the expander that chose; Options the groups it chose from.
	By        string   `json:"by"`
	Options   []string `json:"options"`
	Triggered int      `json:"triggered"`
	// ProvisioningRequest names the request a scale-up was for
	// (best-effort-atomic-scale-up), as namespace/name.
	ProvisioningRequest string `json:"provisioningRequest,omitempty"`
}

// ScaleDownRecord is one node deleted.
type ScaleDownRecord struct {
	Time        Seconds `json:"time"`
	Node        string  `json:"node"`
	Group       string  `json:"group"`
	UnneededFor Seconds `json:"unneededFor"`
	Evicted     int     `json:"evicted"`
}
