package policy_test

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/policy"
	"github.com/drasim/drasim/sim/schedule"
	"github.com/drasim/drasim/sim/snapshot"
	"github.com/drasim/drasim/sim/timeline"
)

// openbSnapshot is openb's import of the nodes and pods given as CSV
// rows, the pods pending in row order.
func openbSnapshot(t *testing.T, nodes, pods string) *snapshot.Snapshot {
	t.Helper()
	snap := &snapshot.Snapshot{}
	if err := timeline.ReadOpenbNodes("nodes.csv", strings.NewReader("sn,cpu_milli,memory_mib,gpu,model\n"+nodes), snap); err != nil {
		t.Fatal(err)
	}
	arr, err := timeline.ReadOpenbPods("pods.csv", strings.NewReader("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,creation_time\n"+pods), snap)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range arr {
		snap.Pods = append(snap.Pods, a.Pod)
	}
	return snap
}

// deviceOf is the device the pod's claim was allocated.
func deviceOf(t *testing.T, run *sim.Run, pod string) string {
	t.Helper()
	for _, c := range run.Cluster.DRA().Claims() {
		if c.Status.Allocation == nil {
			continue
		}
		for _, r := range c.Status.ReservedFor {
			if r.Name == pod {
				return c.Status.Allocation.Devices.Results[0].Device
			}
		}
	}
	t.Fatalf("pod %s has no allocated claim", pod)
	return ""
}

// Three shares on one node of three GPUs: 500 and 600 fill GPUs 0 and 1
// alike under every policy; the third, 400, goes to the first GPU that
// holds it under kube's first fit (gpu-0, 500 left) and to the least free
// one under best fit (gpu-1, 400 left): the policy's choice inside the
// node reaches the allocator.
func TestPolicySteersTheDevice(t *testing.T) {
	snap := openbSnapshot(t, "n1,32000,65536,3,T4\n",
		"p1,1000,1024,1,500,,LS,0\np2,1000,1024,1,600,,LS,1\np3,1000,1024,1,400,,LS,2\n")
	tests := []struct {
		policy policy.Name
		want   string
	}{
		{policy.Kube, "gpu-0"},
		{policy.BestFit, "gpu-1"},
		{policy.GPUPacking, "gpu-1"},
		{policy.DotProduct, "gpu-1"},
	}
	for _, tc := range tests {
		t.Run(string(tc.policy), func(t *testing.T) {
			opts := sim.Options{Arrival: schedule.ArrivalSequential}
			if tc.policy != policy.Kube {
				opts.Plugins.Policy = &policy.Args{Policy: tc.policy}
				opts.Plugins.DisableDefaultScores = true
			}
			run, err := sim.Simulate(context.Background(), snap, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := deviceOf(t, run, "p3"); got != tc.want {
				t.Errorf("p3 got %s, want %s", got, tc.want)
			}
		})
	}
}

// FGD prefers the node its placement fragments least: with the workload
// all half GPUs, a half GPU goes next to another half rather than onto
// an empty node.
func TestFGDPacksHalves(t *testing.T) {
	snap := openbSnapshot(t, "a,32000,65536,2,T4\nb,32000,65536,2,T4\n",
		"p1,1000,1024,1,500,,LS,0\np2,1000,1024,1,500,,LS,1\np3,1000,1024,1,500,,LS,2\n")
	opts := sim.Options{Arrival: schedule.ArrivalSequential, TieBreak: schedule.TieBreakRandom, Seed: 3}
	opts.Plugins.Policy = &policy.Args{Policy: policy.FGD}
	opts.Plugins.DisableDefaultScores = true
	opts.Plugins.PercentageOfNodesToScore = 100
	run, err := sim.Simulate(context.Background(), snap, opts)
	if err != nil {
		t.Fatal(err)
	}
	nodes := map[string]string{}
	for _, p := range run.Cluster.Pods() {
		nodes[p.Name] = p.Spec.NodeName
	}
	if nodes["p1"] != nodes["p2"] || deviceOf(t, run, "p1") != deviceOf(t, run, "p2") {
		t.Errorf("p1 on %s/%s and p2 on %s/%s: FGD should fill the half-used GPU", nodes["p1"], deviceOf(t, run, "p1"), nodes["p2"], deviceOf(t, run, "p2"))
	}
}

// The random policy is the same for a seed and differs across seeds.
func TestRandomPolicyPerSeed(t *testing.T) {
	var rows strings.Builder
	nodes := ""
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		nodes += n + ",32000,65536,4,T4\n"
	}
	for i := range 12 {
		rows.WriteString("p" + string(rune('a'+i)) + ",1000,1024,1,300,,LS," + string(rune('0'+i%10)) + "\n")
	}
	snap := openbSnapshot(t, nodes, rows.String())
	place := func(seed int64) string {
		opts := sim.Options{Arrival: schedule.ArrivalSequential, Seed: seed}
		opts.Plugins.Policy = &policy.Args{Policy: policy.Random, Seed: seed}
		opts.Plugins.DisableDefaultScores = true
		opts.Plugins.PercentageOfNodesToScore = 100
		run, err := sim.Simulate(context.Background(), snap, opts)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range run.Cluster.Pods() {
			out = append(out, p.Name+"@"+p.Spec.NodeName+"/"+deviceOf(t, run, p.Name))
		}
		return strings.Join(out, " ")
	}
	a, b := place(1), place(1)
	if a != b {
		t.Fatalf("seed 1 placed\n%s\nthen\n%s", a, b)
	}
	if c := place(2); c == a {
		t.Errorf("seeds 1 and 2 placed the 12 pods alike: %s", a)
	}
}

// gpu-clustering reads the kinds of the pods already placed, as they are
// after each placement: a whole GPU avoids the node that took a share
// (that node alone would score higher, being fuller), and the next share
// joins the first.
func TestGPUClusteringSeesEachPlacement(t *testing.T) {
	snap := openbSnapshot(t, "a,32000,65536,2,T4\nb,32000,65536,2,T4\n",
		"p1,1000,1024,1,500,,LS,0\np2,1000,1024,1,1000,,LS,1\np3,1000,1024,1,500,,LS,2\n")
	opts := sim.Options{Arrival: schedule.ArrivalSequential, TieBreak: schedule.TieBreakName}
	opts.Plugins.Policy = &policy.Args{Policy: policy.GPUClustering}
	opts.Plugins.DisableDefaultScores = true
	opts.Plugins.PercentageOfNodesToScore = 100
	run, err := sim.Simulate(context.Background(), snap, opts)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range run.Cluster.Pods() {
		got[p.Name] = p.Spec.NodeName
	}
	if want := map[string]string{"p1": "a", "p2": "b", "p3": "a"}; !maps.Equal(got, want) {
		t.Errorf("placements %v, want %v", got, want)
	}
}
