package podtopologyspread

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/plugins/config"
	tu "github.com/drasim/drasim/sim/schedule/plugins/internal/testutil"
)

func TestScore(t *testing.T) {
	// Zones a (n1, n2), b (n3), c (n4); web pods: 2 on n1, 1 on n3.
	nodes := []*v1.Node{
		tu.MakeNode("n1").Label(zone, "a").Obj(), tu.MakeNode("n2").Label(zone, "a").Obj(),
		tu.MakeNode("n3").Label(zone, "b").Obj(), tu.MakeNode("n4").Label(zone, "c").Obj(),
	}
	pods := []*v1.Pod{webPod("w1", "n1"), webPod("w2", "n1"), webPod("w3", "n3")}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web-rs", Namespace: "default"},
		Spec:       appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}
	tests := []struct {
		name      string
		args      config.PodTopologySpreadArgs
		workloads WorkloadLister
		nodes     []*v1.Node
		pod       *v1.Pod
		want      map[string]int64
		wantSkip  bool
	}{
		{
			// weight ln(3 zones + 2) = 1.609; raw round(count*w + 0):
			// a: 2 -> 3, b: 1 -> 2, c: 0. Normalized 100*(3+0-raw)/3.
			name: "zone constraint",
			pod:  tu.MakePod("p").Label("app", "web").Spread(1, zone, v1.ScheduleAnyway, "app", "web").Obj(),
			want: map[string]int64{"n1": 0, "n2": 0, "n3": 33, "n4": 100},
		},
		{
			// weight ln(4 nodes + 2) = 1.792; raw n1 round(3.58) = 4,
			// n3 2, others 0. Normalized 100*(4-raw)/4.
			name: "hostname constraint counts per node",
			pod:  tu.MakePod("p").Label("app", "web").Spread(1, v1.LabelHostname, v1.ScheduleAnyway, "app", "web").Obj(),
			want: map[string]int64{"n1": 0, "n2": 100, "n3": 50, "n4": 100},
		},
		{
			name:  "feasible node without the key is ignored and scores 0",
			nodes: append([]*v1.Node{tu.MakeNode("n5").Obj()}, nodes...),
			pod:   tu.MakePod("p").Label("app", "web").Spread(1, zone, v1.ScheduleAnyway, "app", "web").Obj(),
			want:  map[string]int64{"n1": 0, "n2": 0, "n3": 33, "n4": 100, "n5": 0},
		},
		{
			// System defaults (hostname skew 3, zone skew 5) with the
			// ReplicaSet's selector. raw = host cnt*ln6 + 2 + zone cnt*ln5
			// + 4: n1 13, n2 9, n3 9, n4 6. Normalized
			// 100*(13+6-raw)/13.
			name:      "system default constraints for a ReplicaSet's pod",
			workloads: NewWorkloads(nil, nil, []*appsv1.ReplicaSet{rs}, nil),
			pod:       tu.MakePod("p").Label("app", "web").OwnedBy("ReplicaSet", "web-rs").Obj(),
			want:      map[string]int64{"n1": 46, "n2": 76, "n3": 76, "n4": 100},
		},
		{
			// System defaults still score a node without a zone label
			// (only its hostname counts); the "" zone value joins the
			// domains: host weight ln(5+2), zone weight ln(4+2).
			// raw n1 13, n2 10, n3 10, n4 6, n5 2 -> 100*(15-raw)/13.
			name:      "system defaults keep nodes missing the zone label",
			workloads: NewWorkloads(nil, nil, []*appsv1.ReplicaSet{rs}, nil),
			nodes:     append([]*v1.Node{tu.MakeNode("n5").Obj()}, nodes...),
			pod:       tu.MakePod("p").Label("app", "web").OwnedBy("ReplicaSet", "web-rs").Obj(),
			want:      map[string]int64{"n1": 15, "n2": 38, "n3": 38, "n4": 69, "n5": 100},
		},
		{
			name:     "system defaults need an owner or service: without, PreScore skips",
			pod:      tu.MakePod("p").Label("app", "web").OwnedBy("ReplicaSet", "web-rs").Obj(),
			wantSkip: true,
		},
		{
			name:     "List defaulting with no constraints: PreScore skips",
			args:     config.PodTopologySpreadArgs{DefaultingType: config.ListDefaulting},
			pod:      tu.MakePod("p").Label("app", "web").Obj(),
			wantSkip: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ns := tc.nodes
			if ns == nil {
				ns = nodes
			}
			infos := tu.NodeInfos(ns, pods)
			pl := newPlugin(t, tc.args, infos, tc.workloads)
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

func TestDefaultSelector(t *testing.T) {
	svc := &v1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "default"}, Spec: v1.ServiceSpec{Selector: map[string]string{"app": "web"}}}
	ss := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default"},
		Spec:       appsv1.StatefulSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "db"}}},
	}
	w := NewWorkloads([]*v1.Service{svc}, nil, nil, []*appsv1.StatefulSet{ss})
	tests := []struct {
		name string
		w    WorkloadLister
		pod  *v1.Pod
		want string
	}{
		{name: "no lister", pod: tu.MakePod("p").Label("app", "web").Obj(), want: ""},
		{name: "service selecting the pod", w: w, pod: tu.MakePod("p").Label("app", "web").Obj(), want: "app=web"},
		{name: "service plus owning StatefulSet", w: w, pod: tu.MakePod("p").Label("app", "web").Label("tier", "db").OwnedBy("StatefulSet", "db").Obj(), want: "app=web,tier=db"},
		{name: "owner not found", w: w, pod: tu.MakePod("p").Label("tier", "db").OwnedBy("StatefulSet", "gone").Obj(), want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := DefaultSelector(tc.pod, tc.w).String(); got != tc.want {
				t.Errorf("DefaultSelector() = %q, want %q", got, tc.want)
			}
		})
	}
}
