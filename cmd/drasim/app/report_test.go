package app

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Fixtures of the capacity commands: a snapshot with hand-computed numbers
// (sim/analysis/analyze_test.go), its probe file and gates files.
const (
	fragBasic      = "../../../report/testdata/capacity/frag-basic.input.yaml"
	fragBasicProbe = "../../../report/testdata/capacity/frag-basic.probe.yaml"
	gatesPass      = "../../../sim/analysis/testdata/gates/frag-basic.pass.yaml"
	gatesFail      = "../../../sim/analysis/testdata/gates/frag-basic.fail.yaml"
)

// capacityCLI runs a drasim command line in-process, with no config file.
func capacityCLI(t *testing.T, args ...string) run {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	return drasim(t, "", args...)
}

func TestReportCommand(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		inStdout []string
		inStderr string
	}{
		{name: "demo as a table", args: []string{"report"}, wantCode: ExitOK, inStdout: []string{"FRAGMENTATION", "HEADROOM", "infer-*"}, inStderr: "embedded demo"},
		{name: "markdown with a probe file", args: []string{"report", "-f", fragBasic, "--probe", fragBasicProbe, "-o", "markdown"},
			wantCode: ExitOK, inStdout: []string{"## drasim capacity report", "**Fragmentation rate:** 66.7% of 6 idle devices", "| one-\\* | 3 |"}},
		{name: "json", args: []string{"report", "-f", fragBasic, "-o", "json"}, wantCode: ExitOK, inStdout: []string{`"kind": "CapacityReport"`, `"group": "gpu-small"`}},
		{name: "csv", args: []string{"report", "-f", fragBasic, "-o", "csv"}, wantCode: ExitOK, inStdout: []string{"record,namespace,name,workload", "node,,node-c,"}},
		{name: "grouped by zone label", args: []string{"report", "-f", fragBasic, "--group-by", "kubernetes.io/hostname", "-o", "yaml"}, wantCode: ExitOK, inStdout: []string{"groupBy: kubernetes.io/hostname", "name: node-a"}},
		{name: "verbose", args: []string{"report", "-f", fragBasic, "-v", "1"}, wantCode: ExitOK, inStderr: "analyzed 1 shape(s)"},
		{name: "bad output format", args: []string{"report", "-f", fragBasic, "-o", "xml"}, wantCode: ExitUsage, inStderr: `invalid output format "xml"`},
		{name: "bad bound", args: []string{"report", "-f", fragBasic, "--max-headroom", "0"}, wantCode: ExitUsage, inStderr: "--max-headroom must be positive"},
		{name: "missing probe file", args: []string{"report", "-f", fragBasic, "--probe", "/does/not/exist.yaml"}, wantCode: ExitFailure, inStderr: "--probe: /does/not/exist.yaml: no such file or directory"},
		{name: "probe file without pods", args: []string{"report", "-f", fragBasic, "--probe", gatesPass}, wantCode: ExitFailure, inStderr: "no pods (or workloads) in the file"},
		{name: "missing snapshot", args: []string{"report", "-f", "/does/not/exist.yaml"}, wantCode: ExitFailure, inStderr: "/does/not/exist.yaml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := capacityCLI(t, tc.args...)
			if r.code != tc.wantCode {
				t.Fatalf("exit code: want %d, got %d (stderr %q)", tc.wantCode, r.code, r.stder)
			}
			for _, s := range tc.inStdout {
				if !strings.Contains(r.stdout, s) {
					t.Errorf("stdout does not contain %q:\n%s", s, r.stdout)
				}
			}
			if !strings.Contains(r.stder, tc.inStderr) {
				t.Errorf("stderr %q does not contain %q", r.stder, tc.inStderr)
			}
		})
	}
}

func TestReportHTMLFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "capacity.html")
	r := capacityCLI(t, "report", "-f", fragBasic, "--probe", fragBasicProbe, "-o", "html", "--report", out)
	if r.code != ExitOK {
		t.Fatalf("exit code: want 0, got %d (stderr %q)", r.code, r.stder)
	}
	if r.stdout != "" {
		t.Errorf("stdout: want nothing with --report and -o html, got:\n%s", r.stdout)
	}
	if !strings.Contains(r.stder, "Wrote the HTML report to "+out) {
		t.Errorf("stderr %q does not say where the report went", r.stder)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("reading %s: %v", out, err)
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	svgs := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the HTML report is not well-formed XML: %v", err)
		}
		if el, ok := tok.(xml.StartElement); ok && el.Name.Local == "svg" {
			svgs++
		}
	}
	if svgs != 3 {
		t.Errorf("inline SVG charts: want 3 (utilization, fragmentation, headroom), got %d", svgs)
	}

	// With --report and a text format, the text goes to stdout as well.
	r = capacityCLI(t, "report", "-f", fragBasic, "--report", out)
	if r.code != ExitOK || !strings.Contains(r.stdout, "UTILIZATION") {
		t.Errorf("want exit 0 and the table on stdout, got %d and:\n%s", r.code, r.stdout)
	}
	// The report never replaces an input.
	r = capacityCLI(t, "report", "-f", fragBasic, "--report", fragBasic)
	if r.code != ExitUsage || !strings.Contains(r.stder, "refusing to write") {
		t.Errorf("want exit 2 refusing to overwrite the input, got %d: %s", r.code, r.stder)
	}
}
