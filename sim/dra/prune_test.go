package dra

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/feature"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

const pruneDriver = "gpu.example.com"

// migNode publishes a node's devices as a partitionable-devices driver
// does: a counter set per GPU, and per GPU the whole GPU and its
// partitions, all consuming that GPU's counters. Two GPUs are H100s
// without counters. With bad set, one partition consumes a counter set
// the pool does not have, which makes the pool invalid.
func migNode(name string, bad bool) []*resourceapi.ResourceSlice {
	return migNodeWith(name, bad, 2)
}

// migNodeWith is migNode with h100s H100s.
func migNodeWith(name string, bad bool, h100s int) []*resourceapi.ResourceSlice {
	str := func(s string) resourceapi.DeviceAttribute { return resourceapi.DeviceAttribute{StringValue: ptr.To(s)} }
	num := func(n int64) resourceapi.DeviceAttribute { return resourceapi.DeviceAttribute{IntValue: ptr.To(n)} }
	counters := func(slices int64) map[string]resourceapi.Counter {
		return map[string]resourceapi.Counter{"slices": {Value: *resource.NewQuantity(slices, resource.DecimalSI)}}
	}
	var sets []resourceapi.CounterSet
	var devs []resourceapi.Device
	for g := range 3 {
		set := fmt.Sprintf("gpu-%d", g)
		sets = append(sets, resourceapi.CounterSet{Name: set, Counters: counters(7)})
		for _, p := range []struct {
			profile string
			slices  int64
			count   int
		}{{"full", 7, 1}, {"3g", 3, 2}, {"1g", 1, 7}} {
			for k := range p.count {
				consumed := set
				if bad && g == 2 && p.profile == "1g" && k == 6 {
					consumed = "gpu-9"
				}
				devs = append(devs, resourceapi.Device{
					Name:             fmt.Sprintf("gpu-%d-%s-%d", g, p.profile, k),
					Attributes:       map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"model": str("a100"), "profile": str(p.profile), "numa": num(int64(g % 2)), "gpu": num(int64(g))},
					ConsumesCounters: []resourceapi.DeviceCounterConsumption{{CounterSet: consumed, Counters: counters(p.slices)}},
				})
			}
		}
	}
	for g := range h100s {
		devs = append(devs, resourceapi.Device{
			Name:       fmt.Sprintf("h100-%d", g),
			Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"model": str("h100"), "numa": num(int64(g))},
		})
	}
	pool := resourceapi.ResourcePool{Name: name, Generation: 1, ResourceSliceCount: 3}
	return []*resourceapi.ResourceSlice{
		{ObjectMeta: metav1.ObjectMeta{Name: name + "-counters"}, Spec: resourceapi.ResourceSliceSpec{Driver: pruneDriver, NodeName: ptr.To(name), Pool: pool, SharedCounters: sets}},
		{ObjectMeta: metav1.ObjectMeta{Name: name + "-gpus-0"}, Spec: resourceapi.ResourceSliceSpec{Driver: pruneDriver, NodeName: ptr.To(name), Pool: pool, Devices: devs[:20]}},
		{ObjectMeta: metav1.ObjectMeta{Name: name + "-gpus-1"}, Spec: resourceapi.ResourceSliceSpec{Driver: pruneDriver, NodeName: ptr.To(name), Pool: pool, Devices: devs[20:]}},
	}
}

func pruneClasses() []*resourceapi.DeviceClass {
	attr := `device.attributes["` + pruneDriver + `"]`
	class := func(name, expr string) *resourceapi.DeviceClass {
		return &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: resourceapi.DeviceClassSpec{
			Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: expr}}}}}
	}
	return []*resourceapi.DeviceClass{
		class("h100", attr+`.model == "h100"`),
		class("a100", attr+`.model == "a100" && `+attr+`.profile == "full"`),
		class("mig", attr+`.model == "a100" && `+attr+`.profile != "full"`),
		// The H100s have no profile: this class fails to evaluate on them.
		class("strict-mig", attr+`.profile.startsWith("1g")`),
		// No device has a mode: this class fails to evaluate on all.
		class("modal", attr+`.mode == "x"`),
	}
}

// pruneClaims are claims of every kind the pruning must get right.
func pruneClaims() []*resourceapi.ResourceClaim {
	attr := `device.attributes["` + pruneDriver + `"]`
	sel := func(expr string) []resourceapi.DeviceSelector {
		return []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: expr}}}
	}
	exact := func(name, class string, count int64, selectors []resourceapi.DeviceSelector) resourceapi.DeviceRequest {
		return resourceapi.DeviceRequest{Name: name, Exactly: &resourceapi.ExactDeviceRequest{
			DeviceClassName: class, Selectors: selectors, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: count}}
	}
	sub := func(name, class string, selectors []resourceapi.DeviceSelector) resourceapi.DeviceSubRequest {
		return resourceapi.DeviceSubRequest{Name: name, DeviceClassName: class, Selectors: selectors,
			AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1}
	}
	claim := func(name string, reqs []resourceapi.DeviceRequest, constraints ...resourceapi.DeviceConstraint) *resourceapi.ResourceClaim {
		return &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: reqs, Constraints: constraints}}}
	}
	return []*resourceapi.ResourceClaim{
		claim("inference", []resourceapi.DeviceRequest{{Name: "gpu", FirstAvailable: []resourceapi.DeviceSubRequest{
			sub("h100", "h100", nil), sub("a100", "a100", nil), sub("3g", "mig", sel(attr+`.profile == "3g"`))}}}),
		claim("mig-1g", []resourceapi.DeviceRequest{exact("gpu", "mig", 1, sel(attr+`.profile == "1g"`))}),
		claim("two-3g-one-numa", []resourceapi.DeviceRequest{exact("gpu", "mig", 2, sel(attr+`.profile == "3g"`))},
			resourceapi.DeviceConstraint{Requests: []string{"gpu"}, MatchAttribute: ptr.To(resourceapi.FullyQualifiedName(pruneDriver + "/numa"))}),
		claim("all-h100", []resourceapi.DeviceRequest{{Name: "gpu", Exactly: &resourceapi.ExactDeviceRequest{
			DeviceClassName: "h100", AllocationMode: resourceapi.DeviceAllocationModeAll}}}),
		claim("full-and-1g", []resourceapi.DeviceRequest{exact("big", "a100", 1, nil), exact("small", "mig", 1, sel(attr+`.profile == "1g"`))}),
		claim("eval-error", []resourceapi.DeviceRequest{exact("gpu", "strict-mig", 1, nil)}),
		claim("compile-error", []resourceapi.DeviceRequest{exact("gpu", "mig", 1, sel(attr+`.profile ==`))}),
		claim("missing-class", []resourceapi.DeviceRequest{exact("gpu", "l4", 1, nil)}),
		claim("h100-pair", []resourceapi.DeviceRequest{exact("gpu", "h100", 2, nil)}),
		claim("two-partitions-one-gpu", []resourceapi.DeviceRequest{exact("gpu", "mig", 2, nil)},
			resourceapi.DeviceConstraint{Requests: []string{"gpu"}, MatchAttribute: ptr.To(resourceapi.FullyQualifiedName(pruneDriver + "/gpu"))}),
		claim("all-1g-of-numa-0", []resourceapi.DeviceRequest{{Name: "gpu", Exactly: &resourceapi.ExactDeviceRequest{
			DeviceClassName: "mig", Selectors: sel(attr + `.profile == "1g" && ` + attr + `.numa == 0`), AllocationMode: resourceapi.DeviceAllocationModeAll}}}),
		// When no 3g partition is free, the allocator errs on the first
		// device it evaluates the second alternative on.
		claim("3g-else-error", []resourceapi.DeviceRequest{{Name: "gpu", FirstAvailable: []resourceapi.DeviceSubRequest{
			sub("3g", "mig", sel(attr+`.profile == "3g"`)), sub("modal", "modal", nil)}}}),
	}
}

// TestPrunedSlicesAllocateAlike: on nodes with partitionable devices in
// random allocation states, the allocator answers every claim the same
// with the pruned slices as with all of them (results, or the error's
// text), and the pruning does leave devices out.
func TestPrunedSlicesAllocateAlike(t *testing.T) {
	ctx := context.Background()
	var slices []*resourceapi.ResourceSlice
	// "a100s" has no H100: the prioritized list's first alternative can
	// select nothing there, and is left out of the allocator's call.
	nodes := []string{"good", "bad", "a100s"}
	for _, n := range nodes {
		h100s := 2
		if n == "a100s" {
			h100s = 0
		}
		slices = append(slices, migNodeWith(n, n == "bad", h100s)...)
	}
	state := NewState(feature.Defaults(), pruneClasses(), slices, nil, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	dropped, leftOut := 0, 0
	// kept serves every round, as a run's plugin does: the kept lists it
	// shares between allocation states must be the ones a new plugin makes.
	kept := New(state)
	for _, claim := range pruneClaims() {
		for _, node := range nodes {
			for round := range 40 {
				p := New(state)
				allocated := randomAllocation(rng, state.nodeSlices[node])
				if round < len(fixedAllocations) {
					allocated = sets.New[structured.DeviceID]()
					for _, dev := range fixedAllocations[round] {
						allocated.Insert(structured.MakeDeviceID(pruneDriver, node, dev))
					}
				}
				d := &cycleData{claimsHash: claimsHash([]*resourceapi.ResourceClaim{claim}),
					allocState: structured.AllocatedState{AllocatedDevices: allocated}}
				class, _ := state.nodeClass(node)
				all := state.nodeSlices[node]
				claims := []*resourceapi.ResourceClaim{claim}
				pruned, possible, known := p.prunedSlices(ctx, d, class, claims, all)
				dropped += countDevices(all) - countDevices(pruned)
				if again, _, _ := kept.prunedSlices(ctx, d, class, claims, all); !reflect.DeepEqual(deviceNames(again), deviceNames(pruned)) {
					t.Errorf("claim %s, node %s, round %d: a plugin that pruned before keeps %v, a new one %v", claim.Name, node, round, deviceNames(again), deviceNames(pruned))
				}
				asked := claims
				if known {
					asked = impossibleLeftOut(claims, possible)
				}
				if asked[0] != claim {
					leftOut++
				}
				want, wantErr := allocateWith(ctx, p, d, node, claim, all)
				got, gotErr := allocateWith(ctx, p, d, node, asked[0], pruned)
				if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
					t.Errorf("claim %s, node %s, round %d: with all devices %v %v; pruned (%d of %d devices) %v %v",
						claim.Name, node, round, want, wantErr, countDevices(pruned), countDevices(all), got, gotErr)
				}
				if node == "bad" && countDevices(pruned) != countDevices(all) {
					t.Errorf("claim %s: pruned the devices of an invalid pool", claim.Name)
				}
			}
		}
	}
	if dropped == 0 {
		t.Error("no device was ever left out")
	}
	if leftOut == 0 {
		t.Error("no alternative was ever left out")
	}
}

// fixedAllocations are the first rounds' allocation states: cases the
// random ones reach too rarely.
var fixedAllocations = [][]string{
	// GPUs 0 and 2 whole; GPU 1 has one compute slice left, which leaves
	// its allocated 3g partitions short of counters themselves.
	{"gpu-0-full-0", "gpu-2-full-0", "gpu-1-3g-0", "gpu-1-3g-1"},
	// GPU 0 whole: an "all" request over GPUs 0 and 2 fails on it.
	{"gpu-0-full-0"},
	// GPU 0 over its counters: the whole pool is blocked.
	{"gpu-0-full-0", "gpu-0-1g-0"},
}

// randomAllocation allocates, per GPU, nothing, the whole GPU, some of
// its partitions, or the whole GPU and a partition (more than the GPU's
// counters hold, which blocks the whole pool); each H100 half the time.
func randomAllocation(rng *rand.Rand, slices []*resourceapi.ResourceSlice) sets.Set[structured.DeviceID] {
	allocated := sets.New[structured.DeviceID]()
	pattern := map[string]int{}
	for _, sl := range slices {
		for _, dev := range sl.Spec.Devices {
			gpu, _, _ := strings.Cut(strings.TrimPrefix(dev.Name, "gpu-"), "-")
			if strings.HasPrefix(dev.Name, "h100") {
				gpu = dev.Name
			}
			pat, ok := pattern[gpu]
			if !ok {
				pat = rng.IntN(5)
				pattern[gpu] = pat
			}
			full := strings.Contains(dev.Name, "full") || strings.HasPrefix(dev.Name, "h100")
			take := false
			switch pat {
			case 1:
				take = full
			case 2, 3:
				take = !full && rng.IntN(3) == 0
			case 4:
				take = full || strings.HasSuffix(dev.Name, "1g-0")
			}
			if take {
				allocated.Insert(structured.MakeDeviceID(sl.Spec.Driver, sl.Spec.Pool.Name, dev.Name))
			}
		}
	}
	return allocated
}

// deviceNames lists the slices' devices, slice by slice.
func deviceNames(slices []*resourceapi.ResourceSlice) [][]string {
	var out [][]string
	for _, sl := range slices {
		var names []string
		for _, d := range sl.Spec.Devices {
			names = append(names, d.Name)
		}
		out = append(out, names)
	}
	return out
}

func countDevices(slices []*resourceapi.ResourceSlice) int {
	n := 0
	for _, sl := range slices {
		n += len(sl.Spec.Devices)
	}
	return n
}

func allocateWith(ctx context.Context, p *Plugin, d *cycleData, node string, claim *resourceapi.ResourceClaim, slices []*resourceapi.ResourceSlice) ([]resourceapi.AllocationResult, error) {
	alloc, err := structured.NewAllocator(ctx, p.state.features, d.allocState, p.state, slices, p.celCache)
	if err != nil {
		return nil, err
	}
	return alloc.Allocate(ctx, nodeObject(node), []*resourceapi.ResourceClaim{claim})
}

// TestPruneMaskKeepsWhatMustStay: the mask of one device list, device by
// device.
func TestPruneMaskKeepsWhatMustStay(t *testing.T) {
	state := NewState(feature.Defaults(), pruneClasses(), migNode("n", false), nil, nil)
	p := New(state)
	byName := map[string]*resourceapi.ResourceClaim{}
	for _, c := range pruneClaims() {
		byName[c.Name] = c
	}
	devs := state.nodeSlices["n"][1].Spec.Devices // GPU 0 and most of GPU 1
	mask := func(claim string) map[string]uint8 {
		m := p.makeMask(context.Background(), []*resourceapi.ResourceClaim{byName[claim]}, pruneDriver, devs)
		if m == nil {
			return nil
		}
		out := map[string]uint8{}
		for i, v := range m.state {
			out[devs[i].Name] = v
		}
		return out
	}
	m := mask("mig-1g")
	for name, want := range map[string]uint8{"gpu-0-1g-0": keepDevice, "gpu-0-3g-1": keepIfAllocated, "gpu-0-full-0": keepIfAllocated} {
		if m[name] != want {
			t.Errorf("mig-1g: device %s: got %d, want %d", name, m[name], want)
		}
	}
	if m := mask("inference"); m["gpu-0-1g-0"] != keepIfAllocated || m["gpu-0-full-0"] != keepDevice || m["gpu-0-3g-0"] != keepDevice {
		t.Errorf("inference: got %v", m)
	}
	for _, claim := range []string{"compile-error", "missing-class"} {
		if m := mask(claim); m != nil {
			t.Errorf("%s: want no mask, got %v", claim, m)
		}
	}
	if m := mask("eval-error"); m == nil || m["gpu-0-3g-0"] != keepIfAllocated || m["gpu-0-1g-0"] != keepDevice {
		t.Errorf("eval-error: got %v", m)
	}
	// On the H100s the class fails to evaluate: they stay, so that the
	// allocator meets the error.
	h100s := state.nodeSlices["n"][2].Spec.Devices
	m2 := p.makeMask(context.Background(), []*resourceapi.ResourceClaim{byName["eval-error"]}, pruneDriver, h100s)
	for i, v := range m2.state {
		if h100s[i].Name[:4] == "h100" && v != keepAlways {
			t.Errorf("eval-error: %s: got %d, want it kept", h100s[i].Name, v)
		}
	}
}

func nodeObject(name string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// TestPruneLeavesOutExhaustedDevices: free devices whose counters are
// exhausted are left out, allocated ones stay, a counter below zero
// blocks the whole pool, and a request for "all" devices keeps them.
func TestPruneLeavesOutExhaustedDevices(t *testing.T) {
	state := NewState(feature.Defaults(), pruneClasses(), migNode("n", false), nil, nil)
	byName := map[string]*resourceapi.ResourceClaim{}
	for _, c := range pruneClaims() {
		byName[c.Name] = c
	}
	kept := func(claim string, allocated ...string) []string {
		p := New(state)
		set := sets.New[structured.DeviceID]()
		for _, dev := range allocated {
			set.Insert(structured.MakeDeviceID(pruneDriver, "n", dev))
		}
		claims := []*resourceapi.ResourceClaim{byName[claim]}
		d := &cycleData{claimsHash: claimsHash(claims), allocState: structured.AllocatedState{AllocatedDevices: set}}
		class, _ := state.nodeClass("n")
		var names []string
		pruned, _, _ := p.prunedSlices(context.Background(), d, class, claims, state.nodeSlices["n"])
		for _, sl := range pruned {
			for _, dev := range sl.Spec.Devices {
				names = append(names, dev.Name)
			}
		}
		return names
	}
	partitions := func(gpu int) []string {
		var out []string
		for k := range 7 {
			out = append(out, fmt.Sprintf("gpu-%d-1g-%d", gpu, k))
		}
		return out
	}
	for _, tc := range []struct {
		name, claim string
		allocated   []string
		want        []string
	}{
		{"nothing allocated", "mig-1g", nil, append(append(partitions(0), partitions(1)...), partitions(2)...)},
		{"GPU 0 whole", "mig-1g", []string{"gpu-0-full-0"}, append(append([]string{"gpu-0-full-0"}, partitions(1)...), partitions(2)...)},
		{"GPU 0 over its counters", "mig-1g", []string{"gpu-0-full-0", "gpu-0-1g-0"}, []string{"gpu-0-full-0", "gpu-0-1g-0"}},
		{"all devices asked for", "all-1g-of-numa-0", []string{"gpu-0-full-0"}, append(append([]string{"gpu-0-full-0"}, partitions(0)...), partitions(2)...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := kept(tc.claim, tc.allocated...)
			if fmt.Sprint(sorted(got)) != fmt.Sprint(sorted(tc.want)) {
				t.Errorf("kept %v, want %v", got, tc.want)
			}
		})
	}
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// TestImpossibleAlternativesLeftOut: the inference claim's alternatives
// that can select none of the devices the allocator is given are left
// out of its call: the H100 on a node without H100s, and the whole A100
// once every A100 has a partition allocated (its counters are exhausted,
// so the whole GPUs are pruned). The results still name the alternative
// chosen as the full claim would (TestPrunedSlicesAllocateAlike).
func TestImpossibleAlternativesLeftOut(t *testing.T) {
	state := NewState(feature.Defaults(), pruneClasses(), migNodeWith("n", false, 0), nil, nil)
	claim := pruneClaims()[0]
	if claim.Name != "inference" {
		t.Fatalf("fixture: the first claim is %s, not inference", claim.Name)
	}
	asked := func(allocated ...string) []string {
		p := New(state)
		set := sets.New[structured.DeviceID]()
		for _, dev := range allocated {
			set.Insert(structured.MakeDeviceID(pruneDriver, "n", dev))
		}
		claims := []*resourceapi.ResourceClaim{claim}
		d := &cycleData{claimsHash: claimsHash(claims), allocState: structured.AllocatedState{AllocatedDevices: set}}
		class, _ := state.nodeClass("n")
		_, possible, known := p.prunedSlices(context.Background(), d, class, claims, state.nodeSlices["n"])
		if !known {
			t.Fatal("the node's selector sets were not judged")
		}
		var names []string
		for _, sub := range impossibleLeftOut(claims, possible)[0].Spec.Devices.Requests[0].FirstAvailable {
			names = append(names, sub.Name)
		}
		return names
	}
	if got, want := asked(), []string{"a100", "3g"}; !slices.Equal(got, want) {
		t.Errorf("nothing allocated: asked with %v, want %v", got, want)
	}
	if got, want := asked("gpu-0-1g-0", "gpu-1-1g-0", "gpu-2-1g-0"), []string{"3g"}; !slices.Equal(got, want) {
		t.Errorf("a partition allocated on every GPU: asked with %v, want %v", got, want)
	}
	if got, want := asked("gpu-0-1g-0", "gpu-1-1g-0"), []string{"a100", "3g"}; !slices.Equal(got, want) {
		t.Errorf("GPU 2 free: asked with %v, want %v", got, want)
	}
	if len(claim.Spec.Devices.Requests[0].FirstAvailable) != 3 {
		t.Error("the claim itself was changed")
	}
}
