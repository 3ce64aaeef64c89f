package nodeunschedulable

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/framework"
	tu "github.com/drasim/drasim/sim/schedule/plugins/internal/testutil"
)

func TestFilter(t *testing.T) {
	nodes := tu.NodeInfos([]*v1.Node{tu.MakeNode("open").Obj(), tu.MakeNode("cordoned").Unschedulable().Obj()}, nil)
	rejected := tu.FilterResult{Code: framework.UnschedulableAndUnresolvable, Reasons: []string{ErrReasonUnschedulable}}
	tests := []struct {
		name string
		pod  *v1.Pod
		want map[string]tu.FilterResult
	}{
		{
			name: "cordoned node rejected",
			pod:  tu.MakePod("p").Obj(),
			want: map[string]tu.FilterResult{"open": {}, "cordoned": rejected},
		},
		{
			name: "toleration of the unschedulable taint admits the cordoned node",
			pod:  tu.MakePod("p").Toleration(v1.TaintNodeUnschedulable, v1.TolerationOpExists, "", v1.TaintEffectNoSchedule).Obj(),
			want: map[string]tu.FilterResult{"open": {}, "cordoned": {}},
		},
		{
			name: "toleration of another effect does not help",
			pod:  tu.MakePod("p").Toleration(v1.TaintNodeUnschedulable, v1.TolerationOpExists, "", v1.TaintEffectNoExecute).Obj(),
			want: map[string]tu.FilterResult{"open": {}, "cordoned": rejected},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, st, got := tu.RunFilter(New(), tc.pod, nodes)
			if st != nil {
				t.Fatalf("PreFilter status = %v, want none", st.Message())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("filter results (-want +got):\n%s", diff)
			}
		})
	}
}
