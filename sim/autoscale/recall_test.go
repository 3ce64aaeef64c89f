package autoscale

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/schedule"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// TestRecallFollowsTheDestination: a drain simulation that cannot be
// replayed whole makes a pod's earlier placement again without a cycle
// (the claim keeps the very allocation the first simulation made) only
// while its destination is in the state it had; once the destination's
// devices are taken, the pod goes through the filters and lands on the
// node that still has room, and no device is allocated twice.
func TestRecallFollowsTheDestination(t *testing.T) {
	c, place, pods := drainFixture(t)
	ctx := context.Background()
	// bindOn binds a pod on a node for good (no fork is open).
	bindOn := func(pod, node string) {
		t.Helper()
		placed, err := place.trySchedule(ctx, []*v1.Pod{pods[pod]}, true, func(n string) bool { return n == node })
		if err != nil || len(placed) != 1 {
			t.Fatalf("fixture: binding %s on %s: %v", pod, node, err)
		}
	}
	bindOn("a", "n1")
	place.dropOldHints()
	place.dropOldHints()

	p := newPlanner(DefaultScaleDownOptions(), drainRules{skipCustomControllerPods: true}, place)
	p.memoOK = true
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// simulate runs one loop's removal simulation of n1 and reports where
	// a went and its claim's allocation then.
	simulate := func() (string, *resourceapi.AllocationResult) {
		t.Helper()
		p.deferred, p.shadow = nil, map[string]nodeState{}
		c.Fork()
		defer c.Revert()
		u, reason, err := p.simulateRemoval(ctx, c.Node("n1"), now, map[string]bool{"n1": true, "n2": true, "n3": true})
		if err != nil || u == nil {
			t.Fatalf("simulation of n1: %v %s", err, reason)
		}
		if err := p.carryOut(); err != nil {
			t.Fatal(err)
		}
		place.dropOldHints()
		claims := c.DRA().ClaimsInUse(pods["a"])
		if len(claims) != 1 || claims[0].Status.Allocation == nil {
			t.Fatalf("a's claim after its move: %v", claims)
		}
		checkNoDeviceTwice(t, c)
		return pods["a"].Spec.NodeName, claims[0].Status.Allocation
	}
	first, firstAlloc := simulate()
	if first == "n1" {
		t.Fatalf("a stayed on n1")
	}
	other := map[string]string{"n2": "n3", "n3": "n2"}[first]

	// n1 gets a second pod: the simulation cannot be replayed whole, but
	// a's destination is as it was, so a's placement is made again.
	bindOn("b", "n1")
	if got, alloc := simulate(); got != first || alloc != firstAlloc {
		t.Errorf("with its destination unchanged, a went to %s with allocation %p; want %s with the first simulation's %p", got, alloc, first, firstAlloc)
	}

	// a's destination is full now: the earlier placement must not be
	// made again.
	bindOn("c", first)
	if got, _ := simulate(); got != other {
		t.Errorf("with %s's GPUs taken, a went to %s; want %s", first, got, other)
	}
}

// checkNoDeviceTwice fails when two claims hold the same device.
func checkNoDeviceTwice(t *testing.T, c *cluster.Cluster) {
	t.Helper()
	seen := map[string]string{}
	for _, pod := range c.Pods() {
		for _, cl := range c.DRA().ClaimsInUse(pod) {
			if cl.Status.Allocation == nil || pod.Spec.NodeName == "" {
				continue
			}
			for _, r := range cl.Status.Allocation.Devices.Results {
				k := r.Pool + "/" + r.Device
				if other, ok := seen[k]; ok && other != cl.Name {
					t.Errorf("device %s allocated to claims %s and %s", k, other, cl.Name)
				}
				seen[k] = cl.Name
			}
		}
	}
}

// drainFixture is a cluster of three nodes with two GPUs each and
// ReplicaSet pods pending: a (one GPU), b (no claim), c (two GPUs), with a
// placer on it.
func drainFixture(t *testing.T) (*cluster.Cluster, *placer, map[string]*v1.Pod) {
	t.Helper()
	gpus := func(node string) *resourceapi.ResourceSlice {
		sl := &resourceapi.ResourceSlice{
			ObjectMeta: metav1.ObjectMeta{Name: node + "-gpu"},
			Spec: resourceapi.ResourceSliceSpec{Driver: gpuDriver, NodeName: ptr.To(node),
				Pool: resourceapi.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1}},
		}
		for i := 0; i < 2; i++ {
			sl.Spec.Devices = append(sl.Spec.Devices, resourceapi.Device{Name: fmt.Sprintf("gpu-%d", i)})
		}
		return sl
	}
	owned := func(b *podBuilder) *v1.Pod { return b.OwnedBy("ReplicaSet", "rs").Obj() }
	snap := snapshotOf(
		makeNode("n1", nil, "8"), makeNode("n2", nil, "8"), makeNode("n3", nil, "8"),
		gpus("n1"), gpus("n2"), gpus("n3"), gpuClass(), gpuTemplate("one", 1, false), gpuTemplate("two", 2, false),
		owned(makePod("a").Claim("one")), owned(makePod("b")), owned(makePod("c").Claim("two")),
	)
	c := cluster.Build(snap, feature.Defaults())
	e, err := sim.NewEngine(c, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := newChecker(e)
	place := newPlacer(k, e.Scheduler(schedule.Options{}), &lastIndex{last: -1})
	pods := map[string]*v1.Pod{}
	for _, pod := range c.Queue() {
		pods[pod.Name] = pod
	}
	return c, place, pods
}

// TestUtilizationFollowsTheNodes: a node's utilization is kept by its
// place in the node list, and follows the node's devices being taken and
// the nodes changing places when one before them goes.
func TestUtilizationFollowsTheNodes(t *testing.T) {
	c, place, pods := drainFixture(t)
	ctx := context.Background()
	bindOn := func(pod, node string) {
		t.Helper()
		if placed, err := place.trySchedule(ctx, []*v1.Pod{pods[pod]}, true, func(n string) bool { return n == node }); err != nil || len(placed) != 1 {
			t.Fatalf("fixture: binding %s on %s: %v", pod, node, err)
		}
	}
	p := newPlanner(DefaultScaleDownOptions(), drainRules{}, place)
	utils := func() map[string]float64 {
		out := map[string]float64{}
		for _, ni := range c.Nodes() {
			out[ni.Node().Name] = p.utilization(ni, c).Value
		}
		return out
	}
	bindOn("a", "n2")
	if diff := cmp.Diff(map[string]float64{"n1": 0, "n2": 0.5, "n3": 0}, utils()); diff != "" {
		t.Errorf("a on n2 (-want +got):\n%s", diff)
	}
	bindOn("c", "n3")
	if diff := cmp.Diff(map[string]float64{"n1": 0, "n2": 0.5, "n3": 1}, utils()); diff != "" {
		t.Errorf("c on n3 too (-want +got):\n%s", diff)
	}
	if _, _, err := c.RemoveNode("n1"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]float64{"n2": 0.5, "n3": 1}, utils()); diff != "" {
		t.Errorf("after n1 went (-want +got):\n%s", diff)
	}
}
