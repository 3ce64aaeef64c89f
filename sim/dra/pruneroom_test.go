package dra

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/drasim/drasim/sim/feature"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

// sharedNode publishes GPUs that allow multiple allocations, with
// consumable capacity under every kind of request policy, one GPU without
// the "mem" capacity, and one whole (exclusive) GPU.
func sharedNode(name string) []*resourceapi.ResourceSlice {
	q := func(v int64) resource.Quantity { return *resource.NewQuantity(v, resource.DecimalSI) }
	mem := func(pol *resourceapi.CapacityRequestPolicy) map[resourceapi.QualifiedName]resourceapi.DeviceCapacity {
		return map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{"mem": {Value: q(100), RequestPolicy: pol}, "cores": {Value: q(8)}}
	}
	shared := func(n string, capacity map[resourceapi.QualifiedName]resourceapi.DeviceCapacity) resourceapi.Device {
		return resourceapi.Device{Name: n, AllowMultipleAllocations: ptr.To(true), Capacity: capacity,
			Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"model": {StringValue: ptr.To("t4")}}}
	}
	devs := []resourceapi.Device{
		shared("plain", mem(nil)),
		shared("values", mem(&resourceapi.CapacityRequestPolicy{Default: ptr.To(q(10)), ValidValues: []resource.Quantity{q(10), q(50), q(100)}})),
		shared("default", mem(&resourceapi.CapacityRequestPolicy{Default: ptr.To(q(30))})),
		shared("range", mem(&resourceapi.CapacityRequestPolicy{Default: ptr.To(q(20)), ValidRange: &resourceapi.CapacityRequestPolicyRange{Min: ptr.To(q(20)), Step: ptr.To(q(20))}})),
		shared("cores-only", map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{"cores": {Value: q(8)}}),
		shared("plain-2", mem(nil)),
		{Name: "whole", Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"model": {StringValue: ptr.To("t4")}}},
	}
	return []*resourceapi.ResourceSlice{{ObjectMeta: metav1.ObjectMeta{Name: name + "-gpus"}, Spec: resourceapi.ResourceSliceSpec{
		Driver: pruneDriver, NodeName: ptr.To(name), Pool: resourceapi.ResourcePool{Name: name, Generation: 1, ResourceSliceCount: 1}, Devices: devs}}}
}

// sharedClaims ask for capacity in every way the room check must judge.
func sharedClaims() []*resourceapi.ResourceClaim {
	q := func(v int64) resource.Quantity { return *resource.NewQuantity(v, resource.DecimalSI) }
	asks := func(kv ...any) *resourceapi.CapacityRequirements {
		c := &resourceapi.CapacityRequirements{Requests: map[resourceapi.QualifiedName]resource.Quantity{}}
		for i := 0; i < len(kv); i += 2 {
			c.Requests[resourceapi.QualifiedName(kv[i].(string))] = q(int64(kv[i+1].(int)))
		}
		return c
	}
	exact := func(name string, count int64, c *resourceapi.CapacityRequirements) resourceapi.DeviceRequest {
		return resourceapi.DeviceRequest{Name: name, Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: "t4",
			AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: count, Capacity: c}}
	}
	sub := func(name string, c *resourceapi.CapacityRequirements) resourceapi.DeviceSubRequest {
		return resourceapi.DeviceSubRequest{Name: name, DeviceClassName: "t4", AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1, Capacity: c}
	}
	claim := func(name string, reqs ...resourceapi.DeviceRequest) *resourceapi.ResourceClaim {
		return &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: reqs}}}
	}
	return []*resourceapi.ResourceClaim{
		claim("mem-40", exact("gpu", 1, asks("mem", 40))),
		claim("mem-60-twice", exact("gpu", 2, asks("mem", 60))),
		claim("mem-and-cores", exact("gpu", 1, asks("mem", 30, "cores", 5))),
		claim("nothing-asked", exact("gpu", 1, nil)),
		claim("cores-only", exact("gpu", 1, asks("cores", 3))),
		claim("unknown-capacity", exact("gpu", 1, asks("bandwidth", 1))),
		claim("two-requests", exact("a", 1, asks("mem", 70)), exact("b", 1, asks("mem", 70))),
		claim("big-else-small", resourceapi.DeviceRequest{Name: "gpu", FirstAvailable: []resourceapi.DeviceSubRequest{
			sub("big", asks("mem", 90)), sub("small", asks("mem", 10))}}),
		claim("all", resourceapi.DeviceRequest{Name: "gpu", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: "t4",
			AllocationMode: resourceapi.DeviceAllocationModeAll, Capacity: asks("mem", 10)}}),
		claim("past-the-range", exact("gpu", 1, asks("mem", 1<<62))),
	}
}

// TestRoomPruningAllocatesAlike: on GPUs with consumable capacity in
// random states of use, the allocator answers every claim the same
// (results without their random share IDs, or the error's text) with the
// devices without room left out as with all of them, and devices are
// left out.
func TestRoomPruningAllocatesAlike(t *testing.T) {
	ctx := context.Background()
	node := "n1"
	class := &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "t4"}, Spec: resourceapi.DeviceClassSpec{
		Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: `device.attributes["` + pruneDriver + `"].model == "t4"`}}}}}
	state := NewState(feature.Defaults(), []*resourceapi.DeviceClass{class}, sharedNode(node), nil, nil)
	rng := rand.New(rand.NewPCG(3, 4))
	dropped := 0
	for _, claim := range sharedClaims() {
		for round := range 60 {
			p := New(state)
			st := structured.AllocatedState{AllocatedDevices: sets.New[structured.DeviceID](), AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](),
				AggregatedCapacity: structured.NewConsumedCapacityCollection()}
			for _, dev := range state.nodeSlices[node][0].Spec.Devices {
				id := structured.MakeDeviceID(pruneDriver, node, dev.Name)
				switch {
				case dev.Name == "whole":
					if rng.IntN(2) == 0 {
						st.AllocatedDevices.Insert(id)
					}
				case rng.IntN(4) > 0:
					used := map[resourceapi.QualifiedName]resource.Quantity{}
					for name, c := range dev.Capacity {
						used[name] = *resource.NewQuantity(rng.Int64N(c.Value.Value()+1), resource.DecimalSI)
					}
					st.AggregatedCapacity.Insert(structured.NewDeviceConsumedCapacity(id, used))
				}
			}
			claims := []*resourceapi.ResourceClaim{claim}
			d := &cycleData{claimsHash: claimsHash(claims), allocState: st}
			key, _ := state.nodeClass(node)
			all := state.nodeSlices[node]
			pruned, possible, known := p.prunedSlices(ctx, d, key, claims, all)
			dropped += countDevices(all) - countDevices(pruned)
			asked := claims
			if known {
				asked = impossibleLeftOut(claims, possible)
			}
			want, wantErr := allocateWith(ctx, p, d, node, claim, all)
			got, gotErr := allocateWith(ctx, p, d, node, asked[0], pruned)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(withoutShareIDs(got), withoutShareIDs(want)) {
				t.Errorf("claim %s, round %d: with all devices %v %v; pruned to %v: %v %v",
					claim.Name, round, want, wantErr, deviceNames(pruned), got, gotErr)
			}
		}
	}
	if dropped == 0 {
		t.Error("no device was ever left out")
	}
}

func withoutShareIDs(results []resourceapi.AllocationResult) []resourceapi.AllocationResult {
	out := make([]resourceapi.AllocationResult, len(results))
	for i := range results {
		out[i] = *results[i].DeepCopy()
		for j := range out[i].Devices.Results {
			out[i].Devices.Results[j].ShareID = nil
		}
	}
	return out
}
