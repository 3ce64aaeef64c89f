package app

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// GITHUB_STEP_SUMMARY is an output like any --output-* flag: a summary
// that is one of the command's inputs is refused before the run, and the
// input is left as it was.
func TestStepSummaryThatIsAnInputIsRefused(t *testing.T) {
	const timelineGates = "apiVersion: drasim.io/v1alpha1\nkind: Gates\ngates:\n- name: cost\n  maxCost: {max: 1000000}\n"
	tests := []struct {
		name string
		// args gets SNAP, DIR and GATES replaced; victim is one of them.
		args   []string
		victim string
	}{
		{"the snapshot", []string{"check", "-f", "SNAP", "--probe", fragBasicProbe, "--gates", "GATES"}, "SNAP"},
		{"a file of the -f directory", []string{"check", "-f", "DIR", "--probe", fragBasicProbe, "--gates", "GATES"}, "SNAP"},
		{"the gates file", []string{"check", "-f", "SNAP", "--probe", fragBasicProbe, "--gates", "GATES"}, "GATES"},
		{"the timeline's gates file", []string{"timeline", "-f", "SNAP", "--duration", "1h", "--gates", "GATES"}, "GATES"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{
				"DIR":   dir,
				"SNAP":  copyFile(t, fragBasic, dir, "cluster.yaml"),
				"GATES": copyFile(t, gatesFail, t.TempDir(), "gates.yaml"),
			}
			if tc.args[0] == "timeline" {
				files["GATES"] = writeTemp(t, "gates.yaml", timelineGates)
			}
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				if f, ok := files[a]; ok {
					a = f
				}
				args[i] = a
			}
			victim := files[tc.victim]
			before, err := os.ReadFile(victim)
			if err != nil {
				t.Fatal(err)
			}
			t.Setenv(stepSummaryEnv, victim)
			r := capacityCLI(t, args...)
			if r.code != ExitUsage || !strings.Contains(r.stder, stepSummaryEnv+"="+victim) || !strings.Contains(r.stder, "read as input") {
				t.Errorf("want exit %d and a refusal naming %s=%s, got %d %q", ExitUsage, stepSummaryEnv, victim, r.code, r.stder)
			}
			if after, _ := os.ReadFile(victim); !bytes.Equal(after, before) {
				t.Errorf("%s was changed:\n%s", victim, after)
			}
		})
	}
}

// A summary in a directory that does not exist fails before the replay,
// as an output flag's would.
func TestStepSummaryCheckedBeforeTheRun(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no", "summary.md")
	t.Setenv(stepSummaryEnv, missing)
	r := capacityCLI(t, "check", "-f", fragBasic, "--probe", fragBasicProbe, "--gates", gatesFail, "-o", "json")
	if r.code != ExitFailure || !strings.Contains(r.stder, stepSummaryEnv+"="+missing) || r.stdout != "" {
		t.Errorf("want exit %d naming %s=%s and no report, got %d %q, stdout %q", ExitFailure, stepSummaryEnv, missing, r.code, r.stder, r.stdout)
	}
}

// A command that writes no summary (no --gates) ignores the variable.
func TestStepSummaryIgnoredWithoutGates(t *testing.T) {
	t.Setenv(stepSummaryEnv, demoScenario)
	r := capacityCLI(t, "timeline", "-f", demoScenario, "--duration", "10m", "-o", "json")
	if r.code != ExitOK {
		t.Errorf("timeline without --gates: want exit 0, got %d %q", r.code, r.stder)
	}
}

// Two outputs naming one file would overwrite each other: refused, whether
// the paths are spelled the same or not, and with GITHUB_STEP_SUMMARY too.
func TestTwoOutputsOneFileIsAnError(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.yaml")
	if err := os.WriteFile(filepath.Join(dir, "existing.xml"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("existing.xml", filepath.Join(dir, "link.xml")); err != nil {
		t.Fatal(err)
	}
	t.Setenv(stepSummaryEnv, "")
	tests := []struct {
		name    string
		summary string
		args    []string
		want    []string
	}{
		{"same path", "", []string{"simulate", "-f", demoScenario, "--output-snapshot", out, "--output-cpuprofile", out}, []string{"--output-snapshot " + out, "--output-cpuprofile " + out}},
		{"spelled differently", "", []string{"simulate", "-f", demoScenario, "--output-snapshot", out, "--output-memprofile", dir + "/./out.yaml"}, []string{"--output-snapshot", "--output-memprofile"}},
		{"through a symlink", "", []string{"check", "-f", fragBasic, "--probe", fragBasicProbe, "--gates", gatesFail, "--output-junit", filepath.Join(dir, "existing.xml"), "--output-cpuprofile", filepath.Join(dir, "link.xml")}, []string{"--output-junit", "--output-cpuprofile"}},
		{"the step summary", filepath.Join(dir, "existing.xml"), []string{"check", "-f", fragBasic, "--probe", fragBasicProbe, "--gates", gatesFail, "--output-junit", filepath.Join(dir, "existing.xml")}, []string{"--output-junit", stepSummaryEnv}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(stepSummaryEnv, tc.summary)
			r := capacityCLI(t, tc.args...)
			ok := r.code == ExitUsage && strings.Contains(r.stder, "same file")
			for _, w := range tc.want {
				ok = ok && strings.Contains(r.stder, w)
			}
			if !ok {
				t.Errorf("want exit %d and an error naming %q and \"same file\", got %d %q", ExitUsage, tc.want, r.code, r.stder)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
			}
		})
	}
}
