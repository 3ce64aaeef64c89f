package dra

import (
	"hash/fnv"
	"testing"

	"github.com/drasim/drasim/sim/feature"
	"github.com/google/go-cmp/cmp"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// TestFactHashIsFNV1a: the in-place hash gives hash/fnv's FNV-1a values,
// so node classes are the same as before it.
func TestFactHashIsFNV1a(t *testing.T) {
	for _, fact := range []string{"", "x:gpu-0", "s:gpu-1/share", "c:gpu-1/share:memory=10Gi", "x:ünïcode"} {
		h := fnv.New64a()
		h.Write([]byte(fact))
		if got, want := factHash(fact), mix64(h.Sum64()); got != want {
			t.Errorf("factHash(%q) = %#x, want %#x", fact, got, want)
		}
	}
}

// TestTrackingTheSameResultAgainAndAgain: the journals of what-if runs
// hand the same allocation results back and forth (DeallocateInPlace,
// Restore); the devices, facts and node classes recorded for a result
// kept by its pointer are those a fresh allocation records, for exclusive
// devices, admin access and shares alike, however often it goes and comes
// back.
func TestTrackingTheSameResultAgainAndAgain(t *testing.T) {
	node := "n1"
	slice := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "n1-gpu"},
		Spec: resourceapi.ResourceSliceSpec{Driver: "gpu.example.com", NodeName: &node, Pool: resourceapi.ResourcePool{Name: "n1", ResourceSliceCount: 1},
			Devices: []resourceapi.Device{{Name: "gpu-0"}, {Name: "gpu-1"}, {Name: "gpu-2"}, {Name: "gpu-3", AllowMultipleAllocations: ptr.To(true)}}},
	}
	results := map[string][]resourceapi.DeviceRequestAllocationResult{
		"two":   {{Request: "a", Driver: "gpu.example.com", Pool: "n1", Device: "gpu-0"}, {Request: "b", Driver: "gpu.example.com", Pool: "n1", Device: "gpu-1"}},
		"admin": {{Request: "a", Driver: "gpu.example.com", Pool: "n1", Device: "gpu-2", AdminAccess: ptr.To(true)}},
		"share": {{Request: "a", Driver: "gpu.example.com", Pool: "n1", Device: "gpu-3", ShareID: ptr.To(types.UID("s1"))}},
	}
	names := []string{"two", "admin", "share"}
	state := func() (*State, map[string]*resourceapi.ResourceClaim) {
		var claims []*resourceapi.ResourceClaim
		for _, n := range names {
			claims = append(claims, &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: n, Namespace: "default"}})
		}
		s := NewState(feature.Defaults(), nil, []*resourceapi.ResourceSlice{slice}, nil, claims)
		byName := map[string]*resourceapi.ResourceClaim{}
		for _, n := range names {
			c, _ := s.Claim("default", n)
			if err := s.Allocate(c, &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: results[n]}}); err != nil {
				t.Fatal(err)
			}
			byName[n] = c
		}
		return s, byName
	}
	fresh, _ := state()
	s, claims := state()
	if s.exclusiveOf(claims["two"].Status.Allocation) == nil {
		t.Fatal("an allocation of two whole devices is not kept as exclusive")
	}
	for _, n := range []string{"admin", "share"} {
		if s.exclusiveOf(claims[n].Status.Allocation) != nil {
			t.Errorf("the %s allocation is kept as exclusive", n)
		}
	}
	for round := 0; round < 3; round++ {
		for _, n := range names {
			c := claims[n]
			saved := c.Status
			s.DeallocateInPlace(c)
			if n == "two" && (s.allocated.Has(s.exclusiveOf(saved.Allocation).ids[0]) || s.poolFacts[poolRef{"gpu.example.com", "n1"}] != nil && s.poolFacts[poolRef{"gpu.example.com", "n1"}].facts["x:gpu-0"]) {
				t.Fatalf("round %d: gpu-0 still allocated after DeallocateInPlace", round)
			}
			s.Restore(c, saved, c.Finalizers)
		}
	}
	if !fresh.allocated.Equal(s.allocated) || s.allocated.Len() != 2 {
		t.Errorf("allocated devices: %d, want a fresh state's %d (2)", s.allocated.Len(), fresh.allocated.Len())
	}
	if diff := cmp.Diff(fresh.poolFacts, s.poolFacts, cmp.AllowUnexported(poolFactSet{})); diff != "" {
		t.Errorf("pool facts and their sums (-fresh +again):\n%s", diff)
	}
	got, _ := s.nodeClass(node)
	want, _ := fresh.nodeClass(node)
	if got != want {
		t.Errorf("node class %+v, want a fresh state's %+v", got, want)
	}
}
