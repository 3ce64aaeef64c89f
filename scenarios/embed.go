// Package scenarios holds drasim's example snapshots. Each is also a golden
// test (its expected results, recorded from the real kube-scheduler v1.37.2,
// are in oracle/) and a benchmark fixture. The demo is compiled into the
// binary so that `drasim simulate` works on a fresh machine.
package scenarios

import _ "embed"

// DemoName is the file name of the embedded demo scenario.
const DemoName = "00-demo.yaml"

// Demo returns the demo snapshot: a small mixed GPU cluster with
// prioritized-list claims.
func Demo() []byte { return demo }

//go:embed 00-demo.yaml
var demo []byte

// TimelineDemoName and TimelineDemoTraceName are the files of the
// embedded timeline demo (drasim timeline without -f or --trace).
const (
	TimelineDemoName      = "timeline/demo.yaml"
	TimelineDemoTraceName = "timeline/demo-trace.csv"
)

// TimelineDemo returns the timeline demo's cluster and node groups.
func TimelineDemo() []byte { return timelineDemo }

// TimelineDemoTrace returns the timeline demo's four hours of arrivals.
func TimelineDemoTrace() []byte { return timelineDemoTrace }

//go:embed timeline/demo.yaml
var timelineDemo []byte

//go:embed timeline/demo-trace.csv
var timelineDemoTrace []byte

// TimelineProvisioningName is the file of the embedded timeline example
// "provisioning" (drasim timeline --example provisioning):
// ProvisioningRequests and a gang that cluster-autoscaler scales up for.
const TimelineProvisioningName = "timeline/provisioning.yaml"

// TimelineProvisioning returns the example's cluster, node groups,
// requests and workloads.
func TimelineProvisioning() []byte { return timelineProvisioning }

//go:embed timeline/provisioning.yaml
var timelineProvisioning []byte
