package schedule

import (
	"strings"
	"testing"
	"time"

	"github.com/drasim/drasim/internal/build"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/profile"
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
	s := newTestScheduler(t, c, profile.Config{}, Options{})
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

// TestSortVictimsBeforeNow: before 1.37, SelectVictimsOnNode sorts with
// MoreImportantPod, whose start time for a pod without one is time.Now()
// at each comparison; insertion sort then turns the unstarted pods of one
// priority around (kube-scheduler v1.34.4 and v1.35.4 evicted low-g2-0 in
// 31-preempt-dra where 1.37 evicts low-g2-3). 1.37 keeps the node's order.
func TestSortVictimsBeforeNow(t *testing.T) {
	started := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	name := map[*victimUnit]string{}
	units := func() []*victimUnit {
		us := []*victimUnit{
			{priority: 100, index: 0},
			{priority: 100, index: 1},
			{priority: 100, index: 2, started: true, start: started},
			{priority: 200, index: 3},
			{priority: 100, index: 4},
		}
		for i, u := range us {
			name[u] = string(rune('a' + i))
		}
		return us
	}
	names := func(us []*victimUnit) string {
		var out []string
		for _, u := range us {
			out = append(out, name[u])
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		name string
		now  bool
		want string
	}{
		{name: "1.37: node order among equals", want: "d c a b e"},
		{name: "before 1.37: unstarted equals turned around", now: true, want: "d c e b a"},
	} {
		s := &Scheduler{opts: Options{NowVictimOrder: tc.now}}
		us := units()
		s.sortVictims(us)
		if got := names(us); got != tc.want {
			t.Errorf("%s: victims from the most important: %q, want %q", tc.name, got, tc.want)
		}
	}
}
