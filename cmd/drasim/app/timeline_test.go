package app

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/timeline"
)

const timelineTestdata = "../../../sim/timeline/testdata/"

// runDrasim runs a whole command line in-process.
func runDrasim(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, args)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTimelineCommand(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	pass := writeFile(t, dir, "pass.yaml", `apiVersion: drasim.io/v1alpha1
kind: Gates
gates:
- name: waits
  maxWait: {percentile: 95, max: 15m}
- name: everything placed
  maxNeverPlaced: {max: 0}
- name: cost
  maxCost: {max: 1}
`)
	fail := writeFile(t, dir, "fail.yaml", `apiVersion: drasim.io/v1alpha1
kind: Gates
gates:
- name: no wait at all
  maxWait: {percentile: 99, max: 1m}
`)
	capacityGate := writeFile(t, dir, "capacity.yaml", `apiVersion: drasim.io/v1alpha1
kind: Gates
gates:
- name: headroom
  minHeadroom: {shape: x, min: 1}
`)
	queue := timelineTestdata + "queue.yaml"
	tests := []struct {
		name     string
		args     []string
		wantCode int
		inStdout []string
		inStderr string
	}{
		{name: "demo", args: []string{"timeline"}, inStdout: []string{"Timeline of ", "48 arrival(s)", "WAIT BY WORKLOAD", "SCALE-UPS", "TIME SERIES"},
			inStderr: "running the embedded demo timeline"},
		{name: "hand-computed queue", args: []string{"timeline", "-f", queue}, inStdout: []string{
			"Timeline of 50m0s: 1 node(s) at the start, 0 arrival(s), autoscaler off",
			"Wait from arrival to binding (3 placed pods): p50 0s, p95 10m0s, p99 10m0s, max 10m0s"}},
		{name: "duration and resolution", args: []string{"timeline", "-f", queue, "--duration", "15m", "--resolution", "1m", "-o", "csv"},
			inStdout: []string{"record,time,namespace", "sample,900,"}},
		{name: "trace", args: []string{"timeline", "-f", queue, "--trace", timelineTestdata + "trace.csv", "-o", "markdown"},
			inStdout: []string{"## drasim timeline", "| infer | 1 |"}},
		{name: "openb", args: []string{"timeline", "--trace", timelineTestdata + "openb/openb_node_list_small.csv", "--trace", timelineTestdata + "openb/openb_pod_list_small.csv"},
			inStdout: []string{"3 node(s) at the start, 5 arrival(s)"}},
		{name: "compare", args: []string{"timeline", "--compare", "price=--expander price", "--compare", "fast=--scale-down-unneeded-time 2m --expander 'least-nodes,price'"},
			inStdout: []string{"RUN", "base", "price   ", "--expander price", "fast", "--scale-down-unneeded-time 2m --expander least-nodes,price"}},
		{name: "gates pass", args: []string{"timeline", "-f", queue, "--gates", pass}, inStdout: []string{"waits", "PASS"}},
		{name: "gates fail", args: []string{"timeline", "-f", queue, "--gates", fail}, wantCode: ExitGateFailed, inStdout: []string{"FAIL"}, inStderr: `1 of 1 gate(s) failed: "no wait at all"`},
		{name: "capacity gate on a timeline", args: []string{"timeline", "-f", queue, "--gates", capacityGate}, wantCode: ExitFailure, inStderr: "minHeadroom is a gate on capacity reports"},
		{name: "junit without gates", args: []string{"timeline", "--output-junit", filepath.Join(dir, "j.xml")}, wantCode: ExitUsage, inStderr: "--output-junit needs --gates"},
		{name: "compare changes the input", args: []string{"timeline", "--compare", "x=--trace other.csv"}, wantCode: ExitUsage, inStderr: "--trace cannot change in a comparison"},
		{name: "compare without name", args: []string{"timeline", "--compare", "--expander price"}, wantCode: ExitUsage, inStderr: "want NAME=FLAGS"},
		{name: "bad threshold", args: []string{"timeline", "--scale-down-utilization-threshold", "2"}, wantCode: ExitUsage, inStderr: "must be between 0 and 1"},
		{name: "bad trace", args: []string{"timeline", "-f", queue, "--trace", writeFile(t, dir, "bad.csv", "arrival,workload\nlater,x\n")}, wantCode: ExitFailure,
			inStderr: `bad.csv:2: column arrival: "later" is neither a duration`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runDrasim(t, tt.args...)
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

// TestTimelineOutputsAndCheck: the JSON a timeline writes is what check
// --timeline reads; the HTML report goes to --output-html.
func TestTimelineOutputsAndCheck(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	html := filepath.Join(dir, "day.html")
	code, stdout, stderr := runDrasim(t, "timeline", "-f", timelineTestdata+"scaleup.yaml", "-o", "json", "--output-html", html)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res timeline.Result
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("-o json does not parse: %v", err)
	}
	if res.Kind != timeline.Kind || len(res.ScaleUps) != 1 || len(res.ScaleDowns) != 1 {
		t.Errorf("kind %q, %d scale-up(s), %d scale-down(s); want Timeline, 1, 1", res.Kind, len(res.ScaleUps), len(res.ScaleDowns))
	}
	page, err := os.ReadFile(html)
	if err != nil || !bytes.Contains(page, []byte(`id="chart-nodes"`)) {
		t.Errorf("--output-html did not write the HTML page with its charts (err %v)", err)
	}
	day := writeFile(t, dir, "day.json", stdout)
	gates := writeFile(t, dir, "gates.yaml", `apiVersion: drasim.io/v1alpha1
kind: Gates
gates:
- name: pods wait at most the provisioning
  maxWait: {percentile: 100, max: 3m10s, workload: Job/train}
- name: gpu nodes cost under 0.40
  maxCost: {max: 0.40, group: gpu}
`)
	junit := filepath.Join(dir, "junit.xml")
	code, stdout, stderr = runDrasim(t, "check", "--timeline", day, "--gates", gates, "--output-junit", junit)
	if code != 0 {
		t.Errorf("check --timeline: exit %d, stdout %s, stderr %s", code, stdout, stderr)
	}
	if data, err := os.ReadFile(junit); err != nil || !bytes.Contains(data, []byte("gpu nodes cost under 0.40")) {
		t.Errorf("--output-junit did not write the verdicts (err %v)", err)
	}
	tight := writeFile(t, dir, "tight.yaml", `apiVersion: drasim.io/v1alpha1
kind: Gates
gates:
- name: cheap
  maxCost: {max: 0.1}
- name: unknown workload
  maxNeverPlaced: {max: 0, workload: nope}
`)
	code, _, stderr = runDrasim(t, "check", "--timeline", day, "--gates", tight)
	if code != ExitFailure || !strings.Contains(stderr, `no workload "nope" in the timeline`) {
		t.Errorf("unknown workload: exit %d, stderr %q; want 1 and the workload named", code, stderr)
	}
	code, _, stderr = runDrasim(t, "check", "--timeline", day, "--gates", tight, "-f", "x.yaml")
	if code != ExitUsage || !strings.Contains(stderr, "takes no -f") {
		t.Errorf("--timeline with -f: exit %d, stderr %q", code, stderr)
	}
}

func TestGenerateTraceCommand(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	code, stdout, stderr := runDrasim(t, "generate", "trace", "--arrivals", "50", "--horizon", "1h", "--seed", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 52 || !strings.HasPrefix(lines[1], "arrival,workload,namespace") {
		t.Errorf("want a comment, a header and 50 rows, got %d lines starting %q", len(lines), lines[:2])
	}
	if code, _, stderr := runDrasim(t, "generate", "trace", "--daily-cycle", "2"); code != ExitUsage || !strings.Contains(stderr, "daily-cycle") {
		t.Errorf("--daily-cycle 2: exit %d, stderr %q", code, stderr)
	}
}

// TestTimelineGatesKeepTheTimeline: with --gates, -o json still writes the
// Timeline (what check --timeline reads back); the verdicts go to
// --output-gates. A maxWait gate on a workload never placed fails the
// gate (exit 3), it is not a bad input; verdicts keep their units.
func TestTimelineGatesKeepTheTimeline(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	// Four GPUs on queue.yaml's node of two: never placed.
	trace := writeFile(t, dir, "huge.csv", "arrival,workload,replicas,cpu,memory,claim_template,devices,device_class,duration,priority\n"+
		"1m,huge,1,1,1Gi,,4,gpu.example.com,10m,0\n")
	gates := writeFile(t, dir, "gates.yaml", `apiVersion: drasim.io/v1alpha1
kind: Gates
gates:
- name: train waits little
  maxWait: {percentile: 95, max: 15m, workload: Job/train}
- name: huge waits little
  maxWait: {percentile: 95, max: 1h30m, workload: huge}
`)
	verdicts := filepath.Join(dir, "verdicts.json")
	code, stdout, stderr := runDrasim(t, "timeline", "-f", timelineTestdata+"queue.yaml", "--trace", trace, "--gates", gates, "-o", "json", "--output-gates", verdicts)
	if code != ExitGateFailed || !strings.Contains(stderr, `1 of 2 gate(s) failed: "huge waits little"`) {
		t.Fatalf("timeline --gates: want exit 3 naming the failed gate, got %d, stderr %q", code, stderr)
	}
	var res timeline.Result
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Kind != timeline.Kind {
		t.Fatalf("-o json with --gates: want the Timeline, got kind %q (err %v):\n%.300s", res.Kind, err, stdout)
	}
	for _, w := range res.Summary.ByWorkload {
		if w.Workload == "huge" && w.P95 != nil {
			t.Errorf("workload huge never placed: want p95 null, got %v", *w.P95)
		}
	}
	data, err := os.ReadFile(verdicts)
	if err != nil {
		t.Fatalf("--output-gates: %v", err)
	}
	var rep struct {
		Kind    string
		Results []struct {
			Name     string
			Passed   bool
			Measured *float64
			Unit     string
			Message  string
		}
	}
	if err := json.Unmarshal(data, &rep); err != nil || rep.Kind != "GateReport" || len(rep.Results) != 2 {
		t.Fatalf("--output-gates: want a GateReport of 2 verdicts, got %s (err %v)", data, err)
	}
	if r := rep.Results[1]; r.Passed || r.Measured != nil || r.Unit != "seconds" || r.Message != "workload huge: p95 wait = none (no placed pod), want <= 1h30m" {
		t.Errorf("huge's verdict: want failed, measured null, in seconds, got %+v", r)
	}

	// The saved timeline checks the same with check --timeline; the table
	// shows the units.
	day := writeFile(t, dir, "day.json", stdout)
	code, stdout, stderr = runDrasim(t, "check", "--timeline", day, "--gates", gates)
	if code != ExitGateFailed {
		t.Errorf("check --timeline: want exit 3, got %d (stderr %q)", code, stderr)
	}
	for _, s := range []string{"train waits little   PASS", "10m     ", "<= 15m", "huge waits little    FAIL     workload huge        -", "<= 1h30m"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("check --timeline table: want %q in\n%s", s, stdout)
		}
	}

	// -o table shows the timeline and then the verdicts.
	code, stdout, _ = runDrasim(t, "timeline", "-f", timelineTestdata+"queue.yaml", "--trace", trace, "--gates", gates)
	if code != ExitGateFailed || !strings.Contains(stdout, "Timeline of ") || !strings.Contains(stdout, "huge waits little") {
		t.Errorf("timeline --gates -o table: want exit 3, the timeline and the verdicts, got %d:\n%s", code, stdout)
	}
	if code, _, stderr := runDrasim(t, "timeline", "--output-gates", verdicts); code != ExitUsage || !strings.Contains(stderr, "--output-gates needs --gates") {
		t.Errorf("--output-gates without --gates: want a usage error, got %d, %q", code, stderr)
	}
}
