package fill

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/policy"
	"github.com/drasim/drasim/sim/schedule"
	"github.com/drasim/drasim/sim/schedule/profile"
	"github.com/drasim/drasim/sim/snapshot"
	"github.com/drasim/drasim/sim/timeline"
	"github.com/google/go-cmp/cmp"
)

// A small openb cluster: 2 nodes of 8 GPUs, 1 of 2, 1 without GPUs.
const testNodes = `sn,cpu_milli,memory_mib,gpu,model
n-0,96000,786432,8,V100M32
n-1,96000,786432,8,V100M32
n-2,32000,131072,2,T4
n-3,64000,262144,0,
`

// A workload of whole GPUs, GPU shares, a model constraint and CPU pods.
const testPods = `name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time
p-00,8000,16384,1,1000,,LS,Running,0,,
p-01,4000,8192,1,500,,LS,Running,1,,
p-02,4000,8192,1,500,,LS,Running,2,,
p-03,16000,32768,2,1000,,BE,Running,3,,
p-04,2000,4096,0,0,,BE,Running,4,,
p-05,4000,8192,1,250,T4,LS,Running,5,,
p-06,8000,16384,4,1000,,LS,Running,6,,
p-07,4000,8192,1,300,,Burstable,Running,7,,
`

func testInput(t *testing.T, nodes, pods string) *Input {
	t.Helper()
	snap := &snapshot.Snapshot{Sources: map[snapshot.Ref]snapshot.Source{}}
	if err := timeline.ReadOpenbNodes("nodes.csv", strings.NewReader(nodes), snap); err != nil {
		t.Fatalf("nodes: %v", err)
	}
	arr, err := timeline.ReadOpenbPods("pods.csv", strings.NewReader(pods), snap)
	if err != nil {
		t.Fatalf("pods: %v", err)
	}
	in := &Input{Snapshot: snap}
	for _, a := range arr {
		in.Workload = append(in.Workload, a.Pod)
	}
	return in
}

func TestCurveInvariants(t *testing.T) {
	res, err := Run(context.Background(), testInput(t, testNodes, testPods), Options{Policies: kubePolicies(t, PolicyKube, PolicyMostAllocated), Seeds: []int64{42, 43}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Devices != 18 || res.Nodes != 3 {
		t.Errorf("capacity: got %d devices on %d nodes, want 18 on 3 (the node without GPUs counts no capacity)", res.Devices, res.Nodes)
	}
	if len(res.Curves) != 4 || len(res.Means) != 2 {
		t.Fatalf("got %d curves and %d means, want 4 (2 policies × 2 seeds) and 2", len(res.Curves), len(res.Means))
	}
	for _, c := range res.Curves {
		if c.Placed+c.Failed != c.Submitted {
			t.Errorf("%s seed %d: placed %d + failed %d != submitted %d", c.Policy, c.Seed, c.Placed, c.Failed, c.Submitted)
		}
		// Inflated to 130% of 18 GPUs: at least 23.4 GPUs less one pod's
		// share, at most 23.4 plus the largest pod (4 GPUs).
		if c.Requested < 23.4-1 || c.Requested > 23.4+4 {
			t.Errorf("%s seed %d: requested %v GPUs, want about 23.4 (130%% of 18)", c.Policy, c.Seed, c.Requested)
		}
		last := -1
		for _, p := range c.Points {
			if p.Arrived <= last {
				t.Errorf("%s seed %d: arrivals not increasing: %d after %d", c.Policy, c.Seed, p.Arrived, last)
			}
			last = p.Arrived
			// A pod's allocation never exceeds what arrived, which rounds
			// to the point (a point that borrows its neighbours' pods
			// may lie above).
			if p.Allocation < 0 || p.Allocation > 100 || (p.Pods > 0 && p.Allocation > float64(p.Arrived)+0.5) {
				t.Errorf("%s seed %d at %d%% (%d pods): allocation %v, want within [0, min(100, arrived+0.5)]", c.Policy, c.Seed, p.Arrived, p.Pods, p.Allocation)
			}
			if p.Fragmentation < 0 || p.Fragmentation+p.Allocation > 100.01 {
				t.Errorf("%s seed %d at %d%%: fragmentation %v + allocation %v exceed the capacity", c.Policy, c.Seed, p.Arrived, p.Fragmentation, p.Allocation)
			}
		}
		if last != 130 {
			t.Errorf("%s seed %d: the curve ends at %d%%, want 130%%", c.Policy, c.Seed, last)
		}
	}
	var sum float64
	for _, s := range res.Shapes {
		sum += s.Weight
	}
	if sum < 0.999 || sum > 1.001 {
		t.Errorf("typical shape weights sum to %v, want 1", sum)
	}
}

func TestDeterministicPerSeed(t *testing.T) {
	run := func(seed int64) []byte {
		res, err := Run(context.Background(), testInput(t, testNodes, testPods), Options{Policies: kubePolicies(t, PolicyKube), Seeds: []int64{seed}})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b := run(7), run(7)
	if diff := cmp.Diff(string(a), string(b)); diff != "" {
		t.Errorf("two runs with seed 7 differ (-first +second):\n%s", diff)
	}
	if string(run(8)) == string(a) {
		t.Errorf("seeds 7 and 8 gave the same result: the seed does not reach the order or the inflation")
	}
}

// The paper's simulator draws the order and the inflation from Go's
// math/rand seeded with the tuning seed: one Int, a Shuffle of the pods
// sorted by name, then Intn over the workload per copy.
func TestInflateDrawsAsThePaper(t *testing.T) {
	in := testInput(t, testNodes, testPods)
	inv, err := newInventory(context.Background(), in.Snapshot, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	reqs := make([]request, len(in.Workload))
	for i, p := range in.Workload {
		reqs[i], _ = inv.requestOf(p)
	}
	seq, _ := inflate(in.Workload, reqs, Options{Order: OrderShuffle, Target: 1.3, seed: 42}, inv.capacity())
	seen := map[string]int{}
	for _, s := range seq[:len(in.Workload)] {
		seen[s.name]++
	}
	for _, p := range in.Workload {
		if seen[p.Name] != 1 {
			t.Errorf("pod %s submitted %d times among the first %d, want once", p.Name, seen[p.Name], len(in.Workload))
		}
	}
	for i, s := range seq[len(in.Workload):] {
		if want := in.Workload[s.index].Name + "-tuned-"; !strings.HasPrefix(s.name, want) || !strings.HasSuffix(s.name, "-"+itoa(i)) {
			t.Errorf("copy %d is named %s, want %sN with N = %d", i, s.name, want, i)
		}
	}
	if got := reqs[0].total(); got != 1000 {
		t.Errorf("p-00 (1 GPU of 1000 milli) counts %d milli-GPUs, want 1000", got)
	}
	if got := reqs[1].total(); got != 500 {
		t.Errorf("p-01 (half a GPU) counts %d milli-GPUs, want 500", got)
	}
}

func kubePolicies(t *testing.T, names ...string) []Policy {
	t.Helper()
	var out []Policy
	for _, n := range names {
		so, err := KubePolicyOptions(n, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, Policy{Name: n, Sim: so})
	}
	return out
}

func TestUnknownKubePolicy(t *testing.T) {
	if _, err := KubePolicyOptions("tetris", sim.Options{}); err == nil || !strings.Contains(err.Error(), `unknown policy "tetris": use one of`) {
		t.Errorf("got %v, want an unknown policy error listing the policies", err)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		nodes string
		opts  Options
		want  string
		is    error
	}{
		{name: "target not positive", nodes: testNodes, opts: Options{Target: -1}, want: "target share -1: want a positive number"},
		{name: "no GPU nodes", nodes: "sn,cpu_milli,memory_mib,gpu,model\nc-0,64000,262144,0,\n", want: "no node has a device", is: ErrNoDevices},
		{name: "unknown device class", nodes: testNodes, opts: Options{DeviceClass: "gpu.example.com"}, want: "device class gpu.example.com: no such DeviceClass"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(ctx, testInput(t, tc.nodes, testPods), tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got error %v, want one containing %q", err, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
		})
	}
	cpuOnly := "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\nc,1000,1024,0,0,,BE,Running,0,,\n"
	if _, err := Run(ctx, testInput(t, testNodes, cpuOnly), Options{}); !errors.Is(err, ErrNoWorkload) {
		t.Errorf("a workload without GPU pods: got %v, want ErrNoWorkload (it could never be inflated)", err)
	}
}

func TestBinAsThePaper(t *testing.T) {
	// Capacity 10 devices (10000 milli): arrivals at 0.4%, 1.4%, 1.6%
	// and 3.2% round to 0, 1, 2 and 3; nothing rounds to 4, which
	// borrows 3 and 5 (none): the mean of 3 alone.
	events := []event{{arrived: 40, used: 40}, {arrived: 140, used: 100}, {arrived: 160, used: 160}, {arrived: 320, used: 300}}
	got := bin(events, 10000, 0.04)
	want := []Point{
		{Arrived: 0, Allocation: 0.4, FragmentationRate: 0, Pods: 1},
		{Arrived: 1, Allocation: 1, Pods: 1},
		{Arrived: 2, Allocation: 1.6, Pods: 1},
		{Arrived: 3, Allocation: 3, Pods: 1},
		{Arrived: 4, Allocation: 3, Pods: 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bins (-want +got):\n%s", diff)
	}
}

// Runs of one seed each, merged, are the run of both seeds.
func TestMergeIsTheJointRun(t *testing.T) {
	run := func(seeds ...int64) *Result {
		res, err := Run(context.Background(), testInput(t, testNodes, testPods), Options{Policies: kubePolicies(t, PolicyKube), Seeds: seeds})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	joint := run(42, 43)
	merged, err := Merge(run(42), run(43))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(joint, merged); diff != "" {
		t.Errorf("merged runs differ from the joint run (-joint +merged):\n%s", diff)
	}
	other := run(42)
	other.Target = 1.2
	if _, err := Merge(joint, other); err == nil || !strings.Contains(err.Error(), "is not the experiment of result 0") {
		t.Errorf("merging another experiment: got %v, want a refusal", err)
	}
}

// The paper's simulator creates the nodes sorted by name, each renamed
// "%04d-NAME" with its index in rand.Perm of the seeded source (after the
// inflation's draws and ten reflector draws), and gives ties to the
// smallest name. With seed 4 on three equal nodes and one whole-GPU pod
// inflated to 31 copies (31 draws), the permutation is [1 2 0]: a-2 is
// 0000-a-2, a-0 0001-a-0, a-1 0002-a-1. gpu-packing fills a node before
// opening the next (49 on a used node, 25 on a free one), so the pods go
// to a-2, then a-0, then a-1; by the nodes' own names a-0, a-1, a-2.
func TestSimulatorTiesFollowItsNodeNames(t *testing.T) {
	nodes := "sn,cpu_milli,memory_mib,gpu,model\na-0,96000,786432,8,V100M32\na-1,96000,786432,8,V100M32\na-2,96000,786432,8,V100M32\n"
	pods := "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\np-00,8000,16384,1,1000,,LS,Running,0,,\n"
	for _, tc := range []struct {
		simulatorTies bool
		want          []string
	}{
		{true, []string{"a-2", "a-0", "a-1"}},
		{false, []string{"a-0", "a-1", "a-2"}},
	} {
		var got []string
		opts := Options{Seeds: []int64{4}, Policies: []Policy{{Name: "gpu-packing", Sim: packing(), SimulatorTies: tc.simulatorTies}},
			Placed: func(p Placement) { got = append(got, p.Node) }}
		res, err := Run(context.Background(), testInput(t, nodes, pods), opts)
		if err != nil {
			t.Fatal(err)
		}
		if c := res.Curves[0]; c.Submitted != 31 || c.Placed != 24 || len(got) != 31 {
			t.Fatalf("simulator ties %v: %d submitted, %d placed, %d placements; want 31, 24, 31", tc.simulatorTies, c.Submitted, c.Placed, len(got))
		}
		for i, node := range got {
			want := ""
			if i < 24 {
				want = tc.want[i/8]
			}
			if node != want {
				t.Errorf("simulator ties %v: pod %d went to %q, want %q (nodes filled in the order %v)", tc.simulatorTies, i, node, want, tc.want)
				break
			}
		}
	}
}

// packing is the --policy gpu-packing profile: the policy as the only
// score, every node scored, ties by name.
func packing() sim.Options {
	return sim.Options{TieBreak: schedule.TieBreakName, Plugins: profile.Config{
		Policy: &policy.Args{Policy: policy.GPUPacking}, DisableDefaultScores: true, PercentageOfNodesToScore: 100}}
}
