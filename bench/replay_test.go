package bench

import (
	"fmt"
	"testing"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/generate"
)

// engines are the two ways drasim asks the allocator: the default engine
// asks once per class of equivalent nodes, the reference engine asks every
// node (what kube-scheduler does). They must decide the same; the ratio
// between them is what the shortcut buys.
var engines = []struct {
	name      string
	reference bool
}{
	{"engine=fast", false},
	{"engine=reference", true},
}

// BenchmarkReplay is the target shape, every node with eight GPUs
// and twice as many pending pods as nodes, at a size `make bench` runs and
// at the first-cut target (1,000 nodes, 2,000 pods). The reference engine
// takes about ten minutes per iteration at the target and is opt-in (see
// requireLarge). The floors are what the cluster can hold: inference pods
// spread over the DGX nodes first (their first choice), so some 8-GPU
// training pods find no whole DGX left and stay pending, as in a real
// cluster.
func BenchmarkReplay(b *testing.B) {
	cases := []struct {
		nodes, pods, minScheduled int
	}{
		{nodes: 100, pods: 200, minScheduled: 190},
		{nodes: 1000, pods: 2000, minScheduled: 1950},
	}
	for _, c := range cases {
		for _, e := range engines {
			b.Run(fmt.Sprintf("nodes=%d,gpus=8,pods=%d/%s", c.nodes, c.pods, e.name), func(b *testing.B) {
				if e.reference && c.nodes >= 1000 {
					requireLarge(b)
				}
				benchReplay(b, replayCase{
					gen:          generate.Options{Seed: 1, Nodes: c.nodes, Pods: c.pods, Profiles: gpus8()},
					sim:          sim.Options{Seed: 1, Reference: e.reference},
					minScheduled: c.minScheduled,
				})
			})
		}
	}
}

// BenchmarkReplaySweep grows the default mixed fleet with a fixed number of
// pods, so the ratios between sizes are the cost of one scheduling cycle
// as the cluster grows, and compares kube's node sampling with
// ScoreAllNodes. Below 100 nodes kube scores every node, so at 100 nodes
// both settings must cost the same.
func BenchmarkReplaySweep(b *testing.B) {
	const pods = 200
	for _, nodes := range []int{100, 500, 1000} {
		for _, all := range []bool{false, true} {
			for _, e := range engines {
				mode := "sampling=kube"
				if all {
					mode = "sampling=all"
				}
				b.Run(fmt.Sprintf("nodes=%d,pods=%d/%s/%s", nodes, pods, mode, e.name), func(b *testing.B) {
					min := pods
					if nodes == 100 {
						min = pods * 9 / 10 // a full cluster: some training pods wait
					}
					benchReplay(b, replayCase{
						gen:          generate.Options{Seed: 1, Nodes: nodes, Pods: pods},
						sim:          sim.Options{Seed: 1, ScoreAllNodes: all, Reference: e.reference},
						minScheduled: min,
					})
				})
			}
		}
	}
}
