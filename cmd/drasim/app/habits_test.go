package app

import (
	"strings"
	"testing"
)

// kubectl habits: -n/--namespace, --version, and one rule for "no -f".

func TestExplainNamespaceFlag(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	tests := []struct {
		name     string
		args     []string
		wantCode int
		inStdout string
		inStderr string
	}{
		{name: "-n", args: []string{"explain", "-n", "default", "infer-4"}, inStdout: "Pod default/infer-4,"},
		{name: "--namespace", args: []string{"explain", "infer-4", "--namespace=default"}, inStdout: "Pod default/infer-4,"},
		{name: "namespace/name", args: []string{"explain", "default/infer-4"}, inStdout: "Pod default/infer-4,"},
		{name: "the same namespace twice", args: []string{"explain", "-n", "default", "default/infer-4"}, inStdout: "Pod default/infer-4,"},
		{name: "two namespaces", args: []string{"explain", "-n", "ml", "default/infer-4"}, wantCode: ExitUsage,
			inStderr: `the pod is given as default/infer-4 and -n says ml`},
		{name: "a hint when the name is in another namespace", args: []string{"explain", "-n", "ml", "infer-4"}, wantCode: ExitFailure,
			inStderr: "pod ml/infer-4 is not in the snapshot; a pod infer-4 is in namespace default: use -n default"},
		{name: "no hint for a name nowhere", args: []string{"explain", "nope"}, wantCode: ExitFailure,
			inStderr: "drasim: pod default/nope is not in the snapshot\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := drasim(t, "", tc.args...)
			if r.code != tc.wantCode || !strings.Contains(r.stdout, tc.inStdout) || !strings.Contains(r.stder, tc.inStderr) {
				t.Errorf("%v: want exit %d, %q on stdout and %q on stderr; got %d\nstdout: %.200s\nstderr: %s",
					tc.args, tc.wantCode, tc.inStdout, tc.inStderr, r.code, r.stdout, r.stder)
			}
		})
	}
}

func TestVersionFlag(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	want := drasim(t, "", "version").stdout
	r := drasim(t, "", "--version")
	if r.code != ExitOK || r.stdout != want {
		t.Errorf("--version: want exit 0 and %q (as drasim version), got %d %q %q", want, r.code, r.stdout, r.stder)
	}
}

// Every command that only looks at a snapshot falls back to the embedded
// demo without -f, and says so; check and autoscale, which answer about a
// cluster of one's own, need -f.
func TestNoFileMeansTheDemo(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv(stepSummaryEnv, "")
	gates := writeTemp(t, "gates.yaml", "apiVersion: drasim.io/v1alpha1\nkind: Gates\ngates:\n- name: anything\n  maxPendingPods: {max: 1000}\n")
	for _, args := range [][]string{{"simulate"}, {"explain", "infer-4"}, {"report"}, {"inspect"}, {"validate"}} {
		r := drasim(t, "", args...)
		if r.code != ExitOK || !strings.Contains(r.stder, "No -f given: running the embedded demo scenario") {
			t.Errorf("%v without -f: want exit 0 on the demo, saying so; got %d %q", args, r.code, r.stder)
		}
	}
	for _, args := range [][]string{{"check", "--gates", gates}, {"autoscale"}} {
		r := drasim(t, "", args...)
		if r.code != ExitUsage || !strings.Contains(r.stder, "no snapshot given") {
			t.Errorf("%v without -f: want a usage error, got %d %q", args, r.code, r.stder)
		}
	}
}

// The -o help of each command lists the formats that command offers (the
// global help once said every command took json).
func TestOutputHelpListsTheCommandsFormats(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{"simulate", "output format: table, json, yaml (default"},
		{"report", "output format: table, markdown, json, yaml, csv, html (default"},
		{"check", "output format: table, markdown, json, yaml (default"},
		{"autoscale", "output format: table, markdown, json, yaml (default"},
		{"generate", "output format: table, yaml (default"},
	} {
		cmd, want := tc.cmd, tc.want
		r := drasim(t, "", cmd, "--help")
		if !strings.Contains(r.stdout, want) {
			t.Errorf("%s --help: want %q, got:\n%s", cmd, want, r.stdout)
		}
	}
}
