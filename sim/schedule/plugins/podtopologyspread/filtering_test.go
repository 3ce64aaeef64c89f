package podtopologyspread

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/plugins/config"
	tu "github.com/drasim/drasim/sim/schedule/plugins/internal/testutil"
)

const zone = v1.LabelTopologyZone

func webPod(name, node string) *v1.Pod {
	return tu.MakePod(name).Label("app", "web").NodeName(node).Obj()
}

func newPlugin(t *testing.T, args config.PodTopologySpreadArgs, nodes []*framework.NodeInfo, w WorkloadLister) *PodTopologySpread {
	t.Helper()
	pl, err := New(args, tu.NewLister(nodes), w)
	if err != nil {
		t.Fatalf("New(%+v) = %v, want no error", args, err)
	}
	return pl
}

func TestFilter(t *testing.T) {
	skewFail := tu.FilterResult{Code: framework.Unschedulable, Reasons: []string{ErrReasonConstraintsNotMatch}}
	noLabel := tu.FilterResult{Code: framework.UnschedulableAndUnresolvable, Reasons: []string{ErrReasonNodeLabelNotMatch}}
	honor, ignore := v1.NodeInclusionPolicyHonor, v1.NodeInclusionPolicyIgnore
	three := int32(3)
	tests := []struct {
		name     string
		nodes    []*v1.Node
		pods     []*v1.Pod
		pod      *v1.Pod
		wantSkip bool
		want     map[string]tu.FilterResult
	}{
		{
			// zone a holds 2 web pods, zone b none: a -> 2+1-0 > 1.
			name: "skew over the least loaded zone; node without the key unresolvable",
			nodes: []*v1.Node{
				tu.MakeNode("n1").Label(zone, "a").Obj(), tu.MakeNode("n2").Label(zone, "a").Obj(),
				tu.MakeNode("n3").Label(zone, "b").Obj(), tu.MakeNode("n4").Obj(),
			},
			pods: []*v1.Pod{webPod("w1", "n1"), webPod("w2", "n2"), tu.MakePod("other").Label("app", "db").NodeName("n3").Obj()},
			pod:  tu.MakePod("p").Label("app", "web").Spread(1, zone, v1.DoNotSchedule, "app", "web").Obj(),
			want: map[string]tu.FilterResult{"n1": skewFail, "n2": skewFail, "n3": {}, "n4": noLabel},
		},
		{
			name: "pods in other namespaces and terminating pods do not count",
			nodes: []*v1.Node{
				tu.MakeNode("n1").Label(zone, "a").Obj(), tu.MakeNode("n3").Label(zone, "b").Obj(),
			},
			pods: []*v1.Pod{
				tu.MakePod("w1").Namespace("other").Label("app", "web").NodeName("n1").Obj(),
				tu.MakePod("w2").Label("app", "web").NodeName("n1").Terminating().Obj(),
			},
			pod:  tu.MakePod("p").Label("app", "web").Spread(1, zone, v1.DoNotSchedule, "app", "web").Obj(),
			want: map[string]tu.FilterResult{"n1": {}, "n3": {}},
		},
		{
			// Two domains with one pod each; minDomains 3 makes the global
			// minimum 0, so 1+1-0 > 1 everywhere.
			name: "minDomains above the number of domains",
			nodes: []*v1.Node{
				tu.MakeNode("n1").Label(zone, "a").Obj(), tu.MakeNode("n3").Label(zone, "b").Obj(),
			},
			pods: []*v1.Pod{webPod("w1", "n1"), webPod("w2", "n3")},
			pod: tu.MakePod("p").Label("app", "web").SpreadConstraint(v1.TopologySpreadConstraint{
				MaxSkew: 1, TopologyKey: zone, WhenUnsatisfiable: v1.DoNotSchedule, MinDomains: &three,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			}).Obj(),
			want: map[string]tu.FilterResult{"n1": skewFail, "n3": skewFail},
		},
		{
			// The pod only fits pool x (zone a, 1 pod). With the default
			// nodeAffinityPolicy Honor, zone b (pool y) is not a domain:
			// min 1, 1+1-1 = 1 fits.
			name: "nodeAffinityPolicy Honor by default",
			nodes: []*v1.Node{
				tu.MakeNode("n1").Label(zone, "a").Label("pool", "x").Obj(), tu.MakeNode("n3").Label(zone, "b").Label("pool", "y").Obj(),
			},
			pods: []*v1.Pod{webPod("w1", "n1")},
			pod:  tu.MakePod("p").Label("app", "web").NodeSelector("pool", "x").Spread(1, zone, v1.DoNotSchedule, "app", "web").Obj(),
			want: map[string]tu.FilterResult{"n1": {}, "n3": {}},
		},
		{
			// With Ignore, zone b (0 pods) is a domain: 1+1-0 = 2 > 1.
			name: "nodeAffinityPolicy Ignore",
			nodes: []*v1.Node{
				tu.MakeNode("n1").Label(zone, "a").Label("pool", "x").Obj(), tu.MakeNode("n3").Label(zone, "b").Label("pool", "y").Obj(),
			},
			pods: []*v1.Pod{webPod("w1", "n1")},
			pod: tu.MakePod("p").Label("app", "web").NodeSelector("pool", "x").SpreadConstraint(v1.TopologySpreadConstraint{
				MaxSkew: 1, TopologyKey: zone, WhenUnsatisfiable: v1.DoNotSchedule, NodeAffinityPolicy: &ignore,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			}).Obj(),
			want: map[string]tu.FilterResult{"n1": skewFail, "n3": {}},
		},
		{
			// Zone b's only node is tainted. Ignore (default) keeps it as a
			// domain with 0 pods; Honor drops it.
			name: "nodeTaintsPolicy Honor drops untolerated nodes from the domains",
			nodes: []*v1.Node{
				tu.MakeNode("n1").Label(zone, "a").Obj(), tu.MakeNode("n3").Label(zone, "b").Taint("t", "", v1.TaintEffectNoSchedule).Obj(),
			},
			pods: []*v1.Pod{webPod("w1", "n1")},
			pod: tu.MakePod("p").Label("app", "web").SpreadConstraint(v1.TopologySpreadConstraint{
				MaxSkew: 1, TopologyKey: zone, WhenUnsatisfiable: v1.DoNotSchedule, NodeTaintsPolicy: &honor,
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			}).Obj(),
			want: map[string]tu.FilterResult{"n1": {}, "n3": {}},
		},
		{
			// matchLabelKeys adds version=v2 to the selector: the two v1
			// pods in zone a no longer count.
			name: "matchLabelKeys narrows the selector to the pod's version",
			nodes: []*v1.Node{
				tu.MakeNode("n1").Label(zone, "a").Obj(), tu.MakeNode("n3").Label(zone, "b").Obj(),
			},
			pods: []*v1.Pod{
				tu.MakePod("w1").Label("app", "web").Label("version", "v1").NodeName("n1").Obj(),
				tu.MakePod("w2").Label("app", "web").Label("version", "v1").NodeName("n1").Obj(),
			},
			pod: tu.MakePod("p").Label("app", "web").Label("version", "v2").SpreadConstraint(v1.TopologySpreadConstraint{
				MaxSkew: 1, TopologyKey: zone, WhenUnsatisfiable: v1.DoNotSchedule, MatchLabelKeys: []string{"version"},
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			}).Obj(),
			want: map[string]tu.FilterResult{"n1": {}, "n3": {}},
		},
		{
			name:     "only soft constraints: PreFilter skips",
			nodes:    []*v1.Node{tu.MakeNode("n1").Obj()},
			pod:      tu.MakePod("p").Label("app", "web").Spread(1, zone, v1.ScheduleAnyway, "app", "web").Obj(),
			wantSkip: true,
			want:     map[string]tu.FilterResult{"n1": {}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nodes := tu.NodeInfos(tc.nodes, tc.pods)
			pl := newPlugin(t, config.PodTopologySpreadArgs{}, nodes, nil)
			_, st, got := tu.RunFilter(pl, tc.pod, nodes)
			if st != nil {
				t.Fatalf("PreFilter status = %q, want success or skip", st.Message())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("filter results (-want +got):\n%s", diff)
			}
			_, pst := pl.PreFilter(t.Context(), framework.NewCycleState(), tc.pod, nodes)
			if pst.IsSkip() != tc.wantSkip {
				t.Errorf("PreFilter skip = %v, want %v", pst.IsSkip(), tc.wantSkip)
			}
		})
	}
}

func TestCriticalPaths(t *testing.T) {
	p := newCriticalPaths()
	for _, u := range []struct {
		v string
		n int
	}{{"a", 3}, {"b", 1}, {"c", 2}, {"b", 4}} {
		p.update(u.v, u.n)
	}
	// Only two values are tracked: c displaced a, then b rose to 4 and
	// swapped behind c. (PreFilter feeds each value once, so [0] is always
	// the true minimum there.)
	got := []string{p[0].TopologyValue, p[1].TopologyValue}
	if diff := cmp.Diff([]string{"c", "b"}, got); diff != "" {
		t.Errorf("critical paths (-want +got):\n%s", diff)
	}
}
