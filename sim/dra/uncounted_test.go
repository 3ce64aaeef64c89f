package dra

import (
	"fmt"
	"testing"

	"github.com/drasim/drasim/sim/feature"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

// TestAllocatedStateAnswersAsEveryShare: the allocator is handed only the
// shares of devices without consumed capacity (State.uncounted), and every
// question it asks of its state (IsDeviceAllocated, and "does the device
// hold a share" for a device without consumed capacity) gets the answer
// the full list of shares gives, through allocations with and without
// consumed capacity, of capacity that sums to zero, and their removal.
func TestAllocatedStateAnswersAsEveryShare(t *testing.T) {
	node := "n1"
	devs := []resourceapi.Device{{Name: "whole"}}
	for i := range 3 {
		devs = append(devs, resourceapi.Device{Name: fmt.Sprintf("gpu-%d", i), AllowMultipleAllocations: ptr.To(true),
			Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{"mem": {Value: resource.MustParse("10")}}})
	}
	slice := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "n1-gpu"},
		Spec:       resourceapi.ResourceSliceSpec{Driver: "gpu.example.com", NodeName: &node, Pool: resourceapi.ResourcePool{Name: "n1", ResourceSliceCount: 1}, Devices: devs},
	}
	type share struct {
		claim, device string
		mem           string // "" for a share without consumed capacity
	}
	shares := []share{{"a", "gpu-0", "4"}, {"b", "gpu-0", ""}, {"c", "gpu-1", ""}, {"d", "gpu-2", "0"}, {"e", "gpu-2", "3"}}
	var claims []*resourceapi.ResourceClaim
	for _, sh := range shares {
		claims = append(claims, &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: sh.claim, Namespace: "default"}})
	}
	s := NewState(feature.Defaults(), nil, []*resourceapi.ResourceSlice{slice}, nil, claims)
	// every lists the shares allocated so far, as the full list would.
	every := map[structured.SharedDeviceID]bool{}
	check := func(step string) {
		t.Helper()
		st := s.AllocatedState()
		full := st
		full.AllocatedSharedDeviceIDs = sets.New[structured.SharedDeviceID]()
		for id := range every {
			full.AllocatedSharedDeviceIDs.Insert(id)
		}
		for _, d := range devs {
			id := structured.MakeDeviceID("gpu.example.com", "n1", d.Name)
			if got, want := structured.IsDeviceAllocated(id, &st), structured.IsDeviceAllocated(id, &full); got != want {
				t.Errorf("%s: %s allocated: got %v, the full list of shares says %v", step, d.Name, got, want)
			}
			if _, counted := st.AggregatedCapacity[id]; counted {
				continue
			}
			if got, want := holdsShare(st, id), holdsShare(full, id); got != want {
				t.Errorf("%s: %s holds a share: got %v, the full list says %v", step, d.Name, got, want)
			}
		}
	}
	for i, sh := range shares {
		c, _ := s.Claim("default", sh.claim)
		id := types.UID("share-" + sh.claim)
		r := resourceapi.DeviceRequestAllocationResult{Request: "gpu", Driver: "gpu.example.com", Pool: "n1", Device: sh.device, ShareID: &id}
		if sh.mem != "" {
			r.ConsumedCapacity = map[resourceapi.QualifiedName]resource.Quantity{"mem": resource.MustParse(sh.mem)}
		}
		if err := s.Allocate(c, &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{r}}}); err != nil {
			t.Fatal(err)
		}
		a := c.Status.Allocation.Devices.Results[0]
		every[structured.MakeSharedDeviceID(structured.MakeDeviceID(a.Driver, a.Pool, a.Device), a.ShareID)] = true
		check(fmt.Sprintf("after allocating %d", i+1))
	}
	if s.uncounted.Len() == len(every) {
		t.Fatalf("every share is uncounted (%d): the test proves nothing", len(every))
	}
	for _, sh := range shares {
		c, _ := s.Claim("default", sh.claim)
		a := c.Status.Allocation.Devices.Results[0]
		delete(every, structured.MakeSharedDeviceID(structured.MakeDeviceID(a.Driver, a.Pool, a.Device), a.ShareID))
		s.Deallocate(c)
		check("after deallocating " + sh.claim)
	}
	if s.uncounted.Len() != 0 || len(s.sharesOf) != 0 {
		t.Errorf("after deallocating everything: uncounted %v, shares %v", s.uncounted.UnsortedList(), s.sharesOf)
	}
}

// holdsShare asks what the allocator's deviceCapacityInUse asks of a
// device without consumed capacity: does some shared ID name it.
func holdsShare(st structured.AllocatedState, id structured.DeviceID) bool {
	for sid := range st.AllocatedSharedDeviceIDs {
		if sid.GetDeviceID() == id {
			return true
		}
	}
	return false
}
