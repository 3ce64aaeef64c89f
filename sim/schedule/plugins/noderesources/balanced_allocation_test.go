package noderesources

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/plugins/config"
	tu "github.com/drasim/drasim/sim/schedule/plugins/internal/testutil"
)

func TestBalancedAllocation(t *testing.T) {
	// n1: 4 cpu / 8Gi with 1 cpu / 1Gi requested; n2: same size, empty.
	nodes := tu.NodeInfos(
		[]*v1.Node{tu.MakeNode("n1").CPU("4").Memory("8Gi").Obj(), tu.MakeNode("n2").CPU("4").Memory("8Gi").Obj()},
		[]*v1.Pod{tu.MakePod("used").NodeName("n1").Req("cpu", "1", "memory", "1Gi").Obj()})
	tests := []struct {
		name     string
		pod      *v1.Pod
		want     map[string]int64
		wantSkip bool
	}{
		{
			// score = 50 + (50 + balance(with pod) - balance(without))/2,
			// balance = 100*(1 - |f_cpu - f_mem|/2).
			// n1: with (0.5, 0.5) -> 100, without (0.25, 0.125) -> 93:
			//     50 + 57/2 = 78.
			// n2: with (0.25, 0.375) -> 93, without (0, 0) -> 100:
			//     50 + 43/2 = 71.
			name: "pod that evens out a node scores higher",
			pod:  tu.MakePod("p").Req("cpu", "1", "memory", "3Gi").Obj(),
			want: map[string]int64{"n1": 78, "n2": 71},
		},
		{
			// Actual requests, no defaults: n2 with (0.25, 0) -> 87,
			// 50 + 37/2 = 68. n1 with (0.5, 0.125) -> 81, without 93:
			// 50 + 38/2 = 69.
			name: "missing memory request counts as zero",
			pod:  tu.MakePod("p").Req("cpu", "1").Obj(),
			want: map[string]int64{"n1": 69, "n2": 68},
		},
		{
			name:     "best-effort pod: PreScore skips",
			pod:      tu.MakePod("p").Req().Obj(),
			wantSkip: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := NewBalancedAllocation(config.NodeResourcesBalancedAllocationArgs{}, nil, nil)
			if err != nil {
				t.Fatalf("NewBalancedAllocation() = %v, want no error", err)
			}
			scores, st := tu.RunScore(pl, tc.pod, nodes)
			if tc.wantSkip {
				if st.Code() != framework.Skip {
					t.Errorf("status = %v, want Skip", st.Code())
				}
				return
			}
			if st != nil {
				t.Fatalf("score status = %q, want success", st.Message())
			}
			if diff := cmp.Diff(tc.want, tu.ScoreMap(scores)); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBalancedResourceScoreThreeResources(t *testing.T) {
	// fractions 0.2, 0.4, 0.6: mean 0.4, std sqrt(0.08/3) = 0.1633 -> 83.
	got := balancedResourceScore([]int64{2, 4, 6}, []int64{10, 10, 10})
	if got != 83 {
		t.Errorf("balancedResourceScore(0.2, 0.4, 0.6) = %d, want 83", got)
	}
}

func TestNewBalancedAllocationRejectsWeights(t *testing.T) {
	_, err := NewBalancedAllocation(config.NodeResourcesBalancedAllocationArgs{Resources: []config.ResourceSpec{{Name: "cpu", Weight: 2}}}, nil, nil)
	if err == nil {
		t.Errorf("NewBalancedAllocation(cpu weight 2) = nil error, want \"must be 1\"")
	}
}

// TestBalancedAllocationWithPodOnly is kube-scheduler 1.34's and 1.35's
// score (before kubernetes#135573): the balance with the pod alone,
// 100*(1 - |f_cpu - f_mem|/2).
func TestBalancedAllocationWithPodOnly(t *testing.T) {
	nodes := tu.NodeInfos(
		[]*v1.Node{tu.MakeNode("n1").CPU("4").Memory("8Gi").Obj(), tu.MakeNode("n2").CPU("4").Memory("8Gi").Obj()},
		[]*v1.Pod{tu.MakePod("used").NodeName("n1").Req("cpu", "1", "memory", "1Gi").Obj()})
	pl, err := NewBalancedAllocation(config.NodeResourcesBalancedAllocationArgs{WithPodOnly: true}, nil, nil)
	if err != nil {
		t.Fatalf("NewBalancedAllocation() = %v, want no error", err)
	}
	// n1 with the pod (0.5, 0.5) -> 100; n2 with it (0.25, 0.375) -> 93.
	scores, st := tu.RunScore(pl, tu.MakePod("p").Req("cpu", "1", "memory", "3Gi").Obj(), nodes)
	if st != nil {
		t.Fatalf("score status = %q, want success", st.Message())
	}
	if diff := cmp.Diff(map[string]int64{"n1": 100, "n2": 93}, tu.ScoreMap(scores)); diff != "" {
		t.Errorf("scores (-want +got):\n%s", diff)
	}
}
