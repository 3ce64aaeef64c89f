package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/load"
)

const autoscaleScenarios = "../../../scenarios/autoscale/"

// runAutoscaleCmd runs drasim autoscale -o output args... in-process.
func runAutoscaleCmd(t *testing.T, output string, args ...string) (int, string, string) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	r := drasim(t, "", append([]string{"autoscale", "-o", output}, args...)...)
	return r.code, r.stdout, r.stder
}

func TestAutoscaleCommand(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	fa := autoscaleScenarios + "first-available.yaml"
	tests := []struct {
		name     string
		output   string
		args     []string
		wantCode int
		inStdout []string
		inStderr string
	}{
		{name: "table", output: "table", args: []string{"-f", fa, "--expander", "first-available"},
			inStdout: []string{"Scale-up: 1 node(s) in 1 loop(s), costing 12.00 per hour", "by first-available"}},
		{name: "markdown", output: "markdown", args: []string{"-f", fa, "--expander", "price"}, inStdout: []string{"## drasim scale-up plan", "| l4 | 0 | 1 | 4 | 1 | 3.00 |"}},
		{name: "compare", output: "table", args: []string{"-f", fa, "--compare-expanders", "price,first-available,most-pods+least-nodes"},
			inStdout: []string{"first-available         1       12.00   h100+1", "most-pods,least-nodes", "FRAGMENTATION AFTER", "% of "}},
		{name: "priority", output: "table", args: []string{"-f", autoscaleScenarios + "loops.yaml", "--expander", "priority", "--expander-priority-config", autoscaleScenarios + "config/priority-expander.yaml"},
			inStdout: []string{"priority kept cpu (priority: cpu 50, gpu 10)"}},
		{name: "limits", output: "table", args: []string{"-f", autoscaleScenarios + "loops.yaml", "--expander", "least-nodes", "--max-nodes-per-scaleup", "1", "--max-loops", "2"},
			inStdout: []string{"Stopped: --max-loops 2 reached"}},
		{name: "unknown expander", output: "table", args: []string{"-f", fa, "--expander", "cheapest"}, wantCode: ExitUsage, inStderr: `--expander: unknown expander "cheapest"`},
		{name: "priority without config", output: "table", args: []string{"-f", fa, "--expander", "priority"}, wantCode: ExitUsage, inStderr: "needs --expander-priority-config"},
		{name: "no snapshot", output: "table", wantCode: ExitUsage, inStderr: "no snapshot given"},
		{name: "no node groups", output: "table", args: []string{"-f", demoScenario}, wantCode: ExitFailure, inStderr: "no NodeGroup in the snapshot"},
		{name: "bad output", output: "html", args: []string{"-f", fa}, wantCode: ExitUsage, inStderr: `invalid output format "html"`},
		{name: "bad weight", output: "table", args: []string{"-f", fa, "--device-class-weights", "h100.gpu.example.com=x"}, wantCode: ExitUsage, inStderr: "want a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runAutoscaleCmd(t, tt.output, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit code: want %d, got %d (stderr %q)", tt.wantCode, code, stderr)
			}
			for _, s := range tt.inStdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout does not contain %q:\n%s", s, stdout)
				}
			}
			if !strings.Contains(stderr, tt.inStderr) {
				t.Errorf("stderr %q does not contain %q", stderr, tt.inStderr)
			}
		})
	}
}

func TestAutoscaleJSONAndOutputSnapshot(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	out := filepath.Join(t.TempDir(), "after.yaml")
	code, stdout, stderr := runAutoscaleCmd(t, "json", "-f", autoscaleScenarios+"partitionable.yaml", "--output-snapshot", out)
	if code != ExitOK {
		t.Fatalf("exit code: want 0, got %d (stderr %q)", code, stderr)
	}
	var plan struct {
		Kind       string `json:"kind"`
		NodesAdded int    `json:"nodesAdded"`
	}
	if err := json.Unmarshal([]byte(stdout), &plan); err != nil {
		t.Fatalf("stdout is not JSON: %v", err)
	}
	if plan.Kind != "ScaleUpPlan" || plan.NodesAdded != 2 {
		t.Errorf("want a ScaleUpPlan adding 2 nodes, got kind %q adding %d", plan.Kind, plan.NodesAdded)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("--output-snapshot: %v", err)
	}
	res, err := load.LoadBytes(out, data, load.Options{})
	if err != nil {
		t.Fatalf("the output snapshot does not load: %v", err)
	}
	if len(res.Snapshot.Nodes) != 2 {
		t.Errorf("want the 2 new nodes in the output snapshot, got %d", len(res.Snapshot.Nodes))
	}
}

// The headline of simulate --autoscale describes the cluster its numbers
// are about: the one after the scale-up (template-from grows gpu from 1 to
// 4 nodes of 4 GPUs; the 8 pods of work and one daemon pod per new node
// are placed).
func TestSimulateAutoscaleHeadlineIsTheScaledCluster(t *testing.T) {
	r := drasim(t, "", "simulate", "--autoscale", "-f", autoscaleScenarios+"template-from.yaml")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stder)
	}
	want := "Replayed 11 pending pod(s) on 4 node(s) with 16 device(s)"
	if !strings.Contains(r.stdout, want) {
		t.Errorf("want the headline %q, got:\n%s", want, r.stdout)
	}
	r = drasim(t, "", "simulate", "--autoscale", "-f", autoscaleScenarios+"template-from.yaml", "-o", "json")
	var res struct {
		Inputs  struct{ Nodes, PendingPods, Devices int }
		Summary struct{ Scheduled, Unschedulable int }
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if res.Inputs.Nodes != 4 || res.Inputs.Devices != 16 || res.Inputs.PendingPods != res.Summary.Scheduled+res.Summary.Unschedulable {
		t.Errorf("want inputs of the scaled cluster (4 nodes, 16 devices, every pod the replays decided), got %+v, summary %+v", res.Inputs, res.Summary)
	}
}
