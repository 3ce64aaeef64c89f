package sim_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/load"
)

// negativeCount is input the API server rejects (a negative device count)
// and the allocator once panicked on.
const negativeCount = `apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}
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
`

// TestEngineEntryAdmitsInput holds the library's entry points to what the
// CLI does: input the API server would reject is refused before any
// scheduling, unless the caller says it admitted the snapshot itself.
func TestEngineEntryAdmitsInput(t *testing.T) {
	res, err := load.LoadBytes("bad.yaml", []byte(negativeCount), load.Options{})
	if err != nil {
		t.Fatalf("load: want no error, got %v", err)
	}
	ctx := context.Background()
	entries := map[string]func(sim.Options) error{
		"Simulate":     func(o sim.Options) error { _, err := sim.Simulate(ctx, res.Snapshot, o); return err },
		"Explain":      func(o sim.Options) error { _, err := sim.Explain(ctx, res.Snapshot, o, "default", "p"); return err },
		"NewEngineFor": func(o sim.Options) error { _, err := sim.NewEngineFor(res.Snapshot, o); return err },
	}
	for name, entry := range entries {
		err := entry(sim.Options{})
		var adm *sim.AdmissionError
		if !errors.As(err, &adm) {
			t.Errorf("%s: want an *sim.AdmissionError, got %v", name, err)
			continue
		}
		if !strings.Contains(err.Error(), "count") || !strings.Contains(err.Error(), `ResourceClaimTemplate "default/t"`) {
			t.Errorf("%s: want the error to name the template and the field, got:\n%v", name, err)
		}
	}
	if err := sim.Admit(res.Snapshot); err == nil {
		t.Errorf("Admit: want an error for a negative count, got nil")
	}
}
