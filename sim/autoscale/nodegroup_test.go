package autoscale

import (
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/nodegroup"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestResolveErrors(t *testing.T) {
	tests := []struct {
		name string
		objs []any
		want []string
	}{
		{
			name: "min above max",
			objs: []any{makeGroup("g").Min(3).Max(2).Obj()},
			want: []string{`groups.yaml (document 1): NodeGroup "g": spec.minSize: 3 is larger than spec.maxSize 2`},
		},
		{
			name: "template and templateFrom",
			objs: []any{func() any { ng := makeGroup("g").Obj(); ng.Spec.TemplateFrom = "n1"; return ng }(), makeNode("n1", map[string]string{"pool": "g"}, "4")},
			want: []string{`groups.yaml (document 1): NodeGroup "g": spec: set exactly one of template and templateFrom`},
		},
		{
			name: "neither template nor templateFrom",
			objs: []any{func() any { ng := makeGroup("g").Obj(); ng.Spec.Template = nil; return ng }()},
			want: []string{`groups.yaml (document 1): NodeGroup "g": spec: set exactly one of template and templateFrom`},
		},
		{
			name: "templateFrom unknown node",
			objs: []any{makeGroup("g").From("nope").Obj()},
			want: []string{`groups.yaml (document 1): NodeGroup "g": spec.templateFrom: node "nope" is not in the snapshot`},
		},
		{
			name: "more nodes than maxSize",
			objs: []any{makeGroup("g").Max(1).Obj(), makeNode("n1", map[string]string{"pool": "g"}, "4"), makeNode("n2", map[string]string{"pool": "g"}, "4")},
			want: []string{`groups.yaml (document 1): NodeGroup "g": spec.maxSize: the group already has 2 node(s) (selected by spec.nodeSelector), more than maxSize 1`},
		},
		{
			name: "template outside the selector",
			objs: []any{func() any {
				ng := makeGroup("g").Obj()
				ng.Spec.Template.Node.Labels = map[string]string{"pool": "other"}
				return ng
			}()},
			want: []string{`groups.yaml (document 1): NodeGroup "g": spec.template.node.metadata.labels: the template's labels do not match spec.nodeSelector pool=g: new nodes would not belong to the group`},
		},
		{
			name: "node in two groups",
			objs: []any{
				makeGroup("a").Obj(),
				func() any {
					ng := makeGroup("b").Obj()
					ng.Spec.NodeSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"zone": "z1"}}
					ng.Spec.Template.Node.Labels["zone"] = "z1"
					return ng
				}(),
				makeNode("n1", map[string]string{"pool": "a", "zone": "z1"}, "4"),
			},
			want: []string{`groups.yaml (document 2): NodeGroup "b": spec.nodeSelector: selects node "n1", which NodeGroup "a" selects too: a node belongs to one group`},
		},
		{
			name: "template slice for another node",
			objs: []any{func() any {
				ng := makeGroup("g").GPUs(2, 0).Obj()
				ng.Spec.Template.ResourceSlices[0].Spec.NodeName = ptr.To("elsewhere")
				return ng
			}()},
			want: []string{`groups.yaml (document 1): NodeGroup "g": spec.template.resourceSlices[0].spec.nodeName: "elsewhere" is not the template node's name "g-node"`},
		},
		{
			name: "negative price",
			objs: []any{makeGroup("g").Price(-1).Obj()},
			want: []string{`groups.yaml (document 1): NodeGroup "g": spec.pricePerHour: must not be negative, got -1`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := nodegroup.Resolve(snapshotOf(tt.objs...))
			var got []string
			if err != nil {
				got = strings.Split(err.Error(), "\n")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTemplateFrom checks the sanitized copy of a node: a new name and
// hostname, no cordon and no condition taints (the user's taint stays),
// the group's zone and labels, and the node's current slices renamed with
// their pools.
func TestTemplateFrom(t *testing.T) {
	src := makeNode("gpu-a", map[string]string{"pool": "gpu"}, "16")
	src.Spec.Unschedulable = true
	src.Spec.ProviderID = "aws:///i-123"
	src.Spec.Taints = []v1.Taint{
		{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule},
		{Key: "ToBeDeletedByClusterAutoscaler", Effect: v1.TaintEffectNoSchedule},
		{Key: "nvidia.com/gpu", Value: "present", Effect: v1.TaintEffectNoSchedule},
	}
	slice := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "gpu-a-gpu.example.com-x7k2p"},
		Spec: resourceapi.ResourceSliceSpec{Driver: gpuDriver, NodeName: ptr.To("gpu-a"),
			Pool: resourceapi.ResourcePool{Name: "gpu-a", Generation: 3, ResourceSliceCount: 1}, Devices: []resourceapi.Device{{Name: "gpu-0"}}},
	}
	// The pool's generation 2 is left behind: the allocator ignores it,
	// and so does the template.
	stale := slice.DeepCopy()
	stale.Name, stale.Spec.Pool.Generation = "gpu-a-gpu.example.com-old", 2
	other := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "gpu-b-gpu"},
		Spec:       resourceapi.ResourceSliceSpec{Driver: gpuDriver, NodeName: ptr.To("gpu-b"), Pool: resourceapi.ResourcePool{Name: "gpu-b", ResourceSliceCount: 1}},
	}
	ng := makeGroup("gpu").From("gpu-a").Obj()
	ng.Spec.Zone = "zone-b"
	ng.Spec.Labels = map[string]string{"team": "ml"}
	groups, _, err := nodegroup.Resolve(snapshotOf(ng, src, makeNode("gpu-b", nil, "16"), stale, slice, other))
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	g := groups[0]
	node, slices, _ := g.NewNode(g.NextNames(1)[0])

	type view struct {
		Name          string
		Labels        map[string]string
		Taints        []v1.Taint
		Unschedulable bool
		ProviderID    string
		Slices        [][3]string // name, nodeName, pool
	}
	got := view{Name: node.Name, Labels: node.Labels, Taints: node.Spec.Taints, Unschedulable: node.Spec.Unschedulable, ProviderID: node.Spec.ProviderID}
	for _, sl := range slices {
		got.Slices = append(got.Slices, [3]string{sl.Name, *sl.Spec.NodeName, sl.Spec.Pool.Name})
	}
	want := view{
		Name:   "gpu-template-1",
		Labels: map[string]string{"pool": "gpu", v1.LabelHostname: "gpu-template-1", v1.LabelTopologyZone: "zone-b", "team": "ml"},
		Taints: []v1.Taint{{Key: "nvidia.com/gpu", Value: "present", Effect: v1.TaintEffectNoSchedule}},
		Slices: [][3]string{{"gpu-template-1-gpu.example.com-x7k2p", "gpu-template-1", "gpu-template-1"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("template copy (-want +got):\n%s", diff)
	}
	if src.Name != "gpu-a" || *slice.Spec.NodeName != "gpu-a" || len(src.Spec.Taints) != 3 {
		t.Errorf("Resolve changed the snapshot's node or slice: node %s with %d taints, slice on %s", src.Name, len(src.Spec.Taints), *slice.Spec.NodeName)
	}
	if diff := cmp.Diff([]string{"gpu-a"}, g.Nodes); diff != "" {
		t.Errorf("group nodes (-want +got):\n%s", diff)
	}
}

// TestNewNodeNames checks that new node names skip names in use and that
// estimates (nextNames) do not reserve them.
func TestNewNodeNames(t *testing.T) {
	groups, _, err := nodegroup.Resolve(snapshotOf(makeGroup("g").Obj(), makeNode("g-template-2", map[string]string{"pool": "g"}, "4")))
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	g := groups[0]
	if diff := cmp.Diff([]string{"g-template-1", "g-template-3"}, g.NextNames(2)); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	g.Reserve(g.NextNames(1))
	if diff := cmp.Diff([]string{"g-template-3", "g-template-4"}, g.NextNames(2)); diff != "" {
		t.Errorf("names after reserving one (-want +got):\n%s", diff)
	}
}

// TestExampleNode checks that, as cluster-autoscaler, a group plans with a
// copy of one of its ready, schedulable nodes (its estimate and expanders
// see that node), while new nodes are still made from the group's own
// template, and that a difference between the two is a warning.
func TestExampleNode(t *testing.T) {
	tests := []struct {
		name         string
		node         func() *v1.Node
		wantPlan     string // CPU the scale-up plans with
		wantFrom     string
		wantWarnings int
	}{
		{name: "ready node", node: func() *v1.Node { return makeNode("g-1", map[string]string{"pool": "g"}, "8") },
			wantPlan: "8", wantFrom: "g-1", wantWarnings: 1},
		{name: "cordoned node", node: func() *v1.Node {
			n := makeNode("g-1", map[string]string{"pool": "g"}, "8")
			n.Spec.Unschedulable = true
			return n
		}, wantPlan: "4"},
		{name: "not ready node", node: func() *v1.Node {
			n := makeNode("g-1", map[string]string{"pool": "g"}, "8")
			n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionFalse}}
			return n
		}, wantPlan: "4"},
		{name: "node like the template", node: func() *v1.Node { return makeNode("g-1", map[string]string{"pool": "g"}, "4") },
			wantPlan: "4", wantFrom: "g-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ng := makeGroup("g").CPU("4").Obj()
			ng.Spec.Template.Node.Status.Allocatable[v1.ResourceMemory] = resource.MustParse("64Gi")
			groups, warnings, err := nodegroup.Resolve(snapshotOf(ng, tt.node()))
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			g := groups[0]
			planned, _, _ := g.EstimateNode("x")
			made, _, _ := g.NewNode("y")
			got := []string{planned.Status.Allocatable.Cpu().String(), made.Status.Allocatable.Cpu().String(), g.TemplateFrom}
			if diff := cmp.Diff([]string{tt.wantPlan, "4", tt.wantFrom}, got); diff != "" {
				t.Errorf("planned CPU, made CPU, template from (-want +got):\n%s", diff)
			}
			if len(warnings) != tt.wantWarnings {
				t.Errorf("got %d warning(s) %q, want %d", len(warnings), warnings, tt.wantWarnings)
			}
		})
	}
}

// TestDaemonPodsArePriorityAdmitted: the pods a DaemonSet would put on a
// new node get their priority from their PriorityClass, as the Priority
// admission plugin gives it when the DaemonSet controller creates them
// (here the built-in system-node-critical).
func TestDaemonPodsArePriorityAdmitted(t *testing.T) {
	s := snapshotOf(makeGroup("g").Obj())
	s.DaemonSets = append(s.DaemonSets, &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "node-agent", Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{Template: v1.PodTemplateSpec{Spec: v1.PodSpec{
			PriorityClassName: "system-node-critical",
			Containers:        []v1.Container{{Name: "agent", Image: "agent"}},
		}}},
	})
	groups, _, err := nodegroup.Resolve(s)
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	_, _, pods := groups[0].NewNode("g-template-1")
	if len(pods) != 1 {
		t.Fatalf("daemon pods on a new node: want 1, got %d", len(pods))
	}
	if got := pods[0].Spec.Priority; got == nil || *got != 2000001000 {
		t.Errorf("daemon pod priority: want 2000001000 (system-node-critical), got %v", got)
	}
}
