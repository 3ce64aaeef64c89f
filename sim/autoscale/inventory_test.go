package autoscale

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/inventory"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// TestDeviceWasteReadsCurrentGeneration: a node whose pool republished
// two of its four GPUs in generation 2 has two devices to waste, not six;
// the allocator never reads generation 1.
func TestDeviceWasteReadsCurrentGeneration(t *testing.T) {
	gpus := func(gen int64, n int) *resourceapi.ResourceSlice {
		sl := &resourceapi.ResourceSlice{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n1-gpu-gen%d", gen)},
			Spec: resourceapi.ResourceSliceSpec{Driver: gpuDriver, NodeName: ptr.To("n1"),
				Pool: resourceapi.ResourcePool{Name: "n1", Generation: gen, ResourceSliceCount: 1}},
		}
		for i := range n {
			sl.Spec.Devices = append(sl.Spec.Devices, resourceapi.Device{Name: fmt.Sprintf("gpu-%d", i)})
		}
		return sl
	}
	snap := snapshotOf(makeNode("n1", nil, "8"), gpus(1, 4), gpus(2, 2), gpuClass())
	run, err := sim.Simulate(context.Background(), snap, sim.Options{})
	if err != nil {
		t.Fatalf("Simulate: %v", err)
	}
	m := inventory.NewMatcher(context.Background(), nil, snap.DeviceClasses)
	waste, units, idle := deviceWaste(run.Cluster, m, nil, []string{"n1"})
	if units != 2 || idle != 2 || waste != 1 {
		t.Errorf("deviceWaste on n1 = waste %v, %d units, %v idle; want waste 1, 2 units, 2 idle (generation 2 only)", waste, units, idle)
	}
}

// TestCELErrorsAreWarnings: a DeviceClass whose selector fails on the new
// nodes' devices is reported in the plan's warnings; it used to count as
// "selects nothing" without a word.
func TestCELErrorsAreWarnings(t *testing.T) {
	broken := &resourceapi.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: "a100"},
		Spec: resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{
			Expression: `device.attributes["gpu.example.com"].model == "a100"`,
		}}}},
	}
	snap := snapshotOf(
		makeGroup("gpu").GPUs(4, 0).Obj(),
		gpuClass(), broken, gpuTemplate("two", 2, false),
		replicas(2, "train", func(b *podBuilder) *podBuilder { return b.Claim("two") }),
	)
	out, err := Run(context.Background(), snap, Options{})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if out.Plan.NodesAdded == 0 {
		t.Fatalf("the scale-up added no node; the test needs one to weigh devices: %+v", out.Plan)
	}
	var found []string
	for _, w := range out.Plan.Warnings {
		if strings.HasPrefix(w, "DeviceClass a100: selector #0 on device gpu.example.com/") {
			found = append(found, w)
		}
	}
	if len(found) != 1 || !strings.Contains(found[0], "CEL runtime error") || !strings.HasSuffix(found[0], "; such devices count as not selected") {
		t.Errorf("want one warning for DeviceClass a100's runtime error, got %q (all warnings: %q)", found, out.Plan.Warnings)
	}
}
