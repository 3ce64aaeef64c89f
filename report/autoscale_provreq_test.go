package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/autoscale"
	"github.com/drasim/drasim/sim/result"
)

// A plan with a ProvisioningRequest and a CapacityBuffer shows both, in
// the table, the markdown and simulate --autoscale's summary.
func TestScaleUpProvisioningRequestsAndBuffers(t *testing.T) {
	p := &autoscale.Plan{
		Inputs: autoscale.Inputs{Expanders: []string{"least-waste"}},
		Result: &result.Result{},
		Stop:   autoscale.Stop{Message: "no pod is pending"},
		ProvisioningRequests: []autoscale.ProvReqOutcome{{Name: "default/train", Class: "best-effort-atomic-scale-up.autoscaling.x-k8s.io", Pods: 2, Loop: 2, NodesAdded: 2,
			Conditions: []autoscale.ProvReqCondition{{Type: "Provisioned", Status: "True", Reason: "CapacityIsProvisioned", Loop: 2, At: "2m0s"}}}},
		Buffers: []autoscale.BufferOutcome{{Name: "default/spare", Shape: "cpu 3, memory 1Gi", Replicas: 3, Held: 3, NodesAdded: 3}},
	}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"table":    func(b *bytes.Buffer) error { return WriteScaleUpTable(b, p) },
		"markdown": func(b *bytes.Buffer) error { return WriteScaleUpMarkdown(b, p) },
		"simulate": func(b *bytes.Buffer) error { return WriteSimulateScaleUpTable(b, p) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, want := range []string{"default/train", "Provisioned=True (CapacityIsProvisioned", "default/spare", "cpu 3, memory 1Gi"} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s: want %q in:\n%s", name, want, b.String())
			}
		}
	}
}
