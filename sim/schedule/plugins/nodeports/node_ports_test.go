package nodeports

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/framework"
	tu "github.com/drasim/drasim/sim/schedule/plugins/internal/testutil"
)

func TestFilter(t *testing.T) {
	nodes := tu.NodeInfos(
		[]*v1.Node{tu.MakeNode("n1").Obj(), tu.MakeNode("n2").Obj()},
		[]*v1.Pod{
			tu.MakePod("web").NodeName("n1").HostPort("", v1.ProtocolTCP, 80).Obj(),
			tu.MakePod("dns").NodeName("n2").HostPort("10.0.0.1", v1.ProtocolUDP, 53).Obj(),
		})
	conflict := tu.FilterResult{Code: framework.Unschedulable, Reasons: []string{ErrReason}}
	tests := []struct {
		name     string
		pod      *v1.Pod
		wantSkip bool
		want     map[string]tu.FilterResult
	}{
		{
			name: "same port taken on the wildcard address",
			pod:  tu.MakePod("p").HostPort("192.168.1.1", v1.ProtocolTCP, 80).Obj(),
			want: map[string]tu.FilterResult{"n1": conflict, "n2": {}},
		},
		{
			name: "same port, other protocol",
			pod:  tu.MakePod("p").HostPort("", v1.ProtocolUDP, 80).Obj(),
			want: map[string]tu.FilterResult{"n1": {}, "n2": {}},
		},
		{
			name: "wildcard request collides with a specific address",
			pod:  tu.MakePod("p").HostPort("", v1.ProtocolUDP, 53).Obj(),
			want: map[string]tu.FilterResult{"n1": {}, "n2": conflict},
		},
		{
			name:     "no host ports: PreFilter skips",
			pod:      tu.MakePod("p").Req("cpu", "1").Obj(),
			wantSkip: true,
			want:     map[string]tu.FilterResult{"n1": {}, "n2": {}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, got := tu.RunFilter(New(), tc.pod, nodes)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("filter results (-want +got):\n%s", diff)
			}
			_, st := New().PreFilter(t.Context(), framework.NewCycleState(), tc.pod, nodes)
			if st.IsSkip() != tc.wantSkip {
				t.Errorf("PreFilter skip = %v, want %v", st.IsSkip(), tc.wantSkip)
			}
		})
	}
}
