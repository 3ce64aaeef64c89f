package analysis

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/snapshot"
	"github.com/google/go-cmp/cmp"
)

// replay loads testdata/<name>.yaml and replays it.
func replay(t testing.TB, name string) *sim.Run {
	t.Helper()
	res, err := load.Load([]string{filepath.Join("testdata", name+".yaml")}, load.Options{})
	if err != nil {
		t.Fatalf("loading %s: want no error, got:\n%v", name, err)
	}
	return replaySnapshot(t, res.Snapshot)
}

func replaySnapshot(t testing.TB, s *snapshot.Snapshot) *sim.Run {
	t.Helper()
	run, err := sim.Simulate(context.Background(), s, sim.Options{})
	if err != nil {
		t.Fatalf("Simulate: want no error, got: %v", err)
	}
	return run
}

func loadProbes(t testing.TB, name string) *snapshot.Snapshot {
	t.Helper()
	res, err := load.Load([]string{filepath.Join("testdata", name+".probe.yaml")}, load.Options{})
	if err != nil {
		t.Fatalf("loading probes %s: want no error, got:\n%v", name, err)
	}
	return res.Snapshot
}

func analyze(t testing.TB, run *sim.Run, opts Options) *Report {
	t.Helper()
	rep, err := Analyze(context.Background(), run, opts)
	if err != nil {
		t.Fatalf("Analyze: want no error, got: %v", err)
	}
	return rep
}

// The expected numbers are worked out by hand in each fixture's comment
// and in docs/metrics.md.
func TestAnalyzeHandComputed(t *testing.T) {
	tests := []struct {
		name          string
		fixture       string
		fragmentation Fragmentation
		headroom      []Headroom
		largest       []LargestRequest
		stranded      int
		strandedCPU   string
	}{
		{
			name:    "exclusive GPUs: one node out of cpu, one with too few GPUs for a pair",
			fixture: "frag-basic",
			// one-*: fits on node-a and node-b, so node-c's 2 idle GPUs are
			// fragmented; two fits nowhere (6); cpu uses no GPU (6).
			// (0.5*2 + 0.25*6 + 0.25*6) / 6 = 4/6.
			fragmentation: Fragmentation{Rate: 0.6667, IdleDevices: 6, FragmentedDevices: 4,
				Classes: []ClassFragmentation{{Class: "gpu.example.com", IdleDevices: 6, FragmentedDevices: 4, Rate: 0.6667}},
				Shapes: []ShapeFragmentation{
					{Shape: "one-*", Weight: 0.5, FeasibleNodes: 2, FragmentedDevices: 2, Rate: 0.3333},
					{Shape: "two", Weight: 0.25, FeasibleNodes: 0, FragmentedDevices: 6, Rate: 1},
					{Shape: "cpu", Weight: 0.25, FeasibleNodes: 3, FragmentedDevices: 6, Rate: 1},
				}},
			// one-*: node-a 1 (GPUs), node-b 2 (cpu); cpu: 8 + 2 + 12.
			headroom: []Headroom{
				{Shape: "one-*", Fits: 3, Method: MethodPerNode, Nodes: 2},
				{Shape: "two", Fits: 0, Method: MethodPerNode, Reason: "0/4 nodes are available: 2 Insufficient cpu, 2 cannot allocate all claims."},
				{Shape: "cpu", Fits: 22, Method: MethodPerNode, Nodes: 3},
			},
			largest:     []LargestRequest{{Class: "gpu.example.com", Devices: 3, Node: "node-b", Available: 6}},
			stranded:    2,
			strandedCPU: "12",
		},
		{
			name:    "MIG-style counter set: partitions blocked by their siblings",
			fixture: "mig",
			// 17 idle: mig-0 six 1g, mig-1 full + 2x 3g + 8x 1g.
			// p1g fits both nodes, but cannot use full or 3g: 3.
			// p3g fits mig-1 only: mig-0's 6 + mig-1's full and 1g: 15.
			// (0.5*3 + 0.5*15) / 17 = 9/17.
			fragmentation: Fragmentation{Rate: 0.5294, IdleDevices: 17, FragmentedDevices: 9,
				Classes: []ClassFragmentation{
					{Class: "1g.mig.example.com", IdleDevices: 14, FragmentedDevices: 7, Rate: 0.5},
					{Class: "3g.mig.example.com", IdleDevices: 2, FragmentedDevices: 1, Rate: 0.5},
					{Class: "full.mig.example.com", IdleDevices: 1, FragmentedDevices: 1, Rate: 1},
				},
				Shapes: []ShapeFragmentation{
					{Shape: "p1g", Weight: 0.5, FeasibleNodes: 2, FragmentedDevices: 3, Rate: 0.1765},
					{Shape: "p3g", Weight: 0.5, FeasibleNodes: 1, FragmentedDevices: 15, Rate: 0.8824},
				}},
			headroom: []Headroom{
				{Shape: "p1g", Fits: 14, Method: MethodPerNode, Nodes: 2},
				{Shape: "p3g", Fits: 2, Method: MethodPerNode, Nodes: 1},
			},
			largest: []LargestRequest{
				{Class: "1g.mig.example.com", Devices: 8, Node: "mig-1", Available: 14},
				{Class: "3g.mig.example.com", Devices: 2, Node: "mig-1", Available: 2},
				{Class: "full.mig.example.com", Devices: 1, Node: "mig-1", Available: 1},
			},
			strandedCPU: "0",
		},
		{
			name:    "matchAttribute: one free GPU per PCIe root cannot serve a same-root pair",
			fixture: "constraints",
			// pair fits gpu-1 only: gpu-0's 2 idle GPUs are fragmented;
			// single fits both. (0.5*2 + 0.5*0) / 6 = 1/6.
			fragmentation: Fragmentation{Rate: 0.1667, IdleDevices: 6, FragmentedDevices: 1,
				Classes: []ClassFragmentation{{Class: "gpu.example.com", IdleDevices: 6, FragmentedDevices: 1, Rate: 0.1667}},
				Shapes: []ShapeFragmentation{
					{Shape: "pair", Weight: 0.5, FeasibleNodes: 1, FragmentedDevices: 2, Rate: 0.3333},
					{Shape: "single", Weight: 0.5, FeasibleNodes: 2, FragmentedDevices: 0, Rate: 0},
				}},
			headroom: []Headroom{
				{Shape: "pair", Fits: 2, Method: MethodPerNode, Nodes: 1},
				{Shape: "single", Fits: 6, Method: MethodPerNode, Nodes: 2},
			},
			// Without the constraint one claim gets all 4 GPUs of gpu-1.
			largest:     []LargestRequest{{Class: "gpu.example.com", Devices: 4, Node: "gpu-1", Available: 6}},
			strandedCPU: "0",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := replay(t, tc.fixture)
			rep := analyze(t, run, Options{Probes: loadProbes(t, tc.fixture)})
			if diff := cmp.Diff(tc.fragmentation, rep.Fragmentation); diff != "" {
				t.Errorf("fragmentation (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.headroom, rep.Headroom); diff != "" {
				t.Errorf("headroom (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.largest, rep.LargestRequests); diff != "" {
				t.Errorf("largest requests (-want +got):\n%s", diff)
			}
			if rep.Stranded.Devices != tc.stranded || rep.Stranded.CPU != tc.strandedCPU {
				t.Errorf("stranded: want %d devices and %s cpu, got %d devices and %s cpu", tc.stranded, tc.strandedCPU, rep.Stranded.Devices, rep.Stranded.CPU)
			}
			if rep.Inputs.MixSource != MixProbe {
				t.Errorf("mix source: want %q, got %q", MixProbe, rep.Inputs.MixSource)
			}
		})
	}
}

func TestAnalyzeFitAndStranded(t *testing.T) {
	rep := analyze(t, replay(t, "frag-basic"), Options{Probes: loadProbes(t, "frag-basic")})
	wantFit := Fit{
		Pods:       PodCounts{Bound: 4, Pending: 1},
		Namespaces: []NamespaceFit{{Namespace: "default", PodCounts: PodCounts{Bound: 4}}, {Namespace: "team-a", PodCounts: PodCounts{Pending: 1}}},
		Workloads: []WorkloadFit{
			{Namespace: "default", Workload: "cpu-hog", PodCounts: PodCounts{Bound: 1}},
			{Namespace: "default", Workload: "notebook", PodCounts: PodCounts{Bound: 1}},
			{Namespace: "default", Workload: "pair", PodCounts: PodCounts{Bound: 1}},
			{Namespace: "default", Workload: "trainer", PodCounts: PodCounts{Bound: 1}},
			{Namespace: "team-a", Workload: "huge-*", PodCounts: PodCounts{Pending: 1}},
		},
		PendingReasons: []PendingReason{
			{Plugin: "DynamicResources", Reason: "cannot allocate all claims", Pods: 1, Nodes: 3},
			{Plugin: "NodeResourcesFit", Reason: "Insufficient cpu", Pods: 1, Nodes: 1},
		},
		Preemption: Preemption{Classes: []PreemptedClass{}},
	}
	if diff := cmp.Diff(wantFit, rep.Fit); diff != "" {
		t.Errorf("fit (-want +got):\n%s", diff)
	}
	wantStranded := Stranded{
		Devices: 2, CPU: "12", Memory: "56Gi", CPUValue: 12000, MemoryValue: 56 << 30,
		DeviceNodes: []StrandedDevices{{Node: "node-c", Group: "gpu-small", IdleDevices: 2, Exhausted: []string{ResourceCPU}, FreeCPU: "0", FreeMemory: "63Gi", FreePods: 109}},
		HostNodes:   []StrandedHost{{Node: "node-d", Group: "gpu-small", Devices: 2, FreeCPU: "12", FreeMemory: "56Gi", CPUValue: 12000, MemoryValue: 56 << 30}},
	}
	if diff := cmp.Diff(wantStranded, rep.Stranded); diff != "" {
		t.Errorf("stranded (-want +got):\n%s", diff)
	}
	wantGroups := []Usage{
		{Name: "gpu-large", Nodes: 2, Devices: DeviceCount{Total: 8, Allocated: 4, Idle: 4, Share: 0.5},
			CPU:    Quantity{Requested: "22", Allocatable: "32", RequestedValue: 22000, AllocatableValue: 32000, Share: 0.6875},
			Memory: Quantity{Requested: "16Gi", Allocatable: "128Gi", RequestedValue: 16 << 30, AllocatableValue: 128 << 30, Share: 0.125},
			Pods:   Slots{Used: 2, Total: 220, Share: 0.0091}},
		{Name: "gpu-small", Nodes: 2, Devices: DeviceCount{Total: 4, Allocated: 2, Idle: 2, Share: 0.5},
			CPU:    Quantity{Requested: "6", Allocatable: "18", RequestedValue: 6000, AllocatableValue: 18000, Share: 0.3333},
			Memory: Quantity{Requested: "9Gi", Allocatable: "128Gi", RequestedValue: 9 << 30, AllocatableValue: 128 << 30, Share: 0.0703},
			Pods:   Slots{Used: 2, Total: 220, Share: 0.0091}},
	}
	if diff := cmp.Diff(wantGroups, rep.Utilization.Groups); diff != "" {
		t.Errorf("utilization by group (-want +got):\n%s", diff)
	}
}

func TestDefaultMixIsTheReplayedPods(t *testing.T) {
	rep := analyze(t, replay(t, "frag-basic"), Options{})
	if rep.Inputs.MixSource != MixWorkloads {
		t.Errorf("mix source: want %q, got %q", MixWorkloads, rep.Inputs.MixSource)
	}
	want := []Shape{{Name: "huge-*", Namespace: "team-a", Pods: 1, Weight: 1, CPU: "1", Memory: "1Gi",
		Devices:   []ShapeRequest{{Claim: "gpus", Request: "gpus", Classes: []string{"gpu.example.com"}, Count: 5}},
		Workloads: []string{"huge-*"}}}
	if diff := cmp.Diff(want, rep.Mix); diff != "" {
		t.Errorf("mix (-want +got):\n%s", diff)
	}
	// huge-* fits nowhere: every idle device is fragmented for it.
	if rep.Fragmentation.Rate != 1 {
		t.Errorf("fragmentation rate: want 1, got %v", rep.Fragmentation.Rate)
	}
}

func TestPrioritizedListOutcomes(t *testing.T) {
	run := replaySnapshot(t, loadScenario(t, "00-demo.yaml"))
	rep := analyze(t, run, Options{})
	want := PrioritizedList{Allocated: 14, FirstChoice: 4, FirstChoiceShare: 0.2857, Requests: []AlternativeOutcome{{
		Namespace: "default", Workload: "infer-*", Template: "inference-gpu", Request: "gpu",
		Alternatives: []string{"h100", "a100", "l4"}, Allocated: []int{4, 6, 4}, Unallocated: 2, FirstChoiceShare: 0.2857,
	}}}
	if diff := cmp.Diff(want, rep.PrioritizedList); diff != "" {
		t.Errorf("prioritized list (-want +got):\n%s", diff)
	}
}

func loadScenario(t testing.TB, name string) *snapshot.Snapshot {
	t.Helper()
	res, err := load.Load([]string{filepath.Join("..", "..", "scenarios", name)}, load.Options{})
	if err != nil {
		t.Fatalf("loading scenario %s: want no error, got:\n%v", name, err)
	}
	return res.Snapshot
}

// The run's cluster must come out of the analysis as it went in: every
// probe runs on a fork.
func TestAnalyzeLeavesTheRunAlone(t *testing.T) {
	for _, fixture := range []string{"frag-basic", "mig", "constraints"} {
		t.Run(fixture, func(t *testing.T) {
			run := replay(t, fixture)
			var before, after bytes.Buffer
			if err := run.Cluster.WriteSnapshot(&before); err != nil {
				t.Fatalf("WriteSnapshot: %v", err)
			}
			claims, pods := len(run.Cluster.DRA().Claims()), len(run.Cluster.Pods())
			first := analyze(t, run, Options{Probes: loadProbes(t, fixture)})
			if err := run.Cluster.WriteSnapshot(&after); err != nil {
				t.Fatalf("WriteSnapshot: %v", err)
			}
			if diff := cmp.Diff(before.String(), after.String()); diff != "" {
				t.Errorf("the run's cluster changed during the analysis (-before +after):\n%s", diff)
			}
			if got := len(run.Cluster.DRA().Claims()); got != claims {
				t.Errorf("claims in the run's DRA state: want %d, got %d", claims, got)
			}
			if got := len(run.Cluster.Pods()); got != pods {
				t.Errorf("pods in the run's cluster: want %d, got %d", pods, got)
			}
			second := analyze(t, run, Options{Probes: loadProbes(t, fixture)})
			a, _ := json.Marshal(first)
			b, _ := json.Marshal(second)
			if !bytes.Equal(a, b) {
				t.Errorf("two analyses of one run differ (-first +second):\n%s", cmp.Diff(string(a), string(b)))
			}
		})
	}
}

// Counting node class by node class must give what placing the instances
// one after another on the whole cluster gives, when no instance can
// change what fits on another node.
func TestHeadroomPerNodeClassMatchesSequential(t *testing.T) {
	b := newCluster()
	for i := 0; i < 12; i++ {
		name := fmt.Sprintf("n%02d", i)
		b.Node(name, "gpu8", 32, 8)
		if i%3 == 0 {
			b.Bound("held-"+name, name, 20, 3)
		}
	}
	run := replaySnapshot(t, b.Snapshot())
	probes := probeSnapshot(probeShape{name: "one", replicas: 1, cpu: 2, gpus: 1}, probeShape{name: "four", replicas: 1, cpu: 8, gpus: 4})
	ctx := context.Background()
	opts := Options{Probes: probes}.withDefaults()
	inv := newInventory(ctx, run.Cluster.DRA())
	mix, _, warnings := buildMix(run, opts, newWorkloads(run.Cluster.Snapshot(), probes))
	if len(warnings) > 0 {
		t.Fatalf("buildMix warnings: %v", warnings)
	}
	p, err := newProber(ctx, run.Cluster, inv, opts)
	if err != nil {
		t.Fatalf("newProber: %v", err)
	}
	if len(p.classes) != 2 {
		t.Errorf("node classes: want 2 (with and without the held GPUs), got %d", len(p.classes))
	}
	for _, s := range mix {
		feasible, _, err := p.shapeFeasible(s)
		if err != nil {
			t.Fatalf("shapeFeasible(%s): %v", s.Name, err)
		}
		perNode, err := p.headroom(s, feasible)
		if err != nil {
			t.Fatalf("headroom(%s): %v", s.Name, err)
		}
		s.crossNode = true // force the sequential method
		sequential, err := p.headroom(s, feasible)
		if err != nil {
			t.Fatalf("sequential headroom(%s): %v", s.Name, err)
		}
		if perNode.Method != MethodPerNode || sequential.Method != MethodSequential {
			t.Fatalf("methods: want %s and %s, got %s and %s", MethodPerNode, MethodSequential, perNode.Method, sequential.Method)
		}
		if perNode.Fits != sequential.Fits || perNode.Nodes != sequential.Nodes {
			t.Errorf("shape %s: per node class %d fits on %d nodes, sequentially %d on %d", s.Name, perNode.Fits, perNode.Nodes, sequential.Fits, sequential.Nodes)
		}
	}
}

func TestHeadroomWithHardSpreadIsSequential(t *testing.T) {
	b := newCluster()
	for i := 0; i < 4; i++ {
		b.Node(fmt.Sprintf("n%d", i), "gpu2", 8, 2)
	}
	run := replaySnapshot(t, b.Snapshot())
	rep := analyze(t, run, Options{Probes: probeSnapshot(probeShape{name: "spread", replicas: 1, cpu: 1, gpus: 1, spreadKey: "kubernetes.io/hostname"})})
	want := []Headroom{{Shape: "spread-*", Fits: 8, Method: MethodSequential, Nodes: 4}}
	if diff := cmp.Diff(want, rep.Headroom); diff != "" {
		t.Errorf("headroom (-want +got):\n%s", diff)
	}
}

func TestHeadroomIsCapped(t *testing.T) {
	b := newCluster().Node("n0", "cpu", 64, 0).Node("n1", "cpu", 64, 0)
	run := replaySnapshot(t, b.Snapshot())
	rep := analyze(t, run, Options{MaxHeadroom: 50, Probes: probeSnapshot(probeShape{name: "tiny", replicas: 1, cpu: 1})})
	want := []Headroom{{Shape: "tiny-*", Fits: 50, Capped: true, Method: MethodPerNode, Nodes: 2}}
	if diff := cmp.Diff(want, rep.Headroom); diff != "" {
		t.Errorf("headroom (-want +got):\n%s", diff)
	}
}

func TestBareWorkload(t *testing.T) {
	tests := []struct{ name, want string }{
		{"infer-0", "infer-*"},
		{"infer-12", "infer-*"},
		{"web", "web"},
		{"web-a", "web-a"},
		{"-1", "-1"},
		{"x-", "x-"},
	}
	for _, tc := range tests {
		if got := bareWorkload(tc.name); got != tc.want {
			t.Errorf("bareWorkload(%q): want %q, got %q", tc.name, tc.want, got)
		}
	}
}

// BenchmarkAnalyze sweeps the cluster size; a third of the nodes hold 3 of
// their 8 GPUs, so there are two node classes whatever the size.
func BenchmarkAnalyze(b *testing.B) {
	for _, nodes := range []int{100, 1000} {
		b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
			cb := newCluster()
			for i := 0; i < nodes; i++ {
				name := fmt.Sprintf("n%04d", i)
				cb.Node(name, "gpu8", 64, 8)
				if i%3 == 0 {
					cb.Bound("held-"+name, name, 16, 3)
				}
			}
			run := replaySnapshot(b, cb.Snapshot())
			opts := Options{Probes: probeSnapshot(
				probeShape{name: "one", replicas: 6, cpu: 4, gpus: 1},
				probeShape{name: "four", replicas: 3, cpu: 16, gpus: 4},
				probeShape{name: "web", replicas: 1, cpu: 1},
			)}
			rep := analyze(b, run, opts)
			if got, want := rep.Headroom[0].Fits, nodes/3*5+(nodes-nodes/3)*8; nodes%3 == 0 && got != want {
				b.Fatalf("headroom of one: want %d, got %d", want, got)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				analyze(b, run, opts)
			}
		})
	}
}
