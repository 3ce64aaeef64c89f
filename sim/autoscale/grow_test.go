package autoscale

import (
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/nodegroup"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestGrow(t *testing.T) {
	daemon := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "kube-system"},
		Spec:       appsv1.DaemonSetSpec{Template: v1.PodTemplateSpec{Spec: v1.PodSpec{Containers: []v1.Container{{Name: "agent", Image: "agent"}}}}},
	}
	snap := snapshotOf(
		makeGroup("gpu").Max(2).GPUs(4, 0).Obj(),
		makeNode("gpu-old", map[string]string{"pool": "gpu"}, "32"),
		makeNode("cpu-1", map[string]string{"pool": "cpu"}, "8"),
		gpuClass(),
	)
	snap.DaemonSets = append(snap.DaemonSets, daemon)
	before := len(snap.Nodes)

	grown, err := nodegroup.Grow(snap, "gpu", 4)
	if err != nil {
		t.Fatalf("Grow: want no error, got %v", err)
	}
	var names []string
	for _, n := range grown.Nodes {
		names = append(names, n.Name)
	}
	if diff := cmp.Diff([]string{"gpu-old", "cpu-1", "gpu-template-1", "gpu-template-2", "gpu-template-3"}, names); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	slices := 0
	for _, sl := range grown.ResourceSlices {
		if sl.Spec.NodeName != nil && strings.HasPrefix(*sl.Spec.NodeName, "gpu-template-") {
			slices++
		}
	}
	if slices != 3 {
		t.Errorf("want one ResourceSlice per new node (3), got %d", slices)
	}
	bound := map[string]string{}
	for _, p := range grown.Pods {
		bound[p.Spec.NodeName] = p.Name
	}
	for _, n := range []string{"gpu-template-1", "gpu-template-2", "gpu-template-3"} {
		if _, ok := bound[n]; !ok {
			t.Errorf("want the DaemonSet's pod bound to new node %s, got pods on %v", n, bound)
		}
	}
	if got := grown.NodeGroups[0].Spec.MaxSize; got != 4 {
		t.Errorf("want maxSize raised to the size 4, got %d", got)
	}
	if len(snap.Nodes) != before || snap.NodeGroups[0].Spec.MaxSize != 2 || len(snap.Pods) != 0 {
		t.Errorf("Grow changed its input: %d nodes (want %d), maxSize %d (want 2), %d pods (want 0)", len(snap.Nodes), before, snap.NodeGroups[0].Spec.MaxSize, len(snap.Pods))
	}
	// The grown snapshot's groups count the new nodes as theirs.
	groups, _, err := nodegroup.Resolve(grown.Copy())
	if err != nil || groups[0].Size() != 4 {
		t.Errorf("want the group to have 4 nodes after Grow, got %v (error %v)", groups, err)
	}
}

func TestGrowErrors(t *testing.T) {
	noSelector := makeGroup("free").Obj()
	noSelector.Spec.NodeSelector = nil
	snap := snapshotOf(makeGroup("gpu").Obj(), noSelector,
		makeNode("gpu-1", map[string]string{"pool": "gpu"}, "32"), makeNode("gpu-2", map[string]string{"pool": "gpu"}, "32"))
	for _, tc := range []struct {
		name, group string
		size        int
		want        string
	}{
		{"unknown group", "tpu", 3, `no NodeGroup "tpu"`},
		{"no selector", "free", 3, "has no spec.nodeSelector"},
		{"shrinking", "gpu", 1, "already has 2 node(s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := nodegroup.Grow(snap, tc.group, tc.size)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("want an error containing %q, got %v", tc.want, err)
			}
		})
	}
}
