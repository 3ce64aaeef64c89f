package app

import (
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/fill"
	"github.com/google/go-cmp/cmp"
)

const fillNodes = `sn,cpu_milli,memory_mib,gpu,model
n-00,96000,786432,8,V100M32
n-01,96000,786432,8,V100M32
n-02,96000,786432,8,V100M32
n-03,96000,786432,8,V100M32
n-04,96000,786432,8,V100M32
n-05,96000,786432,8,V100M32
n-06,96000,786432,8,V100M32
n-07,96000,786432,8,V100M32
n-08,96000,786432,8,V100M32
n-09,96000,786432,8,V100M32
n-10,96000,786432,8,V100M32
n-11,32000,131072,2,T4
`

const fillPods = `name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time
p-00,8000,16384,1,1000,,LS,Running,0,,
p-01,4000,8192,1,500,,LS,Running,1,,
p-02,16000,32768,2,1000,,BE,Running,3,,
p-03,2000,4096,0,0,,BE,Running,4,,
p-04,4000,8192,1,250,T4,LS,Running,5,,
`

func TestFillCommand(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	nodes, pods := writeFile(t, dir, "nodes.csv", fillNodes), writeFile(t, dir, "pods.csv", fillPods)
	code, out, errOut := runDrasim(t, "fill", "--nodes", nodes, "--trace", pods, "--policy", "kube,most-allocated", "--seeds", "1-3", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res fill.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Curves) != 6 || len(res.Means) != 2 || res.Devices != 90 {
		t.Errorf("got %d curves, %d means on %d devices, want 6 (2 policies × 3 seeds), 2 on 90", len(res.Curves), len(res.Means), res.Devices)
	}
	code, out, errOut = runDrasim(t, "fill", "--nodes", nodes, "--trace", pods, "--seed", "4", "-o", "csv")
	if code != ExitOK || !strings.HasPrefix(out, "policy,seed,arrived,allocation,fragmentation,fragmentationRate,pods\nkube,4,0,") {
		t.Errorf("-o csv: exit %d, got %.200q (%s)", code, out, errOut)
	}
	// Runs apart, merged: the means over both.
	for _, s := range []string{"5", "6"} {
		code, out, errOut = runDrasim(t, "fill", "--nodes", nodes, "--trace", pods, "--seed", s, "--policy", "kube,fgd", "-o", "json")
		if code != ExitOK {
			t.Fatalf("seed %s: exit %d: %s", s, code, errOut)
		}
		writeFile(t, dir, "seed"+s+".json", out)
	}
	chart := filepath.Join(dir, "chart.svg")
	code, out, errOut = runDrasim(t, "fill", "--merge", filepath.Join(dir, "seed5.json"), "--merge", filepath.Join(dir, "seed6.json"), "-o", "json", "--output-chart", chart)
	if svg := readText(t, chart); !strings.HasPrefix(svg, "<svg") || !strings.Contains(svg, "fgd") {
		t.Errorf("--output-chart: want an SVG with the fgd curve, got %.100q", svg)
	}
	var merged fill.Result
	if code != ExitOK || json.Unmarshal([]byte(out), &merged) != nil || len(merged.Means) != 2 || merged.Means[1].Policy != "fgd" || merged.Means[1].Runs != 2 {
		t.Errorf("--merge: exit %d, want the means of kube and fgd over 2 runs each, got %.300s (%s)", code, out, errOut)
	}
	code, out, _ = runDrasim(t, "fill", "--nodes", nodes, "--trace", pods, "--seeds", "1,2", "--policy", "kube,most-allocated", "-o", "html")
	for _, want := range []string{"chart-fill-allocation", "chart-fill-fragmentation", "<svg", "most-allocated"} {
		if code != ExitOK || !strings.Contains(out, want) {
			t.Errorf("-o html: exit %d, want %q in the page", code, want)
		}
	}
}

func TestFillBadInput(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	nodes, pods := writeFile(t, dir, "nodes.csv", fillNodes), writeFile(t, dir, "pods.csv", fillPods)
	cpuNodes := writeFile(t, dir, "cpu.csv", "sn,cpu_milli,memory_mib,gpu,model\nc-0,64000,262144,0,\n")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown policy", []string{"--nodes", nodes, "--trace", pods, "--policy", "tetris"}, `--policy: unknown policy "tetris"`},
		{"target zero", []string{"--nodes", nodes, "--trace", pods, "--target", "0"}, "--target must be positive"},
		{"target negative", []string{"--nodes", nodes, "--trace", pods, "--target", "-1.3"}, "--target must be positive"},
		{"no GPU nodes", []string{"--nodes", cpuNodes, "--trace", pods}, "the cluster has no devices to fill"},
		{"nodes not a node list", []string{"--nodes", pods, "--trace", pods}, "not an openb node list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runDrasim(t, append([]string{"fill"}, tc.args...)...)
			if code != ExitFailure || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 1 and %q", code, errOut, tc.want)
			}
		})
	}
}

// TestDocsFillSweep keeps docs/policies.md's sweep runnable: with small
// CSVs under the doc's file names, every run gives a row whose metrics
// are what drasim fill gives by hand.
func TestDocsFillSweep(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	writeFile(t, dir, "openb_node_list_gpu_node.csv", fillNodes)
	writeFile(t, dir, "openb_pod_list_default.csv", fillPods)
	path := writeFile(t, dir, "sweep.yaml", readText(t, "../../../docs/sweeps/fill-openb/sweep.yaml"))
	out := filepath.Join(dir, "results")
	if r := drasim(t, "", "sweep", path, "--output-dir", out, "--workers", "2"); r.code != ExitOK {
		t.Fatalf("sweep: want exit 0, got %d\nstderr: %s", r.code, r.stder)
	}
	_, rows := readRows(t, filepath.Join(out, "results.jsonl"))
	if len(rows) != 20 {
		t.Fatalf("want 20 rows (2 policies × 1 trace × 10 seeds), got %d", len(rows))
	}
	plan, err := loadPlan(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows[:2] {
		if row.Error != "" {
			t.Fatalf("run %d failed: %s", row.Run, row.Error)
		}
		by := drasim(t, "", plan.Runs[row.Run].Args...)
		var res fill.Result
		if err := json.Unmarshal([]byte(by.stdout), &res); err != nil {
			t.Fatalf("run %d by hand: %v (%s)", row.Run, err, by.stder)
		}
		c := res.Curves[0]
		at := func(k int) fill.Point {
			for _, p := range c.Points {
				if p.Arrived == k {
					return p
				}
			}
			t.Fatalf("run %d: no point at %d%%", row.Run, k)
			return fill.Point{}
		}
		want := []float64{at(100).Allocation, at(130).Allocation, at(100).Fragmentation, at(130).Fragmentation, float64(c.Failed)}
		if !cmp.Equal(want, row.Metrics) {
			t.Errorf("run %d: the sweep's row has %v, drasim fill by hand %v", row.Run, row.Metrics, want)
		}
	}
}

// TestFillPlacements checks --output-placements (one row per submitted
// pod, in submission order, devices on the pod's node) and that the
// research policies break ties as the paper's simulator by default
// (--tie-break simulator), not by the nodes' own names.
func TestFillPlacements(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	nodes, pods := writeFile(t, dir, "nodes.csv", fillNodes), writeFile(t, dir, "pods.csv", fillPods)
	placements := func(tieBreak ...string) [][]string {
		t.Helper()
		path := filepath.Join(dir, "placements.csv")
		args := append([]string{"fill", "--nodes", nodes, "--trace", pods, "--policy", "gpu-packing", "--seed", "3", "-o", "json", "--output-placements", path}, tieBreak...)
		code, out, errOut := runDrasim(t, args...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", tieBreak, code, errOut)
		}
		var res fill.Result
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(strings.NewReader(readText(t, path))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"policy", "seed", "index", "pod", "node", "devices"}; !slices.Equal(rows[0], want) {
			t.Fatalf("header %v, want %v", rows[0], want)
		}
		rows = rows[1:]
		if c := res.Curves[0]; len(rows) != c.Submitted {
			t.Fatalf("%v: %d rows for %d submitted pods", tieBreak, len(rows), c.Submitted)
		}
		for i, r := range rows {
			if r[0] != "gpu-packing" || r[1] != "3" || r[2] != strconv.Itoa(i) {
				t.Fatalf("row %d: %v, want gpu-packing, seed 3, index %d", i, r, i)
			}
			for _, d := range strings.Fields(r[5]) {
				if !strings.HasPrefix(d, "openb.alibaba.com/"+r[4]+"/") {
					t.Errorf("row %d: device %s is not on node %s", i, d, r[4])
				}
			}
		}
		return rows
	}
	byDefault, simulator, byName := placements(), placements("--tie-break", "simulator"), placements("--tie-break", "name")
	if !slices.EqualFunc(byDefault, simulator, slices.Equal) {
		t.Error("the default tie-break of a research policy is not --tie-break simulator")
	}
	if slices.EqualFunc(byDefault, byName, slices.Equal) {
		t.Error("--tie-break simulator placed every pod as --tie-break name: the simulator's node names are not used")
	}
	code, _, errOut := runDrasim(t, "fill", "--nodes", nodes, "--trace", pods, "--tie-break", "first")
	if want := `--tie-break "first": use kube, random, name or simulator`; code != ExitUsage || !strings.Contains(errOut, want) {
		t.Errorf("--tie-break first: exit %d, stderr %q; want exit %d and %q", code, errOut, ExitUsage, want)
	}
}
