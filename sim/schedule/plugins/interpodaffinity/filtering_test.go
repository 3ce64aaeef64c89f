package interpodaffinity

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

// cluster: zone a (n1, n2), zone b (n3), n4 without a zone label.
func clusterNodes() []*v1.Node {
	return []*v1.Node{
		tu.MakeNode("n1").Label(zone, "a").Obj(), tu.MakeNode("n2").Label(zone, "a").Obj(),
		tu.MakeNode("n3").Label(zone, "b").Obj(), tu.MakeNode("n4").Obj(),
	}
}

func newPlugin(t *testing.T, args config.InterPodAffinityArgs, nodes []*framework.NodeInfo, ns NamespaceLister) *InterPodAffinity {
	t.Helper()
	pl, err := New(args, tu.NewLister(nodes), ns)
	if err != nil {
		t.Fatalf("New(%+v) = %v, want no error", args, err)
	}
	return pl
}

func TestFilter(t *testing.T) {
	affinityFail := tu.FilterResult{Code: framework.UnschedulableAndUnresolvable, Reasons: []string{ErrReasonAffinityRulesNotMatch}}
	antiFail := tu.FilterResult{Code: framework.Unschedulable, Reasons: []string{ErrReasonAntiAffinityRulesNotMatch}}
	existingFail := tu.FilterResult{Code: framework.Unschedulable, Reasons: []string{ErrReasonExistingAntiAffinityRulesNotMatch}}
	namespaces := NewNamespaces([]*v1.Namespace{
		{ObjectMeta: metav1.ObjectMeta{Name: "default"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "team-x", Labels: map[string]string{"team": "x"}}},
	})
	teamX := tu.LabelTerm(v1.LabelHostname, "app", "web")
	teamX.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "x"}}
	tests := []struct {
		name       string
		pods       []*v1.Pod
		namespaces NamespaceLister
		pod        *v1.Pod
		wantSkip   bool
		want       map[string]tu.FilterResult
	}{
		{
			name: "required affinity to a db pod's zone",
			pods: []*v1.Pod{tu.MakePod("db").Label("app", "db").NodeName("n1").Obj()},
			pod:  tu.MakePod("p").Label("app", "web").PodAffinity(tu.LabelTerm(zone, "app", "db")).Obj(),
			want: map[string]tu.FilterResult{"n1": {}, "n2": {}, "n3": affinityFail, "n4": affinityFail},
		},
		{
			name: "first pod of a self-affine group may go to any node with the key",
			pod:  tu.MakePod("p").Label("app", "db").PodAffinity(tu.LabelTerm(zone, "app", "db")).Obj(),
			want: map[string]tu.FilterResult{"n1": {}, "n2": {}, "n3": {}, "n4": affinityFail},
		},
		{
			name: "required anti-affinity against web pods on the same host",
			pods: []*v1.Pod{tu.MakePod("w").Label("app", "web").NodeName("n1").Obj()},
			pod:  tu.MakePod("p").Label("app", "web").PodAntiAffinity(tu.LabelTerm(v1.LabelHostname, "app", "web")).Obj(),
			want: map[string]tu.FilterResult{"n1": antiFail, "n2": {}, "n3": {}, "n4": {}},
		},
		{
			name: "an existing pod's anti-affinity keeps the pod out of its zone",
			pods: []*v1.Pod{tu.MakePod("loner").Label("app", "loner").NodeName("n1").PodAntiAffinity(tu.LabelTerm(zone, "app", "web")).Obj()},
			pod:  tu.MakePod("p").Label("app", "web").Obj(),
			want: map[string]tu.FilterResult{"n1": existingFail, "n2": existingFail, "n3": {}, "n4": {}},
		},
		{
			name: "anti-affinity ignores pods in other namespaces",
			pods: []*v1.Pod{tu.MakePod("w").Namespace("team-x").Label("app", "web").NodeName("n1").Obj()},
			pod:  tu.MakePod("p").Label("app", "web").PodAntiAffinity(tu.LabelTerm(v1.LabelHostname, "app", "web")).Obj(),
			want: map[string]tu.FilterResult{"n1": {}, "n2": {}, "n3": {}, "n4": {}},
		},
		{
			name:       "namespaceSelector reaches the selected namespaces",
			pods:       []*v1.Pod{tu.MakePod("w").Namespace("team-x").Label("app", "web").NodeName("n1").Obj()},
			namespaces: namespaces,
			pod:        tu.MakePod("p").Label("app", "web").PodAntiAffinity(teamX).Obj(),
			want:       map[string]tu.FilterResult{"n1": antiFail, "n2": {}, "n3": {}, "n4": {}},
		},
		{
			name: "without a namespace lister a namespaceSelector selects nothing",
			pods: []*v1.Pod{tu.MakePod("w").Namespace("team-x").Label("app", "web").NodeName("n1").Obj()},
			pod:  tu.MakePod("p").Label("app", "web").PodAntiAffinity(teamX).Obj(),
			want: map[string]tu.FilterResult{"n1": {}, "n2": {}, "n3": {}, "n4": {}},
		},
		{
			name:     "no terms anywhere: PreFilter skips",
			pods:     []*v1.Pod{tu.MakePod("w").Label("app", "web").NodeName("n1").Obj()},
			pod:      tu.MakePod("p").Label("app", "web").Obj(),
			wantSkip: true,
			want:     map[string]tu.FilterResult{"n1": {}, "n2": {}, "n3": {}, "n4": {}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nodes := tu.NodeInfos(clusterNodes(), tc.pods)
			pl := newPlugin(t, config.InterPodAffinityArgs{}, nodes, tc.namespaces)
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

func TestPreFilterRejectsUnparsableTerms(t *testing.T) {
	nodes := tu.NodeInfos(clusterNodes(), nil)
	bad := tu.LabelTerm(zone, "app", "db")
	bad.LabelSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}
	_, st := newPlugin(t, config.InterPodAffinityArgs{}, nodes, nil).PreFilter(t.Context(), framework.NewCycleState(), tu.MakePod("p").PodAffinity(bad).Obj(), nodes)
	if st.Code() != framework.UnschedulableAndUnresolvable {
		t.Errorf("PreFilter code = %v (%q), want UnschedulableAndUnresolvable for an unparsable selector", st.Code(), st.Message())
	}
}
