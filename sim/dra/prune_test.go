package dra

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

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
					Attributes:       map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"model": str("a100"), "profile": str(p.profile), "numa": num(int64(g % 2))},
					ConsumesCounters: []resourceapi.DeviceCounterConsumption{{CounterSet: consumed, Counters: counters(p.slices)}},
				})
			}
		}
	}
	for g := range 2 {
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
	}
}

// TestPrunedSlicesAllocateAlike: on nodes with partitionable devices in
// random allocation states, the allocator answers every claim the same
// with the pruned slices as with all of them (results, or the error's
// text), and the pruning does leave devices out.
func TestPrunedSlicesAllocateAlike(t *testing.T) {
	ctx := context.Background()
	var slices []*resourceapi.ResourceSlice
	nodes := []string{"good", "bad"}
	for _, n := range nodes {
		slices = append(slices, migNode(n, n == "bad")...)
	}
	state := NewState(DefaultGates(), pruneClasses(), slices, nil, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	dropped := 0
	for _, claim := range pruneClaims() {
		for _, node := range nodes {
			for round := range 30 {
				p := New(state)
				allocated := sets.New[structured.DeviceID]()
				for _, sl := range state.nodeSlices[node] {
					for _, dev := range sl.Spec.Devices {
						if rng.IntN(4) == 0 {
							allocated.Insert(structured.MakeDeviceID(sl.Spec.Driver, sl.Spec.Pool.Name, dev.Name))
						}
					}
				}
				d := &cycleData{claimsHash: claimsHash([]*resourceapi.ResourceClaim{claim}),
					allocState: structured.AllocatedState{AllocatedDevices: allocated}}
				class, _ := state.nodeClass(node)
				all := state.nodeSlices[node]
				pruned := p.prunedSlices(ctx, d, class, []*resourceapi.ResourceClaim{claim}, all)
				dropped += countDevices(all) - countDevices(pruned)
				want, wantErr := allocateWith(ctx, p, d, node, claim, all)
				got, gotErr := allocateWith(ctx, p, d, node, claim, pruned)
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
	state := NewState(DefaultGates(), pruneClasses(), migNode("n", false), nil, nil)
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
		for i, v := range m {
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
	for i, v := range m2 {
		if h100s[i].Name[:4] == "h100" && v != keepDevice {
			t.Errorf("eval-error: %s: got %d, want it kept", h100s[i].Name, v)
		}
	}
}

func nodeObject(name string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
}
