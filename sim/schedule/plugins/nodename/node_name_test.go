package nodename

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/framework"
	tu "github.com/drasim/drasim/sim/schedule/plugins/internal/testutil"
)

func TestNodeName(t *testing.T) {
	nodes := tu.NodeInfos([]*v1.Node{tu.MakeNode("n1").Obj(), tu.MakeNode("n2").Obj()}, nil)
	tests := []struct {
		name      string
		pod       *v1.Pod
		wantNames []string
		want      map[string]tu.FilterResult
	}{
		{
			name: "no nodeName: every node",
			pod:  tu.MakePod("p").Obj(),
			want: map[string]tu.FilterResult{"n1": {}, "n2": {}},
		},
		{
			name:      "nodeName narrows PreFilter and rejects the others",
			pod:       tu.MakePod("p").NodeName("n2").Obj(),
			wantNames: []string{"n2"},
			want: map[string]tu.FilterResult{
				"n1": {Code: framework.UnschedulableAndUnresolvable, Reasons: []string{ErrReason}},
				"n2": {},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pre, st, got := tu.RunFilter(New(), tc.pod, nodes)
			if st != nil {
				t.Fatalf("PreFilter status = %v, want none", st.Message())
			}
			if diff := cmp.Diff(tc.wantNames, tu.Names(pre)); diff != "" {
				t.Errorf("PreFilterResult node names (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("filter results (-want +got):\n%s", diff)
			}
		})
	}
}
