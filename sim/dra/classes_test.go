package dra

import (
	"slices"
	"testing"

	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/framework"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestNodeStateChangesLogsChangedKeys: the log of changed node state keys
// names exactly the nodes whose key an allocation changed, from the
// position a caller last saw, and sends a caller from before a full
// rebuild (or one that never asked) to compare every key.
func TestNodeStateChangesLogsChangedKeys(t *testing.T) {
	var sl []*resourceapi.ResourceSlice
	var nodes []*framework.NodeInfo
	var claims []*resourceapi.ResourceClaim
	for _, name := range []string{"n0", "n1", "n2"} {
		node := name
		sl = append(sl, &resourceapi.ResourceSlice{
			ObjectMeta: metav1.ObjectMeta{Name: name + "-gpu"},
			Spec: resourceapi.ResourceSliceSpec{Driver: "gpu.example.com", NodeName: &node, Pool: resourceapi.ResourcePool{Name: name, ResourceSliceCount: 1},
				Devices: []resourceapi.Device{{Name: "gpu-0"}, {Name: "gpu-1"}}},
		})
		ni := framework.NewNodeInfo(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})
		ni.Index = len(nodes)
		nodes = append(nodes, ni)
		claims = append(claims, &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "c-" + name, Namespace: "default"}})
	}
	s := NewState(feature.Defaults(), nil, sl, nil, claims)
	p := New(s)
	allocate := func(node string) {
		t.Helper()
		c, _ := s.Claim("default", "c-"+node)
		if err := s.Allocate(c, &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{
			{Request: "gpu", Driver: "gpu.example.com", Pool: node, Device: "gpu-0"}}}}); err != nil {
			t.Fatal(err)
		}
	}

	if _, ok := p.NodeStateKeys(nodes); !ok {
		t.Fatal("NodeStateKeys: not ok on node-local slices")
	}
	if _, _, ok := p.NodeStateChanges(0); ok {
		t.Error("NodeStateChanges(0) (never asked) is ok, want every key compared")
	}
	_, pos, _ := p.NodeStateChanges(0)

	allocate("n2")
	before := slices.Clone(mustKeys(t, p, nodes))
	allocate("n0")
	after := mustKeys(t, p, nodes)
	changed, next, ok := p.NodeStateChanges(pos)
	if !ok {
		t.Fatalf("NodeStateChanges(%d) after two allocations: not ok", pos)
	}
	if want := []int32{2, 0}; !slices.Equal(changed, want) {
		t.Errorf("changed nodes since %d: got %v, want %v (keys before %v, after %v)", pos, changed, want, before, after)
	}
	if changed, _, ok := p.NodeStateChanges(next); !ok || len(changed) != 0 {
		t.Errorf("NodeStateChanges(%d) with nothing new: got %v, %v; want none, ok", next, changed, ok)
	}

	// A new node list rebuilds the keys: older positions are lost.
	mustKeys(t, p, nodes[:2])
	if _, _, ok := p.NodeStateChanges(next); ok {
		t.Errorf("NodeStateChanges(%d) after a full rebuild is ok, want every key compared", next)
	}
}

func mustKeys(t *testing.T, p *Plugin, nodes []*framework.NodeInfo) []uint32 {
	t.Helper()
	keys, ok := p.NodeStateKeys(nodes)
	if !ok {
		t.Fatal("NodeStateKeys: not ok")
	}
	return keys
}
