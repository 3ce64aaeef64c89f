package tainttoleration

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/framework"
	tu "github.com/drasim/drasim/sim/schedule/plugins/internal/testutil"
)

func TestFilter(t *testing.T) {
	nodes := tu.NodeInfos([]*v1.Node{
		tu.MakeNode("clean").Obj(),
		tu.MakeNode("gpu").Taint("gpu", "true", v1.TaintEffectNoSchedule).Obj(),
		tu.MakeNode("draining").Taint("drain", "", v1.TaintEffectNoExecute).Obj(),
		tu.MakeNode("soft").Taint("soft", "", v1.TaintEffectPreferNoSchedule).Obj(),
	}, nil)
	rejected := tu.FilterResult{Code: framework.UnschedulableAndUnresolvable, Reasons: []string{ErrReasonUntolerated}}
	tests := []struct {
		name string
		pod  *v1.Pod
		want map[string]tu.FilterResult
	}{
		{
			name: "NoSchedule and NoExecute reject, PreferNoSchedule does not",
			pod:  tu.MakePod("p").Obj(),
			want: map[string]tu.FilterResult{"clean": {}, "gpu": rejected, "draining": rejected, "soft": {}},
		},
		{
			name: "Equal toleration with matching value admits",
			pod:  tu.MakePod("p").Toleration("gpu", v1.TolerationOpEqual, "true", v1.TaintEffectNoSchedule).Obj(),
			want: map[string]tu.FilterResult{"clean": {}, "gpu": {}, "draining": rejected, "soft": {}},
		},
		{
			name: "Equal toleration with another value does not",
			pod:  tu.MakePod("p").Toleration("gpu", v1.TolerationOpEqual, "false", v1.TaintEffectNoSchedule).Obj(),
			want: map[string]tu.FilterResult{"clean": {}, "gpu": rejected, "draining": rejected, "soft": {}},
		},
		{
			name: "empty key Exists tolerates everything",
			pod:  tu.MakePod("p").Toleration("", v1.TolerationOpExists, "", "").Obj(),
			want: map[string]tu.FilterResult{"clean": {}, "gpu": {}, "draining": {}, "soft": {}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, got := tu.RunFilter(New(), tc.pod, nodes)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("filter results (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScore(t *testing.T) {
	nodes := tu.NodeInfos([]*v1.Node{
		tu.MakeNode("none").Obj(),
		tu.MakeNode("one").Taint("a", "", v1.TaintEffectPreferNoSchedule).Obj(),
		tu.MakeNode("two").Taint("a", "", v1.TaintEffectPreferNoSchedule).Taint("b", "", v1.TaintEffectPreferNoSchedule).Obj(),
		tu.MakeNode("hard").Taint("h", "", v1.TaintEffectNoSchedule).Obj(),
	}, nil)
	tests := []struct {
		name string
		pod  *v1.Pod
		want map[string]int64
	}{
		{
			// raw 0,1,2,0 untolerated PreferNoSchedule taints, reversed:
			// 100 - 100*raw/2.
			name: "fewer untolerated PreferNoSchedule taints score higher",
			pod:  tu.MakePod("p").Obj(),
			want: map[string]int64{"none": 100, "one": 50, "two": 0, "hard": 100},
		},
		{
			name: "tolerating one taint; a NoSchedule-only toleration does not count",
			pod: tu.MakePod("p").Toleration("a", v1.TolerationOpExists, "", v1.TaintEffectPreferNoSchedule).
				Toleration("b", v1.TolerationOpExists, "", v1.TaintEffectNoSchedule).Obj(),
			want: map[string]int64{"none": 100, "one": 100, "two": 0, "hard": 100},
		},
		{
			name: "all tolerated: everyone gets 100",
			pod:  tu.MakePod("p").Toleration("", v1.TolerationOpExists, "", "").Obj(),
			want: map[string]int64{"none": 100, "one": 100, "two": 100, "hard": 100},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			scores, st := tu.RunScore(New(), tc.pod, nodes)
			if st != nil {
				t.Fatalf("score status = %q, want success", st.Message())
			}
			if diff := cmp.Diff(tc.want, tu.ScoreMap(scores)); diff != "" {
				t.Errorf("normalized scores (-want +got):\n%s", diff)
			}
		})
	}
}
