package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A value that does not parse names where it came from and what was
// wanted, in words: no Go parser's message.
func TestConfigErrorsNameTheirSource(t *testing.T) {
	tests := []struct {
		name   string
		env    map[string]string
		config string
		args   []string
		want   []string
	}{
		{name: "a flag", args: []string{"simulate", "--seed", "abc"}, want: []string{`invalid argument "abc" for --seed: want a whole number`}},
		{name: "a shorthand flag", args: []string{"version", "-v", "x"}, want: []string{`invalid argument "x" for --verbosity: want a whole number`}},
		{name: "a bool flag", args: []string{"simulate", "--score-all-nodes=maybe"}, want: []string{`invalid argument "maybe" for --score-all-nodes: want true or false`}},
		{name: "a duration flag", args: []string{"timeline", "--duration", "soon"}, want: []string{`invalid argument "soon" for --duration: want a duration such as 90s, 10m or 1h30m`}},
		{name: "a variable", env: map[string]string{"DRASIM_SEED": "abc"}, args: []string{"simulate"}, want: []string{`DRASIM_SEED="abc": want a whole number`}},
		{name: "a bool variable", env: map[string]string{"DRASIM_SCORE_ALL_NODES": "maybe"}, args: []string{"simulate"}, want: []string{`DRASIM_SCORE_ALL_NODES="maybe": want true or false`}},
		{name: "a config key", config: "seed: abc\n", args: []string{"simulate"}, want: []string{`config file CONFIG: seed: "abc": want a whole number`}},
		{name: "a variable out of range", env: map[string]string{"DRASIM_VERBOSITY": "99999999999999999999999"}, args: []string{"version"}, want: []string{`DRASIM_VERBOSITY="99999999999999999999999": out of range`}},
		{name: "a late check of a variable", env: map[string]string{"DRASIM_PARALLELISM": "0"}, args: []string{"simulate"}, want: []string{"DRASIM_PARALLELISM must be at least 1, got 0"}},
		{name: "a late check of a config key", config: "parallelism: 0\n", args: []string{"simulate"}, want: []string{"config file CONFIG: parallelism must be at least 1, got 0"}},
		{name: "a bad format from the environment", env: map[string]string{"DRASIM_TIE_BREAK": "coin"}, args: []string{"simulate"}, want: []string{"DRASIM_TIE_BREAK: "}},
		{name: "a check naming the flag", env: map[string]string{"DRASIM_MAX_LOOPS": "0"}, args: []string{"autoscale", "-f", "x.yaml"}, want: []string{"--max-loops must be at least 1", "(--max-loops is set by DRASIM_MAX_LOOPS)"}},
		{name: "a check naming the flag from the file", config: "max-loops: 0\n", args: []string{"autoscale", "-f", "x.yaml"}, want: []string{"(--max-loops is set by config file CONFIG: max-loops)"}},
		{name: "an output format from the environment", env: map[string]string{"DRASIM_OUTPUT": "xml"}, args: []string{"simulate"}, want: []string{`DRASIM_OUTPUT: invalid output format "xml"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			args := tc.args
			cfg := ""
			if tc.config != "" {
				cfg = writeTemp(t, "config.yaml", tc.config)
				args = append([]string{"--config", cfg}, args...)
			}
			r := drasim(t, "", args...)
			if r.code != ExitUsage {
				t.Errorf("want exit %d, got %d %q", ExitUsage, r.code, r.stder)
			}
			for _, w := range tc.want {
				if w = strings.ReplaceAll(w, "CONFIG", cfg); !strings.Contains(r.stder, w) {
					t.Errorf("stderr %q does not contain %q", r.stder, w)
				}
			}
			for _, internal := range []string{"strconv", "Parse", "time: "} {
				if strings.Contains(r.stder, internal) {
					t.Errorf("stderr shows Go internals (%q): %q", internal, r.stder)
				}
			}
		})
	}
}

// An unknown DRASIM_* variable is most likely a typo: it warns as an
// unknown config key does. Variables of drasim's own tooling do not.
func TestUnknownEnvironmentVariableWarns(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("DRASIM_SEEED", "7")
	t.Setenv("DRASIM_OUTPUT", "yaml")
	t.Setenv("DRASIM_JUNIT", "")
	t.Setenv("DRASIM_REALWORLD", "1")
	t.Setenv("DRASIM_A", "")
	r := drasim(t, "", "version")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stder)
	}
	want := `warning: environment variable DRASIM_SEEED names no flag of any drasim command (ignored)` + "\n"
	if r.stder != want {
		t.Errorf("want one warning for DRASIM_SEEED:\nwant %q\ngot  %q", want, r.stder)
	}
	if !strings.Contains(r.stdout, "kubernetesVersion:") {
		t.Errorf("DRASIM_OUTPUT=yaml not applied:\n%s", r.stdout)
	}
}

// DRASIM_CONFIG names the config file as --config does.
func TestConfigFromEnvironment(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("DRASIM_CONFIG", writeTemp(t, "c.yaml", "output: yaml\n"))
	r := drasim(t, "", "version")
	if r.code != ExitOK || !strings.Contains(r.stdout, "kubernetesVersion:") {
		t.Errorf("DRASIM_CONFIG: want its output: yaml applied, got %d %q\n%s", r.code, r.stder, r.stdout)
	}
}

// A snapshot that happens to be called drasim.yaml in the working
// directory is not a config file: it is neither read nor warned about.
// A config file there still is one; --config naming a snapshot is an error.
func TestSnapshotNamedDrasimYAMLIsNotAConfig(t *testing.T) {
	demo, err := filepath.Abs(demoScenario)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	t.Chdir(dir)
	copyFile(t, demo, dir, "drasim.yaml")
	want := drasim(t, "", "simulate", "-f", demo, "-o", "json")
	if want.code != ExitOK || want.stder != "" {
		t.Errorf("a snapshot called drasim.yaml: want exit 0 and nothing on stderr, got %d %q", want.code, want.stder)
	}
	// Kubernetes lists are snapshots too.
	if err := os.WriteFile(filepath.Join(dir, "drasim.yaml"), []byte("apiVersion: v1\nkind: List\nitems: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := drasim(t, "", "version"); r.code != ExitOK || r.stder != "" {
		t.Errorf("a List called drasim.yaml: want exit 0 and nothing on stderr, got %d %q", r.code, r.stder)
	}
	if err := os.WriteFile(filepath.Join(dir, "drasim.yaml"), []byte("output: yaml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := drasim(t, "", "version"); r.code != ExitOK || !strings.Contains(r.stdout, "kubernetesVersion:") {
		t.Errorf("a config called drasim.yaml: want output: yaml applied, got %d %q\n%s", r.code, r.stder, r.stdout)
	}
	r := drasim(t, "", "--config", demo, "version")
	if r.code != ExitUsage || !strings.Contains(r.stder, "config file "+demo+": a Kubernetes object (kind ") {
		t.Errorf("--config naming a snapshot: want exit %d saying it is a Kubernetes object, got %d %q", ExitUsage, r.code, r.stder)
	}
}
