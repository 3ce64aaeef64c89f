package sim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/generate"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// runBytes replays a snapshot and returns the JSON result and the output
// snapshot, the two things that must not depend on the engine.
func runBytes(t *testing.T, snap *snapshot.Snapshot, opts sim.Options) ([]byte, []byte) {
	t.Helper()
	run, err := sim.Simulate(context.Background(), snap, opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := json.Marshal(run.Result)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run.Cluster.WriteSnapshot(&out); err != nil {
		t.Fatal(err)
	}
	return res, out.Bytes()
}

func sameDecisions(t *testing.T, snap *snapshot.Snapshot, opts sim.Options) {
	t.Helper()
	fastRes, fastOut := runBytes(t, snap, opts)
	opts.Reference = true
	refRes, refOut := runBytes(t, snap, opts)
	if !bytes.Equal(fastRes, refRes) {
		t.Errorf("-o json differs between the default and the reference engine:\nfast: %.2000s\nref:  %.2000s", fastRes, refRes)
	}
	if !bytes.Equal(fastOut, refOut) {
		t.Errorf("--output-snapshot differs between the default and the reference engine")
	}
}

// TestEnginesAgreeOnScenarios: speed never buys a different decision.
func TestEnginesAgreeOnScenarios(t *testing.T) {
	files, _ := filepath.Glob("../scenarios/*.yaml")
	if len(files) == 0 {
		t.Fatal("no scenarios")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			res, err := load.Load([]string{f}, load.Options{})
			if err != nil {
				t.Fatal(err)
			}
			sameDecisions(t, res.Snapshot, sim.Options{})
		})
	}
}

// agreeOverSeeds replays a generated cluster per seed (seeds, or short in
// -short mode), sampled and scoring every node, on both engines.
func agreeOverSeeds(t *testing.T, seeds, short int, gen func(seed int64) generate.Options, decorate bool) {
	if testing.Short() {
		seeds = short
	}
	for seed := int64(1); seed <= int64(seeds); seed++ {
		for _, all := range []bool{false, true} {
			t.Run(fmt.Sprintf("seed=%d,scoreAll=%v", seed, all), func(t *testing.T) {
				snap, err := generate.Generate(gen(seed))
				if err != nil {
					t.Fatal(err)
				}
				if decorate {
					addConstraints(snap, int(seed))
				}
				sameDecisions(t, snap, sim.Options{Seed: seed, ScoreAllNodes: all})
			})
		}
	}
}

// TestEnginesAgreeOnGeneratedClusters sweeps generator seeds, node profiles
// and workload mixes, sampled and scoring every node.
func TestEnginesAgreeOnGeneratedClusters(t *testing.T) {
	agreeOverSeeds(t, 8, 3, func(seed int64) generate.Options {
		return generate.Options{Seed: seed, Nodes: 16 + int(seed)*4, Pods: 40 + int(seed)*12}
	}, false)
}

// TestEnginesAgreeAtScale replays clusters above kube's 100-node sampling
// threshold, where the default engine's node classes, the rotating start
// index and the early stop all come into play.
func TestEnginesAgreeAtScale(t *testing.T) {
	agreeOverSeeds(t, 2, 1, func(seed int64) generate.Options {
		return generate.Options{Seed: seed, Nodes: 101 + int(seed)*13, Pods: 150}
	}, false)
}

// TestEnginesAgreeWithConstraints adds what generated clusters lack and
// every plugin reads differently: taints and tolerations, node selectors,
// preferred node affinity, topology spread over zones (hard) and hostnames
// (soft), pod (anti-)affinity, host ports and images. Node classes must
// split exactly where these make nodes differ, and fall back to one node
// at a time where a plugin reads a node's name or pods.
func TestEnginesAgreeWithConstraints(t *testing.T) {
	agreeOverSeeds(t, 2, 1, func(seed int64) generate.Options {
		return generate.Options{Seed: seed, Nodes: 110, Pods: 160}
	}, true)
}

// addConstraints decorates a generated snapshot deterministically; k
// shifts which nodes and pods get what.
func addConstraints(snap *snapshot.Snapshot, k int) {
	for i, n := range snap.Nodes {
		switch (i + k) % 11 {
		case 0:
			n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: "dedicated", Value: "batch", Effect: v1.TaintEffectNoSchedule})
		case 1:
			n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: "spot", Effect: v1.TaintEffectPreferNoSchedule})
		}
		if (i+k)%3 == 0 {
			n.Status.Images = append(n.Status.Images, v1.ContainerImage{Names: []string{"registry.example.com/llm-serve:1.4"}, SizeBytes: 900 << 20})
		}
	}
	for i, p := range snap.Pods {
		app := p.Labels["app.kubernetes.io/name"]
		sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": app}}
		if (i+k)%5 == 0 {
			p.Spec.Tolerations = append(p.Spec.Tolerations, v1.Toleration{Key: "dedicated", Operator: v1.TolerationOpEqual, Value: "batch", Effect: v1.TaintEffectNoSchedule})
		}
		switch (i + k) % 8 {
		case 1:
			p.Spec.NodeSelector = map[string]string{v1.LabelTopologyZone: "zone-b"}
		case 2:
			p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: v1.LabelTopologyZone, WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: sel}}
		case 3:
			p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: v1.LabelHostname, WhenUnsatisfiable: v1.ScheduleAnyway, LabelSelector: sel}}
		case 4:
			p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{TopologyKey: v1.LabelHostname, LabelSelector: sel}}}}
		case 5:
			p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{{Weight: 5, Preference: v1.NodeSelectorTerm{
					MatchExpressions: []v1.NodeSelectorRequirement{{Key: v1.LabelInstanceTypeStable, Operator: v1.NodeSelectorOpIn, Values: []string{"p4de.24xlarge"}}}}}}}}
		case 6:
			p.Spec.Affinity = &v1.Affinity{PodAffinity: &v1.PodAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{{Weight: 10, PodAffinityTerm: v1.PodAffinityTerm{TopologyKey: v1.LabelTopologyZone, LabelSelector: sel}}}}}
		case 7:
			p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports, v1.ContainerPort{ContainerPort: 8080, HostPort: 8080, Protocol: v1.ProtocolTCP})
		}
	}
}

// FuzzEnginesAgree replays generated clusters of fuzzed seed, size,
// sampling and decoration on both engines and fails on any difference.
// `go test` runs the seed corpus; `make fuzz-smoke` explores further.
func FuzzEnginesAgree(f *testing.F) {
	f.Add(int64(1), uint8(12), uint8(30), false, false)
	f.Add(int64(2), uint8(40), uint8(90), true, true)
	f.Add(int64(7), uint8(105), uint8(120), false, true)
	f.Fuzz(func(t *testing.T, seed int64, nodes, pods uint8, scoreAll, constraints bool) {
		n := 1 + int(nodes)%130
		snap, err := generate.Generate(generate.Options{Seed: seed, Nodes: n, Pods: int(pods)})
		if err != nil {
			t.Skip(err)
		}
		if constraints {
			addConstraints(snap, int(seed%11+11))
		}
		sameDecisions(t, snap, sim.Options{Seed: seed, ScoreAllNodes: scoreAll})
	})
}
