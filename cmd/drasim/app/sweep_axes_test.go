package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/sweep"
	"github.com/google/go-cmp/cmp"
)

// sweepOf writes a sweep file and the given files into one directory and
// returns the sweep file's path.
func sweepOf(t *testing.T, body string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["sweep.yaml"] = body
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "sweep.yaml")
}

// sweepRowsByHand runs a sweep and checks every row against its command
// line typed by hand on the files: the numbers of the sweep are the
// command's own. It returns the rows.
func sweepRowsByHand(t *testing.T, path string, metric func(stdout string) []float64) []sweep.Row {
	t.Helper()
	out := filepath.Join(t.TempDir(), "results")
	if r := drasim(t, "", "sweep", path, "--output-dir", out, "--workers", "2"); r.code != ExitOK {
		t.Fatalf("sweep: want exit 0, got %d\n%s%s", r.code, r.stdout, r.stder)
	}
	_, rows := readRows(t, filepath.Join(out, "results.jsonl"))
	plan, err := loadPlan(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		if row.Error != "" {
			t.Fatalf("run %d %v: want no error, got %s", row.Run, row.Point, row.Error)
		}
		args := plan.Runs[row.Run].Args
		by := drasim(t, "", args...)
		if by.code != ExitOK {
			t.Fatalf("run %d by hand: exit %d: %s", row.Run, by.code, by.stder)
		}
		if diff := cmp.Diff(metric(by.stdout), row.Metrics); diff != "" {
			t.Errorf("run %d (drasim %s): metrics (-by hand +sweep):\n%s", row.Run, strings.Join(args, " "), diff)
		}
	}
	return rows
}

// simulateMetrics reads summary.scheduled and the pods placed on node from
// a simulate result.
func simulateMetrics(t *testing.T, node string) func(string) []float64 {
	return func(stdout string) []float64 {
		var r struct {
			Summary struct{ Scheduled float64 }
			Pods    []struct{ Node string }
		}
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("simulate -o json: %v", err)
		}
		out := []float64{r.Summary.Scheduled}
		if node != "" {
			on := 0.0
			for _, p := range r.Pods {
				if p.Node == node {
					on++
				}
			}
			out = append(out, on)
		}
		return out
	}
}

// TestSweepAxesReachTheOptions: a sweep knows no option by name; its axes
// are the command's flags as the command tree has them. What-if edits
// (--drain, with null for no edit), --tie-break with the seeds, feature
// gates (GenericWorkload) and an edits file (--edits, resolved against
// the sweep file) all reach the command: every row holds what the command
// line gives by hand, and the values change the numbers as they should.
func TestSweepAxesReachTheOptions(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ties := readText(t, "../../../scenarios/17-ties-gpu-fleet.yaml")
	path := sweepOf(t, `apiVersion: drasim.io/v1alpha1
kind: Sweep
metadata: {name: ties}
spec:
  command: simulate
  inputs: [cluster.yaml]
  seeds: {count: 3}
  axes:
  - {name: ties, flag: tie-break, values: [kube, random]}
  - {name: drain, flag: drain, values: [null, "a100-00,a100-01"]}
  metrics:
  - {name: scheduled, path: summary.scheduled}
  - {name: on-cpu-05, path: "pods.#[node=cpu-05]"}
`, map[string]string{"cluster.yaml": ties})
	rows := sweepRowsByHand(t, path, simulateMetrics(t, "cpu-05"))
	onCPU05 := map[string][]float64{}
	scheduled := map[string]float64{}
	for _, r := range rows {
		key := strings.Join(r.Point, "/")
		onCPU05[key] = append(onCPU05[key], r.Metrics[1])
		scheduled[r.Point[1]] = r.Metrics[0]
	}
	// kube's tie-break takes no seed; random draws from it.
	if k := onCPU05["kube/"]; k[0] != k[1] || k[1] != k[2] {
		t.Errorf("--tie-break=kube: want the same placement for every seed, got %v pods on cpu-05", k)
	}
	if r := onCPU05["random/"]; r[0] == r[1] && r[1] == r[2] {
		t.Errorf("--tie-break=random: want the seeds to move pods, got %v pods on cpu-05 for seeds 0, 1, 2", r)
	}
	if scheduled[""] == scheduled["a100-00,a100-01"] {
		t.Errorf("--drain: want draining two a100 nodes to change what is placed, got %v", scheduled)
	}

	gang := readText(t, "../../../scenarios/41-gang-short-one-device.yaml")
	path = sweepOf(t, `apiVersion: drasim.io/v1alpha1
kind: Sweep
metadata: {name: gangs}
spec:
  command: simulate
  inputs: [cluster.yaml]
  axes:
  - {name: gangs, featureGate: GenericWorkload, values: [true, false]}
  - {name: edits, flag: edits, values: [null, cordon.yaml]}
  metrics: [{name: scheduled, path: summary.scheduled}]
`, map[string]string{"cluster.yaml": gang, "cordon.yaml": `apiVersion: drasim.io/v1alpha1
kind: Edits
edits:
- cordon: {nodes: [n2]}
`})
	rows = sweepRowsByHand(t, path, simulateMetrics(t, ""))
	var got [][]string
	for _, r := range rows {
		got = append(got, append(slices.Clone(r.Point), formatMetric(r.Metrics[0])))
	}
	// By scenarios/41-gang-short-one-device.yaml: with GenericWorkload the
	// gang that misses by one device is placed not at all (2 pods, held-n1
	// and solo), without it 5 of 6 pods; n2 cordoned takes two GPUs away.
	want := [][]string{{"true", "", "2"}, {"true", "cordon.yaml", "2"}, {"false", "", "5"}, {"false", "cordon.yaml", "4"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows: gangs, edits, scheduled (-want +got):\n%s", diff)
	}
}

func formatMetric(v float64) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestSweepRunsLeaveTheSharedSnapshotAlone: runs share one loaded
// snapshot; a what-if edit replaces the snapshot of its own run's copy of
// the load result, never the shared one.
func TestSweepRunsLeaveTheSharedSnapshotAlone(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	file := "../../../scenarios/41-gang-short-one-device.yaml"
	res, err := load.Load([]string{file}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	shared := *res
	run := sweep.Run{Inputs: []string{file}, Args: []string{"simulate", "--drain=n2", "--output=json", "--filename=" + file}}
	if _, err := sweepExec(context.Background(), run, res); err != nil {
		t.Fatalf("a run with --drain: want no error, got %v", err)
	}
	if res.Snapshot != shared.Snapshot || len(res.Snapshot.Pods) != len(shared.Snapshot.Pods) {
		t.Errorf("a run's edit replaced the shared snapshot (or changed its pods)")
	}
}

// sweepTrialFlags are the flags a sweepable command cannot run without.
var sweepTrialFlags = map[string]func(t *testing.T) []string{
	"check": func(t *testing.T) []string {
		gates := filepath.Join(t.TempDir(), "gates.yaml")
		if err := os.WriteFile(gates, []byte("apiVersion: drasim.io/v1alpha1\nkind: Gates\ngates:\n- {name: placed, maxPendingPods: {max: 100}}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return []string{"--gates=" + gates}
	},
	// fill needs devices to fill and a workload that asks for some.
	"fill": func(t *testing.T) []string {
		dir := t.TempDir()
		return []string{"--nodes=" + writeFile(t, dir, "nodes.csv", fillNodes), "--trace=" + writeFile(t, dir, "pods.csv", fillPods)}
	},
}

// TestEverySweepableCommandTakesTheSweepSnapshot holds every command a
// sweep can run, present and future (drasim timeline joins the day it is
// added to the command tree, with no change to the sweep), to what a
// sweep needs of it: it writes -o json, and it replays the snapshot the
// sweep loaded (Streams.Loaded, which inputFlags.load takes) rather than
// reading its -f files itself, which would ignore the sweep's NodeGroup
// and replica variants. A command that reads its inputs another way is
// listed in notSweepable with the reason; one that needs a flag to run
// gets it in sweepTrialFlags.
func TestEverySweepableCommandTakesTheSweepSnapshot(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	file := "../../../scenarios/autoscale/first-available.yaml"
	res, err := load.Load([]string{file}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cmds := newSweepCommands()
	tried := 0
	for _, c := range cmds.root.Commands() {
		name := c.Name()
		if _, no := notSweepable[name]; no || !c.IsAvailableCommand() {
			continue
		}
		tried++
		t.Run(name, func(t *testing.T) {
			args := []string{name}
			if extra := sweepTrialFlags[name]; extra != nil {
				args = append(args, extra(t)...)
			}
			args = append(args, "--output=json", "--filename="+file)
			loaded := &Loaded{Files: []string{file}, Result: res}
			code, stdout, stderr := runInProcess(context.Background(), args, loaded)
			if code != ExitOK && code != ExitGateFailed {
				t.Fatalf("drasim %s: exit %d: %s (a command that needs a flag to run gets it in sweepTrialFlags; one a sweep cannot run goes in notSweepable)", strings.Join(args, " "), code, stderr)
			}
			if !json.Valid(stdout) {
				t.Errorf("drasim %s -o json: want JSON on standard output, got %.200s", name, stdout)
			}
			if !loaded.taken {
				t.Errorf("drasim %s read its -f files itself: it must load them with inputFlags.load (which takes Streams.Loaded), or be listed in notSweepable", name)
			}
		})
	}
	if tried < 5 {
		t.Errorf("want at least simulate, report, check, autoscale and inspect tried, got %d commands", tried)
	}

	// --strict makes a command read its files itself: the sweep says so
	// before it starts, instead of replaying the files run by run.
	if err := cmds.Check([]string{"simulate", "--strict", "--output=json", "--filename=" + file}, []string{file}, res); err == nil || !strings.Contains(err.Error(), "read its -f files itself") {
		t.Errorf("simulate --strict: want the sweep to refuse it, got %v", err)
	}
}

// TestSweepRunsIgnoreTheEnvironment: a run depends on the sweep file
// alone; DRASIM_* variables and config files, which a Job's pod does not
// have, do not reach it (they would break every run here).
func TestSweepRunsIgnoreTheEnvironment(t *testing.T) {
	config := t.TempDir()
	if err := os.MkdirAll(filepath.Join(config, "drasim"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(config, "drasim", "config.yaml"), []byte("tie-break: never\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", config)
	t.Setenv("DRASIM_FEATURE_GATES", "DRANoSuchGate=true")
	file := "../../../scenarios/41-gang-short-one-device.yaml"
	if r := drasim(t, "", "simulate", "-f", file); r.code != ExitUsage {
		t.Fatalf("by hand, the environment reaches the command: want exit 2, got %d", r.code)
	}
	res, err := load.Load([]string{file}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	run := sweep.Run{Inputs: []string{file}, Args: []string{"simulate", "--output=json", "--filename=" + file}}
	if _, err := sweepExec(context.Background(), run, res); err != nil {
		t.Errorf("a sweep's run: want the environment and config file ignored, got %v", err)
	}
}

// TestSweepGangAwareAxis: --gang-aware-scale-up is a sweep axis like any
// flag. By scenarios/autoscale/gang-devices-short.yaml (a gang of three
// 2-GPU pods, minCount 3, a group of one 4-GPU node at most): CA's
// pod-by-pod estimate adds the node the gang never uses; the gang-aware
// option adds none.
func TestSweepGangAwareAxis(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	path := sweepOf(t, `apiVersion: drasim.io/v1alpha1
kind: Sweep
metadata: {name: gang-aware}
spec:
  command: autoscale
  inputs: [cluster.yaml]
  flags: {feature-gates: GenericWorkload=true, expander: least-waste}
  axes:
  - {name: gang-aware, flag: gang-aware-scale-up, values: [false, true]}
  metrics: [{name: nodes, path: nodesAdded}]
`, map[string]string{"cluster.yaml": readText(t, autoscaleScenarios+"gang-devices-short.yaml")})
	out := filepath.Join(t.TempDir(), "results")
	r := drasim(t, "", "sweep", path, "--output-dir", out, "--workers", "1")
	if r.code != ExitOK {
		t.Fatalf("sweep: want exit 0, got %d\nstderr: %s", r.code, r.stder)
	}
	csv := readText(t, filepath.Join(out, "results.csv"))
	for _, want := range []string{"run,gang-aware,seed,nodes,seconds,error\n", "\n0,false,0,1,", "\n1,true,0,0,"} {
		if !strings.Contains(csv, want) {
			t.Errorf("results.csv: want %q in\n%s", want, csv)
		}
	}
}
