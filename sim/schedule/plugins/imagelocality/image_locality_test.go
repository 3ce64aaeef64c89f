package imagelocality

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	tu "github.com/drasim/drasim/sim/schedule/plugins/internal/testutil"
)

const mib = 1024 * 1024

func TestScore(t *testing.T) {
	nodes := tu.NodeInfos([]*v1.Node{
		tu.MakeNode("n1").Image(500*mib, "big:1").Image(300*mib, "small:1").Image(1000*mib, "nginx:latest").Obj(),
		tu.MakeNode("n2").Image(500*mib, "big:1").Image(1000*mib, "nginx:latest").Obj(),
		tu.MakeNode("n3").Image(1000*mib, "nginx:latest").Obj(),
	}, nil)
	tests := []struct {
		name string
		pod  *v1.Pod
		want map[string]int64
	}{
		{
			// Sizes scaled by spread: big on 2/3 nodes, small on 1/3.
			// n1 500Mi*2/3 + 300Mi/3 = 433Mi, n2 333Mi, n3 0; mapped from
			// [23Mi, 2*1000Mi] onto [0, 100]: 20, 15, 0.
			name: "image size damped by spread",
			pod:  tu.MakePod("p").Image("big:1").Image("small:1").Obj(),
			want: map[string]int64{"n1": 20, "n2": 15, "n3": 0},
		},
		{
			// "nginx" means nginx:latest, 1000Mi on every node: the cap.
			name: "untagged image is :latest",
			pod:  tu.MakePod("p").Image("nginx").Obj(),
			want: map[string]int64{"n1": 100, "n2": 100, "n3": 100},
		},
		{
			name: "init container images count too",
			pod: func() *v1.Pod {
				p := tu.MakePod("p").Image("nginx").Obj()
				p.Spec.InitContainers = []v1.Container{{Name: "i", Image: "nginx"}}
				return p
			}(),
			// 2 images, each 1000Mi everywhere: sum 2000Mi = max.
			want: map[string]int64{"n1": 100, "n2": 100, "n3": 100},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := New(tu.NewLister(nodes))
			if err != nil {
				t.Fatalf("New() = %v, want no error", err)
			}
			scores, st := tu.RunScore(pl, tc.pod, nodes)
			if st != nil {
				t.Fatalf("score status = %q, want success", st.Message())
			}
			if diff := cmp.Diff(tc.want, tu.ScoreMap(scores)); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
		})
	}
}
