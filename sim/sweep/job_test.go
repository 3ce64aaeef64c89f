package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

// jobSweep is a sweep in exp/ that reads ../data/cluster.yaml and a
// scheduler config next to it.
func jobSweep(t *testing.T) *Plan {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"exp/configs", "data"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cluster, _ := os.ReadFile(filepath.Join("testdata", "cluster.yaml"))
	files := map[string]string{
		"data/cluster.yaml":     string(cluster),
		"exp/configs/most.yaml": "most",
		"exp/sweep.yaml": header + `spec:
  command: simulate
  inputs: [../data/cluster.yaml]
  axes: [{name: config, flag: scheduler-config, values: [configs/most.yaml]}]
  seeds: {count: 4}
  metrics: [{name: m, path: a}]
`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return mustPlan(t, filepath.Join(root, "exp", "sweep.yaml"))
}

func TestBundle(t *testing.T) {
	p := jobSweep(t)
	b, err := p.Bundle()
	if err != nil {
		t.Fatalf("Bundle: want no error, got %v", err)
	}
	var got []string
	for _, f := range b.Files {
		got = append(got, f.Key+" -> "+f.Path)
	}
	want := []string{"00-sweep.yaml -> exp/sweep.yaml", "01-cluster.yaml -> data/cluster.yaml", "02-most.yaml -> exp/configs/most.yaml"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bundle: the sweep's files under their common directory (-want +got):\n%s", diff)
	}
	if filepath.Base(b.Root) == "exp" || b.Sweep != "exp/sweep.yaml" {
		t.Errorf("want the root above exp/ and the sweep at exp/sweep.yaml, got %s and %s", b.Root, b.Sweep)
	}
}

func TestBundleRefusesAbsolutePaths(t *testing.T) {
	abs, _ := filepath.Abs(filepath.Join("testdata", "cluster.yaml"))
	p := mustPlan(t, writeSweep(t, header+"spec: {command: simulate, inputs: ["+abs+"], metrics: [{name: m, path: a}]}"))
	_, err := p.Bundle()
	if err == nil || !strings.Contains(err.Error(), "spec.inputs[0]: "+abs+" is an absolute path") {
		t.Errorf("want an absolute input refused naming spec.inputs[0], got %v", err)
	}
}

func TestJob(t *testing.T) {
	p := jobSweep(t)
	b, err := p.Bundle()
	if err != nil {
		t.Fatal(err)
	}
	opts := JobOptions{Image: "drasim:test", Completions: 2, Workers: 2, CPU: resource.MustParse("2"),
		Memory: resource.MustParse("300Mi"), MemoryLimit: resource.MustParse("450Mi"), BackoffLimitPerIndex: 1}
	objects, err := p.Job(b, opts)
	if err != nil {
		t.Fatalf("Job: want no error, got %v", err)
	}
	if len(objects) != 2 {
		t.Fatalf("want a ConfigMap and a Job, got %d objects", len(objects))
	}
	cm := objects[0].(*v1.ConfigMap)
	job := objects[1].(*batchv1.Job)
	if cm.Name != "test-inputs" || !strings.Contains(cm.Data["01-cluster.yaml"], "kind: NodeGroup") {
		t.Errorf("want ConfigMap test-inputs holding the cluster, got %s with keys %v", cm.Name, len(cm.Data))
	}
	if *job.Spec.CompletionMode != batchv1.IndexedCompletion || *job.Spec.Completions != 2 || *job.Spec.Parallelism != 2 {
		t.Errorf("want an Indexed Job of 2 completions, 2 at once, got %+v", job.Spec)
	}
	c := job.Spec.Template.Spec.Containers[0]
	wantArgs := []string{"sweep", "/sweep/exp/sweep.yaml", "--shard=JOB_COMPLETION_INDEX/2", "--output-dir=/results", "--workers=2", "--max-memory=300Mi", "--print-results"}
	if diff := cmp.Diff(wantArgs, c.Args); diff != "" {
		t.Errorf("container args (-want +got):\n%s", diff)
	}
	if c.Resources.Requests.Memory().String() != "300Mi" || c.Resources.Limits.Memory().String() != "450Mi" || c.Resources.Requests.Cpu().String() != "2" {
		t.Errorf("want requests cpu 2, memory 300Mi and limit 450Mi, got %+v", c.Resources)
	}
	vol := job.Spec.Template.Spec.Volumes
	if vol[0].ConfigMap == nil || vol[0].ConfigMap.Items[1].Path != "data/cluster.yaml" || vol[1].EmptyDir == nil {
		t.Errorf("want the ConfigMap mounted with its paths and an emptyDir for results, got %+v", vol)
	}
	// With volumes: no ConfigMap, PVCs mounted, results not printed.
	opts.InputsPVC, opts.ResultsPVC = "in", "out"
	objects, err = p.Job(b, opts)
	if err != nil || len(objects) != 1 {
		t.Fatalf("with --inputs-pvc: want the Job alone, got %d objects (%v)", len(objects), err)
	}
	job = objects[0].(*batchv1.Job)
	vol = job.Spec.Template.Spec.Volumes
	if vol[0].PersistentVolumeClaim.ClaimName != "in" || !vol[0].PersistentVolumeClaim.ReadOnly || vol[1].PersistentVolumeClaim.ClaimName != "out" {
		t.Errorf("want PVC in (read only) and PVC out, got %+v", vol)
	}
	if args := job.Spec.Template.Spec.Containers[0].Args; args[len(args)-1] == "--print-results" {
		t.Errorf("results on a volume: want no --print-results, got %v", args)
	}
	data, err := WriteObjects(objects)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "creationTimestamp") || strings.Contains(string(data), "status:") {
		t.Errorf("want no empty status or creationTimestamp in the YAML, got\n%s", data)
	}
	var back batchv1.Job
	if err := yaml.UnmarshalStrict(data, &back); err != nil || back.Name != "test" {
		t.Errorf("want the YAML to read back as the Job, got %v", err)
	}
	if _, err := p.Job(b, JobOptions{Image: "x", Completions: 5}); err == nil || !strings.Contains(err.Error(), "5 completions for 4 runs") {
		t.Errorf("want more shards than runs refused, got %v", err)
	}
}

func TestJobConfigMapTooLarge(t *testing.T) {
	p := jobSweep(t)
	b, _ := p.Bundle()
	big := filepath.Join(b.Root, "data", "cluster.yaml")
	if err := os.WriteFile(big, []byte(strings.Repeat("# padding\n", 120_000)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := p.Job(b, JobOptions{Image: "x", Completions: 1})
	if err == nil || !strings.Contains(err.Error(), "more than a ConfigMap holds") || !strings.Contains(err.Error(), "--inputs-pvc") {
		t.Errorf("want an error pointing at --inputs-pvc, got %v", err)
	}
}
