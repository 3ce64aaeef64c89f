package timeline

import (
	"strings"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestSelectorErrorsAreWarnings: a DeviceClass whose selector fails on
// the devices of the node the autoscaler adds is named in the result's
// warnings, once by the samples and once by the autoscaler that weighed
// the new node's devices; both used to drop the error.
func TestSelectorErrorsAreWarnings(t *testing.T) {
	in := loadInput(t, "scaleup.yaml")
	in.Snapshot.DeviceClasses = append(in.Snapshot.DeviceClasses, &resourceapi.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: "a100"},
		Spec: resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{
			Expression: `device.attributes["gpu.example.com"].model == "a100"`,
		}}}},
	})
	r := run(t, in, withAutoscaler(Options{}))
	var got []string
	for _, w := range r.Warnings {
		if strings.HasPrefix(w, "DeviceClass a100: selector #0 on device gpu.example.com/") {
			got = append(got, w[strings.LastIndex(w, ";")+2:])
		}
	}
	want := []string{"such devices do not match", "such devices count as not selected"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("warnings about DeviceClass a100: got endings %q, want %q (all warnings: %q)", got, want, r.Warnings)
	}
}
