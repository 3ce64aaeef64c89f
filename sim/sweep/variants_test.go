package sweep

import (
	"context"
	"strings"
	"testing"
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
	in, err := p.LoadInputs()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckInputs(in); err != nil {
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
		v, err := p.variant(in, tc.point)
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
	if len(in.Snapshot.Pods) != 0 || in.Snapshot.NodeGroups[0].Spec.MaxSize != 4 {
		t.Errorf("the loaded inputs changed: %d pods (want 0: controllers kept), maxSize %d (want 4)", len(in.Snapshot.Pods), in.Snapshot.NodeGroups[0].Spec.MaxSize)
	}
	// A run of each point gets its variant, built once per point.
	exec := &fakeExec{}
	out := execute(t, context.Background(), p, t.TempDir(), nil, exec, Options{Workers: 3})
	if out.Failed != 0 || out.Done != 6 {
		t.Errorf("want 6 runs, none failed, got %+v", out.Progress)
	}
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
	in, err := p.LoadInputs()
	if err != nil {
		t.Fatal(err)
	}
	err = p.CheckInputs(in)
	for _, want := range []string{
		`axis "load": spec.axes[0].replicas: selects no Deployment, ReplicaSet, StatefulSet or Job in the inputs`,
		`axis "tpus": spec.axes[1].nodeGroup.name: no NodeGroup "tpu" in the inputs (they have [gpu])`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want an error containing\n  %s\ngot\n  %v", want, err)
		}
	}
}
