package sim

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/validate"
)

// FuzzAdmittedSnapshots is what every drasim command does with its input:
// load it, refuse what the API server would refuse (validate.Rejected),
// then replay it. Whatever gets through must replay without a panic: no
// input may reach a panic (a negative count once did, in the allocator).
func FuzzAdmittedSnapshots(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "scenarios", "*.yaml"))
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec: {driver: gpu.example.com, nodeName: n1, pool: {name: n1, resourceSliceCount: 1}, devices: [{name: gpu-0}]}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, resources: {requests: {cpu: "1"}, claims: [{name: g}]}}]
  resourceClaims: [{name: g, resourceClaimTemplateName: t}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: t}
spec: {spec: {devices: {requests: [{name: r, exactly: {deviceClassName: gpu, count: -3}}]}}}
`))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := load.LoadBytes("fuzz.yaml", data, load.Options{})
		if err != nil || len(validate.Rejected(res.Snapshot)) > 0 || len(res.Snapshot.Nodes) == 0 {
			return
		}
		if len(res.Snapshot.Pods) > 200 || len(res.Snapshot.Nodes) > 200 {
			return // keep each input fast
		}
		// Errors are allowed (a plugin error fails one pod, a broken
		// scheduler config the run); panics are not.
		_, _ = Simulate(context.Background(), res.Snapshot, Options{})
	})
}
