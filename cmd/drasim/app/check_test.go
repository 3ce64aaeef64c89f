package app

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/analysis"
)

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatalf("writing %s: %v", path, err)
	}
	return path
}

func TestCheckExitCodes(t *testing.T) {
	t.Setenv(stepSummaryEnv, "")
	badGates := writeTemp(t, "bad.yaml", "apiVersion: drasim.io/v1alpha1\nkind: Gates\ngates:\n- name: frag\n  maxFragmentationRate: {class: gpu.example.com, max: 25}\n")
	unknownShape := writeTemp(t, "shape.yaml", "apiVersion: drasim.io/v1alpha1\nkind: Gates\ngates:\n- name: room\n  minHeadroom: {shape: nope, min: 1}\n")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		inStdout string
		inStderr string
	}{
		{name: "every gate passes", args: []string{"check", "-f", fragBasic, "--probe", fragBasicProbe, "--gates", gatesPass},
			wantCode: ExitOK, inStdout: "All 8 gate(s) passed."},
		{name: "gates fail", args: []string{"check", "-f", fragBasic, "--probe", fragBasicProbe, "--gates", gatesFail},
			wantCode: ExitGateFailed, inStdout: "4 of 5 gate(s) failed.", inStderr: `drasim: 4 of 5 gate(s) failed: "nothing pending", "room for pairs", "GPU fragmentation", "GPU utilization"`},
		{name: "gates file with an out-of-range share", args: []string{"check", "-f", fragBasic, "--gates", badGates},
			wantCode: ExitFailure, inStderr: `bad.yaml:5: gate "frag" (gates[0]): maxFragmentationRate.max: must be a share between 0 and 1, got 25`},
		{name: "gate names a shape the mix lacks", args: []string{"check", "-f", fragBasic, "--probe", fragBasicProbe, "--gates", unknownShape},
			wantCode: ExitFailure, inStderr: `minHeadroom.shape: no shape "nope" in the mix; shapes: cpu, one-*, two`},
		{name: "missing gates file", args: []string{"check", "-f", fragBasic, "--gates", "/does/not/exist.yaml"},
			wantCode: ExitFailure, inStderr: "--gates: open /does/not/exist.yaml: no such file or directory"},
		{name: "no --gates", args: []string{"check", "-f", fragBasic}, wantCode: ExitUsage, inStderr: "no gates file given"},
		{name: "no -f", args: []string{"check", "--gates", gatesPass}, wantCode: ExitUsage, inStderr: "no snapshot given"},
		{name: "bad snapshot", args: []string{"check", "-f", "/does/not/exist.yaml", "--gates", gatesPass}, wantCode: ExitFailure, inStderr: "/does/not/exist.yaml"},
		{name: "csv is not a check format", args: []string{"check", "-f", fragBasic, "--gates", gatesPass, "-o", "csv"}, wantCode: ExitUsage, inStderr: `invalid output format "csv"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := capacityCLI(t, tc.args...)
			if r.code != tc.wantCode {
				t.Fatalf("exit code: want %d, got %d (stderr %q)", tc.wantCode, r.code, r.stder)
			}
			if !strings.Contains(r.stdout, tc.inStdout) {
				t.Errorf("stdout does not contain %q:\n%s", tc.inStdout, r.stdout)
			}
			if !strings.Contains(r.stder, tc.inStderr) {
				t.Errorf("stderr %q does not contain %q", r.stder, tc.inStderr)
			}
		})
	}
}

func TestCheckJSON(t *testing.T) {
	t.Setenv(stepSummaryEnv, "")
	r := capacityCLI(t, "check", "-f", fragBasic, "--probe", fragBasicProbe, "--gates", gatesFail, "-o", "json")
	if r.code != ExitGateFailed {
		t.Fatalf("exit code: want %d, got %d (stderr %q)", ExitGateFailed, r.code, r.stder)
	}
	var got analysis.GateReport
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("stdout is not a JSON GateReport: %v\n%s", err, r.stdout)
	}
	if got.Kind != analysis.GateReportKind || got.Passed || got.Failed != 4 || len(got.Results) != 5 {
		t.Errorf("want kind %s, not passed, 4 of 5 failed; got kind %s, passed %v, %d of %d failed", analysis.GateReportKind, got.Kind, got.Passed, got.Failed, len(got.Results))
	}
}

func TestCheckJUnitAndStepSummary(t *testing.T) {
	dir := t.TempDir()
	junit := filepath.Join(dir, "capacity.xml")
	summary := filepath.Join(dir, "summary.md")
	if err := os.WriteFile(summary, []byte("# earlier step\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(stepSummaryEnv, summary)
	r := capacityCLI(t, "check", "-f", fragBasic, "--probe", fragBasicProbe, "--gates", gatesFail, "--junit", junit)
	if r.code != ExitGateFailed {
		t.Fatalf("exit code: want %d, got %d (stderr %q)", ExitGateFailed, r.code, r.stder)
	}

	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatalf("reading the JUnit file: %v", err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("the JUnit file is not XML: %v\n%s", err, data)
	}
	if doc.Tests != 5 || doc.Failures != 4 || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 5 {
		t.Fatalf("JUnit: want 5 testcases and 4 failures in one suite, got %d tests and %d failures:\n%s", doc.Tests, doc.Failures, data)
	}
	first := doc.Suites[0].Cases[0]
	if first.Name != "nothing pending" || first.Failure == nil || first.Failure.Message != "all pods: pending pods = 1, want <= 0" {
		t.Errorf("first testcase: want a failure with the measured value and the bound, got %+v", first)
	}

	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatalf("reading the step summary: %v", err)
	}
	for _, want := range []string{"# earlier step\n", "## drasim capacity gates", "4 of 5 gate(s) failed.", "| room for pairs | **FAIL** |", "## drasim capacity report"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("step summary does not contain %q:\n%s", want, md)
		}
	}
}
