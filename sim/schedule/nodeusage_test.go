package schedule_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/drasim/drasim/internal/build"
	"github.com/drasim/drasim/sim/result"
)

// TestNodeDevicesAreTheAllocatorsDevices: a node's device counts in the
// result are the devices the allocator can use there: a pool's older
// generation does not count (its gpu-0 used to count twice, and as used
// twice), and a device of a perDeviceNodeSelection slice counts on the
// node it names.
func TestNodeDevicesAreTheAllocatorsDevices(t *testing.T) {
	snap := build.NewCluster().Node("n1", 8, 2).Node("n2", 8, 0).
		Pod(build.PodSpec{Name: "holder", CPU: "1", GPUs: 1, Node: "n1"}).
		Snapshot()
	// n1's pool in generation 2 still publishes gpu-0 and gpu-1; the
	// generation-1 slice stays behind.
	gen2 := snap.ResourceSlices[0].DeepCopy()
	gen2.Name, gen2.Spec.Pool.Generation = "n1-gpus-gen2", 2
	perDevice := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "per-device"},
		Spec: resourceapi.ResourceSliceSpec{Driver: build.Driver, PerDeviceNodeSelection: ptr.To(true),
			Pool:    resourceapi.ResourcePool{Name: "per-device", Generation: 1, ResourceSliceCount: 1},
			Devices: []resourceapi.Device{{Name: "gpu-0", NodeName: ptr.To("n2")}, {Name: "gpu-1", NodeName: ptr.To("n2")}}},
	}
	snap.ResourceSlices = append(snap.ResourceSlices, gen2, perDevice)

	res, _, _ := run(t, snap, nil)
	got := map[string]result.Count{}
	for _, n := range res.Nodes {
		got[n.Name] = n.Devices
	}
	want := map[string]result.Count{"n1": {Used: 1, Total: 2}, "n2": {Used: 0, Total: 2}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("node devices (-want +got):\n%s", diff)
	}
}
