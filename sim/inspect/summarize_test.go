package inspect_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/inspect"
	"github.com/drasim/drasim/sim/load"
	"github.com/google/go-cmp/cmp"
)

// summarize loads one YAML document stream and summarizes it.
func summarize(t *testing.T, input string, lopts load.Options, opts inspect.Options) *inspect.Summary {
	t.Helper()
	res, err := load.LoadBytes("test.yaml", []byte(input), lopts)
	if err != nil {
		t.Fatalf("loading the test input: want no error, got: %v", err)
	}
	return inspect.Summarize(res.Snapshot, opts)
}

const nodesYAML = `
apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {node.kubernetes.io/instance-type: big, zone: a}
spec:
  taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
status:
  allocatable: {cpu: "32", memory: 128Gi, pods: "110"}
  capacity: {cpu: "48", memory: 256Gi, pods: "250"}
---
apiVersion: v1
kind: Node
metadata:
  name: n2
  labels: {node.kubernetes.io/instance-type: big, zone: b}
spec:
  unschedulable: true
status:
  allocatable: {cpu: 32500m, memory: 64Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata:
  name: n3
  labels: {zone: a}
spec:
  taints: [{key: spot, effect: PreferNoSchedule}]
status:
  capacity: {cpu: "8", memory: 16Gi, pods: "50"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpu}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}, {name: gpu-1}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: fabric}
spec:
  driver: nic.example.com
  allNodes: true
  pool: {name: fabric, generation: 1, resourceSliceCount: 1}
  devices: [{name: nic-0}]
`

func TestSummarizeNodes(t *testing.T) {
	tests := []struct {
		name string
		opts inspect.Options
		want inspect.NodeSummary
	}{{
		name: "default label; allocatable falls back to capacity; multi-node devices count for no node",
		want: inspect.NodeSummary{
			Total: 3, Schedulable: 2, Unschedulable: 1, Tainted: 1,
			GroupBy: inspect.DefaultGroupBy,
			Groups: []inspect.NodeGroup{
				{Name: "big", Nodes: 2, CPU: "64500m", Memory: "192Gi", Pods: 220, Devices: 2},
				{Name: inspect.NoGroup, Nodes: 1, CPU: "8", Memory: "16Gi", Pods: 50, Devices: 0},
			},
		},
	}, {
		name: "custom label",
		opts: inspect.Options{GroupBy: "zone"},
		want: inspect.NodeSummary{
			Total: 3, Schedulable: 2, Unschedulable: 1, Tainted: 1,
			GroupBy: "zone",
			Groups: []inspect.NodeGroup{
				{Name: "a", Nodes: 2, CPU: "40", Memory: "144Gi", Pods: 160, Devices: 2},
				{Name: "b", Nodes: 1, CPU: "32500m", Memory: "64Gi", Pods: 110, Devices: 0},
			},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := summarize(t, nodesYAML, load.Options{}, tt.opts)
			if diff := cmp.Diff(tt.want, got.Nodes); diff != "" {
				t.Errorf("Summarize().Nodes mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// devicesYAML has a complete pool of two slices, a pool caught mid-update
// (generation 2 has one of two slices, one slice of generation 1 is stale), a
// multi-node pool, and claims that allocate one device normally and one with
// admin access.
const devicesYAML = `
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: a-0}
spec:
  driver: gpu.example.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 2}
  devices:
  - name: gpu-0
    attributes: {model: {string: h100}}
    capacity: {memory: {value: 80Gi}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: a-1}
spec:
  driver: gpu.example.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 2}
  devices:
  - name: gpu-1
    attributes: {model: {string: h100}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: b-old}
spec:
  driver: gpu.example.com
  nodeName: node-b
  pool: {name: node-b, generation: 1, resourceSliceCount: 2}
  devices:
  - name: gpu-9
    attributes: {model: {string: l4}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: b-new}
spec:
  driver: gpu.example.com
  nodeName: node-b
  pool: {name: node-b, generation: 2, resourceSliceCount: 2}
  devices:
  - name: gpu-0
    attributes: {model: {string: l4}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: fabric}
spec:
  driver: nic.example.com
  nodeSelector:
    nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: In, values: ["1"]}]}]
  pool: {name: fabric, generation: 1, resourceSliceCount: 1}
  devices: [{name: nic-0}, {name: nic-1}]
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: h100-unguarded}
spec:
  selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].model == "h100"'}}]
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: big-memory}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
  - cel: {expression: 'device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0'}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: anything}
spec: {}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: broken}
spec:
  selectors: [{cel: {expression: 'device.driver =='}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: train}
spec:
  devices:
    requests: [{name: gpu, exactly: {deviceClassName: gpu}}]
status:
  allocation:
    devices:
      results: [{request: gpu, driver: gpu.example.com, pool: node-a, device: gpu-0}]
  reservedFor: [{resource: pods, name: train-0, uid: "1"}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: monitor}
spec:
  devices:
    requests: [{name: gpu, exactly: {deviceClassName: gpu, adminAccess: true}}]
status:
  allocation:
    devices:
      results: [{request: gpu, driver: gpu.example.com, pool: node-a, device: gpu-1, adminAccess: true}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: waiting}
spec:
  devices:
    requests: [{name: gpu, exactly: {deviceClassName: gpu}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu}
spec:
  spec:
    devices:
      requests: [{name: gpu, exactly: {deviceClassName: gpu}}]
`

// celHint is what cel.EnhanceRuntimeError adds to a missing-key error.
const celHint = ". consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for optional fields"

func TestSummarizeDevices(t *testing.T) {
	got := summarize(t, devicesYAML, load.Options{}, inspect.Options{})

	wantDevices := inspect.DeviceSummary{
		Total: 5,
		Drivers: []inspect.Driver{
			{Name: "gpu.example.com", Pools: 2, Slices: 3, Nodes: 2, Devices: 3, Allocated: 1},
			{Name: "nic.example.com", Pools: 1, Slices: 1, Nodes: 0, Devices: 2, Allocated: 0},
		},
		Classes: []inspect.DeviceClass{
			{Name: "anything", Matching: 5, Allocated: 1, AdminAccess: 1},
			{
				Name: "big-memory", Selectors: 2, Matching: 1, Allocated: 1,
				EvalErrors: 2, // the GPUs without memory capacity
				Error:      "selector #1 on device gpu.example.com/node-a/gpu-1: CEL runtime error: no such key: memory" + celHint,
			},
			{Name: "broken", Selectors: 1, Error: "selector #0: CEL compile error: compilation failed: ERROR: <input>:1:16: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER, ESC_IDENTIFIER}\n | device.driver ==\n | ...............^"},
			{Name: "gpu", Selectors: 1, Matching: 3, Allocated: 1, AdminAccess: 1},
			{
				Name: "h100-unguarded", Selectors: 1, Matching: 2, Allocated: 1, AdminAccess: 1,
				EvalErrors: 2, // the NICs, which have no model
				Error:      "selector #0 on device nic.example.com/fabric/nic-0: CEL runtime error: no such key: model" + celHint,
			},
		},
	}
	// Compiler messages belong to cel-go; only their start is ours to test.
	for i := range got.Devices.Classes {
		c := &got.Devices.Classes[i]
		if c.Name == "broken" && strings.HasPrefix(c.Error, "selector #0: CEL compile error: ") {
			c.Error = wantDevices.Classes[i].Error
		}
	}
	if diff := cmp.Diff(wantDevices, got.Devices); diff != "" {
		t.Errorf("Summarize().Devices mismatch (-want +got):\n%s", diff)
	}

	wantPools := []inspect.Pool{
		{Driver: "gpu.example.com", Name: "node-a", Node: "node-a", Generation: 1, Slices: 2, ResourceSliceCount: 2, Complete: true, Devices: 2},
		{Driver: "gpu.example.com", Name: "node-b", Node: "node-b", Generation: 2, Slices: 1, ResourceSliceCount: 2, StaleSlices: 1, Devices: 1},
		{Driver: "nic.example.com", Name: "fabric", Node: inspect.MultiNode, Generation: 1, Slices: 1, ResourceSliceCount: 1, Complete: true, Devices: 2},
	}
	if diff := cmp.Diff(wantPools, got.Pools); diff != "" {
		t.Errorf("Summarize().Pools mismatch (-want +got):\n%s", diff)
	}

	wantClaims := inspect.ClaimSummary{Total: 3, Allocated: 2, Pending: 1, Reserved: 1, Templates: 1}
	if diff := cmp.Diff(wantClaims, got.Claims); diff != "" {
		t.Errorf("Summarize().Claims mismatch (-want +got):\n%s", diff)
	}
}

func TestSummarizePerDeviceNodeSelection(t *testing.T) {
	const input = `
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: mixed}
spec:
  driver: tpu.example.com
  perDeviceNodeSelection: true
  pool: {name: rack-1, generation: 3, resourceSliceCount: 1}
  devices:
  - {name: tpu-0, nodeName: n1}
  - {name: tpu-1, nodeName: n2}
  - {name: tpu-2, allNodes: true}
`
	got := summarize(t, input, load.Options{}, inspect.Options{})
	want := []inspect.Driver{{Name: "tpu.example.com", Pools: 1, Slices: 1, Nodes: 2, Devices: 3}}
	if diff := cmp.Diff(want, got.Devices.Drivers); diff != "" {
		t.Errorf("Summarize().Devices.Drivers mismatch (-want +got):\n%s", diff)
	}
	if got.Pools[0].Node != inspect.MultiNode {
		t.Errorf("pool node: want %q, got %q", inspect.MultiNode, got.Pools[0].Node)
	}
	if g := got.Nodes.Groups[0]; g.Devices != 1 {
		t.Errorf("devices of the group holding n1: want 1 (tpu-0), got %d", g.Devices)
	}
}

func TestSummarizeEmpty(t *testing.T) {
	got := summarize(t, "", load.Options{}, inspect.Options{})
	want := &inspect.Summary{
		APIVersion: inspect.APIVersion,
		Kind:       inspect.Kind,
		Nodes:      inspect.NodeSummary{GroupBy: inspect.DefaultGroupBy, Groups: []inspect.NodeGroup{}},
		Devices:    inspect.DeviceSummary{Drivers: []inspect.Driver{}, Classes: []inspect.DeviceClass{}},
		Pools:      []inspect.Pool{},
		Workloads:  []inspect.Workload{},
		Skipped:    []inspect.SkippedKind{},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Summarize(empty) mismatch (-want +got):\n%s", diff)
	}
	// The CLI marshals the summary; lists must come out as [], never null.
	data, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("json.Marshal: want no error, got: %v", err)
	}
	if strings.Contains(string(data), "null") {
		t.Errorf("JSON of an empty summary: want no null, got %s", data)
	}
}

func TestSummarizeSkipped(t *testing.T) {
	const input = `
apiVersion: v1
kind: ConfigMap
metadata: {name: a}
---
apiVersion: v1
kind: Service
metadata: {name: b}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
`
	got := summarize(t, input, load.Options{}, inspect.Options{})
	want := []inspect.SkippedKind{{Kind: "v1/ConfigMap", Count: 2}, {Kind: "v1/Service", Count: 1}}
	if diff := cmp.Diff(want, got.Skipped); diff != "" {
		t.Errorf("Summarize().Skipped mismatch (-want +got):\n%s", diff)
	}
}

func TestSummaryJSONRoundTrip(t *testing.T) {
	got := summarize(t, devicesYAML, load.Options{}, inspect.Options{})
	data, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("json.Marshal: want no error, got: %v", err)
	}
	for _, want := range []string{`"apiVersion":"drasim.io/v1alpha1"`, `"kind":"SnapshotSummary"`, `"resourceSliceCount":2`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("JSON: want it to contain %s, got %s", want, data)
		}
	}
	var back inspect.Summary
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("json.Unmarshal: want no error, got: %v", err)
	}
	if diff := cmp.Diff(got, &back); diff != "" {
		t.Errorf("JSON round trip mismatch (-want +got):\n%s", diff)
	}
}
