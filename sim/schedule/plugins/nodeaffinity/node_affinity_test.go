package nodeaffinity

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/plugins/config"
	tu "github.com/drasim/drasim/sim/schedule/plugins/internal/testutil"
)

func nameIn(names ...string) v1.NodeSelectorRequirement {
	return v1.NodeSelectorRequirement{Key: metav1.ObjectNameField, Operator: v1.NodeSelectorOpIn, Values: names}
}

func labelIn(key string, values ...string) v1.NodeSelectorRequirement {
	return v1.NodeSelectorRequirement{Key: key, Operator: v1.NodeSelectorOpIn, Values: values}
}

func TestFilter(t *testing.T) {
	nodes := tu.NodeInfos([]*v1.Node{
		tu.MakeNode("n1").Label("zone", "a").Label("pool", "gpu").Obj(),
		tu.MakeNode("n2").Label("zone", "a").Obj(),
		tu.MakeNode("n3").Label("zone", "b").Obj(),
	}, nil)
	mismatch := tu.FilterResult{Code: framework.UnschedulableAndUnresolvable, Reasons: []string{ErrReasonPod}}
	enforced := tu.FilterResult{Code: framework.UnschedulableAndUnresolvable, Reasons: []string{ErrReasonEnforced}}
	tests := []struct {
		name      string
		args      config.NodeAffinityArgs
		pod       *v1.Pod
		wantSkip  bool
		wantPre   *framework.Status
		wantNames []string
		want      map[string]tu.FilterResult
	}{
		{
			name:     "nothing to check: PreFilter skips",
			pod:      tu.MakePod("p").Obj(),
			wantSkip: true,
			want:     map[string]tu.FilterResult{"n1": {}, "n2": {}, "n3": {}},
		},
		{
			name: "nodeSelector",
			pod:  tu.MakePod("p").NodeSelector("zone", "a").Obj(),
			want: map[string]tu.FilterResult{"n1": {}, "n2": {}, "n3": mismatch},
		},
		{
			name: "nodeSelector and required affinity must both hold",
			pod: tu.MakePod("p").NodeSelector("zone", "a").
				RequiredNodeAffinityTerm(v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{labelIn("pool", "gpu")}}).Obj(),
			want: map[string]tu.FilterResult{"n1": {}, "n2": mismatch, "n3": mismatch},
		},
		{
			name: "required terms are ORed",
			pod: tu.MakePod("p").
				RequiredNodeAffinityTerm(v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{labelIn("pool", "gpu")}}).
				RequiredNodeAffinityTerm(v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{labelIn("zone", "b")}}).Obj(),
			want: map[string]tu.FilterResult{"n1": {}, "n2": mismatch, "n3": {}},
		},
		{
			name: "metadata.name matchFields narrow PreFilter to the union of the terms",
			pod: tu.MakePod("p").
				RequiredNodeAffinityTerm(v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{nameIn("n1")}}).
				RequiredNodeAffinityTerm(v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{nameIn("n2")}}).
				RequiredNodeAffinityTerm(v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{nameIn("n9")}}).Obj(),
			wantNames: []string{"n1", "n2", "n9"},
			want:      map[string]tu.FilterResult{"n1": {}, "n2": {}, "n3": mismatch},
		},
		{
			name: "a term whose names conflict adds none to the union",
			pod: tu.MakePod("p").
				RequiredNodeAffinityTerm(v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{nameIn("n1"), nameIn("n3")}}).
				RequiredNodeAffinityTerm(v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{nameIn("n3")}}).
				RequiredNodeAffinityTerm(v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{nameIn("n2")}}).Obj(),
			wantNames: []string{"n2", "n3"},
			want:      map[string]tu.FilterResult{"n1": mismatch, "n2": {}, "n3": {}},
		},
		{
			name: "a term without matchFields prevents narrowing",
			pod: tu.MakePod("p").
				RequiredNodeAffinityTerm(v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{nameIn("n1")}}).
				RequiredNodeAffinityTerm(v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{labelIn("zone", "b")}}).Obj(),
			want: map[string]tu.FilterResult{"n1": {}, "n2": mismatch, "n3": {}},
		},
		{
			name: "disjoint matchFields within one term conflict",
			pod: tu.MakePod("p").
				RequiredNodeAffinityTerm(v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{nameIn("n1"), nameIn("n2")}}).Obj(),
			wantPre: framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonConflict),
		},
		{
			name: "added affinity is enforced before the pod's own",
			args: config.NodeAffinityArgs{AddedAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
				NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{labelIn("zone", "a")}}},
			}}},
			pod:  tu.MakePod("p").NodeSelector("pool", "gpu").Obj(),
			want: map[string]tu.FilterResult{"n1": {}, "n2": mismatch, "n3": enforced},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := New(tc.args)
			if err != nil {
				t.Fatalf("New(%+v) = %v, want no error", tc.args, err)
			}
			pre, st, got := tu.RunFilter(pl, tc.pod, nodes)
			if diff := cmp.Diff(tu.Result(tc.wantPre), tu.Result(st)); diff != "" {
				t.Errorf("PreFilter status (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantNames, tu.Names(pre)); diff != "" {
				t.Errorf("PreFilterResult node names (-want +got):\n%s", diff)
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

func TestScore(t *testing.T) {
	nodes := tu.NodeInfos([]*v1.Node{
		tu.MakeNode("n1").Label("zone", "a").Label("disk", "ssd").Obj(),
		tu.MakeNode("n2").Label("zone", "a").Obj(),
		tu.MakeNode("n3").Label("zone", "b").Obj(),
	}, nil)
	tests := []struct {
		name     string
		args     config.NodeAffinityArgs
		pod      *v1.Pod
		want     map[string]int64
		wantSkip bool
	}{
		{
			// raw 2+8=10, 2, 0; normalized 100*raw/10.
			name: "weights of matching terms add up, best node 100",
			pod:  tu.MakePod("p").PreferredNodeAffinity(2, "zone", "a").PreferredNodeAffinity(8, "disk", "ssd").Obj(),
			want: map[string]int64{"n1": 100, "n2": 20, "n3": 0},
		},
		{
			// raw 3, 3, 5 (added 5 on zone b).
			name: "added preferred affinity counts too",
			args: config.NodeAffinityArgs{AddedAffinity: &v1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []v1.PreferredSchedulingTerm{
				{Weight: 5, Preference: v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{labelIn("zone", "b")}}},
			}}},
			pod:  tu.MakePod("p").PreferredNodeAffinity(3, "zone", "a").Obj(),
			want: map[string]int64{"n1": 60, "n2": 60, "n3": 100},
		},
		{
			name:     "no preferences: PreScore skips",
			pod:      tu.MakePod("p").Obj(),
			wantSkip: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := New(tc.args)
			if err != nil {
				t.Fatalf("New(%+v) = %v, want no error", tc.args, err)
			}
			scores, st := tu.RunScore(pl, tc.pod, nodes)
			if st.IsSkip() != tc.wantSkip || (!st.IsSkip() && st != nil) {
				t.Fatalf("score status = %v %q, want skip=%v", st.Code(), st.Message(), tc.wantSkip)
			}
			if tc.wantSkip {
				return
			}
			if diff := cmp.Diff(tc.want, tu.ScoreMap(scores)); diff != "" {
				t.Errorf("normalized scores (-want +got):\n%s", diff)
			}
		})
	}
}
