package analysis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func readGates(t *testing.T, name string) *Gates {
	t.Helper()
	path := filepath.Join("testdata", "gates", name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	g, err := ParseGates(path, data)
	if err != nil {
		t.Fatalf("ParseGates(%s): want no error, got:\n%v", path, err)
	}
	return g
}

func TestEvaluateGates(t *testing.T) {
	run := replay(t, "frag-basic")
	rep := analyze(t, run, Options{Probes: loadProbes(t, "frag-basic")})
	tests := []struct {
		file string
		want []GateResult
	}{
		{
			file: "frag-basic.pass.yaml",
			want: []GateResult{
				{Name: "nothing pending in default", Type: GateMaxPendingPods, Target: "namespace default", Passed: true, Measured: float(0), Op: "<=", Bound: 0, Message: "namespace default: pending pods = 0, want <= 0"},
				{Name: "at most one huge pod pending", Type: GateMaxPendingPods, Target: "pods app=huge", Passed: true, Measured: float(1), Op: "<=", Bound: 1, Message: "pods app=huge: pending pods = 1, want <= 1"},
				{Name: "room for single-GPU pods", Type: GateMinHeadroom, Target: "shape one-*", Passed: true, Measured: float(3), Op: ">=", Bound: 3, Message: "shape one-*: headroom = 3, want >= 3"},
				{Name: "GPU fragmentation", Type: GateMaxFragmentationRate, Target: "class gpu.example.com", Passed: true, Measured: float(0.6667), Op: "<=", Bound: 0.7, Message: "class gpu.example.com: fragmentation rate = 0.6667, want <= 0.7"},
				{Name: "cluster fragmentation", Type: GateMaxFragmentationRate, Target: "all classes", Passed: true, Measured: float(0.6667), Op: "<=", Bound: 0.7, Message: "all classes: fragmentation rate = 0.6667, want <= 0.7"},
				{Name: "first choices", Type: GateMinFirstChoiceShare, Target: "all workloads", Passed: true, Measured: float(1), Op: ">=", Bound: 1, Message: "all workloads: first-choice share = 1, want >= 1"},
				{Name: "GPU utilization", Type: GateMaxUtilization, Target: "class gpu.example.com devices", Passed: true, Measured: float(0.5), Op: "<=", Bound: 0.5, Message: "class gpu.example.com devices: devices utilization = 0.5, want <= 0.5"},
				{Name: "large nodes' cpu", Type: GateMaxUtilization, Target: "group gpu-large cpu", Passed: true, Measured: float(0.6875), Op: "<=", Bound: 0.7, Message: "group gpu-large cpu: cpu utilization = 0.6875, want <= 0.7"},
			},
		},
		{
			file: "frag-basic.fail.yaml",
			want: []GateResult{
				{Name: "nothing pending", Type: GateMaxPendingPods, Target: "all pods", Passed: false, Measured: float(1), Op: "<=", Bound: 0, Message: "all pods: pending pods = 1, want <= 0"},
				{Name: "room for pairs", Type: GateMinHeadroom, Target: "shape two", Passed: false, Measured: float(0), Op: ">=", Bound: 1, Message: "shape two: headroom = 0, want >= 1"},
				{Name: "GPU fragmentation", Type: GateMaxFragmentationRate, Target: "class gpu.example.com", Passed: false, Measured: float(0.6667), Op: "<=", Bound: 0.25, Message: "class gpu.example.com: fragmentation rate = 0.6667, want <= 0.25"},
				{Name: "GPU utilization", Type: GateMaxUtilization, Target: "driver gpu.example.com devices", Passed: false, Measured: float(0.5), Op: "<=", Bound: 0.4, Message: "driver gpu.example.com devices: devices utilization = 0.5, want <= 0.4"},
				{Name: "pods", Type: GateMaxUtilization, Target: "cluster pods", Passed: true, Measured: float(0.0091), Op: "<=", Bound: 0.5, Message: "cluster pods: pods utilization = 0.0091, want <= 0.5"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			got, err := EvaluateGates(readGates(t, tc.file), rep, run)
			if err != nil {
				t.Fatalf("EvaluateGates: want no error, got: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("gate results (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseGatesErrors(t *testing.T) {
	const header = "apiVersion: drasim.io/v1alpha1\nkind: Gates\n"
	tests := []struct {
		name string
		data string
		want []string // substrings of the error, each on its own line
	}{
		{
			name: "not YAML",
			data: "gates: [",
			want: []string{"g.yaml:1: not valid YAML: did not find expected node content"},
		},
		{
			name: "unknown field is an error, not a gate switched off; the missing bound too",
			data: header + "gates:\n- name: a\n  maxPendingPods: {maximum: 0}\n",
			want: []string{`g.yaml:5: gate "a" (gates[0]): maxPendingPods: unknown field "maximum"; the fields are max, namespace, selector`, `g.yaml:5: gate "a" (gates[0]): maxPendingPods.max: required`},
		},
		{
			name: "wrong kind and no gates",
			data: "apiVersion: drasim.io/v1alpha1\nkind: Gate\n",
			want: []string{`g.yaml:2: kind: want "Gates", got "Gate"`, "g.yaml:1: gates: no gates: a gates file needs at least one"},
		},
		{
			name: "missing bound, two assertions, duplicate name",
			data: header + "gates:\n- name: a\n  maxPendingPods: {}\n- name: a\n  minHeadroom: {shape: x, min: 1}\n  maxFragmentationRate: {max: 0.1}\n",
			want: []string{
				`g.yaml:5: gate "a" (gates[0]): maxPendingPods.max: required`,
				`g.yaml:6: gate "a" (gates[1]): name: duplicate name, also gates[0]`,
				`g.yaml:6: gate "a" (gates[1]): want exactly one of maxPendingPods, minHeadroom, maxFragmentationRate, minFirstChoiceShare, maxUtilization, domainLoss, maxPreemptedPods, maxPendingPodGroups, maxWait, maxCost, maxNeverPlaced, got 2`,
			},
		},
		{
			name: "negative counts",
			data: header + "gates:\n- name: a\n  maxPreemptedPods: {max: -1}\n- name: b\n  minHeadroom: {shape: x, min: -2}\n- name: c\n  maxNeverPlaced: {}\n",
			want: []string{
				`g.yaml:5: gate "a" (gates[0]): maxPreemptedPods.max: must not be negative, got -1`,
				`g.yaml:7: gate "b" (gates[1]): minHeadroom.min: must not be negative, got -2`,
				`g.yaml:9: gate "c" (gates[2]): maxNeverPlaced.max: required`,
			},
		},
		{
			name: "shares outside [0, 1], unknown resource, two targets",
			data: header + "gates:\n- name: frag\n  maxFragmentationRate: {max: 25}\n- name: util\n  maxUtilization: {class: a, group: b, resource: gpus, max: 0.9}\n- minFirstChoiceShare: {min: -1}\n",
			want: []string{
				`g.yaml:5: gate "frag" (gates[0]): maxFragmentationRate.max: must be a share between 0 and 1, got 25`,
				`g.yaml:7: gate "util" (gates[1]): maxUtilization: set at most one of class, driver and group`,
				`g.yaml:7: gate "util" (gates[1]): maxUtilization.resource: "gpus" is not one of devices, cpu, memory, pods`,
				`g.yaml:8: gates[2]: name: every gate needs a name`,
				`g.yaml:8: gates[2]: minFirstChoiceShare.min: must be a share between 0 and 1, got -1`,
			},
		},
		{
			name: "bad selector",
			data: header + "gates:\n- name: sel\n  maxPendingPods: {max: 0, selector: {matchExpressions: [{key: app, operator: Near}]}}\n",
			want: []string{`g.yaml:5: gate "sel" (gates[0]): maxPendingPods.selector: "Near" is not a valid label selector operator`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseGates("g.yaml", []byte(tc.data))
			if err == nil {
				t.Fatalf("ParseGates: want an error containing %q, got none", tc.want)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tc.want) {
				t.Fatalf("ParseGates: want %d error(s), got %d:\n%v", len(tc.want), len(lines), err)
			}
			for i, w := range tc.want {
				if !strings.Contains(lines[i], w) {
					t.Errorf("error %d: want it to contain %q, got %q", i, w, lines[i])
				}
			}
		})
	}
}

func TestEvaluateGatesUnknownTargets(t *testing.T) {
	run := replay(t, "frag-basic")
	rep := analyze(t, run, Options{Probes: loadProbes(t, "frag-basic")})
	const header = "apiVersion: drasim.io/v1alpha1\nkind: Gates\n"
	g, err := ParseGates("g.yaml", []byte(header+`gates:
- name: shape
  minHeadroom: {shape: nope, min: 1}
- name: class
  maxFragmentationRate: {class: nope, max: 0.5}
- name: group
  maxUtilization: {group: nope, max: 0.5}
- name: workload
  minFirstChoiceShare: {workload: nope, min: 0.5}
`))
	if err != nil {
		t.Fatalf("ParseGates: want no error, got: %v", err)
	}
	_, err = EvaluateGates(g, rep, run)
	want := strings.Join([]string{
		`g.yaml: gate "shape" (gates[0]): minHeadroom.shape: no shape "nope" in the mix; shapes: cpu, one-*, two`,
		`g.yaml: gate "class" (gates[1]): maxFragmentationRate.class: no DeviceClass "nope" in the snapshot`,
		`g.yaml: gate "group" (gates[2]): maxUtilization.group: no group "nope" in the report`,
		`g.yaml: gate "workload" (gates[3]): minFirstChoiceShare.workload: workload "nope" has no prioritized-list requests`,
	}, "\n")
	if err == nil || err.Error() != want {
		t.Errorf("EvaluateGates error: want\n%s\ngot\n%v", want, err)
	}
}
