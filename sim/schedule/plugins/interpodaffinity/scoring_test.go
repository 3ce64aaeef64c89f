package interpodaffinity

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/plugins/config"
	tu "github.com/drasim/drasim/sim/schedule/plugins/internal/testutil"
)

func TestScore(t *testing.T) {
	zero := int32(0)
	// Only nodes with a zone: n1, n2 (zone a), n3 (zone b).
	nodes := clusterNodes()[:3]
	tests := []struct {
		name     string
		args     config.InterPodAffinityArgs
		pods     []*v1.Pod
		pod      *v1.Pod
		want     map[string]int64
		wantSkip bool
	}{
		{
			// zone a +10 (db on n1); host n2 -5 (web on n2).
			// raw n1 10, n2 5, n3 0 -> 100*(raw-0)/10.
			name: "preferred affinity and anti-affinity of the incoming pod",
			pods: []*v1.Pod{
				tu.MakePod("db").Label("app", "db").NodeName("n1").Obj(),
				tu.MakePod("w").Label("app", "web").NodeName("n2").Obj(),
			},
			pod: tu.MakePod("p").Label("app", "web").
				PreferredPodAffinity(10, tu.LabelTerm(zone, "app", "db")).
				PreferredPodAntiAffinity(5, tu.LabelTerm(v1.LabelHostname, "app", "web")).Obj(),
			want: map[string]int64{"n1": 100, "n2": 50, "n3": 0},
		},
		{
			// The placed pod requires web pods in its zone: zone a gets
			// hardPodAffinityWeight (1). raw 1, 1, 0.
			name: "existing pod's required affinity weighs hardPodAffinityWeight",
			pods: []*v1.Pod{tu.MakePod("sidecar").Label("app", "x").NodeName("n1").PodAffinity(tu.LabelTerm(zone, "app", "web")).Obj()},
			pod:  tu.MakePod("p").Label("app", "web").Obj(),
			want: map[string]int64{"n1": 100, "n2": 100, "n3": 0},
		},
		{
			name:     "hardPodAffinityWeight 0 ignores it: nothing matched, PreScore skips",
			args:     config.InterPodAffinityArgs{HardPodAffinityWeight: &zero},
			pods:     []*v1.Pod{tu.MakePod("sidecar").Label("app", "x").NodeName("n1").PodAffinity(tu.LabelTerm(zone, "app", "web")).Obj()},
			pod:      tu.MakePod("p").Label("app", "web").Obj(),
			wantSkip: true,
		},
		{
			// zone b -4; raw 0, 0, -4 -> 100*(raw+4)/4.
			name: "existing pod's preferred anti-affinity pushes away",
			pods: []*v1.Pod{tu.MakePod("q").Label("app", "quiet").NodeName("n3").PreferredPodAntiAffinity(4, tu.LabelTerm(zone, "app", "web")).Obj()},
			pod:  tu.MakePod("p").Label("app", "web").Obj(),
			want: map[string]int64{"n1": 100, "n2": 100, "n3": 0},
		},
		{
			name:     "existing preferred terms ignored on request",
			args:     config.InterPodAffinityArgs{IgnorePreferredTermsOfExistingPods: true},
			pods:     []*v1.Pod{tu.MakePod("q").Label("app", "quiet").NodeName("n3").PreferredPodAntiAffinity(4, tu.LabelTerm(zone, "app", "web")).Obj()},
			pod:      tu.MakePod("p").Label("app", "web").Obj(),
			wantSkip: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			infos := tu.NodeInfos(nodes, tc.pods)
			pl := newPlugin(t, tc.args, infos, nil)
			scores, st := tu.RunScore(pl, tc.pod, infos)
			if tc.wantSkip {
				if st.Code() != framework.Skip {
					t.Errorf("status = %v %q, want Skip", st.Code(), st.Message())
				}
				return
			}
			if st != nil {
				t.Fatalf("score status = %v %q, want success", st.Code(), st.Message())
			}
			if diff := cmp.Diff(tc.want, tu.ScoreMap(scores)); diff != "" {
				t.Errorf("normalized scores (-want +got):\n%s", diff)
			}
		})
	}
}
