package autoscale

import (
	"fmt"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestPoolUtilization: CA's calculatePoolUtil by hand. Whole devices:
// allocated over all, across the pool's slices. Shared counters: per
// counter set the most consumed counter, averaged over the counter sets
// the devices consume (here a GPU of 40 GiB and 8 compute units whose MIG
// partitions take 10 GiB and 1 unit, or 20 GiB and 4 units).
func TestPoolUtilization(t *testing.T) {
	whole := func(name string, n int) *resourceapi.ResourceSlice {
		sl := &resourceapi.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: name}}
		for i := range n {
			sl.Spec.Devices = append(sl.Spec.Devices, resourceapi.Device{Name: fmt.Sprintf("%s-%d", name, i)})
		}
		return sl
	}
	counters := func(mem, units string) map[string]resourceapi.Counter {
		return map[string]resourceapi.Counter{"memory": {Value: resource.MustParse(mem)}, "units": {Value: resource.MustParse(units)}}
	}
	part := func(name, set, mem, units string) resourceapi.Device {
		return resourceapi.Device{Name: name, ConsumesCounters: []resourceapi.DeviceCounterConsumption{{CounterSet: set, Counters: counters(mem, units)}}}
	}
	mig := &resourceapi.ResourceSlice{Spec: resourceapi.ResourceSliceSpec{
		SharedCounters: []resourceapi.CounterSet{{Name: "gpu-0", Counters: counters("40Gi", "8")}, {Name: "gpu-1", Counters: counters("40Gi", "8")}},
		Devices: []resourceapi.Device{
			part("g0-small-0", "gpu-0", "10Gi", "1"), part("g0-small-1", "gpu-0", "10Gi", "1"), part("g0-big", "gpu-0", "20Gi", "4"),
			part("g1-small-0", "gpu-1", "10Gi", "1"), part("g1-big", "gpu-1", "20Gi", "4"),
		},
	}}
	for _, tc := range []struct {
		name      string
		slices    []*resourceapi.ResourceSlice
		allocated []string
		want      float64
	}{
		{"no devices", []*resourceapi.ResourceSlice{{}}, nil, 0},
		{"whole, none allocated", []*resourceapi.ResourceSlice{whole("a", 4)}, nil, 0},
		{"whole, across two slices", []*resourceapi.ResourceSlice{whole("a", 2), whole("b", 2)}, []string{"a-1", "b-0", "b-1"}, 0.75},
		// gpu-0: memory 20/40, units 2/8 -> 0.5; gpu-1: nothing -> 0; two sets.
		{"counters, two small partitions", []*resourceapi.ResourceSlice{mig}, []string{"g0-small-0", "g0-small-1"}, 0.25},
		// gpu-0: memory 20/40 = units 4/8 -> 0.5; gpu-1: memory 30/40,
		// units 5/8 -> 0.75; (0.5 + 0.75) / 2.
		{"counters, both GPUs", []*resourceapi.ResourceSlice{mig}, []string{"g0-big", "g1-small-0", "g1-big"}, 0.625},
	} {
		allocated := map[string]bool{}
		for _, d := range tc.allocated {
			allocated[d] = true
		}
		if got := poolUtilization(tc.slices, allocated); got != tc.want {
			t.Errorf("%s: utilization %v, want %v", tc.name, got, tc.want)
		}
	}
}
