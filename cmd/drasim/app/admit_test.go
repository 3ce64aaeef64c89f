package app

import (
	"strings"
	"testing"
)

// negativeCount is a cluster the autoscaler could grow, with a claim
// template whose request asks for -3 devices: the API server rejects it,
// and the DRA allocator panics on it (makeslice) if it ever gets there.
const negativeCount = `apiVersion: v1
kind: Node
metadata: {name: n1, labels: {pool: gpu}}
status:
  allocatable: {cpu: "8", memory: 16Gi, pods: "110"}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
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
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: t, namespace: default}
spec:
  spec:
    devices:
      requests:
      - name: g
        exactly: {deviceClassName: gpu, count: -3}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers:
  - name: c
    image: x
    resources:
      claims: [{name: gpu}]
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: t
---
apiVersion: drasim.io/v1alpha1
kind: NodeGroup
metadata: {name: gpu}
spec:
  maxSize: 3
  nodeSelector: {matchLabels: {pool: gpu}}
  templateFrom: n1
`

func TestRejectedInputStopsEveryCommand(t *testing.T) {
	in := writeTemp(t, "negative-count.yaml", negativeCount)
	gates := writeTemp(t, "gates.yaml", "apiVersion: drasim.io/v1alpha1\nkind: Gates\ngates:\n- name: anything\n  maxPendingPods: {max: 1000}\n")
	want := in + `:24 (document 4): ResourceClaimTemplate "default/t": spec.spec.devices.requests[0].exactly.count: must be greater than zero, found -3`
	for _, args := range [][]string{
		{"simulate", "-f", in},
		{"simulate", "-f", in, "--autoscale"},
		{"explain", "p", "-f", in},
		{"report", "-f", in},
		{"check", "-f", in, "--gates", gates},
		{"autoscale", "-f", in},
		{"inspect", "-f", in},
		{"validate", "-f", in},
	} {
		t.Run(strings.Join(args[:1], " "), func(t *testing.T) {
			r := capacityCLI(t, args...)
			if r.code != ExitFailure {
				t.Errorf("%v: want exit %d, got %d (stderr %q)", args, ExitFailure, r.code, r.stder)
			}
			if !strings.Contains(r.stder+r.stdout, want) {
				t.Errorf("%v: want the rejection %q, got stderr %q, stdout %q", args, want, r.stder, r.stdout)
			}
		})
	}
}
