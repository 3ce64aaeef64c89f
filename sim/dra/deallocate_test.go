package dra

import (
	"testing"

	"github.com/drasim/drasim/sim/feature"
	"github.com/google/go-cmp/cmp"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// TestDeallocateUndoesAllocate: allocating claims and deallocating them
// leaves the state as a state that never saw them (free devices, node
// classes, the claim itself), whether the device was taken whole or as a
// share of a device with consumable capacity.
func TestDeallocateUndoesAllocate(t *testing.T) {
	node := "n1"
	slice := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "n1-gpu"},
		Spec: resourceapi.ResourceSliceSpec{Driver: "gpu.example.com", NodeName: &node, Pool: resourceapi.ResourcePool{Name: "n1", ResourceSliceCount: 1},
			Devices: []resourceapi.Device{{Name: "gpu-0"}, {Name: "gpu-1", AllowMultipleAllocations: ptr.To(true)}}},
	}
	claim := func(name string) *resourceapi.ResourceClaim {
		return &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
	}
	fresh := NewState(feature.Defaults(), nil, []*resourceapi.ResourceSlice{slice}, nil, []*resourceapi.ResourceClaim{claim("whole"), claim("share")})
	s := NewState(feature.Defaults(), nil, []*resourceapi.ResourceSlice{slice}, nil, []*resourceapi.ResourceClaim{claim("whole"), claim("share")})
	whole, _ := s.Claim("default", "whole")
	share, _ := s.Claim("default", "share")
	shareID := types.UID("share-1")
	if err := s.Allocate(whole, &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{
		{Request: "gpu", Driver: "gpu.example.com", Pool: "n1", Device: "gpu-0"}}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Allocate(share, &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{
		{Request: "gpu", Driver: "gpu.example.com", Pool: "n1", Device: "gpu-1", ShareID: &shareID}}}}); err != nil {
		t.Fatal(err)
	}
	allocatedKey, _ := s.nodeClass(node)
	if freshKey, _ := fresh.nodeClass(node); allocatedKey == freshKey {
		t.Fatalf("allocating did not change the node's class; the test proves nothing")
	}
	s.Deallocate(whole)
	s.Deallocate(share)
	if diff := cmp.Diff(fresh.allocated.UnsortedList(), s.allocated.UnsortedList()); diff != "" {
		t.Errorf("allocated devices (-fresh +deallocated):\n%s", diff)
	}
	if len(s.sharesOf) != 0 || s.uncounted.Len() != 0 {
		t.Errorf("shared IDs: want none, got %v and %v", s.sharesOf, s.uncounted.UnsortedList())
	}
	gotKey, _ := s.nodeClass(node)
	wantKey, _ := fresh.nodeClass(node)
	if gotKey.dynamic != wantKey.dynamic || gotKey.static != wantKey.static {
		t.Errorf("node class: want %+v as a fresh state's, got %+v", wantKey, gotKey)
	}
	if whole.Status.Allocation != nil || len(whole.Finalizers) != 0 {
		t.Errorf("claim: want no allocation and no finalizer, got %+v, %v", whole.Status.Allocation, whole.Finalizers)
	}
}
