package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"path/filepath"
	"testing"

	"github.com/drasim/drasim/sim/analysis"
)

var gateResults = []analysis.GateResult{
	{Name: "nothing pending", Type: analysis.GateMaxPendingPods, Target: "all pods", Passed: false, Measured: ptrTo(3), Op: "<=", Bound: 0, Message: "all pods: pending pods = 3, want <= 0"},
	{Name: "room for inference", Type: analysis.GateMinHeadroom, Target: "shape infer-*", Passed: true, Measured: ptrTo(12), Op: ">=", Bound: 4, Message: "shape infer-*: headroom = 12, want >= 4"},
	{Name: "a100 <fragmentation> & co", Type: analysis.GateMaxFragmentationRate, Target: "class a100", Passed: false, Measured: ptrTo(0.4), Op: "<=", Bound: 0.25, Message: "class a100: fragmentation rate = 0.4, want <= 0.25"},
	// Gates on timelines: durations and costs in their units, a wait of
	// a workload never placed not measured.
	{Name: "inference waits little", Type: analysis.GateMaxWait, Target: "workload infer", Passed: false, Measured: ptrTo(5400), Op: "<=", Bound: 120, Unit: analysis.UnitSeconds, Message: "workload infer: p95 wait = 1h30m, want <= 2m"},
	{Name: "training runs", Type: analysis.GateMaxWait, Target: "workload train", Passed: false, Op: "<=", Bound: 120, Unit: analysis.UnitSeconds, Message: "workload train: p95 wait = none (no placed pod), want <= 2m"},
	{Name: "budget", Type: analysis.GateMaxCost, Target: "all groups", Passed: true, Measured: ptrTo(1234.5678), Op: "<=", Bound: 5000, Unit: analysis.UnitCost, Message: "all groups: cost = 1234.57, want <= 5000.00"},
}

func ptrTo(v float64) *float64 { return &v }

func TestGateRenderersGolden(t *testing.T) {
	renderers := []struct {
		golden string
		write  func(io.Writer) error
	}{
		{"gates.golden.txt", func(w io.Writer) error { return WriteGateTable(w, gateResults) }},
		{"gates.golden.md", func(w io.Writer) error { return WriteGateMarkdown(w, gateResults) }},
		{"gates.golden.junit.xml", func(w io.Writer) error { return WriteJUnit(w, "capacity gates", gateResults) }},
	}
	for _, r := range renderers {
		t.Run(r.golden, func(t *testing.T) {
			var b bytes.Buffer
			if err := r.write(&b); err != nil {
				t.Fatalf("want no error, got: %v", err)
			}
			checkGolden(t, filepath.Join("testdata", "gates", r.golden), b.Bytes())
		})
	}
}

func TestJUnitReadsBack(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, "capacity gates", gateResults); err != nil {
		t.Fatalf("WriteJUnit: %v", err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("reading the JUnit XML back: %v", err)
	}
	if doc.Tests != 6 || doc.Failures != 4 || len(doc.Suites) != 1 || len(doc.Suites[0].TestCases) != 6 {
		t.Fatalf("want 6 tests and 4 failures in one suite, got %d tests, %d failures, %d suites", doc.Tests, doc.Failures, len(doc.Suites))
	}
	for i, tc := range doc.Suites[0].TestCases {
		if failed := tc.Failure != nil; failed == gateResults[i].Passed {
			t.Errorf("testcase %q: want failed=%v, got %v", tc.Name, !gateResults[i].Passed, failed)
		}
	}
	if got, want := doc.Suites[0].TestCases[2].Failure.Message, gateResults[2].Message; got != want {
		t.Errorf("failure message: want %q, got %q", want, got)
	}
}

// TestCheckRenderersGolden renders drasim check's table and markdown: the
// gates above, and the demo's capacity report.
func TestCheckRenderersGolden(t *testing.T) {
	rep := capacityReport(t, filepath.Join(capacityGoldenDir, "demo.input.yaml"))
	for _, r := range []struct {
		golden string
		write  func(io.Writer) error
	}{
		{"check.golden.txt", func(w io.Writer) error { return WriteCheckTable(w, gateResults, rep) }},
		{"check.golden.md", func(w io.Writer) error { return WriteCheckMarkdown(w, gateResults, rep) }},
	} {
		t.Run(r.golden, func(t *testing.T) {
			var b bytes.Buffer
			if err := r.write(&b); err != nil {
				t.Fatalf("want no error, got: %v", err)
			}
			checkGolden(t, filepath.Join("testdata", "gates", r.golden), b.Bytes())
		})
	}
}
