package generate

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/validate"
	"github.com/google/go-cmp/cmp"
	resourceapi "k8s.io/api/resource/v1"
)

func mustGenerate(t *testing.T, opts Options) []byte {
	t.Helper()
	s, err := Generate(opts)
	if err != nil {
		t.Fatalf("Generate(%+v): want no error, got %v", opts, err)
	}
	var buf bytes.Buffer
	if err := WriteYAML(&buf, s); err != nil {
		t.Fatalf("WriteYAML: want no error, got %v", err)
	}
	return buf.Bytes()
}

func TestGenerateIsDeterministic(t *testing.T) {
	opts := Options{Seed: 42, Nodes: 12, Pods: 80}
	a, b := mustGenerate(t, opts), mustGenerate(t, opts)
	if !bytes.Equal(a, b) {
		t.Fatalf("same options, want byte-identical YAML, got a diff (-first +second):\n%s", cmp.Diff(string(a), string(b)))
	}
	opts.Seed = 43
	if c := mustGenerate(t, opts); bytes.Equal(a, c) {
		t.Errorf("seeds 42 and 43: want different YAML, got identical output (%d bytes)", len(a))
	}
}

// TestGenerateIgnoresMapOrder passes weights through maps built in
// different insertion orders; Go randomizes map iteration, so a generator
// that ranged over them would differ between runs.
func TestGenerateIgnoresMapOrder(t *testing.T) {
	want := mustGenerate(t, Options{Seed: 7, Nodes: 10, Pods: 30})
	for i := range 8 {
		p, w := map[string]int{}, map[string]int{}
		for j := range 4 {
			name := Profiles()[(j+i)%4]
			p[name] = DefaultProfiles()[name]
			name = Workloads()[(j+i)%4]
			w[name] = DefaultWorkloads()[name]
		}
		if got := mustGenerate(t, Options{Seed: 7, Nodes: 10, Pods: 30, Profiles: p, Workloads: w}); !bytes.Equal(want, got) {
			t.Fatalf("run %d: want the same YAML as with default weights, got a diff:\n%s", i, cmp.Diff(string(want), string(got)))
		}
	}
}

func TestRoundTripThroughLoad(t *testing.T) {
	gen, err := Generate(Options{Seed: 3, Nodes: 12, Pods: 60})
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	var first bytes.Buffer
	if err := WriteYAML(&first, gen); err != nil {
		t.Fatalf("WriteYAML: %v", err)
	}
	res, err := load.LoadBytes("generated.yaml", first.Bytes(), load.Options{Strict: true})
	if err != nil {
		t.Fatalf("load.LoadBytes in strict mode: want no error, got:\n%v", err)
	}
	if len(res.Warnings) > 0 {
		t.Errorf("load warnings: want none, got %v", res.Warnings)
	}
	loaded := res.Snapshot
	counts := func(name string, gen, got int) {
		if gen != got {
			t.Errorf("%s: generated %d, loaded %d", name, gen, got)
		}
	}
	counts("namespaces", len(gen.Namespaces), len(loaded.Namespaces))
	counts("device classes", len(gen.DeviceClasses), len(loaded.DeviceClasses))
	counts("nodes", len(gen.Nodes), len(loaded.Nodes))
	counts("resource slices", len(gen.ResourceSlices), len(loaded.ResourceSlices))
	counts("claim templates", len(gen.ResourceClaimTemplates), len(loaded.ResourceClaimTemplates))
	counts("pods", len(gen.Pods), len(loaded.Pods))

	// The loader applies API defaults; Generate writes them already, so
	// the objects must come back as they went in.
	for i := range gen.Pods {
		if diff := cmp.Diff(gen.Pods[i], loaded.Pods[i], quantityEqual); diff != "" {
			t.Fatalf("pod %d after the round trip (-generated +loaded):\n%s", i, diff)
		}
	}
	for i := range gen.ResourceSlices {
		if diff := cmp.Diff(gen.ResourceSlices[i], loaded.ResourceSlices[i], quantityEqual); diff != "" {
			t.Fatalf("slice %d after the round trip (-generated +loaded):\n%s", i, diff)
		}
	}
	for i := range gen.Nodes {
		if diff := cmp.Diff(gen.Nodes[i], loaded.Nodes[i], quantityEqual); diff != "" {
			t.Fatalf("node %d after the round trip (-generated +loaded):\n%s", i, diff)
		}
	}
	if diff := cmp.Diff(gen.ResourceClaimTemplates, loaded.ResourceClaimTemplates, quantityEqual); diff != "" {
		t.Errorf("claim templates after the round trip (-generated +loaded):\n%s", diff)
	}
	if diff := cmp.Diff(gen.DeviceClasses, loaded.DeviceClasses, quantityEqual); diff != "" {
		t.Errorf("device classes after the round trip (-generated +loaded):\n%s", diff)
	}

	var second bytes.Buffer
	if err := WriteYAML(&second, loaded); err != nil {
		t.Fatalf("WriteYAML of the loaded snapshot: %v", err)
	}
	if !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Errorf("writing the loaded snapshot again: want the same bytes, got (-first +second):\n%s", cmp.Diff(first.String(), second.String()))
	}
}

func TestGeneratedSnapshotIsValid(t *testing.T) {
	s, err := Generate(Options{Seed: 1, Nodes: 12, Pods: 40})
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	if ds := validate.Validate(s, validate.Options{}); len(ds) > 0 {
		t.Errorf("validate: want no diagnostics, got %d:\n%v", len(ds), ds)
	}
}

// TestGeneratedSnapshotSchedules replays a default cluster with room for
// every pod: each workload must place, with the devices it asked for and no
// device given twice. (Fuller clusters leave training pods pending: inference
// pods take an H100 on every DGX first, as the prioritized list asks.)
func TestGeneratedSnapshotSchedules(t *testing.T) {
	const pods = 30
	s, err := Generate(Options{Seed: 5, Nodes: 60, Pods: pods})
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	run, err := sim.Simulate(context.Background(), s, sim.Options{Seed: 5})
	if err != nil {
		t.Fatalf("Simulate: %v", err)
	}
	r := run.Result
	if r.Summary.Scheduled != pods || r.Summary.Unschedulable != 0 {
		t.Fatalf("summary: want %d scheduled and 0 unschedulable, got %+v", pods, r.Summary)
	}
	byTemplate := map[string]int{}
	wantDevices := map[string][]int{ // namespace -> allowed device counts
		"inference": {1}, "training": {4, 8}, "notebooks": {1}, "batch": {0},
	}
	seen := map[string]string{}
	for _, p := range r.Pods {
		n := 0
		for _, c := range p.Claims {
			byTemplate[c.Template]++
			for _, d := range c.Devices {
				n++
				id := d.Driver + "/" + d.Pool + "/" + d.Device
				if prev, dup := seen[id]; dup {
					t.Errorf("device %s: allocated to %s and to %s", id, prev, p.Key())
				}
				seen[id] = p.Key()
			}
		}
		if !containsInt(wantDevices[p.Namespace], n) {
			t.Errorf("pod %s: want %v devices, got %d", p.Key(), wantDevices[p.Namespace], n)
		}
	}
	for _, tmpl := range []string{TemplateInference, TemplateTraining4, TemplateTraining8, TemplateMIG1g, TemplateMIG2g} {
		if byTemplate[tmpl] == 0 {
			t.Errorf("template %s: want at least one scheduled pod using it, got none (by template: %v)", tmpl, byTemplate)
		}
	}
}

func containsInt(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func TestWeightsAreApportionedExactly(t *testing.T) {
	tests := []struct {
		name          string
		opts          Options
		wantProfiles  map[string]int
		wantWorkloads map[string]int
	}{
		{
			name:          "defaults",
			opts:          Options{Nodes: 10, Pods: 10},
			wantProfiles:  map[string]int{ProfileDGXH100: 2, ProfileA100MIG: 2, ProfileL4: 3, ProfileCPU: 3},
			wantWorkloads: map[string]int{WorkloadInference: 5, WorkloadTraining: 1, WorkloadMIG: 2, WorkloadCPU: 2},
		},
		{
			name:          "defaults scaled",
			opts:          Options{Nodes: 1000, Pods: 2000},
			wantProfiles:  map[string]int{ProfileDGXH100: 200, ProfileA100MIG: 200, ProfileL4: 300, ProfileCPU: 300},
			wantWorkloads: map[string]int{WorkloadInference: 1000, WorkloadTraining: 200, WorkloadMIG: 400, WorkloadCPU: 400},
		},
		{
			name: "remainder goes to the first name on a tie",
			opts: Options{Nodes: 7, Pods: 3,
				Profiles:  map[string]int{ProfileL4: 1, ProfileDGXH100: 1},
				Workloads: map[string]int{WorkloadCPU: 1, WorkloadMIG: 1}},
			wantProfiles:  map[string]int{ProfileDGXH100: 4, ProfileL4: 3},
			wantWorkloads: map[string]int{WorkloadCPU: 2, WorkloadMIG: 1},
		},
		{
			name: "zero weight leaves a kind out",
			opts: Options{Nodes: 9, Pods: 5,
				Profiles:  map[string]int{ProfileDGXH100: 2, ProfileCPU: 1, ProfileL4: 0},
				Workloads: map[string]int{WorkloadTraining: 1, WorkloadInference: 0}},
			wantProfiles:  map[string]int{ProfileDGXH100: 6, ProfileCPU: 3},
			wantWorkloads: map[string]int{WorkloadTraining: 5},
		},
		{
			name: "largest remainder",
			opts: Options{Nodes: 5, Pods: 0,
				Profiles: map[string]int{ProfileDGXH100: 1, ProfileCPU: 2, ProfileL4: 3}},
			// 5/6, 10/6, 15/6: floors 0,1,2; remainders 5,4,3 -> dgx, cpu
			wantProfiles:  map[string]int{ProfileDGXH100: 1, ProfileCPU: 2, ProfileL4: 2},
			wantWorkloads: map[string]int{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Generate(tt.opts)
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			gotProfiles := map[string]int{}
			for _, n := range s.Nodes {
				gotProfiles[n.Labels["drasim.io/profile"]]++
			}
			gotWorkloads := map[string]int{}
			for _, p := range s.Pods {
				gotWorkloads[p.Labels["app.kubernetes.io/name"]]++
			}
			if diff := cmp.Diff(tt.wantProfiles, gotProfiles); diff != "" {
				t.Errorf("nodes per profile (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantWorkloads, gotWorkloads); diff != "" {
				t.Errorf("pods per workload (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNodesSpreadOverZones(t *testing.T) {
	s, err := Generate(Options{Nodes: 30, Pods: 0, Profiles: map[string]int{ProfileDGXH100: 1, ProfileL4: 1}})
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	got := map[string]int{}
	for _, n := range s.Nodes {
		got[n.Labels["drasim.io/profile"]+" "+n.Labels["topology.kubernetes.io/zone"]]++
	}
	want := map[string]int{}
	for _, p := range []string{ProfileDGXH100, ProfileL4} {
		for _, z := range zones {
			want[p+" "+z] = 5
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("nodes per profile and zone (-want +got):\n%s", diff)
	}
}

func TestDevicesPerProfile(t *testing.T) {
	s, err := Generate(Options{Nodes: 4, Pods: 0, Profiles: map[string]int{ProfileDGXH100: 1, ProfileA100MIG: 1, ProfileL4: 1, ProfileCPU: 1}})
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	type pool struct{ Slices, Devices, CounterSets int }
	got := map[string]pool{}
	for _, sl := range s.ResourceSlices {
		p := got[sl.Spec.Pool.Name]
		p.Slices++
		p.Devices += len(sl.Spec.Devices)
		p.CounterSets += len(sl.Spec.SharedCounters)
		got[sl.Spec.Pool.Name] = p
		if int64(0) == sl.Spec.Pool.ResourceSliceCount {
			t.Errorf("slice %s: resourceSliceCount is 0", sl.Name)
		}
	}
	want := map[string]pool{
		"dgx-h100-000": {Slices: 1, Devices: 8},
		"a100-mig-000": {Slices: 3, Devices: 8 * 13, CounterSets: 8},
		"l4-000":       {Slices: 1, Devices: 4},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pools (-want +got):\n%s", diff)
	}
}

func TestInvalidOptions(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"no nodes", Options{Nodes: 0, Pods: 1}, "nodes: 0 is out of range 1..100000"},
		{"too many nodes", Options{Nodes: MaxNodes + 1}, fmt.Sprintf("nodes: %d is out of range 1..100000", MaxNodes+1)},
		{"negative pods", Options{Nodes: 1, Pods: -1}, "pods: -1 is out of range 0..1000000"},
		{"unknown profile", Options{Nodes: 1, Profiles: map[string]int{"tpu": 1}}, `profiles: unknown name "tpu"; known: a100-mig, cpu, dgx-h100, l4`},
		{"unknown workload", Options{Nodes: 1, Workloads: map[string]int{"cpu": 1, "web": 2}}, `workloads: unknown name "web"; known: cpu, inference, mig, training`},
		{"negative weight", Options{Nodes: 1, Profiles: map[string]int{"l4": -1, "cpu": 2}}, "profiles: weight of l4 is -1, must not be negative"},
		{"all zero", Options{Nodes: 1, Workloads: map[string]int{"cpu": 0}}, "workloads: all weights are zero"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Generate(tt.opts)
			if err == nil {
				t.Fatalf("want error %q, got a snapshot with %d nodes", tt.want, len(s.Nodes))
			}
			if err.Error() != tt.want {
				t.Errorf("error: want %q, got %q", tt.want, err.Error())
			}
		})
	}
}

func TestParseWeights(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    map[string]int
		wantErr string
	}{
		{name: "empty", in: "", want: map[string]int{}},
		{name: "two", in: "dgx-h100=2, l4 = 3", want: map[string]int{"dgx-h100": 2, "l4": 3}},
		{name: "trailing comma", in: "cpu=1,", want: map[string]int{"cpu": 1}},
		{name: "no equals", in: "cpu", wantErr: `"cpu": want name=weight`},
		{name: "no name", in: "=2", wantErr: `"=2": want name=weight`},
		{name: "not a number", in: "cpu=x", wantErr: `cpu: weight "x" is not an integer`},
		{name: "duplicate", in: "cpu=1,cpu=2", wantErr: "cpu: given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseWeights(tt.in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("want error %q, got %v (result %v)", tt.wantErr, err, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("want no error, got %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestSlicesShareDeviceLists guards the memory of large snapshots: nodes of
// one profile publish the same devices, so their slices share one device
// list (and A100 nodes one list of counter sets) instead of a copy each,
// and a shared list has no spare capacity an append could write into.
func TestSlicesShareDeviceLists(t *testing.T) {
	s, err := Generate(Options{Nodes: 6, Pods: 0, Profiles: map[string]int{ProfileDGXH100: 1, ProfileA100MIG: 1, ProfileL4: 1}})
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	first := map[string]*resourceapi.ResourceSlice{} // by profile and slice name without the node
	for _, sl := range s.ResourceSlices {
		node := *sl.Spec.NodeName
		key := strings.TrimRight(node, "0123456789") + strings.TrimPrefix(sl.Name, node)
		if d := sl.Spec.Devices; cap(d) != len(d) {
			t.Errorf("slice %s: %d devices with capacity %d, want no spare capacity", sl.Name, len(d), cap(d))
		}
		f, seen := first[key]
		if !seen {
			first[key] = sl
			continue
		}
		if len(sl.Spec.Devices) > 0 && &sl.Spec.Devices[0] != &f.Spec.Devices[0] {
			t.Errorf("slices %s and %s: want one shared device list, got two copies", f.Name, sl.Name)
		}
		if len(sl.Spec.SharedCounters) > 0 && &sl.Spec.SharedCounters[0] != &f.Spec.SharedCounters[0] {
			t.Errorf("slices %s and %s: want one shared list of counter sets, got two copies", f.Name, sl.Name)
		}
	}
	if len(first) != 5 { // dgx and l4: -gpus; a100: -counters, -gpus-0, -gpus-1
		t.Errorf("want 5 kinds of slices, got %d: %v", len(first), first)
	}
}

// TestNodesAndPodsShareParts: nodes of one profile share their capacity
// and allocatable lists, pods of one shape their containers.
func TestNodesAndPodsShareParts(t *testing.T) {
	s, err := Generate(Options{Nodes: 6, Pods: 40, Profiles: map[string]int{ProfileDGXH100: 1}, Workloads: map[string]int{WorkloadInference: 1}})
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	n0, n1 := s.Nodes[0], s.Nodes[1]
	if reflect.ValueOf(n0.Status.Capacity).UnsafePointer() != reflect.ValueOf(n1.Status.Capacity).UnsafePointer() ||
		reflect.ValueOf(n0.Status.Allocatable).UnsafePointer() != reflect.ValueOf(n1.Status.Allocatable).UnsafePointer() {
		t.Errorf("nodes %s and %s: want shared capacity and allocatable, got copies", n0.Name, n1.Name)
	}
	p0, p1 := s.Pods[0], s.Pods[1]
	if &p0.Spec.Containers[0] != &p1.Spec.Containers[0] {
		t.Errorf("pods %s and %s: want one shared container list, got two", p0.Name, p1.Name)
	}
	if c := p0.Spec.Containers; cap(c) != len(c) {
		t.Errorf("pod %s: %d containers with capacity %d, want no spare capacity", p0.Name, len(c), cap(c))
	}
}
