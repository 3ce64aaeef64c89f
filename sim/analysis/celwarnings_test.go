package analysis

import (
	"strings"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/utils/ptr"
)

// TestRequestSelectorErrorsAreWarnings: a probe request whose own
// selector fails on some devices its class selects is named in the
// report's warnings. The allocator stops at the first device that fits
// (gpu-0, which has the attribute), so the node is feasible; the
// fragmentation metric then looks at every device and used to count the
// others as unusable without a word.
func TestRequestSelectorErrorsAreWarnings(t *testing.T) {
	snap := newCluster().Node("n1", "gpu8", 64, 8).Node("n2", "gpu8", 64, 8).Snapshot()
	for _, sl := range snap.ResourceSlices {
		sl.Spec.Devices[0].Attributes = map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"model": {StringValue: ptr.To("h100")}}
	}
	run := replaySnapshot(t, snap)
	probes := probeSnapshot(probeShape{name: "one", replicas: 1, cpu: 4, gpus: 1})
	req := probes.ResourceClaimTemplates[0].Spec.Spec.Devices.Requests[0].Exactly
	req.Selectors = []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{
		Expression: `device.attributes["gpu.example.com"].model == "h100"`,
	}}}
	rep := analyze(t, run, Options{Probes: probes})
	var found []string
	for _, w := range rep.Warnings {
		if strings.Contains(w, `selector #0 on device gpu.example.com/`) {
			found = append(found, w)
		}
	}
	if len(found) != 1 || !strings.HasPrefix(found[0], "request ") || !strings.HasSuffix(found[0], "; such devices do not match") {
		t.Errorf("want one warning naming the request's failing selector, got %q (all warnings: %q)", found, rep.Warnings)
	}
}
