package analysis

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"sync"
	"testing"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/generate"
	"github.com/drasim/drasim/sim/kube"
	"github.com/drasim/drasim/sim/whatif"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// partition is one partition profile of a partitionable GPU: how many of
// it a GPU offers and what each consumes of the GPU's counters.
type partition struct {
	name   string
	count  int
	slices int64
	memory int64 // Gi
}

// migLike is an A100's MIG layout (sim/generate's a100-mig profile): the
// whole GPU and three partition sizes on counters of 7 slices and 80Gi.
var migLike = []partition{{"full", 1, 7, 80}, {"3g", 2, 3, 40}, {"2g", 3, 2, 20}, {"1g", 7, 1, 10}}

// PartitionedNode adds a node whose gpus GPUs each offer the partitions on
// their own counter set (slices and memory, as much as the largest
// partition takes), the counter sets in a slice of their own. Devices are
// named gpu-<i>-<partition>-<j>, with attribute profile = partition name.
func (b *clusterBuilder) PartitionedNode(name string, gpus int, parts []partition) *clusterBuilder {
	b.Node(name, "partitioned", 64, 0)
	counters := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-counters"},
		Spec: resourceapi.ResourceSliceSpec{Driver: testDriver, NodeName: ptr.To(name),
			Pool: resourceapi.ResourcePool{Name: name, Generation: 1, ResourceSliceCount: 2}},
	}
	devices := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-gpus"},
		Spec: resourceapi.ResourceSliceSpec{Driver: testDriver, NodeName: ptr.To(name),
			Pool: resourceapi.ResourcePool{Name: name, Generation: 1, ResourceSliceCount: 2}},
	}
	var most partition
	for _, p := range parts {
		most.slices, most.memory = max(most.slices, p.slices), max(most.memory, p.memory)
	}
	for g := 0; g < gpus; g++ {
		set := fmt.Sprintf("gpu-%d", g)
		counters.Spec.SharedCounters = append(counters.Spec.SharedCounters, resourceapi.CounterSet{Name: set, Counters: map[string]resourceapi.Counter{
			"slices": {Value: *resource.NewQuantity(most.slices, resource.DecimalSI)},
			"memory": {Value: resource.MustParse(fmt.Sprintf("%dGi", most.memory))},
		}})
		for _, p := range parts {
			for j := 0; j < p.count; j++ {
				devices.Spec.Devices = append(devices.Spec.Devices, resourceapi.Device{
					Name:       fmt.Sprintf("%s-%s-%d", set, p.name, j),
					Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"profile": {StringValue: ptr.To(p.name)}},
					ConsumesCounters: []resourceapi.DeviceCounterConsumption{{CounterSet: set, Counters: map[string]resourceapi.Counter{
						"slices": {Value: *resource.NewQuantity(p.slices, resource.DecimalSI)},
						"memory": {Value: resource.MustParse(fmt.Sprintf("%dGi", p.memory))},
					}}},
				})
			}
		}
	}
	b.snap.ResourceSlices = append(b.snap.ResourceSlices, counters, devices)
	return b
}

// Holding adds a running pod on node whose allocated claim holds the named
// devices of the node's pool.
func (b *clusterBuilder) Holding(pod, node string, devices ...string) *clusterBuilder {
	b.Bound(pod, node, 1, 0)
	p := b.snap.Pods[len(b.snap.Pods)-1]
	claim := &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: pod + "-gpus", Namespace: "default"},
		Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{{
			Name: "gpus", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: testDriver, Count: int64(len(devices))},
		}}}},
	}
	kube.DefaultClaimSpec(&claim.Spec)
	alloc := &resourceapi.AllocationResult{}
	for _, d := range devices {
		alloc.Devices.Results = append(alloc.Devices.Results, resourceapi.DeviceRequestAllocationResult{Request: "gpus", Driver: testDriver, Pool: node, Device: d})
	}
	claim.Status.Allocation = alloc
	claim.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: pod, UID: p.UID}}
	b.snap.ResourceClaims = append(b.snap.ResourceClaims, claim)
	p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpus", ResourceClaimName: ptr.To(claim.Name)}}
	return b
}

// ProfileClass adds a DeviceClass selecting the test driver's devices of
// one partition profile.
func (b *clusterBuilder) ProfileClass(profile string) *clusterBuilder {
	b.snap.DeviceClasses = append(b.snap.DeviceClasses, &resourceapi.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: profile + ".example.com"},
		Spec: resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{
			Expression: fmt.Sprintf("device.driver == %q && device.attributes[%q].profile == %q", testDriver, testDriver, profile),
		}}}},
	})
	return b
}

// largestByAllocator is the largest request as drasim computed it before
// counting: a binary search over the count, each step the allocator's
// (exhaustive) answer in a dry cycle on the node classes with that many
// idle devices. It is exponential in the partitions of a GPU, so only for
// small cases.
func largestByAllocator(t *testing.T, p *prober, class string) LargestRequest {
	t.Helper()
	lr := LargestRequest{Class: class}
	avail := p.idleOfClass(class)
	maxAvail := 0
	for _, n := range avail {
		lr.Available += n
		maxAvail = max(maxAvail, n)
	}
	try := func(k int) string {
		var candidates []string
		for _, c := range p.classes {
			if avail[c.rep] >= k {
				candidates = append(candidates, c.rep)
			}
		}
		if len(candidates) == 0 {
			return ""
		}
		fits, _, err := p.feasible(p.largestProbe(class, k), candidates)
		if err != nil {
			t.Fatalf("class %s, count %d: want no error, got %v", class, k, err)
		}
		var nodes []string
		for _, c := range p.classes {
			if fits[c.rep] {
				for _, m := range c.members {
					if !p.base.Node(m).Node().Spec.Unschedulable {
						nodes = append(nodes, m)
					}
				}
			}
		}
		sort.Strings(nodes)
		if len(nodes) == 0 {
			return ""
		}
		return nodes[0]
	}
	lo, hi := 0, maxAvail
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if node := try(mid); node != "" {
			lo, lr.Node = mid, node
		} else {
			hi = mid - 1
		}
	}
	lr.Devices = lo
	if lo == 0 {
		lr.Node = ""
	}
	return lr
}

// compareWithAllocator checks, for every DeviceClass, that the counted
// largest request is the allocator's, and that it is exact.
func compareWithAllocator(t *testing.T, b *clusterBuilder) {
	t.Helper()
	run := replaySnapshot(t, b.Snapshot())
	inv := newInventory(context.Background(), run.Cluster.DRA())
	for _, class := range inv.classes {
		p, err := newProber(context.Background(), run.Cluster, inv, Options{}.withDefaults())
		if err != nil {
			t.Fatalf("newProber: want no error, got %v", err)
		}
		want := largestByAllocator(t, p, class.Name)
		got, err := p.largest(class.Name)
		if err != nil {
			t.Fatalf("largest(%s): want no error, got %v", class.Name, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("class %s: largest request (-allocator +counted):\n%s", class.Name, diff)
		}
	}
}

func TestLargestMatchesAllocator(t *testing.T) {
	small := []partition{{"full", 1, 4, 40}, {"2g", 2, 2, 20}, {"1g", 4, 1, 10}}
	tests := []struct {
		name  string
		build func() *clusterBuilder
	}{
		{"one MIG GPU", func() *clusterBuilder {
			return newCluster().PartitionedNode("mig-a", 1, migLike).ProfileClass("full").ProfileClass("1g")
		}},
		{"one MIG GPU, a 3g and a 1g partition in use", func() *clusterBuilder {
			return newCluster().PartitionedNode("mig-a", 1, migLike).ProfileClass("2g").
				Holding("p1", "mig-a", "gpu-0-3g-0", "gpu-0-1g-0")
		}},
		{"two small GPUs, one whole GPU in use", func() *clusterBuilder {
			return newCluster().PartitionedNode("n1", 2, small).ProfileClass("full").ProfileClass("2g").
				Holding("p1", "n1", "gpu-1-full-0")
		}},
		{"nodes of two sizes, the first by name the smaller", func() *clusterBuilder {
			return newCluster().PartitionedNode("a-one", 1, small).PartitionedNode("b-two", 2, small).ProfileClass("2g")
		}},
		{"partitions and plain GPUs", func() *clusterBuilder {
			return newCluster().Node("plain", "plain", 8, 5).PartitionedNode("parts", 1, small).
				Holding("p1", "parts", "gpu-0-2g-1")
		}},
		{"a network-attached device all nodes reach", func() *clusterBuilder {
			b := newCluster().PartitionedNode("mig-a", 1, migLike).ProfileClass("1g").
				Holding("p1", "mig-a", "gpu-0-2g-0")
			b.snap.ResourceSlices = append(b.snap.ResourceSlices, &resourceapi.ResourceSlice{
				ObjectMeta: metav1.ObjectMeta{Name: "fabric"},
				Spec: resourceapi.ResourceSliceSpec{Driver: "fabric.example.com", AllNodes: ptr.To(true),
					Pool:    resourceapi.ResourcePool{Name: "fabric", Generation: 1, ResourceSliceCount: 1},
					Devices: []resourceapi.Device{{Name: "link-0"}, {Name: "link-1"}}},
			})
			return b
		}},
		{"a cordoned node with more room", func() *clusterBuilder {
			b := newCluster().PartitionedNode("big", 2, small).PartitionedNode("small", 1, small)
			b.snap.Nodes[0].Spec.Unschedulable = true
			return b
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { compareWithAllocator(t, tc.build()) })
	}
}

// Random partition layouts and allocations, small enough for the
// allocator's exhaustive search.
func TestLargestMatchesAllocatorRandom(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			r := rand.New(rand.NewSource(seed))
			b := newCluster()
			for n := 0; n < 1+r.Intn(2); n++ {
				// The whole GPU first (it takes all of both counters),
				// then up to three smaller partition profiles.
				slices, memory := 4+r.Int63n(5), 10*(4+r.Int63n(5))
				parts := []partition{{"whole", 1, slices, memory}}
				for i := 0; i < 1+r.Intn(3); i++ {
					parts = append(parts, partition{name: fmt.Sprintf("p%d", i), count: 1 + r.Intn(3), slices: 1 + r.Int63n(slices/2+1), memory: 10 * (1 + r.Int63n(memory/20+1))})
				}
				node := fmt.Sprintf("node-%d", n)
				gpus := 1 + r.Intn(2)
				b.PartitionedNode(node, gpus, parts)
				// Hold a random partition of each GPU now and then; each
				// fits alone on its own GPU.
				var held []string
				for g := 0; g < gpus; g++ {
					if r.Intn(2) == 0 {
						p := parts[r.Intn(len(parts))]
						held = append(held, fmt.Sprintf("gpu-%d-%s-%d", g, p.name, r.Intn(p.count)))
					}
				}
				if len(held) > 0 {
					b.Holding("hold-"+node, node, held...)
				}
			}
			b.ProfileClass("p0")
			compareWithAllocator(t, b)
		})
	}
}

// A device taint that the probe does not tolerate takes the device out:
// the counted devices must then be ones the allocator gives.
func TestLargestSkipsTaintedDevices(t *testing.T) {
	b := newCluster().PartitionedNode("n1", 1, []partition{{"full", 1, 4, 40}, {"1g", 4, 1, 10}})
	devs := b.snap.ResourceSlices[len(b.snap.ResourceSlices)-1].Spec.Devices
	for i := range devs {
		if devs[i].Name == "gpu-0-1g-0" || devs[i].Name == "gpu-0-1g-1" {
			devs[i].Taints = []resourceapi.DeviceTaint{{Key: "broken", Effect: resourceapi.DeviceTaintEffectNoSchedule}}
		}
	}
	compareWithAllocator(t, b)
	run := replaySnapshot(t, b.Snapshot())
	rep := analyze(t, run, Options{})
	want := []LargestRequest{{Class: testDriver, Devices: 2, Node: "n1", Available: 5}}
	if diff := cmp.Diff(want, rep.LargestRequests); diff != "" {
		t.Errorf("largest request with two 1g partitions tainted (-want +got):\n%s", diff)
	}
}

// The reproduction of issue 26: one generated a100-mig node (eight A100s,
// 104 devices) took minutes, because every "k devices do not fit" was the
// allocator's exhaustive search over MIG partitions.
func TestLargestOnGeneratedMIGNode(t *testing.T) {
	snap, err := generate.Generate(generate.Options{Nodes: 1, Profiles: map[string]int{"a100-mig": 1}})
	if err != nil {
		t.Fatalf("generate: want no error, got %v", err)
	}
	run, err := sim.Simulate(context.Background(), snap, sim.Options{})
	if err != nil {
		t.Fatalf("Simulate: want no error, got %v", err)
	}
	rep := analyze(t, run, Options{})
	// Eight whole A100s; 56 1g partitions (7 per GPU) fit together, and
	// a claim holds at most 32 devices.
	want := map[string]int{"a100.gpu.example.com": 8, "gpu.example.com": 32, "mig.gpu.example.com": 32, "h100.gpu.example.com": 0, "l4.gpu.example.com": 0}
	got := map[string]int{}
	for _, lr := range rep.LargestRequests {
		got[lr.Class] = lr.Devices
		if lr.AtLeast {
			t.Errorf("class %s: want an exact count, got a lower bound", lr.Class)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("largest request per class (-want +got):\n%s", diff)
	}
}

// Progress reports each long stage from 0 to its total, in order.
func TestAnalyzeReportsProgress(t *testing.T) {
	b := newCluster().Node("a", "g", 8, 2).Node("b", "g", 8, 2).PartitionedNode("c", 1, migLike)
	run := replaySnapshot(t, b.Snapshot())
	var mu sync.Mutex
	got := map[string][]int{}
	opts := Options{
		Probes:         probeSnapshot(probeShape{name: "one", replicas: 1, cpu: 1, gpus: 1}, probeShape{name: "two", replicas: 1, cpu: 1, gpus: 2}),
		FailureDomains: []whatif.DomainOptions{{Domain: whatif.DomainNode}},
		Progress: func(stage string, done, total int) {
			mu.Lock()
			defer mu.Unlock()
			got[stage] = append(got[stage], done, total)
		},
	}
	analyze(t, run, opts)
	// Failure domains finish in any order: their reports are sorted.
	sort.Ints(got[StageDomains])
	want := map[string][]int{
		StageHeadroom: {0, 2, 1, 2, 2, 2},
		StageLargest:  {0, 1, 1, 1},
		StageDomains:  {0, 1, 2, 3, 3, 3, 3, 3},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("progress (done, total) by stage (-want +got):\n%s", diff)
	}
}
