package framework

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const mi = 1024 * 1024

func rl(kv ...string) v1.ResourceList {
	out := v1.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[v1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func container(name string, kv ...string) v1.Container {
	c := v1.Container{Name: name}
	if len(kv) > 0 {
		c.Resources.Requests = rl(kv...)
	}
	return c
}

func sidecar(name string, kv ...string) v1.Container {
	c := container(name, kv...)
	always := v1.ContainerRestartPolicyAlways
	c.RestartPolicy = &always
	return c
}

func pod(name string, spec v1.PodSpec) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Spec: spec}
}

func TestCalculateResource(t *testing.T) {
	tests := []struct {
		name string
		spec v1.PodSpec
		want PodResource
	}{
		{
			name: "best effort pod gets the non-zero defaults per container",
			spec: v1.PodSpec{Containers: []v1.Container{container("a"), container("b")}},
			want: PodResource{Non0CPU: 2 * DefaultMilliCPURequest, Non0Mem: 2 * DefaultMemoryRequest},
		},
		{
			name: "containers sum, init container raises cpu to its own request",
			spec: v1.PodSpec{
				Containers:     []v1.Container{container("a", "cpu", "1", "memory", "1Gi"), container("b", "cpu", "500m")},
				InitContainers: []v1.Container{container("i", "cpu", "2", "memory", "500Mi")},
			},
			// cpu max(1.5, 2); memory max(1Gi, 500Mi). Non-zero memory adds
			// the 200Mi default for container b.
			want: PodResource{Resource: Resource{MilliCPU: 2000, Memory: 1024 * mi}, Non0CPU: 2000, Non0Mem: 1224 * mi},
		},
		{
			name: "sidecar before init container stacks under it",
			spec: v1.PodSpec{
				Containers:     []v1.Container{container("a", "cpu", "1", "memory", "100Mi")},
				InitContainers: []v1.Container{sidecar("s", "cpu", "500m", "memory", "100Mi"), container("i", "cpu", "1200m", "memory", "100Mi")},
			},
			// running: 1 + 0.5 = 1.5; while i runs: 1.2 + 0.5 = 1.7.
			want: PodResource{Resource: Resource{MilliCPU: 1700, Memory: 200 * mi}, Non0CPU: 1700, Non0Mem: 200 * mi},
		},
		{
			name: "sidecar after init container does not stack under it",
			spec: v1.PodSpec{
				Containers:     []v1.Container{container("a", "cpu", "1", "memory", "100Mi")},
				InitContainers: []v1.Container{container("i", "cpu", "1200m", "memory", "100Mi"), sidecar("s", "cpu", "500m", "memory", "100Mi")},
			},
			want: PodResource{Resource: Resource{MilliCPU: 1500, Memory: 200 * mi}, Non0CPU: 1500, Non0Mem: 200 * mi},
		},
		{
			name: "overhead is added to requests and non-zero requests",
			spec: v1.PodSpec{
				Containers: []v1.Container{container("a", "cpu", "1")},
				Overhead:   rl("cpu", "250m", "memory", "100Mi"),
			},
			want: PodResource{Resource: Resource{MilliCPU: 1250, Memory: 100 * mi}, Non0CPU: 1250, Non0Mem: 300 * mi},
		},
		{
			name: "pod-level requests replace the container sum",
			spec: v1.PodSpec{
				Containers: []v1.Container{container("a", "cpu", "1")},
				Resources:  &v1.ResourceRequirements{Requests: rl("cpu", "4", "memory", "2Gi")},
			},
			want: PodResource{Resource: Resource{MilliCPU: 4000, Memory: 2048 * mi}, Non0CPU: 4000, Non0Mem: 2048 * mi},
		},
		{
			name: "pod-level cpu only: memory default still applies to containers",
			spec: v1.PodSpec{
				Containers: []v1.Container{container("a")},
				Resources:  &v1.ResourceRequirements{Requests: rl("cpu", "2")},
			},
			want: PodResource{Resource: Resource{MilliCPU: 2000}, Non0CPU: 2000, Non0Mem: 200 * mi},
		},
		{
			name: "extended and hugepages resources are scalar, unknown names dropped",
			spec: v1.PodSpec{Containers: []v1.Container{container("a", "cpu", "1", "memory", "1Gi", "example.com/gpu", "2", "hugepages-2Mi", "4Mi", "foo", "3")}},
			want: PodResource{
				Resource: Resource{MilliCPU: 1000, Memory: 1024 * mi, ScalarResources: map[v1.ResourceName]int64{"example.com/gpu": 2, "hugepages-2Mi": 4 * mi}},
				Non0CPU:  1000, Non0Mem: 1024 * mi,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := NewPodInfo(pod("p", tc.spec)).CalculateResource()
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("CalculateResource() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCalculateResourceDuringResize(t *testing.T) {
	// In-place resize (InPlacePodVerticalScaling, GA): the node keeps what
	// the kubelet allocated until the resize lands, so the larger of spec,
	// allocated and actual counts.
	tests := []struct {
		name   string
		status v1.PodStatus
		want   int64
	}{
		{
			name:   "scale-down pending: allocated 2 cpu still counts",
			status: v1.PodStatus{ContainerStatuses: []v1.ContainerStatus{{Name: "a", AllocatedResources: rl("cpu", "2")}}},
			want:   2000,
		},
		{
			name: "scale-up infeasible: spec ignored, actual counts",
			status: v1.PodStatus{
				Conditions:        []v1.PodCondition{{Type: v1.PodResizePending, Reason: v1.PodReasonInfeasible}},
				ContainerStatuses: []v1.ContainerStatus{{Name: "a", AllocatedResources: rl("cpu", "500m"), Resources: &v1.ResourceRequirements{Requests: rl("cpu", "500m")}}},
			},
			want: 500,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := pod("p", v1.PodSpec{Containers: []v1.Container{container("a", "cpu", "1", "memory", "1Gi")}})
			p.Status = tc.status
			if got := NewPodInfo(p).CalculateResource().Resource.MilliCPU; got != tc.want {
				t.Errorf("MilliCPU = %d, want %d", got, tc.want)
			}
		})
	}
}

// totals is what a NodeInfo accounts, in a form cmp can show.
type totals struct {
	Pods             []string
	WithAffinity     []string
	WithRequiredAnti []string
	Requested        Resource
	NonZero          Resource
	Ports            int
}

func totalsOf(n *NodeInfo) totals {
	names := func(ps []*PodInfo) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Pod.Name)
		}
		return out
	}
	return totals{
		Pods: names(n.Pods), WithAffinity: names(n.PodsWithAffinity), WithRequiredAnti: names(n.PodsWithRequiredAntiAffinity),
		Requested: *n.Requested, NonZero: *n.NonZeroRequested, Ports: n.UsedPorts.Len(),
	}
}

func TestNodeInfoAddRemoveClone(t *testing.T) {
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: v1.NodeStatus{Allocatable: rl("cpu", "8", "memory", "16Gi", "pods", "110", "example.com/gpu", "4")}}
	anti := &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}, TopologyKey: v1.LabelHostname,
	}}}}
	withPort := container("a", "cpu", "1", "memory", "1Gi")
	withPort.Ports = []v1.ContainerPort{{HostPort: 8080, ContainerPort: 80}}
	p1 := pod("p1", v1.PodSpec{Containers: []v1.Container{withPort}})
	p2 := pod("p2", v1.PodSpec{Containers: []v1.Container{container("a", "cpu", "500m", "example.com/gpu", "1")}, Affinity: anti})

	n := NewNodeInfo(node, p1, p2)
	if diff := cmp.Diff(Resource{MilliCPU: 8000, Memory: 16384 * mi, AllowedPodNumber: 110, ScalarResources: map[v1.ResourceName]int64{"example.com/gpu": 4}}, *n.Allocatable); diff != "" {
		t.Errorf("Allocatable mismatch (-want +got):\n%s", diff)
	}
	want := totals{
		Pods: []string{"p1", "p2"}, WithAffinity: []string{"p2"}, WithRequiredAnti: []string{"p2"},
		Requested: Resource{MilliCPU: 1500, Memory: 1024 * mi, ScalarResources: map[v1.ResourceName]int64{"example.com/gpu": 1}},
		NonZero:   Resource{MilliCPU: 1500, Memory: 1224 * mi},
		Ports:     1,
	}
	if diff := cmp.Diff(want, totalsOf(n)); diff != "" {
		t.Fatalf("after NewNodeInfo (-want +got):\n%s", diff)
	}
	genBefore := n.Generation

	// A clone takes a pod and loses one without touching the original.
	c := n.Clone()
	c.AddPod(pod("p3", v1.PodSpec{Containers: []v1.Container{container("a", "cpu", "2")}}))
	if err := c.RemovePod(pod("p1", v1.PodSpec{})); err != nil {
		t.Fatalf("clone RemovePod(p1) = %v, want nil", err)
	}
	if diff := cmp.Diff(want, totalsOf(n)); diff != "" {
		t.Errorf("original changed by clone edits (-want +got):\n%s", diff)
	}
	if n.Generation != genBefore {
		t.Errorf("original Generation = %d after clone edits, want %d", n.Generation, genBefore)
	}
	wantClone := totals{
		Pods: []string{"p3", "p2"}, WithAffinity: []string{"p2"}, WithRequiredAnti: []string{"p2"},
		Requested: Resource{MilliCPU: 2500, ScalarResources: map[v1.ResourceName]int64{"example.com/gpu": 1}},
		NonZero:   Resource{MilliCPU: 2500, Memory: 400 * mi},
	}
	if diff := cmp.Diff(wantClone, totalsOf(c)); diff != "" {
		t.Errorf("clone after AddPod(p3), RemovePod(p1) (-want +got):\n%s", diff)
	}
	if c.Generation != genBefore+2 {
		t.Errorf("clone Generation = %d, want %d (two changes)", c.Generation, genBefore+2)
	}

	// Removal matches by namespace/name, without UIDs.
	if err := n.RemovePod(pod("p2", v1.PodSpec{Affinity: anti})); err != nil {
		t.Fatalf("RemovePod(p2) = %v, want nil", err)
	}
	want = totals{
		Pods:      []string{"p1"},
		Requested: Resource{MilliCPU: 1000, Memory: 1024 * mi, ScalarResources: map[v1.ResourceName]int64{"example.com/gpu": 0}},
		NonZero:   Resource{MilliCPU: 1000, Memory: 1024 * mi},
		Ports:     1,
	}
	if diff := cmp.Diff(want, totalsOf(n)); diff != "" {
		t.Errorf("after RemovePod(p2) (-want +got):\n%s", diff)
	}
	other := pod("p1", v1.PodSpec{})
	other.Namespace = "elsewhere"
	if err := n.RemovePod(other); err == nil {
		t.Errorf("RemovePod(elsewhere/p1) = nil, want an error: no such pod on the node")
	}
}

func TestHostPortInfoCheckConflict(t *testing.T) {
	h := HostPortInfo{}
	h.Add("127.0.0.1", "TCP", 80)
	h.Add("", "", 443) // 0.0.0.0/TCP
	h.Add("10.0.0.1", "UDP", 53)
	tests := []struct {
		name     string
		ip       string
		protocol string
		port     int32
		want     bool
	}{
		{name: "same ip, protocol and port", ip: "127.0.0.1", protocol: "TCP", port: 80, want: true},
		{name: "other ip, same port", ip: "127.0.0.2", protocol: "TCP", port: 80, want: false},
		{name: "wildcard ip conflicts with any ip", ip: "0.0.0.0", protocol: "TCP", port: 80, want: true},
		{name: "any ip conflicts with wildcard holder", ip: "192.168.0.1", protocol: "TCP", port: 443, want: true},
		{name: "other protocol", ip: "10.0.0.1", protocol: "TCP", port: 53, want: false},
		{name: "empty protocol means TCP", ip: "127.0.0.1", protocol: "", port: 80, want: true},
		{name: "port 0 never conflicts", ip: "127.0.0.1", protocol: "TCP", port: 0, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := h.CheckConflict(tc.ip, tc.protocol, tc.port); got != tc.want {
				t.Errorf("CheckConflict(%q, %q, %d) = %v, want %v", tc.ip, tc.protocol, tc.port, got, tc.want)
			}
		})
	}
}

func TestSetImageStates(t *testing.T) {
	mk := func(name string, imgs ...v1.ContainerImage) *NodeInfo {
		return NewNodeInfo(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: v1.NodeStatus{Images: imgs}})
	}
	nodes := []*NodeInfo{
		mk("n1", v1.ContainerImage{Names: []string{"a:1", "a@sha256:1"}, SizeBytes: 100}, v1.ContainerImage{Names: []string{"b:1"}, SizeBytes: 50}),
		mk("n2", v1.ContainerImage{Names: []string{"a:1"}, SizeBytes: 100}),
		mk("n3"),
	}
	SetImageStates(nodes)
	want := []map[string]*ImageStateSummary{
		{"a:1": {Size: 100, NumNodes: 2}, "a@sha256:1": {Size: 100, NumNodes: 1}, "b:1": {Size: 50, NumNodes: 1}},
		{"a:1": {Size: 100, NumNodes: 2}},
		{},
	}
	for i, n := range nodes {
		if diff := cmp.Diff(want[i], n.ImageStates); diff != "" {
			t.Errorf("node %s ImageStates (-want +got):\n%s", n.Node().Name, diff)
		}
	}
}

func TestNewPodInfoTerms(t *testing.T) {
	p := pod("p", v1.PodSpec{Affinity: &v1.Affinity{
		PodAffinity: &v1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, TopologyKey: "zone",
			}},
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{{Weight: 7, PodAffinityTerm: v1.PodAffinityTerm{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "cache"}}, TopologyKey: "zone", Namespaces: []string{"other"},
			}}},
		},
		PodAntiAffinity: &v1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}}, TopologyKey: "zone",
		}}},
	}})
	pi := NewPodInfo(p)
	if pi.ParseError() == nil {
		t.Errorf("ParseError() = nil, want an error for the bogus anti-affinity operator")
	}
	if len(pi.RequiredAntiAffinityTerms) != 0 {
		t.Errorf("RequiredAntiAffinityTerms has %d terms, want 0 after a parse error", len(pi.RequiredAntiAffinityTerms))
	}
	db := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "ns", Labels: map[string]string{"app": "db"}}}
	dbElsewhere := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "other", Labels: map[string]string{"app": "db"}}}
	cache := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "other", Labels: map[string]string{"app": "cache"}}}
	got := []bool{
		pi.RequiredAffinityTerms[0].Matches(db, nil),
		pi.RequiredAffinityTerms[0].Matches(dbElsewhere, nil),
		pi.PreferredAffinityTerms[0].Matches(cache, nil),
	}
	if diff := cmp.Diff([]bool{true, false, true}, got); diff != "" {
		t.Errorf("term matches [own-namespace db, other-namespace db, listed-namespace cache] (-want +got):\n%s", diff)
	}
	if w := pi.PreferredAffinityTerms[0].Weight; w != 7 {
		t.Errorf("preferred term weight = %d, want 7", w)
	}
}
