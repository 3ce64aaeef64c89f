package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/validate"
	"github.com/spf13/cobra"
)

type run struct {
	code          int
	stdout, stder string
}

func drasim(t *testing.T, stdin string, args ...string) run {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(Streams{In: strings.NewReader(stdin), Out: &out, Err: &errb}, args)
	return run{code: code, stdout: out.String(), stder: errb.String()}
}

const demoScenario = "../../../scenarios/00-demo.yaml"

func TestExitCodes(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	tests := []struct {
		name     string
		args     []string
		wantCode int
		inStderr string
		inStdout string
	}{
		{name: "version", args: []string{"version"}, wantCode: 0, inStdout: "kube-scheduler v1.37.2"},
		{name: "demo", args: []string{"simulate"}, wantCode: 0, inStdout: "Scheduled:", inStderr: "embedded demo"},
		{name: "missing file", args: []string{"simulate", "-f", "/does/not/exist.yaml"}, wantCode: ExitFailure, inStderr: "/does/not/exist.yaml: no such file or directory"},
		{name: "unknown flag", args: []string{"simulate", "--no-such-flag"}, wantCode: ExitUsage, inStderr: "unknown flag"},
		{name: "unknown command", args: []string{"simulat"}, wantCode: ExitUsage, inStderr: "unknown command"},
		{name: "bad output format", args: []string{"simulate", "-o", "xml"}, wantCode: ExitUsage, inStderr: `invalid output format "xml"`},
		{name: "bad feature gate", args: []string{"simulate", "--feature-gates", "DRANoSuchThing=true"}, wantCode: ExitUsage, inStderr: "DRANoSuchThing"},
		{name: "validate without -f validates the demo", args: []string{"validate"}, wantCode: 0, inStderr: "embedded demo", inStdout: "valid: 1 file(s), 0 error(s)"},
		{name: "validate valid", args: []string{"validate", "-f", demoScenario}, wantCode: 0, inStdout: "valid: 1 file(s), 0 error(s)"},
		{name: "explain unknown pod", args: []string{"explain", "default/nope", "-f", demoScenario}, wantCode: ExitFailure, inStderr: "default/nope is not in the snapshot"},
		{name: "explain", args: []string{"explain", "default/infer-4", "-f", demoScenario}, wantCode: 0, inStdout: "CHOSEN"},
		{name: "completion", args: []string{"completion", "bash"}, wantCode: 0, inStdout: "bash completion"},
		{name: "completion needs a shell", args: []string{"completion", "tcsh"}, wantCode: ExitUsage, inStderr: "invalid argument"},
		{name: "explain needs a pod", args: []string{"explain"}, wantCode: ExitUsage, inStderr: "accepts 1 arg(s), received 0"},
		{name: "validate takes no argument", args: []string{"validate", "extra"}, wantCode: ExitUsage, inStderr: "did you mean `-f extra`?"},
		{name: "sweep report needs results", args: []string{"sweep", "report"}, wantCode: ExitUsage, inStderr: "requires at least 1 arg(s)"},
		{name: "sweep needs its file", args: []string{"sweep"}, wantCode: ExitUsage, inStderr: "accepts 1 arg(s), received 0"},
		{name: "flag without its value", args: []string{"simulate", "--seed"}, wantCode: ExitUsage, inStderr: "flag needs an argument"},
		{name: "bad flag value", args: []string{"simulate", "--seed", "x"}, wantCode: ExitUsage, inStderr: "invalid argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := drasim(t, "", tt.args...)
			if r.code != tt.wantCode {
				t.Errorf("exit code: want %d, got %d (stderr %q)", tt.wantCode, r.code, r.stder)
			}
			if !strings.Contains(r.stder, tt.inStderr) {
				t.Errorf("stderr %q does not contain %q", r.stder, tt.inStderr)
			}
			if !strings.Contains(r.stdout, tt.inStdout) {
				t.Errorf("stdout does not contain %q:\n%s", tt.inStdout, r.stdout)
			}
			if strings.Contains(r.stder, "goroutine ") || strings.Contains(r.stder, "Usage:") {
				t.Errorf("stderr has a stack trace or usage spam:\n%s", r.stder)
			}
		})
	}
}

func TestValidateInvalidExitsOne(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: resource.k8s.io/v1alpha3\nkind: ResourceClaim\nmetadata: {name: c}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := drasim(t, "", "validate", "-f", bad, "-o", "json")
	if r.code != ExitFailure {
		t.Fatalf("exit code: want 1, got %d", r.code)
	}
	var rep validate.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, r.stdout)
	}
	if rep.Valid || rep.Errors != 1 || !strings.Contains(rep.Diagnostics[0].Message, "v1alpha3") {
		t.Errorf("want one error about v1alpha3, got %+v", rep)
	}
}

func TestStdinAndJSON(t *testing.T) {
	data, err := os.ReadFile(demoScenario)
	if err != nil {
		t.Fatal(err)
	}
	r := drasim(t, string(data), "simulate", "-f", "-", "-o", "json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stder)
	}
	var res struct {
		Kind    string
		Summary struct{ Scheduled int }
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if res.Kind != "SimulationResult" || res.Summary.Scheduled == 0 {
		t.Errorf("want a SimulationResult with scheduled pods, got %+v", res)
	}
}

func TestOutputSnapshot(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.yaml")
	data, err := os.ReadFile(demoScenario)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r := drasim(t, "", "simulate", "-f", in, "--output-snapshot", in)
	if r.code != ExitUsage || !strings.Contains(r.stder, "read as input") {
		t.Errorf("writing over the input: want exit 2 and a refusal, got %d %q", r.code, r.stder)
	}
	if after, _ := os.ReadFile(in); !bytes.Equal(after, data) {
		t.Errorf("the input file was changed")
	}
	out := filepath.Join(dir, "after.yaml")
	if r := drasim(t, "", "simulate", "-f", in, "--output-snapshot", out); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stder)
	}
	r = drasim(t, "", "simulate", "-f", out, "-o", "json")
	if r.code != 0 {
		t.Fatalf("reloading the output snapshot: exit %d: %s", r.code, r.stder)
	}
	var res struct {
		Summary struct{ Scheduled, AlreadyBound int }
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatal(err)
	}
	if res.Summary.Scheduled != 0 || res.Summary.AlreadyBound == 0 {
		t.Errorf("second run on the output snapshot: want 0 newly scheduled and the first run's pods bound, got %+v", res.Summary)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".after.yaml.tmp-*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

func TestConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "drasim.yaml")
	if err := os.WriteFile(cfg, []byte("output: yaml\nseed: 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The file says yaml.
	r := drasim(t, "", "--config", cfg, "version")
	if !strings.Contains(r.stdout, "kubernetesVersion: v1.37.2") {
		t.Errorf("config file output: yaml not applied:\n%s", r.stdout)
	}
	// The environment beats the file.
	t.Setenv("DRASIM_OUTPUT", "json")
	r = drasim(t, "", "--config", cfg, "version")
	if !strings.Contains(r.stdout, `"kubernetesVersion": "v1.37.2"`) {
		t.Errorf("DRASIM_OUTPUT=json did not win over the file:\n%s", r.stdout)
	}
	// The flag beats both.
	r = drasim(t, "", "--config", cfg, "version", "-o", "table")
	if !strings.HasPrefix(r.stdout, "drasim ") {
		t.Errorf("-o table did not win:\n%s", r.stdout)
	}
	// A broken config file is a usage error naming it.
	broken := filepath.Join(dir, "broken.yaml")
	if err := os.WriteFile(broken, []byte("output: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = drasim(t, "", "--config", broken, "version")
	if r.code != ExitUsage || !strings.Contains(r.stder, broken) {
		t.Errorf("broken config: want exit 2 naming the file, got %d %q", r.code, r.stder)
	}
}

func TestConfigUnknownKeyWarns(t *testing.T) {
	cfg := writeTemp(t, "drasim.yaml", "sed: 7\noutput: yaml\ngroup-by: zone\njunit: x.xml\nfeature:\n  gates: x\n")
	r := drasim(t, "", "--config", cfg, "version")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stder)
	}
	want := "warning: config file " + cfg + `: unknown key "feature" (ignored)` + "\n" +
		"warning: config file " + cfg + `: unknown key "sed" (ignored)` + "\n"
	if r.stder != want {
		t.Errorf("want a warning for each unknown key, none for the keys of other commands and old flag names:\nwant %q\ngot  %q", want, r.stder)
	}
}

// Usage errors are classified by where they come from, not by their words:
// a command's failure whose message starts like one of cobra's complaints
// is a failure (1), not a usage error (2).
func TestFailuresWordedLikeUsageErrorsAreFailures(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, msg := range []string{
		`unknown command "x" for "drasim"`, "unknown flag: --x", "accepts 1 arg(s), received 0",
		"requires at least 1 arg(s)", "invalid argument", "flag needs an argument", "bad flag syntax", "invalid output format",
	} {
		t.Run(msg, func(t *testing.T) {
			var out, errb bytes.Buffer
			streams := Streams{In: strings.NewReader(""), Out: &out, Err: &errb}
			root, prof := newRootCommand(streams)
			root.AddCommand(&cobra.Command{Use: "fail", RunE: func(*cobra.Command, []string) error { return errors.New(msg) }})
			code := execute(context.Background(), root, prof, streams, []string{"fail"})
			if code != ExitFailure {
				t.Errorf("a command failing with %q: want exit %d, got %d (stderr %q)", msg, ExitFailure, code, errb.String())
			}
			if strings.Contains(errb.String(), "--help") {
				t.Errorf("stderr %q points at --help for a failure that is no usage error", errb.String())
			}
		})
	}
}
