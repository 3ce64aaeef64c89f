package dra_test

import (
	"context"
	"testing"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/result"
	"github.com/google/go-cmp/cmp"
)

// base is one node with two GPUs on different PCIe roots, the second
// tainted, plus a class; tests add claims and pods.
const base = `
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status:
  allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
  capacity: {cpu: "8", memory: 32Gi, pods: "110"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpu}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      model: {string: h100}
      resource.kubernetes.io/pcieRoot: {string: pci0}
  - name: gpu-1
    attributes:
      model: {string: h100}
      resource.kubernetes.io/pcieRoot: {string: pci1}
  - name: gpu-2
    attributes:
      model: {string: l4}
      resource.kubernetes.io/pcieRoot: {string: pci1}
    taints: [{key: broken, effect: NoSchedule}]
`

func pod(name, claimYAML string) string {
	return `
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: ` + name + `-claim}
spec:
` + claimYAML + `
---
apiVersion: v1
kind: Pod
metadata: {name: ` + name + `}
spec:
  resourceClaims: [{name: c, resourceClaimName: ` + name + `-claim}]
  containers: [{name: c, resources: {claims: [{name: c}], requests: {cpu: 100m}}}]
`
}

func reasons(t *testing.T, snapshot string) map[string][]result.DeviceReason {
	t.Helper()
	res, err := load.LoadBytes("t.yaml", []byte(snapshot), load.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	run, err := sim.Simulate(context.Background(), res.Snapshot, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]result.DeviceReason{}
	for _, p := range run.Result.Pods {
		if p.Phase == result.PhaseUnschedulable {
			out[p.Name] = p.DeviceReasons
		}
	}
	return out
}

// findingCodes are the codes of the DRA findings on every node that
// rejected the pod, as drasim explain sees them.
func findingCodes(t *testing.T, snapshot, pod string) []dra.FindingCode {
	t.Helper()
	res, err := load.LoadBytes("t.yaml", []byte(snapshot), load.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := sim.Explain(context.Background(), res.Snapshot, sim.Options{}, "default", pod)
	if err != nil {
		t.Fatalf("Explain %s: %v", pod, err)
	}
	var out []dra.FindingCode
	for _, n := range ex.Nodes {
		for _, f := range n.DeviceReasons {
			out = append(out, f.Code)
		}
	}
	return out
}

func TestDiagnose(t *testing.T) {
	tests := []struct {
		name string
		pods string
		want map[string][]result.DeviceReason
		// code is the finding's code for the one pod in want.
		code dra.FindingCode
	}{
		{
			name: "too few matching devices",
			pods: pod("p", `  devices:
    requests:
    - name: gpus
      exactly:
        deviceClassName: gpu
        count: 3
        selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].model == "h100"'}}]`),
			want: map[string][]result.DeviceReason{"p": {{Claim: "p-claim", Request: "gpus", Reason: dra.DiagNoMatchingDevices, Nodes: 1}}},
			code: dra.FindingNoMatchingDevices,
		},
		{
			name: "only a tainted device matches",
			pods: pod("p", `  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu
        selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].model == "l4"'}}]`),
			want: map[string][]result.DeviceReason{"p": {{Claim: "p-claim", Request: "gpu", Reason: dra.DiagTainted, Nodes: 1}}},
			code: dra.FindingTainted,
		},
		{
			name: "devices in use by an earlier pod",
			pods: pod("first", `  devices:
    requests:
    - {name: gpus, exactly: {deviceClassName: gpu, count: 2}}`) + pod("second", `  devices:
    requests:
    - {name: gpu, exactly: {deviceClassName: gpu}}`),
			want: map[string][]result.DeviceReason{"second": {{Claim: "second-claim", Request: "gpu", Reason: dra.DiagInUse, Nodes: 1}}},
			code: dra.FindingInUse,
		},
		{
			name: "matchAttribute cannot be met",
			pods: pod("p", `  devices:
    requests:
    - {name: gpus, exactly: {deviceClassName: gpu, count: 2}}
    constraints:
    - {matchAttribute: resource.kubernetes.io/pcieRoot}`),
			want: map[string][]result.DeviceReason{"p": {{Claim: "p-claim", Reason: dra.DiagConstraint + " (matchAttribute resource.kubernetes.io/pcieRoot)", Nodes: 1}}},
			code: dra.FindingConstraint,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := reasons(t, base+tt.pods)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("device reasons (-want +got):\n%s", diff)
			}
			for pod := range tt.want {
				if got := findingCodes(t, base+tt.pods, pod); !cmp.Equal(got, []dra.FindingCode{tt.code}) {
					t.Errorf("finding codes of pod %s = %v, want [%s]", pod, got, tt.code)
				}
			}
		})
	}
}
