package app

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/sweep"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// expanderSweep compares three expanders on the first-available scenario
// (two pods; an h100 group at 12.00/h, an l4 group at 3.00/h) at one and
// two times the inference replicas, over two seeds: 12 runs.
const expanderSweep = `apiVersion: drasim.io/v1alpha1
kind: Sweep
metadata: {name: expanders}
spec:
  command: autoscale
  inputs: [cluster.yaml]
  flags: {max-loops: 5}
  seeds: {count: 2}
  axes:
  - {name: expander, flag: expander, values: [price, first-available, least-waste-dra]}
  - {name: load, replicas: {kind: Deployment, name: infer}, values: [1, 2]}
  metrics:
  - {name: cost, path: costPerHour}
  - {name: nodes, path: nodesAdded}
  - {name: pending, path: result.summary.unschedulable}
`

// sweepDir writes a sweep file next to a copy of the first-available
// scenario (cluster.yaml) and returns the sweep file's path.
func sweepDir(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	cluster, err := os.ReadFile(autoscaleScenarios + "first-available.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"cluster.yaml": string(cluster), "sweep.yaml": body} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "sweep.yaml")
}

func readText(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// readRows reads a results file.
func readRows(t *testing.T, path string) (*sweep.Header, []sweep.Row) {
	t.Helper()
	streams, err := sweep.ReadStreams(path, strings.NewReader(readText(t, path)), false)
	if err != nil || len(streams) != 1 {
		t.Fatalf("reading %s: want one stream, got %d (%v)", path, len(streams), err)
	}
	return &streams[0].Header, streams[0].Rows
}

func TestSweepCommand(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	path := sweepDir(t, expanderSweep)
	out := filepath.Join(t.TempDir(), "results")
	r := drasim(t, "", "sweep", path, "--output-dir", out, "--workers", "2")
	if r.code != ExitOK {
		t.Fatalf("sweep: want exit 0, got %d\nstderr: %s", r.code, r.stder)
	}
	if !strings.Contains(r.stdout, "sweep expanders: 12 of 12 runs done, 0 failed") {
		t.Errorf("want the outcome on stdout, got\n%s", r.stdout)
	}
	csv := readText(t, filepath.Join(out, "results.csv"))
	// By hand (scenarios/autoscale/first-available.yaml): price adds an l4
	// node (3.00/h) per two pods, first-available an h100 node (12.00/h)
	// that holds up to four, least-waste-dra an l4 node (no idle device).
	for _, want := range []string{
		"run,expander,load,seed,cost,nodes,pending,seconds,error\n",
		"\n0,price,1,0,3,1,0,",
		"\n2,price,2,0,6,2,0,",
		"\n4,first-available,1,0,12,1,0,",
		"\n6,first-available,2,0,12,1,0,",
		"\n8,least-waste-dra,1,0,3,1,0,",
	} {
		if !strings.Contains(csv, want) {
			t.Errorf("results.csv: want %q in\n%s", want, csv)
		}
	}
	// Every row holds what the command gives when run by hand on the
	// files: the shared snapshot and the variants change nothing.
	_, rows := readRows(t, filepath.Join(out, "results.jsonl"))
	plan, err := loadPlan(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		args := plan.Runs[row.Run].Args
		if row.Point[1] == "2" {
			continue // the multiplier exists only in the sweep
		}
		by := drasim(t, "", args...)
		var result struct {
			CostPerHour float64 `json:"costPerHour"`
			NodesAdded  float64 `json:"nodesAdded"`
		}
		if err := json.Unmarshal([]byte(by.stdout), &result); err != nil {
			t.Fatalf("run %d by hand: %v (%s)", row.Run, err, by.stder)
		}
		if got := []float64{result.CostPerHour, result.NodesAdded}; !cmp.Equal(got, row.Metrics[:2]) {
			t.Errorf("run %d: the sweep's row has cost and nodes %v, the command by hand %v", row.Run, row.Metrics[:2], got)
		}
	}

	// The report aggregates over the seeds.
	rep := drasim(t, "", "sweep", "report", out, "-o", "csv")
	if rep.code != ExitOK {
		t.Fatalf("sweep report: want exit 0, got %d: %s", rep.code, rep.stder)
	}
	if !strings.Contains(rep.stdout, "price,1,cost,2,0,2,3,0,3,3,0,3,3\n") {
		t.Errorf("sweep report -o csv: want price at load 1 costing 3 in both runs, got\n%s", rep.stdout)
	}
	charts := filepath.Join(t.TempDir(), "charts")
	html := filepath.Join(t.TempDir(), "sweep.html")
	rep = drasim(t, "", "sweep", "report", out, "--output-charts", charts, "--output-html", html, "-o", "html")
	if rep.code != ExitOK || !strings.Contains(readText(t, html), "<svg") {
		t.Errorf("sweep report --report: want an HTML page with charts, got exit %d: %s", rep.code, rep.stder)
	}
	if _, err := os.Stat(filepath.Join(charts, "cost-by-expander.svg")); err != nil {
		t.Errorf("--output-charts: want cost-by-expander.svg, got %v", err)
	}

	// A second start finds every row and runs nothing.
	again := drasim(t, "", "sweep", path, "--output-dir", out)
	if again.code != ExitOK || !strings.Contains(again.stdout, "12 of 12 runs done (12 from an earlier start)") {
		t.Errorf("a finished sweep started again: want every row kept, got exit %d\n%s%s", again.code, again.stdout, again.stder)
	}
}

func TestSweepValidationErrors(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	bad := strings.Replace(expanderSweep, "least-waste-dra]", "cheapest]", 1)
	bad = strings.Replace(bad, "{max-loops: 5}", "{max-loop: 5, output-snapshot: x.yaml}", 1)
	path := sweepDir(t, bad)
	r := drasim(t, "", "sweep", path, "--output-dir", filepath.Join(t.TempDir(), "out"))
	if r.code != ExitFailure {
		t.Fatalf("want exit 1 for an invalid sweep, got %d", r.code)
	}
	for _, want := range []string{
		path + " (document 1): spec.flags.max-loop: drasim autoscale has no flag --max-loop (did you mean --max-loops?)",
		path + " (document 1): spec.flags.output-snapshot: --output-snapshot writes a file; the runs of a sweep write rows, never files",
	} {
		if !strings.Contains(r.stder, want) {
			t.Errorf("stderr: want\n  %s\ngot\n  %s", want, r.stder)
		}
	}
	// The command itself judges the values.
	path = sweepDir(t, strings.Replace(expanderSweep, "least-waste-dra]", "cheapest]", 1))
	r = drasim(t, "", "sweep", path, "--dry-run")
	want := path + ` (document 1): axis "expander": spec.axes[0].values[2]: drasim autoscale refuses this value: --expander: unknown expander "cheapest"`
	if r.code != ExitFailure || !strings.Contains(r.stder, want) {
		t.Errorf("want exit 1 and\n  %s\ngot exit %d and\n  %s", want, r.code, r.stder)
	}
	path = sweepDir(t, strings.Replace(expanderSweep, "name: infer}", "name: training}", 1))
	r = drasim(t, "", "sweep", path, "--output-dir", filepath.Join(t.TempDir(), "out"))
	want = path + ` (document 1): axis "load": spec.axes[1].replicas: selects no Deployment, ReplicaSet, StatefulSet or Job in the inputs`
	if r.code != ExitFailure || !strings.Contains(r.stder, want) {
		t.Errorf("want exit 1 and\n  %s\ngot exit %d and\n  %s", want, r.code, r.stder)
	}
	for _, tc := range []struct{ args, want string }{
		{"--shard 3/2", "I must be a whole number from 0 to 1"},
		{"--shard NO_SUCH_VARIABLE/2", "environment variable NO_SUCH_VARIABLE is not set"},
		{"--max-memory lots", `--max-memory "lots": want a size`},
	} {
		r := drasim(t, "", append([]string{"sweep", path}, strings.Fields(tc.args)...)...)
		if r.code != ExitUsage || !strings.Contains(r.stder, tc.want) {
			t.Errorf("%s: want exit 2 and %q, got %d: %s", tc.args, tc.want, r.code, r.stder)
		}
	}
}

// TestSweepValuesJudgedOnTheInputs: the command judges the values of the
// axes on the sweep's own nodes, so that the options it reads only after
// loading (--tie-break, --feature-gates: drasim simulate refuses an empty
// snapshot first) are judged before the sweep starts, not run by run.
func TestSweepValuesJudgedOnTheInputs(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	path := sweepDir(t, `apiVersion: drasim.io/v1alpha1
kind: Sweep
metadata: {name: ties}
spec:
  command: simulate
  inputs: [cluster.yaml]
  axes:
  - {name: ties, flag: tie-break, values: [kube, coin]}
  - {name: gate, featureGate: DRANoSuchGate, values: [true]}
  metrics: [{name: scheduled, path: summary.scheduled}]
`)
	r := drasim(t, "", "sweep", path, "--dry-run")
	for _, want := range []string{
		path + ` (document 1): axis "ties": spec.axes[0].values[1]: drasim simulate refuses this value: --tie-break: `,
		path + ` (document 1): axis "gate": spec.axes[1].values[0]: drasim simulate refuses this value: --feature-gates: `,
	} {
		if r.code != ExitFailure || !strings.Contains(r.stder, want) {
			t.Errorf("want exit 1 and\n  %s\ngot exit %d and\n  %s", want, r.code, r.stder)
		}
	}
}

// TestSweepFailingRun: a run that fails is a row with its error; the
// others go on, and the sweep succeeds.
func TestSweepFailingRun(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	path := sweepDir(t, `apiVersion: drasim.io/v1alpha1
kind: Sweep
metadata: {name: configs}
spec:
  command: simulate
  inputs: [cluster.yaml]
  axes:
  - {name: config, flag: scheduler-config, values: [good.yaml, broken.yaml]}
  metrics: [{name: scheduled, path: summary.scheduled}]
`)
	dir := filepath.Dir(path)
	os.WriteFile(filepath.Join(dir, "good.yaml"), []byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "broken.yaml"), []byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: 7\n"), 0o644)
	out := filepath.Join(t.TempDir(), "out")
	r := drasim(t, "", "sweep", path, "--output-dir", out, "-v", "1", "--max-memory", "8Gi")
	if r.code != ExitOK || !strings.Contains(r.stdout, "2 of 2 runs done, 1 failed") {
		t.Fatalf("want exit 0 with one failed run, got %d\n%s%s", r.code, r.stdout, r.stder)
	}
	// Off a terminal, -v 1 logs progress; a budget measures the first run.
	if !strings.Contains(r.stder, "2/2 runs, 1 failed") || !strings.Contains(r.stdout, "Memory: inputs ") {
		t.Errorf("want a progress line and the measured memory, got\n%s%s", r.stdout, r.stder)
	}
	csv := readText(t, filepath.Join(out, "results.csv"))
	if !strings.Contains(csv, "\n0,good.yaml,0,0,") || !strings.Contains(csv, "\n1,broken.yaml,0,,") || !strings.Contains(csv, "broken.yaml") {
		t.Errorf("want run 0 with its metric and run 1 with an error naming broken.yaml, got\n%s", csv)
	}
}

// TestSweepShardsMerge runs a sweep in three shards and merges them: the
// same bytes as the sweep in one piece.
func TestSweepShardsMerge(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	path := sweepDir(t, expanderSweep)
	whole := filepath.Join(t.TempDir(), "whole")
	if r := drasim(t, "", "sweep", path, "--output-dir", whole, "--no-timing"); r.code != ExitOK {
		t.Fatalf("whole sweep: exit %d: %s", r.code, r.stder)
	}
	shards := filepath.Join(t.TempDir(), "shards")
	for i := 0; i < 3; i++ {
		if r := drasim(t, "", "sweep", path, "--output-dir", shards, "--no-timing", "--shard", strconv.Itoa(i)+"/3"); r.code != ExitOK {
			t.Fatalf("shard %d: exit %d: %s", i, r.code, r.stder)
		}
	}
	merged := filepath.Join(t.TempDir(), "merged")
	r := drasim(t, "", "sweep", "merge", shards, "--output-dir", merged)
	if r.code != ExitOK || !strings.Contains(r.stdout, "Merged 3 file(s): 12 of 12 runs") {
		t.Fatalf("merge: want exit 0 and 12 runs, got %d\n%s%s", r.code, r.stdout, r.stder)
	}
	for _, name := range []string{"results.jsonl", "results.csv"} {
		if diff := cmp.Diff(readText(t, filepath.Join(whole, name)), readText(t, filepath.Join(merged, name))); diff != "" {
			t.Errorf("%s (-whole +merged):\n%s", name, diff)
		}
	}
	// Two shards of three are not the whole sweep.
	os.Remove(filepath.Join(shards, "shard-0001-of-0003.jsonl"))
	r = drasim(t, "", "sweep", "merge", shards, "--output-dir", filepath.Join(t.TempDir(), "m"))
	if r.code != ExitFailure || !strings.Contains(r.stder, "shards missing (of 3): 1") {
		t.Errorf("merge without shard 1: want exit 1 naming it, got %d: %s", r.code, r.stder)
	}
}

// TestSweepOutputDirectories: the directories a sweep writes into are
// checked before any work, by the one rule for every output (files.dir).
func TestSweepOutputDirectories(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	path := sweepDir(t, expanderSweep)
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"sweep", path, "--output-dir", file},
		{"sweep", "merge", filepath.Dir(path), "--output-dir", file},
		{"sweep", "report", filepath.Dir(path), "--output-charts", file},
		{"sweep", path, "--output-dir", "-"},
	} {
		r := drasim(t, "", args...)
		if r.code != ExitUsage || !strings.Contains(r.stder, "--output-") {
			t.Errorf("drasim %s: want exit 2 naming the flag, got %d: %s", strings.Join(args, " "), r.code, r.stder)
		}
	}
	if got := readText(t, file); got != "mine\n" {
		t.Errorf("the file named as a directory was changed: %q", got)
	}
}

// jobObjects runs drasim sweep job and returns its ConfigMap and Job.
func jobObjects(t *testing.T, args ...string) (*v1.ConfigMap, *batchv1.Job, string) {
	t.Helper()
	r := drasim(t, "", append([]string{"sweep", "job"}, args...)...)
	if r.code != ExitOK {
		t.Fatalf("sweep job: want exit 0, got %d: %s", r.code, r.stder)
	}
	var cm *v1.ConfigMap
	var job *batchv1.Job
	for _, doc := range strings.Split(r.stdout, "\n---\n") {
		var meta struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatalf("sweep job output: %v\n%s", err, doc)
		}
		switch meta.Kind {
		case "ConfigMap":
			cm = &v1.ConfigMap{}
			if err := yaml.UnmarshalStrict([]byte(doc), cm); err != nil {
				t.Fatal(err)
			}
		case "Job":
			job = &batchv1.Job{}
			if err := yaml.UnmarshalStrict([]byte(doc), job); err != nil {
				t.Fatal(err)
			}
		}
	}
	if job == nil {
		t.Fatalf("sweep job: no Job in\n%s", r.stdout)
	}
	return cm, job, r.stdout
}

// runJobLocally runs every index of an Indexed Job as its pods would: the
// ConfigMap's items written where its volume puts them, the container's
// arguments with each volume's mount path mapped to a local directory, and
// JOB_COMPLETION_INDEX set as the Job controller sets it. It returns each
// pod's standard output (its log) and the results directory.
func runJobLocally(t *testing.T, cm *v1.ConfigMap, job *batchv1.Job) ([]string, string) {
	t.Helper()
	mounts := map[string]string{}
	spec := job.Spec.Template.Spec
	volumes := map[string]v1.Volume{}
	for _, v := range spec.Volumes {
		volumes[v.Name] = v
	}
	results := ""
	for _, m := range spec.Containers[0].VolumeMounts {
		dir := t.TempDir()
		mounts[m.MountPath] = dir
		v := volumes[m.Name]
		switch {
		case v.ConfigMap != nil:
			for _, item := range v.ConfigMap.Items {
				path := filepath.Join(dir, item.Path)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(cm.Data[item.Key]), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		case v.EmptyDir != nil, v.PersistentVolumeClaim != nil:
			results = dir
		}
	}
	var logs []string
	for i := 0; i < int(*job.Spec.Completions); i++ {
		var args []string
		for _, a := range spec.Containers[0].Args {
			flag, value, isFlag := strings.Cut(a, "=")
			if !isFlag {
				flag, value = "", a
			}
			for mount, dir := range mounts {
				if value == mount || strings.HasPrefix(value, mount+"/") {
					value = dir + strings.TrimPrefix(value, mount)
				}
			}
			if isFlag {
				value = flag + "=" + value
			}
			args = append(args, value)
		}
		t.Setenv("JOB_COMPLETION_INDEX", strconv.Itoa(i))
		var out, errb bytes.Buffer
		if code := Run(Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, args); code != ExitOK {
			t.Fatalf("index %d: drasim %v: exit %d: %s", i, args, code, errb.String())
		}
		// A pod's log holds both of its streams.
		logs = append(logs, errb.String()+out.String())
	}
	return logs, results
}

// mergeLogs writes pods' logs to files, as the collector in
// docs/sweeps.md does, merges them with drasim sweep merge --from-logs and
// returns the results directory.
func mergeLogs(t *testing.T, logs []string) string {
	t.Helper()
	logDir := t.TempDir()
	var files []string
	for i, l := range logs {
		f := filepath.Join(logDir, "pod-"+strconv.Itoa(i)+".log")
		if err := os.WriteFile(f, []byte(l), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	merged := filepath.Join(t.TempDir(), "merged")
	r := drasim(t, "", append(append([]string{"sweep", "merge"}, files...), "--from-logs", "--output-dir", merged)...)
	if r.code != ExitOK {
		t.Fatalf("merge of the pods' logs: exit %d: %s", r.code, r.stder)
	}
	return merged
}

// sortedResults is a results file's lines, sorted, with the run times
// (the one thing that differs between two sweeps of one file) blanked.
func sortedResults(t *testing.T, path string) string {
	t.Helper()
	text := readText(t, path)
	if strings.HasSuffix(path, ".jsonl") {
		text = secondsField.ReplaceAllString(text, "")
	} else {
		text = secondsColumn.ReplaceAllString(text, ",")
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

var (
	secondsField  = regexp.MustCompile(`,"seconds":[0-9.e+-]+`)
	secondsColumn = regexp.MustCompile(`(?m),[0-9.e+-]+,(?:"[^"]*"|[^,\n]*)$`)
)

// TestSweepJobShardsEqualTheLocalSweep: every index of the generated Job,
// run here as the Job controller would run it, then the collector
// (merging the pods' logs), gives the rows of the sweep run locally.
func TestSweepJobShardsEqualTheLocalSweep(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	path := sweepDir(t, expanderSweep)
	local := filepath.Join(t.TempDir(), "local")
	if r := drasim(t, "", "sweep", path, "--output-dir", local); r.code != ExitOK {
		t.Fatalf("local sweep: exit %d: %s", r.code, r.stder)
	}
	cm, job, text := jobObjects(t, path, "--image", "drasim:test", "--completions", "4", "--parallelism", "2")
	if !strings.Contains(text, "# Measured run 0: ") || job.Spec.Template.Spec.Containers[0].Resources.Requests.Memory().IsZero() {
		t.Errorf("want requests sized from a measured run, got\n%s", text)
	}
	logs, _ := runJobLocally(t, cm, job)
	merged := mergeLogs(t, logs)
	sameResults(t, local, merged, "the Job's pods' logs")

	// With the results on a volume, the shards write there and merge
	// from it.
	cm, job, _ = jobObjects(t, path, "--image", "drasim:test", "--completions", "3", "--results-pvc", "results", "--memory", "256Mi")
	_, results := runJobLocally(t, cm, job)
	merged = filepath.Join(t.TempDir(), "merged-pvc")
	if r := drasim(t, "", "sweep", "merge", results, "--output-dir", merged); r.code != ExitOK {
		t.Fatalf("merge of the volume: exit %d: %s", r.code, r.stder)
	}
	sameResults(t, local, merged, "the Job's volume")
}

// sameResults compares two results directories byte for byte, lines
// sorted, run times blanked.
func sameResults(t *testing.T, local, merged, what string) {
	t.Helper()
	for _, name := range []string{"results.jsonl", "results.csv"} {
		if diff := cmp.Diff(sortedResults(t, filepath.Join(local, name)), sortedResults(t, filepath.Join(merged, name))); diff != "" {
			t.Errorf("%s, merged from %s (-local +merged):\n%s", name, what, diff)
		}
	}
}

// TestSweepJobShipsTheFilesFlagsRead: the files that flags read (an
// --edits file axis here) travel in the Job's ConfigMap, and the pods,
// reading them from the volume, give the local sweep's rows.
func TestSweepJobShipsTheFilesFlagsRead(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	path := sweepOf(t, `apiVersion: drasim.io/v1alpha1
kind: Sweep
metadata: {name: gang-edits}
spec:
  command: simulate
  inputs: [cluster.yaml]
  seeds: [0, 1]
  axes:
  - {name: gangs, featureGate: GenericWorkload, values: [true, false]}
  - {name: edits, flag: edits, values: [null, edits/cordon.yaml]}
  metrics: [{name: scheduled, path: summary.scheduled}]
`, map[string]string{"cluster.yaml": readText(t, "../../../scenarios/41-gang-short-one-device.yaml")})
	if err := os.MkdirAll(filepath.Join(filepath.Dir(path), "edits"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(path), "edits", "cordon.yaml"), []byte("apiVersion: drasim.io/v1alpha1\nkind: Edits\nedits:\n- cordon: {nodes: [n2]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(t.TempDir(), "local")
	if r := drasim(t, "", "sweep", path, "--output-dir", local); r.code != ExitOK {
		t.Fatalf("local sweep: exit %d: %s", r.code, r.stder)
	}
	cm, job, _ := jobObjects(t, path, "--image", "drasim:test", "--completions", "3")
	var keys []string
	for k := range cm.Data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) != 3 {
		t.Errorf("ConfigMap: want the sweep file, the snapshot and the edits file, got %v", keys)
	}
	logs, _ := runJobLocally(t, cm, job)
	sameResults(t, local, mergeLogs(t, logs), "the Job's pods' logs")
	if csv := readText(t, filepath.Join(local, "results.csv")); !strings.Contains(csv, ",false,edits/cordon.yaml,1,4,") {
		t.Errorf("want the cordon to take a node from the gang-less run, got\n%s", csv)
	}
}

// TestFileFlagsAreMarked: every flag that takes a path says whether the
// command reads or writes it (markInput, markOutput, markOutputDir), so
// that a sweep treats it right. A new flag whose help mentions a file (or
// a DIR) must be marked.
func TestFileFlagsAreMarked(t *testing.T) {
	want := map[string]string{
		"simulate/scheduler-config": fileInput, "simulate/output-snapshot": fileOutput, "simulate/filename": fileSnapshot,
		"report/probe": fileInput, "report/output-html": fileOutput,
		"check/gates": fileInput, "check/output-junit": fileOutput,
		"autoscale/expander-priority-config": fileInput, "autoscale/output-snapshot": fileOutput,
		"generate/output-snapshot": fileOutput,
		"sweep/output-dir":         fileOutputDir, "sweep report/output-charts": fileOutputDir, "sweep merge/output-dir": fileOutputDir,
		"sweep report/output-html": fileOutput,
	}
	root := NewRootCommand(Streams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	for _, cmd := range allCommands(root) {
		for _, f := range flagsOf(cmd) {
			if reservedFlags[f.Name] {
				continue
			}
			role := ""
			if kinds := f.Annotations[fileAnnotation]; len(kinds) == 1 {
				role = kinds[0]
			}
			key := strings.TrimPrefix(cmd.CommandPath(), "drasim ") + "/" + f.Name
			if w, ok := want[key]; ok && role != w {
				t.Errorf("--%s of %s: want marked %q, got %q", f.Name, cmd.CommandPath(), w, role)
			}
			delete(want, key)
			mentionsFile := strings.Contains(f.Usage, "FILE") || strings.Contains(f.Usage, "DIR") || fileWord.MatchString(f.Usage)
			if mentionsFile && f.Value.Type() == "string" && role == "" && !namesNoFile[f.Name] {
				t.Errorf("--%s of %s takes a file (%q) but is not marked: call markInput, markOutput or markOutputDir where it is defined", f.Name, cmd.CommandPath(), f.Usage)
			}
		}
	}
	for key := range want {
		t.Errorf("no flag %s in the command tree", key)
	}
}

var fileWord = regexp.MustCompile(`\bfile\b`)

// namesNoFile are the flags whose help says "file" without taking one.
var namesNoFile = map[string]bool{
	"arrival":    true, // "in file order"
	"node-order": true, // "file order", an order, not a file
}

// allCommands lists a command's subcommands, theirs included.
func allCommands(root *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, c := range root.Commands() {
		out = append(out, c)
		out = append(out, allCommands(c)...)
	}
	return out
}

func flagsOf(cmd *cobra.Command) []*pflag.Flag {
	var out []*pflag.Flag
	cmd.Flags().VisitAll(func(f *pflag.Flag) { out = append(out, f) })
	return out
}

// TestDocsSweepExample keeps docs/sweeps.md's worked example runnable: its
// sweep file, with the clusters the doc's commands generate, is valid and
// has the 50 runs the doc shows.
func TestDocsSweepExample(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	for _, name := range []string{"sweep.yaml", "nodegroups.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(readText(t, "../../../docs/sweeps/expanders/"+name)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "generated"), 0o755); err != nil {
		t.Fatal(err)
	}
	for s := 0; s < 10; s++ {
		out := filepath.Join(dir, "generated", "cluster-"+strconv.Itoa(s)+".yaml")
		if r := drasim(t, "", "generate", "--nodes", "24", "--pods", "200", "--seed", strconv.Itoa(s), "--output-snapshot", out); r.code != ExitOK {
			t.Fatalf("generate: exit %d: %s", r.code, r.stder)
		}
	}
	r := drasim(t, "", "sweep", filepath.Join(dir, "sweep.yaml"), "--dry-run")
	if r.code != ExitOK || !strings.Contains(r.stdout, "Sweep expanders: drasim autoscale, 1 axis(es), 10 seed(s), 50 run(s).") {
		t.Errorf("the doc's sweep: want a valid plan of 50 runs, got exit %d\n%s%s", r.code, r.stdout, r.stder)
	}
	csv := readText(t, "../../../docs/sweeps/expanders/results.csv")
	if !strings.HasPrefix(csv, "run,expander,seed,cost,nodes,pending,first-choice,seconds,error\n") || strings.Count(csv, "\n") != 51 {
		t.Errorf("docs/sweeps/expanders/results.csv: want the sweep's 50 rows under its columns, got\n%s", csv)
	}
}

// A sweep runs drasim timeline like any other command: its metrics come
// from the timeline's JSON, and every row holds what the command gives when
// run by hand with the same flags.
func TestSweepTimeline(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	for _, name := range []string{"demo.yaml", "demo-trace.csv"} {
		writeFile(t, dir, name, readText(t, "../../../scenarios/timeline/"+name))
	}
	path := writeFile(t, dir, "sweep.yaml", `apiVersion: drasim.io/v1alpha1
kind: Sweep
metadata: {name: day}
spec:
  command: timeline
  inputs: [demo.yaml]
  flags: {trace: demo-trace.csv}
  seeds: {count: 2}
  axes:
  - {name: expander, flag: expander, values: [random, least-waste]}
  metrics:
  - {name: cost, path: summary.cost}
  - {name: placed, path: summary.placed}
  - {name: scaleups, path: summary.scaleUps}
`)
	out := filepath.Join(dir, "results")
	if r := drasim(t, "", "sweep", path, "--output-dir", out, "--workers", "2"); r.code != ExitOK {
		t.Fatalf("sweep: want exit 0, got %d\nstderr: %s", r.code, r.stder)
	}
	_, rows := readRows(t, filepath.Join(out, "results.jsonl"))
	if len(rows) != 4 {
		t.Fatalf("want 4 rows (2 expanders x 2 seeds), got %d", len(rows))
	}
	plan, err := loadPlan(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		if row.Error != "" {
			t.Fatalf("run %d failed: %s", row.Run, row.Error)
		}
		by := drasim(t, "", plan.Runs[row.Run].Args...)
		var result struct {
			Summary struct {
				Cost     float64 `json:"cost"`
				Placed   float64 `json:"placed"`
				ScaleUps float64 `json:"scaleUps"`
			} `json:"summary"`
		}
		if err := json.Unmarshal([]byte(by.stdout), &result); err != nil {
			t.Fatalf("run %d by hand: %v (%s)", row.Run, err, by.stder)
		}
		want := []float64{result.Summary.Cost, result.Summary.Placed, result.Summary.ScaleUps}
		if !cmp.Equal(want, row.Metrics) {
			t.Errorf("run %d: the sweep's row has %v, the timeline by hand %v", row.Run, row.Metrics, want)
		}
		if result.Summary.Placed != 48 {
			t.Errorf("run %d: want the demo's 48 pods placed, got %v", row.Run, result.Summary.Placed)
		}
	}
}
