package dra

import (
	"context"
	"fmt"
	"testing"

	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/framework"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestStaticFailureAnswersFullerNodes: claims that found no allocation on
// a node with nothing allocated are answered without the allocator on
// the nodes of the same pools in any other allocation state, with the
// status the allocator gives there (the reference plugin asks it), while
// claims that fit are still asked per state.
func TestStaticFailureAnswersFullerNodes(t *testing.T) {
	const driver = "gpu.example.com"
	classes := []*resourceapi.DeviceClass{
		{ObjectMeta: metav1.ObjectMeta{Name: "h100"}, Spec: resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{
			{CEL: &resourceapi.CELDeviceSelector{Expression: `device.attributes["gpu.example.com"].model == "h100"`}}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "a100"}, Spec: resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{
			{CEL: &resourceapi.CELDeviceSelector{Expression: `device.attributes["gpu.example.com"].model == "a100"`}}}}},
	}
	var slices []*resourceapi.ResourceSlice
	var nodes []*framework.NodeInfo
	for _, name := range []string{"n1", "n2", "n3"} {
		node := name
		model := "a100"
		slices = append(slices, &resourceapi.ResourceSlice{
			ObjectMeta: metav1.ObjectMeta{Name: name + "-gpu"},
			Spec: resourceapi.ResourceSliceSpec{Driver: driver, NodeName: &node, Pool: resourceapi.ResourcePool{Name: name, ResourceSliceCount: 1},
				Devices: []resourceapi.Device{
					{Name: "gpu-0", Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"model": {StringValue: &model}}},
					{Name: "gpu-1", Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"model": {StringValue: &model}}},
				}},
		})
		nodes = append(nodes, framework.NewNodeInfo(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}))
	}
	claim := func(name, class string, count int64) *resourceapi.ResourceClaim {
		return &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{
				{Name: "gpu", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: class, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: count}}}}}}
	}
	claims := []*resourceapi.ResourceClaim{claim("taken", "a100", 1), claim("h100", "h100", 1), claim("three", "a100", 3), claim("one", "a100", 1)}
	state := NewState(feature.Defaults(), classes, slices, nil, claims)
	// n2 has one device taken, n3 both: three allocation states of one
	// static class.
	taken, _ := state.Claim("default", "taken")
	for _, r := range []resourceapi.DeviceRequestAllocationResult{
		{Request: "gpu", Driver: driver, Pool: "n2", Device: "gpu-0"},
		{Request: "gpu", Driver: driver, Pool: "n3", Device: "gpu-0"},
		{Request: "gpu", Driver: driver, Pool: "n3", Device: "gpu-1"},
	} {
		c := taken.DeepCopy()
		c.Name = fmt.Sprintf("taken-%s-%s", r.Pool, r.Device)
		state.claims[claimKey(c.Namespace, c.Name)] = c
		if err := state.Allocate(c, &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{r}}}); err != nil {
			t.Fatal(err)
		}
	}
	k1, _ := state.nodeClass("n1")
	k2, _ := state.nodeClass("n2")
	k3, _ := state.nodeClass("n3")
	if k1.dynamic != 0 || k2.dynamic == 0 || k3.dynamic == 0 || k2 == k3 || k1.static != k2.static || k2.static != k3.static {
		t.Fatalf("want one static class in three allocation states, n1 empty; got %+v, %+v, %+v", k1, k2, k3)
	}
	fast, ref := New(state), New(state, Options{Reference: true})
	for _, tc := range []struct {
		name, claim string
		// fromStatic: the fuller nodes' answers come from the static
		// failure, not from the allocator.
		fromStatic bool
	}{
		{name: "no device of the class", claim: "h100", fromStatic: true},
		{name: "more devices than the pool has", claim: "three", fromStatic: true},
		{name: "fits on the empty node", claim: "one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: tc.claim, Namespace: "default"},
				Spec: v1.PodSpec{ResourceClaims: []v1.PodResourceClaim{{Name: "c", ResourceClaimName: &tc.claim}}}}
			fastState, refState := framework.NewCycleState(), framework.NewCycleState()
			if _, st := fast.PreFilter(context.Background(), fastState, pod, nodes); !st.IsSuccess() {
				t.Fatalf("PreFilter: %v", st)
			}
			if _, st := ref.PreFilter(context.Background(), refState, pod, nodes); !st.IsSuccess() {
				t.Fatalf("reference PreFilter: %v", st)
			}
			for _, ni := range nodes {
				got, want := fast.Filter(context.Background(), fastState, pod, ni), ref.Filter(context.Background(), refState, pod, ni)
				if got.Code() != want.Code() || fmt.Sprint(got.Reasons()) != fmt.Sprint(want.Reasons()) {
					t.Errorf("node %s: want the allocator's %v %q, got %v %q", ni.Node().Name, want.Code(), want.Reasons(), got.Code(), got.Reasons())
				}
			}
			d := readCycle(fastState)
			for _, k := range []classKey{k2, k3} {
				_, asked := fast.answers[d.claimsHash].byClass[k]
				if asked == tc.fromStatic {
					t.Errorf("class %+v: allocator asked = %v, want %v", k, asked, !tc.fromStatic)
				}
			}
		})
	}
}
