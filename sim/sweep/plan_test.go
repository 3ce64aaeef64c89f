package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const header = "apiVersion: drasim.io/v1alpha1\nkind: Sweep\nmetadata: {name: test}\n"

func TestNewPlanErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec string
		want []string // each must appear in one of the errors
	}{
		{"no command", "spec: {metrics: [{name: m, path: a}]}", []string{"sweep.yaml (document 1): spec.command: required"}},
		{"unknown command", "spec: {command: explode, metrics: [{name: m, path: a}]}", []string{`sweep.yaml (document 1): spec.command: no drasim command "explode"`}},
		{"missing input", "spec: {command: simulate, inputs: [nope.yaml], metrics: [{name: m, path: a}]}", []string{"sweep.yaml (document 1): spec.inputs[0]: no such file or directory (nope.yaml)"}},
		{"no metrics", "spec: {command: simulate}", []string{"spec.metrics: name at least one metric"}},
		{"bad metric path", "spec: {command: simulate, metrics: [{name: m, path: 'a['}]}", []string{"spec.metrics[0].path: path \"a[\""}},
		{"reserved metric name", "spec: {command: simulate, metrics: [{name: seed, path: a}]}", []string{`spec.metrics[0].name: "seed" is a column`}},
		{"unknown flag", "spec: {command: simulate, flags: {expandr: x}, metrics: [{name: m, path: a}]}", []string{"spec.flags.expandr: drasim simulate has no flag --expandr"}},
		{"seed in flags", "spec: {command: simulate, flags: {seed: 3}, metrics: [{name: m, path: a}]}", []string{"spec.flags.seed: --seed is set by spec.seeds"}},
		{"output file flag", "spec: {command: simulate, flags: {output-snapshot: x.yaml}, metrics: [{name: m, path: a}]}", []string{"writes a file"}},
		{"missing input file flag", "spec: {command: simulate, flags: {scheduler-config: gone.yaml}, metrics: [{name: m, path: a}]}", []string{"spec.flags.scheduler-config: no such file or directory (gone.yaml)"}},
		{"axis with two kinds", "spec: {command: simulate, axes: [{name: a, flag: expander, featureGate: X, values: [x]}], metrics: [{name: m, path: a}]}", []string{`axis "a": spec.axes[0]: set exactly one of flag, featureGate, nodeGroup and replicas (got 2)`}},
		{"duplicate axis value", "spec: {command: simulate, axes: [{name: exp, flag: expander, values: [a, a]}], metrics: [{name: m, path: a}]}", []string{`axis "exp": spec.axes[0].values[1]: "a" is given twice`}},
		{"axis without values", "spec: {command: simulate, axes: [{name: exp, flag: expander}], metrics: [{name: m, path: a}]}", []string{`axis "exp": spec.axes[0].values: required`}},
		{"flag in axis and flags", "spec: {command: simulate, flags: {expander: a}, axes: [{name: exp, flag: expander, values: [b]}], metrics: [{name: m, path: a}]}", []string{`axis "exp": spec.axes[0].flag: --expander is in spec.flags too`}},
		{"gate value", "spec: {command: simulate, axes: [{name: g, featureGate: DRAPrioritizedList, values: [maybe]}], metrics: [{name: m, path: a}]}", []string{`axis "g": spec.axes[0].values[0]: a feature gate is true or false, got "maybe"`}},
		{"gate axis and gates flag axis", "spec: {command: simulate, axes: [{name: g, featureGate: X, values: [true]}, {name: fg, flag: feature-gates, values: [A=true]}], metrics: [{name: m, path: a}]}", []string{`axis "fg": spec.axes[1].flag: featureGate axes set --feature-gates too`}},
		{"node group field", "spec: {command: simulate, axes: [{name: ng, nodeGroup: {name: gpu, field: count}, values: [1]}], metrics: [{name: m, path: a}]}", []string{`axis "ng": spec.axes[0].nodeGroup.field: want size, minSize or maxSize, got "count"`}},
		{"node group size", "spec: {command: simulate, axes: [{name: ng, nodeGroup: {name: gpu}, values: [-1]}], metrics: [{name: m, path: a}]}", []string{`axis "ng": spec.axes[0].values[0]: want a whole number of nodes`}},
		{"replica multiplier", "spec: {command: simulate, axes: [{name: r, replicas: {kind: Pod}, values: [x]}], metrics: [{name: m, path: a}]}", []string{"spec.axes[0].replicas.kind: want Deployment", "spec.axes[0].values[0]: want a multiplier"}},
		{"listed run misses an axis", "spec: {command: simulate, axes: [{name: exp, flag: expander}, {name: g, featureGate: X}], runs: [{exp: price}], metrics: [{name: m, path: a}]}", []string{`axis "g": spec.runs[0]: no value for axis "g"`}},
		{"listed run names no axis", "spec: {command: simulate, axes: [{name: exp, flag: expander}], runs: [{exp: price, other: 1}], metrics: [{name: m, path: a}]}", []string{`spec.runs[0].other: no axis is named "other"`}},
		{"seeds", "spec: {command: simulate, seeds: [1, 1], metrics: [{name: m, path: a}]}", []string{"spec.seeds[1]: seed 1 is given twice"}},
		{"bad name", "metadata: {name: Not_A_Label}\nspec: {command: simulate, metrics: [{name: m, path: a}]}", []string{"metadata.name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := header + tc.spec
			if strings.HasPrefix(tc.spec, "metadata:") {
				body = "apiVersion: drasim.io/v1alpha1\nkind: Sweep\n" + tc.spec
			}
			path := writeSweep(t, body)
			data, _ := os.ReadFile(path)
			sw, err := Parse(path, data)
			if err != nil {
				t.Fatalf("Parse: want no error, got %v", err)
			}
			_, err = NewPlan(path, sw, fakeCommands{})
			if err == nil {
				t.Fatalf("want errors containing %q, got none", tc.want)
			}
			msg := strings.ReplaceAll(err.Error(), path, "sweep.yaml")
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("want an error containing\n  %s\ngot\n  %s", w, strings.ReplaceAll(msg, "\n", "\n  "))
				}
			}
		})
	}
}

func TestPlanRuns(t *testing.T) {
	path := writeSweep(t, header+`spec:
  command: simulate
  inputs: [cluster.yaml]
  flags: {max-loops: 3, feature-gates: {DRAConsumableCapacity: false}}
  seeds: {from: 7, count: 2}
  axes:
  - {name: expander, flag: expander, values: [price, random]}
  - {name: lists, featureGate: DRAPrioritizedList, values: [true, false]}
  - {name: config, flag: scheduler-config, values: [sched-a.yaml]}
  - {name: gpus, nodeGroup: {name: gpu}, values: [0, 2]}
  metrics: [{name: scheduled, path: summary.scheduled}]
`)
	p := mustPlan(t, path)
	dir := filepath.Dir(path)
	if got := len(p.Runs); got != 2*2*1*2*2 {
		t.Fatalf("want 16 runs, got %d", got)
	}
	var points []string
	for _, r := range p.Runs[:4] {
		points = append(points, strings.Join(r.Point, " ")+" seed "+string(rune('0'+r.Seed)))
	}
	if diff := cmp.Diff([]string{"price true sched-a.yaml 0 seed 7", "price true sched-a.yaml 0 seed 8", "price true sched-a.yaml 2 seed 7", "price true sched-a.yaml 2 seed 8"}, points); diff != "" {
		t.Errorf("the first runs: last axis innermost but seeds (-want +got):\n%s", diff)
	}
	wantArgs := []string{"simulate",
		"--expander=price",
		"--feature-gates=DRAConsumableCapacity=false,DRAPrioritizedList=true",
		"--max-loops=3",
		"--parallelism=1",
		"--scheduler-config=" + filepath.Join(dir, "sched-a.yaml"),
		"--seed=7",
		"--output=json",
		"--filename=" + filepath.Join(dir, "cluster.yaml"),
	}
	if diff := cmp.Diff(wantArgs, p.Runs[0].Args); diff != "" {
		t.Errorf("the first run's command line (-want +got):\n%s", diff)
	}
	if p.Runs[0].Variant != "gpus=0" || p.Runs[2].Variant != "gpus=2" {
		t.Errorf("want variants gpus=0 and gpus=2, got %q and %q", p.Runs[0].Variant, p.Runs[2].Variant)
	}
	wantReads := []string{filepath.Join(dir, "cluster.yaml"), filepath.Join(dir, "sched-a.yaml")}
	if diff := cmp.Diff(wantReads, p.Reads); diff != "" {
		t.Errorf("files read (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{1, 4, 7, 10, 13}, p.Shard(1, 3)); diff != "" {
		t.Errorf("shard 1/3: every third run from the second (-want +got):\n%s", diff)
	}
}

func TestPlanListedRuns(t *testing.T) {
	p := mustPlan(t, writeSweep(t, header+`spec:
  command: simulate
  seeds: [0, 1]
  axes:
  - {name: expander, flag: expander, values: [price]}
  - {name: lists, featureGate: DRAPrioritizedList}
  runs:
  - {expander: random, lists: true}
  - {expander: price, lists: false}
  metrics: [{name: scheduled, path: summary.scheduled}]
`))
	var got [][]string
	for _, r := range p.Runs {
		got = append(got, r.Point)
	}
	want := [][]string{{"random", "true"}, {"random", "true"}, {"price", "false"}, {"price", "false"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("listed runs, each per seed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"price", "random"}, p.Axes[0].Values); diff != "" {
		t.Errorf("axis values: listed first, then new ones (-want +got):\n%s", diff)
	}
}

// TestPlanEmptyValueLeavesTheFlagOut: an empty value (null) gives the
// command its default, e.g. a baseline run without a what-if edit.
func TestPlanEmptyValueLeavesTheFlagOut(t *testing.T) {
	p := mustPlan(t, writeSweep(t, header+`spec:
  command: simulate
  axes: [{name: expander, flag: expander, values: [null, price]}]
  metrics: [{name: scheduled, path: summary.scheduled}]
`))
	want := [][]string{
		{"simulate", "--parallelism=1", "--seed=0", "--output=json"},
		{"simulate", "--expander=price", "--parallelism=1", "--seed=0", "--output=json"},
	}
	for i, r := range p.Runs {
		if diff := cmp.Diff(want[i], r.Args); diff != "" {
			t.Errorf("run %d (-want +got):\n%s", i, diff)
		}
	}
	if diff := cmp.Diff([]string{"", "price"}, p.Axes[0].Values); diff != "" {
		t.Errorf("axis values (-want +got):\n%s", diff)
	}
}

// TestFingerprintIgnoresPaths: the same sweep in two directories has one
// fingerprint (a Job's pod reads it from /sweep); a changed input does not.
func TestFingerprintIgnoresPaths(t *testing.T) {
	body := header + "spec: {command: simulate, inputs: [cluster.yaml], metrics: [{name: m, path: a}]}"
	a := mustPlan(t, writeSweep(t, body))
	b := mustPlan(t, writeSweep(t, body))
	if a.Dir == b.Dir || a.Fingerprint != b.Fingerprint {
		t.Errorf("want one fingerprint in two directories, got %s (%s) and %s (%s)", a.Fingerprint, a.Dir, b.Fingerprint, b.Dir)
	}
	path := writeSweep(t, body)
	if err := os.WriteFile(filepath.Join(filepath.Dir(path), "cluster.yaml"), []byte("# changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := mustPlan(t, path); c.Fingerprint == a.Fingerprint {
		t.Errorf("want another fingerprint when an input changes, got %s for both", a.Fingerprint)
	}
}
