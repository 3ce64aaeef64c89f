package validate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/snapshot"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestMetadataAndClasses(t *testing.T) {
	runCases(t, []validateCase{
		{
			name: "object names and namespaces",
			yaml: docs(cluster,
				"apiVersion: v1\nkind: Pod\nmetadata: {name: Bad_Name, namespace: Team_A}\nspec:\n"+container,
				"apiVersion: v1\nkind: Namespace\nmetadata: {name: a.b}",
				"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: UPPER}\nspec: {}"),
			want: []triple{
				{CodeInvalidName, `Pod "Team_A/Bad_Name"`, "metadata.name"},
				{CodeInvalidName, `Pod "Team_A/Bad_Name"`, "metadata.namespace"},
				{CodeInvalidName, `Namespace "a.b"`, "metadata.name"},
				{CodeInvalidName, `DeviceClass "UPPER"`, "metadata.name"},
			},
		},
		{
			name: "class config and extended resource name",
			yaml: docs(cluster, `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: c}
spec:
  extendedResourceName: gpu
  config:
  - opaque: {driver: gpu.example.com, parameters: {a: 1}}
  - opaque: {parameters: {a: 1}}
  - {}`, `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: d}
spec: {extendedResourceName: example.com/gpu}`),
			want: []triple{
				{CodeRequired, classC, "spec.config[1].opaque.driver"},
				{CodeRequired, classC, "spec.config[2].opaque"},
				{CodeInvalidName, classC, "spec.extendedResourceName"},
			},
		},
	})
}

// taintRule is DeviceTaintRule "r" with the given spec lines.
func taintRule(spec string) string {
	return "apiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata: {name: r}\nspec:\n" + spec
}

func TestDeviceTaintRules(t *testing.T) {
	runCases(t, []validateCase{
		{
			name: "rule selecting a device of the snapshot",
			yaml: docs(cluster, taintRule("  deviceSelector: {driver: gpu.example.com, pool: node-a, device: gpu-1}\n  taint: {key: example.com/broken, effect: NoSchedule}\n")),
		},
		{
			name: "rule selecting nothing",
			yaml: docs(cluster, taintRule("  deviceSelector: {driver: gpu.example.com, device: gpu-9}\n  taint: {key: example.com/broken, effect: NoSchedule}\n")),
			want: []triple{{CodeTaintRuleMatchesNothing, `DeviceTaintRule "r"`, "spec.deviceSelector"}},
		},
		{
			name: "taint without key, with an unknown effect, bad selector names",
			yaml: docs(cluster, taintRule("  deviceSelector: {driver: Bad_Driver, device: Bad_Device}\n  taint: {effect: NoWay}\n")),
			want: []triple{
				{CodeInvalidName, `DeviceTaintRule "r"`, "spec.deviceSelector.device"},
				{CodeInvalidName, `DeviceTaintRule "r"`, "spec.deviceSelector.driver"},
				{CodeInvalidValue, `DeviceTaintRule "r"`, "spec.taint.effect"},
				{CodeRequired, `DeviceTaintRule "r"`, "spec.taint.key"},
			},
		},
	})
}

func TestDiagnosticString(t *testing.T) {
	tests := []struct {
		name string
		d    Diagnostic
		want string
	}{
		{
			name: "all parts",
			d: Diagnostic{Source: snapshot.Source{File: "a.yaml", Doc: 2, Item: -1, Line: 12}, Object: `ResourceSlice "s"`,
				Field: "spec.devices[2].attributes", Message: "bad"},
			want: `a.yaml:12 (document 3): ResourceSlice "s": spec.devices[2].attributes: bad`,
		},
		{
			name: "no source, no field",
			d:    Diagnostic{Object: `DeviceClass "c"`, Message: "bad"},
			want: `DeviceClass "c": bad`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.d.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestOrderAndDeterminism(t *testing.T) {
	yaml := docs(cluster,
		claimYAML("    requests: [{name: B, exactly: {deviceClassName: nope, count: -1}}]\n"),
		sliceYAML("s", "  pool: {name: p, resourceSliceCount: 3}\n  devices: [{name: Z, attributes: {x: {}, y: {}}}]\n"))
	first := Validate(loadSnapshot(t, yaml), Options{})
	for i := range 5 {
		again := Validate(loadSnapshot(t, yaml), Options{})
		if diff := cmp.Diff(first, again); diff != "" {
			t.Fatalf("run %d differs from the first (-first +again):\n%s", i+2, diff)
		}
	}
	for i := 1; i < len(first); i++ {
		if compareDiagnostics(first[i-1], first[i]) > 0 {
			t.Errorf("diagnostics %d and %d are out of order:\n  %s\n  %s", i-1, i, first[i-1], first[i])
		}
	}
	if len(first) < 6 {
		t.Errorf("want at least 6 diagnostics to make the order meaningful, got:\n%s", render(first))
	}
}

// TestNoPanicOnEmptyObjects builds snapshots directly, with every optional
// part missing, as no loader would produce them.
func TestNoPanicOnEmptyObjects(t *testing.T) {
	empty := snapshot.New()
	s := snapshot.New()
	s.Namespaces = append(s.Namespaces, nil, &v1.Namespace{})
	s.Nodes = append(s.Nodes, nil, &v1.Node{})
	s.Deployments = append(s.Deployments, nil, &appsv1.Deployment{})
	s.ReplicaSets = append(s.ReplicaSets, nil, &appsv1.ReplicaSet{})
	s.StatefulSets = append(s.StatefulSets, nil, &appsv1.StatefulSet{})
	s.DaemonSets = append(s.DaemonSets, nil, &appsv1.DaemonSet{})
	s.Jobs = append(s.Jobs, nil, &batchv1.Job{})
	s.NodeGroups = append(s.NodeGroups, nil, &snapshot.NodeGroup{Spec: snapshot.NodeGroupSpec{Template: &snapshot.NodeTemplate{ResourceSlices: []resourceapi.ResourceSlice{{}}}}})
	s.Pods = append(s.Pods, nil, &v1.Pod{}, &v1.Pod{Spec: v1.PodSpec{
		ResourceClaims: []v1.PodResourceClaim{{}},
		Containers:     []v1.Container{{Resources: v1.ResourceRequirements{Claims: []v1.ResourceClaim{{}}}}},
	}, Status: v1.PodStatus{ResourceClaimStatuses: []v1.PodResourceClaimStatus{{}}}})
	s.DeviceClasses = append(s.DeviceClasses, nil, &resourceapi.DeviceClass{},
		&resourceapi.DeviceClass{Spec: resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{{}, {CEL: &resourceapi.CELDeviceSelector{}}}, Config: []resourceapi.DeviceClassConfiguration{{}}}})
	s.ResourceSlices = append(s.ResourceSlices, nil, &resourceapi.ResourceSlice{},
		&resourceapi.ResourceSlice{Spec: resourceapi.ResourceSliceSpec{Driver: "d.example.com", Pool: resourceapi.ResourcePool{Name: "p"},
			Devices:        []resourceapi.Device{{}, {Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"": {}}, ConsumesCounters: []resourceapi.DeviceCounterConsumption{{}}}},
			SharedCounters: []resourceapi.CounterSet{{}}}})
	s.ResourceClaims = append(s.ResourceClaims, nil, &resourceapi.ResourceClaim{}, &resourceapi.ResourceClaim{
		Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests:    []resourceapi.DeviceRequest{{}, {Exactly: &resourceapi.ExactDeviceRequest{Selectors: []resourceapi.DeviceSelector{{}}}}, {FirstAvailable: []resourceapi.DeviceSubRequest{{}}}},
			Constraints: []resourceapi.DeviceConstraint{{Requests: []string{""}}},
			Config:      []resourceapi.DeviceClaimConfiguration{{}},
		}},
		Status: resourceapi.ResourceClaimStatus{
			Allocation:  &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{}}, Config: []resourceapi.DeviceAllocationConfiguration{{}}}},
			ReservedFor: []resourceapi.ResourceClaimConsumerReference{{}},
		},
	})
	s.ResourceClaimTemplates = append(s.ResourceClaimTemplates, nil, &resourceapi.ResourceClaimTemplate{})
	s.DeviceTaintRules = append(s.DeviceTaintRules, nil, &resourceapi.DeviceTaintRule{},
		&resourceapi.DeviceTaintRule{ObjectMeta: metav1.ObjectMeta{Name: "r"}, Spec: resourceapi.DeviceTaintRuleSpec{DeviceSelector: &resourceapi.DeviceTaintSelector{}}})
	s.Sources = nil
	s.Generated = nil

	for _, tc := range []struct {
		name string
		s    *snapshot.Snapshot
	}{{"nil snapshot", nil}, {"empty snapshot", empty}, {"empty objects", s}} {
		t.Run(tc.name, func(t *testing.T) {
			ds := Validate(tc.s, Options{})
			if tc.s == s && !HasErrors(ds) {
				t.Errorf("want errors for objects without required fields, got:\n%s", render(ds))
			}
			if tc.s == empty && (len(ds) != 1 || ds[0].Code != CodeNothingToSimulate) {
				t.Errorf("want only %s, got:\n%s", CodeNothingToSimulate, render(ds))
			}
			if tc.s == nil && len(ds) != 0 {
				t.Errorf("want no diagnostics, got:\n%s", render(ds))
			}
			if rejected := Rejected(tc.s); HasErrors(ds) != (len(rejected) > 0) {
				t.Errorf("Rejected: want errors exactly when Validate has some, got:\n%s", render(rejected))
			}
		})
	}
}

// TestCodesDocumented keeps docs/validation.md in step with the codes.
func TestCodesDocumented(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "validation.md"))
	if err != nil {
		t.Skipf("docs/validation.md not readable: %v", err)
	}
	for _, c := range Codes() {
		if !strings.Contains(string(data), "| `"+c+"` |") {
			t.Errorf("code %s has no row in docs/validation.md", c)
		}
	}
	if n := len(Codes()); n != len(fixedSeverity)+4 {
		// Four codes have a severity that depends on the case:
		// InvalidName, InvalidValue, OneOf and MissingPriorityClass.
		t.Errorf("Codes() has %d codes, fixedSeverity covers %d: a new code needs a severity in fixedSeverity", n, len(fixedSeverity))
	}
}

func TestRejectedKeepsWhatTheAPIServerRejects(t *testing.T) {
	s := loadSnapshot(t, docs(nodeA, gpuClass, gpuSlice,
		// The allocator refuses this pool (a device published twice), the
		// API server accepts both slices: not rejected.
		`apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-a-gpu-again}
spec:
  driver: gpu.example.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}]`,
		// Rejected: a count below one.
		`apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: t}
spec: {spec: {devices: {requests: [{name: g, exactly: {deviceClassName: gpu, count: -3}}]}}}`,
		// Rejected by admission: a PriorityClass that does not exist.
		podYAML(container+"  priorityClassName: high\n"),
		// A warning only: the class is not in the snapshot.
		`apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec: {devices: {requests: [{name: g, exactly: {deviceClassName: no-such-class}}]}}`))
	var got []triple
	for _, d := range Rejected(s) {
		got = append(got, triple{d.Code, d.Object, d.Field})
		if d.Severity != SeverityError {
			t.Errorf("Rejected returned a %s: %s", d.Severity, d)
		}
	}
	want := []triple{
		{CodeInvalidValue, `ResourceClaimTemplate "default/t"`, "spec.spec.devices.requests[0].exactly.count"},
		{CodeMissingPriorityClass, podP, "spec.priorityClassName"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Rejected (-want +got):\n%s\nValidate says:\n%s", diff, render(Validate(s, Options{})))
	}
}

// docs/validation.md lists the codes every command refuses: exactly those
// rejectedByAPI keeps.
func TestRejectedCodesDocumented(t *testing.T) {
	data, err := os.ReadFile("../../docs/validation.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, found := strings.Cut(string(data), "Rejected by every command:")
	if !found {
		t.Fatal(`docs/validation.md has no "Rejected by every command:" paragraph`)
	}
	para, _, _ := strings.Cut(after, "\n\n")
	var documented []Code
	for _, part := range strings.Split(para, "`") {
		if slices.Contains(Codes(), part) {
			documented = append(documented, part)
		}
	}
	var want []Code
	for _, c := range Codes() {
		if rejectedByAPI(c) {
			want = append(want, c)
		}
	}
	if diff := cmp.Diff(want, documented); diff != "" {
		t.Errorf("codes every command rejects: docs (+) and rejectedByAPI (-) differ:\n%s", diff)
	}
}
