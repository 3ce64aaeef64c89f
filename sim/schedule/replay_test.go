package schedule_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/drasim/drasim/internal/build"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/result"
	"github.com/drasim/drasim/sim/schedule"
	"github.com/drasim/drasim/sim/schedule/profile"
	"github.com/drasim/drasim/sim/snapshot"
)

// run replays the snapshot and returns the result, the cluster after it and
// the pods' cycles in the order they ran ("ns/name").
func run(t *testing.T, snap *snapshot.Snapshot, gates feature.Gates) (*result.Result, *cluster.Cluster, []string) {
	t.Helper()
	if gates == nil {
		gates = feature.Defaults()
	}
	c := cluster.Build(snap, gates)
	draPlugin := dra.New(c.DRA())
	prof, err := profile.New(c, draPlugin, profile.Config{})
	if err != nil {
		t.Fatal(err)
	}
	r := schedule.NewReplayer(c, prof, schedule.Options{Parallelism: 1})
	var cycles []string
	r.OnAttempt = func(pod *v1.Pod, _ *schedule.Attempt) { cycles = append(cycles, pod.Namespace+"/"+pod.Name) }
	for _, pod := range c.Queue() {
		r.Add(pod, 0)
	}
	if err := r.Run(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	return r.Result(), c, cycles
}

func podOf(r *result.Result, key string) *result.Pod {
	for i := range r.Pods {
		if r.Pods[i].Key() == key {
			return &r.Pods[i]
		}
	}
	return nil
}

// A pod that did not fit is tried again only when an event its rejectors
// registered may help it: pods landing elsewhere do not free CPU, so the
// pod that NodeResourcesFit rejected is not retried.
func TestRetriedOnlyOnEventsThatMayHelp(t *testing.T) {
	snap := build.NewCluster().Node("n1", 4, 0).
		Pod(build.PodSpec{Name: "big", CPU: "8"}).
		Pod(build.PodSpec{Name: "small-1", CPU: "1"}).
		Pod(build.PodSpec{Name: "small-2", CPU: "1"}).
		Snapshot()
	res, _, cycles := run(t, snap, nil)
	want := []string{"default/big", "default/small-1", "default/small-2"}
	if diff := cmp.Diff(want, cycles); diff != "" {
		t.Errorf("cycles (-want +got):\n%s", diff)
	}
	if p := podOf(res, "default/big"); p.Phase != result.PhaseUnschedulable {
		t.Errorf("big: %s, want Unschedulable", p.Phase)
	}
}

// A pod whose required pod affinity names a pod later in the queue fails
// first; that pod landing is an AssignedPod/Add event InterPodAffinity
// registered, so the first pod is tried again and placed next to it.
func TestRetriedWhenAMatchingPodLands(t *testing.T) {
	affinity := func(p *v1.Pod) {
		p.Spec.Affinity = &v1.Affinity{PodAffinity: &v1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, TopologyKey: v1.LabelHostname,
		}}}}
	}
	snap := build.NewCluster().Node("n1", 4, 0).Node("n2", 4, 0).
		Pod(build.PodSpec{Name: "web", CPU: "1", Mutate: affinity}).
		Pod(build.PodSpec{Name: "db", CPU: "1", Labels: map[string]string{"app": "db"}}).
		Snapshot()
	res, _, cycles := run(t, snap, nil)
	want := []string{"default/web", "default/db", "default/web"}
	if diff := cmp.Diff(want, cycles); diff != "" {
		t.Errorf("cycles (-want +got):\n%s", diff)
	}
	web, db := podOf(res, "default/web"), podOf(res, "default/db")
	if web.Node == "" || web.Node != db.Node || web.Attempt != 2 {
		t.Errorf("web on %q (attempt %d), db on %q; want web next to db on its second attempt", web.Node, web.Attempt, db.Node)
	}
}

// The queue pops by priority, then arrival: a high-priority pod later in
// the snapshot goes first.
func TestQueueOrderIsPrioritySort(t *testing.T) {
	snap := build.NewCluster().Node("n1", 4, 0).
		Pod(build.PodSpec{Name: "low", CPU: "1", Priority: 1}).
		Pod(build.PodSpec{Name: "high", CPU: "1", Priority: 100}).
		Pod(build.PodSpec{Name: "mid", CPU: "1", Priority: 50}).
		Snapshot()
	_, _, cycles := run(t, snap, nil)
	want := []string{"default/high", "default/mid", "default/low"}
	if diff := cmp.Diff(want, cycles); diff != "" {
		t.Errorf("cycles (-want +got):\n%s", diff)
	}
}
