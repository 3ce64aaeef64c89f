package schedule

import (
	"testing"

	"github.com/drasim/drasim/internal/build"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/framework"
)

// TestVictimBelowFollowsTheNode holds the kept lowest priority per node
// (hasVictimBelow) to the node's pods as they are: after a pod comes or
// goes, and after the NodeInfo is replaced by another with the same index
// and Generation (a renewed node list), the answer is the new one.
func TestVictimBelowFollowsTheNode(t *testing.T) {
	snap := build.NewCluster().Node("n1", 8, 0).Node("n2", 8, 0).
		Pod(build.PodSpec{Name: "low", CPU: "1", Node: "n1", Priority: 10}).
		Pod(build.PodSpec{Name: "high", CPU: "1", Node: "n1", Priority: 500}).
		Snapshot()
	c := cluster.Build(snap, feature.Defaults())
	s := newTestScheduler(t, c, PluginConfig{}, Options{})
	n1 := c.Node("n1")
	check := func(when string, ni *framework.NodeInfo, prio int32, want bool) {
		t.Helper()
		if got := s.hasVictimBelow(ni, prio); got != want {
			t.Errorf("%s: a pod below priority %d on %s: %v, want %v", when, prio, ni.Node().Name, got, want)
		}
	}
	check("at the start", n1, 100, true)
	check("at the start", n1, 10, false)
	check("at the start", c.Node("n2"), 1000, false)

	var low *framework.PodInfo
	for _, pi := range n1.Pods {
		if pi.Pod.Name == "low" {
			low = pi
		}
	}
	if err := n1.RemovePod(low.Pod); err != nil {
		t.Fatal(err)
	}
	check("once the low pod left", n1, 100, false)
	n1.AddPodInfo(low)
	check("once it came back", n1, 100, true)

	// Another NodeInfo at the same index and Generation, without the low
	// pod: what was kept for n1 must not answer for it.
	other := framework.NewNodeInfo(n1.Node())
	for _, pi := range n1.Pods {
		if pi != low {
			other.AddPodInfo(pi)
		}
	}
	other.Index, other.Generation = n1.Index, n1.Generation
	check("for another NodeInfo of the node", other, 100, false)
}
