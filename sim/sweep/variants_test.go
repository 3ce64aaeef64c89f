package sweep

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/load"
	"github.com/google/go-cmp/cmp"
)

func TestVariants(t *testing.T) {
	p := mustPlan(t, writeSweep(t, header+`spec:
  command: simulate
  inputs: [cluster.yaml]
  axes:
  - {name: load, replicas: {kind: Deployment, selector: {matchLabels: {app: infer}}}, values: [0.5, 1, 2.5]}
  - {name: gpus, nodeGroup: {name: gpu}, values: [0, 3]}
  - {name: max, nodeGroup: {name: gpu, field: maxSize}, values: [6]}
  metrics: [{name: pods, path: Pods}]
`))
	in, err := p.LoadInputs(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckInputs(in, fakeCommands{}); err != nil {
		t.Fatalf("CheckInputs: want no error, got %v", err)
	}
	for _, tc := range []struct {
		point        []string
		infer, nodes int
	}{
		{[]string{"0.5", "0", "6"}, 1, 1},
		{[]string{"1", "3", "6"}, 2, 4},
		{[]string{"2.5", "0", "6"}, 5, 1}, // 2 x 2.5 = 5
	} {
		v, err := p.variant(in.First, tc.point)
		if err != nil {
			t.Fatalf("%v: want no error, got %v", tc.point, err)
		}
		infer := 0
		for _, pod := range v.Snapshot.Pods {
			if strings.HasPrefix(pod.Name, "infer-") {
				infer++
			}
		}
		if infer != tc.infer || len(v.Snapshot.Nodes) != tc.nodes {
			t.Errorf("%v: want %d infer pods on %d nodes, got %d on %d", tc.point, tc.infer, tc.nodes, infer, len(v.Snapshot.Nodes))
		}
		if got := v.Snapshot.NodeGroups[0].Spec.MaxSize; got != 6 {
			t.Errorf("%v: want maxSize 6, got %d", tc.point, got)
		}
	}
	if len(in.First.Snapshot.Pods) != 0 || in.First.Snapshot.NodeGroups[0].Spec.MaxSize != 4 {
		t.Errorf("the loaded inputs changed: %d pods (want 0: controllers kept), maxSize %d (want 4)", len(in.First.Snapshot.Pods), in.First.Snapshot.NodeGroups[0].Spec.MaxSize)
	}
	// A run of each point gets its variant, built once per point.
	exec := &fakeExec{}
	out := execute(t, context.Background(), p, t.TempDir(), nil, exec, Options{Workers: 3})
	if out.Failed != 0 || out.Done != 6 {
		t.Errorf("want 6 runs, none failed, got %+v", out.Progress)
	}
}

// TestCheckInputsTriesTheValues: the command judges every value of every
// axis before the sweep starts, on the inputs with nothing to schedule;
// each value is tried without the other axes, so that only the axis at
// fault is named.
func TestCheckInputsTriesTheValues(t *testing.T) {
	p := mustPlan(t, writeSweep(t, header+`spec:
  command: simulate
  inputs: [cluster.yaml]
  axes:
  - {name: exp, flag: expander, values: [price, bogus]}
  - {name: loops, flag: max-loops, values: [1, 2]}
  metrics: [{name: m, path: a}]
`))
	in, err := p.LoadInputs(nil)
	if err != nil {
		t.Fatal(err)
	}
	var tried *load.Result
	cmds := checkRecorder{seen: &tried}
	err = p.CheckInputs(in, cmds)
	want := `axis "exp": spec.axes[0].values[1]: drasim simulate refuses this value: --expander: unknown expander "bogus"`
	if err == nil || !strings.Contains(err.Error(), want) || strings.Count(err.Error(), "refuses") != 1 {
		t.Errorf("want one error,\n  %s\ngot\n  %v", want, err)
	}
	if tried == nil || len(tried.Snapshot.Pods) != 0 || len(tried.Snapshot.Deployments) != 0 || len(tried.Snapshot.Nodes) != 1 {
		t.Errorf("want the values tried on the inputs' node without pods or workloads, got %+v", tried)
	}
	if len(in.First.Snapshot.Pods) == 0 {
		t.Errorf("trying the values emptied the loaded inputs")
	}
}

// checkRecorder is fakeCommands that keeps the snapshot it was tried on.
type checkRecorder struct {
	fakeCommands
	seen **load.Result
}

func (c checkRecorder) Check(args, inputs []string, in *load.Result) error {
	*c.seen = in
	return c.fakeCommands.Check(args, inputs, in)
}

func TestCheckInputs(t *testing.T) {
	p := mustPlan(t, writeSweep(t, header+`spec:
  command: simulate
  inputs: [cluster.yaml]
  axes:
  - {name: load, replicas: {kind: StatefulSet}, values: [2]}
  - {name: tpus, nodeGroup: {name: tpu}, values: [1]}
  metrics: [{name: pods, path: Pods}]
`))
	in, err := p.LoadInputs(nil)
	if err != nil {
		t.Fatal(err)
	}
	err = p.CheckInputs(in, fakeCommands{})
	for _, want := range []string{
		`axis "load": spec.axes[0].replicas: selects no Deployment, ReplicaSet, StatefulSet or Job in the inputs`,
		`axis "tpus": spec.axes[1].nodeGroup.name: no NodeGroup "tpu" in the inputs (they have [gpu])`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want an error containing\n  %s\ngot\n  %v", want, err)
		}
	}
}

// TestInputsPerSeed: inputs naming {seed} give each seed its own snapshot,
// loaded once for the runs of that seed.
func TestInputsPerSeed(t *testing.T) {
	path := writeSweep(t, header+`spec:
  command: simulate
  inputs: ["cluster-{seed}.yaml"]
  seeds: [0, 1]
  axes: [{name: gpus, nodeGroup: {name: gpu}, values: [0, 1]}]
  metrics: [{name: nodes, path: Nodes}]
`)
	dir := filepath.Dir(path)
	cluster, _ := os.ReadFile(filepath.Join(dir, "cluster.yaml"))
	extra := "\n---\napiVersion: v1\nkind: Node\nmetadata: {name: extra, labels: {pool: base}}\n"
	os.WriteFile(filepath.Join(dir, "cluster-0.yaml"), cluster, 0o644)
	os.WriteFile(filepath.Join(dir, "cluster-1.yaml"), append(cluster, extra...), 0o644)
	p := mustPlan(t, path)
	if diff := cmp.Diff([]string{filepath.Join(dir, "cluster-1.yaml")}, p.Runs[1].Inputs); diff != "" {
		t.Errorf("run 1 (seed 1) inputs (-want +got):\n%s", diff)
	}
	out := t.TempDir()
	execute(t, context.Background(), p, out, nil, &fakeExec{}, Options{Workers: 2})
	_, rows := readStreamFile(t, filepath.Join(out, "results.jsonl"))
	var nodes []float64
	for _, r := range rows {
		nodes = append(nodes, r.Metrics[0])
	}
	// gpus=0: 1 and 2 nodes; gpus=1: one more each.
	if diff := cmp.Diff([]float64{1, 2, 2, 3}, nodes); diff != "" {
		t.Errorf("nodes per run, seed 1 with one node more (-want +got):\n%s", diff)
	}
	os.Remove(filepath.Join(dir, "cluster-1.yaml"))
	data, _ := os.ReadFile(path)
	sw, _ := Parse(path, data)
	if _, err := NewPlan(path, sw, fakeCommands{}); err == nil || !strings.Contains(err.Error(), "spec.inputs[0]: no such file or directory (cluster-1.yaml)") {
		t.Errorf("a seed's input missing: want an error naming cluster-1.yaml, got %v", err)
	}
}

func readStreamFile(t *testing.T, path string) (Header, []Row) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := ReadStreams(path, f, false)
	if err != nil {
		t.Fatal(err)
	}
	return s[0].Header, s[0].Rows
}
