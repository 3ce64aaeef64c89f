package dra

import (
	"fmt"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/drasim/drasim/sim/feature"
)

// TestSharesKeyNodeClassesByContent: a node's class follows the shares
// its devices hold, not the claims nor the share IDs holding them. Two
// nodes whose GPU holds one share of 500 milli each are alike whatever
// the claims; a node holding two such shares is not like one holding
// one (the fact multiset counts each share).
func TestSharesKeyNodeClassesByContent(t *testing.T) {
	const driver = "gpu.example.com"
	slice := func(node string) *resourceapi.ResourceSlice {
		return &resourceapi.ResourceSlice{
			ObjectMeta: metav1.ObjectMeta{Name: node + "-gpu"},
			Spec: resourceapi.ResourceSliceSpec{Driver: driver, NodeName: &node, Pool: resourceapi.ResourcePool{Name: node, ResourceSliceCount: 1},
				Devices: []resourceapi.Device{{Name: "gpu-0", AllowMultipleAllocations: ptr.To(true),
					Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{"milli": {Value: resource.MustParse("1000")}}}}},
		}
	}
	nodes := []string{"a", "b", "c"}
	var slices []*resourceapi.ResourceSlice
	var claims []*resourceapi.ResourceClaim
	for _, n := range nodes {
		slices = append(slices, slice(n))
	}
	for i := range 4 {
		claims = append(claims, &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("claim-%d", i), Namespace: "default"}})
	}
	s := NewState(feature.Defaults(), nil, slices, nil, claims)
	share := func(claim, node string) {
		t.Helper()
		c, _ := s.Claim("default", claim)
		id := types.UID("drawn-by-the-allocator")
		if err := s.Allocate(c, &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{
			{Request: "gpu", Driver: driver, Pool: node, Device: "gpu-0", ShareID: &id,
				ConsumedCapacity: map[resourceapi.QualifiedName]resource.Quantity{"milli": resource.MustParse("500")}}}}}); err != nil {
			t.Fatal(err)
		}
	}
	share("claim-0", "a")
	share("claim-1", "b")
	share("claim-2", "c")
	share("claim-3", "c")
	key := func(n string) classKey {
		k, ok := s.nodeClass(n)
		if !ok {
			t.Fatalf("node %s: no class", n)
		}
		return k
	}
	if key("a") != key("b") {
		t.Errorf("nodes a and b hold one share of 500 each, under other claims and share IDs: want one class, got %+v and %+v", key("a"), key("b"))
	}
	if key("a") == key("c") {
		t.Errorf("node c holds two shares of 500, node a one: want different classes, got %+v for both", key("a"))
	}
	c3, _ := s.Claim("default", "claim-3")
	s.Deallocate(c3)
	if key("a") != key("c") {
		t.Errorf("after one of c's shares is freed, a and c hold the same: want one class, got %+v and %+v", key("a"), key("c"))
	}
}
