package app

import (
	"strings"
	"testing"
)

func TestPolicyFlag(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	code, def, errOut := runDrasim(t, "simulate", "-o", "json")
	if code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, errOut)
	}
	code, kube, errOut := runDrasim(t, "simulate", "-o", "json", "--policy", "kube")
	if code != 0 || kube != def {
		t.Errorf("--policy kube: exit %d (%s), output equal to the default: %v", code, errOut, kube == def)
	}
	for _, p := range []string{"random", "dot-product", "gpu-clustering", "gpu-packing", "best-fit", "fgd"} {
		code, _, errOut := runDrasim(t, "simulate", "--policy", p, "--seed", "3")
		if code != 0 {
			t.Errorf("--policy %s: exit %d: %s", p, code, errOut)
		}
	}
	code, a, _ := runDrasim(t, "simulate", "-o", "json", "--policy", "random", "--seed", "5")
	_, b, _ := runDrasim(t, "simulate", "-o", "json", "--policy", "random", "--seed", "5")
	if code != 0 || a != b {
		t.Errorf("--policy random --seed 5 twice: exit %d, same output: %v", code, a == b)
	}
	// A research policy breaks ties as the paper's simulator (the smallest
	// node name), and says so; --tie-break still overrides it.
	for args, want := range map[string]string{
		"--policy gpu-packing":                  `"tieBreak": "name"`,
		"--policy gpu-packing --tie-break kube": `"tieBreak": "kube"`,
		"--policy fgd --tie-break random":       `"tieBreak": "random"`,
	} {
		code, out, errOut := runDrasim(t, append([]string{"simulate", "-o", "json"}, strings.Fields(args)...)...)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("simulate %s: exit %d (%s); want %s in the result's inputs", args, code, errOut, want)
		}
	}
	if code, out, _ := runDrasim(t, "simulate", "--policy", "best-fit"); code != 0 || !strings.Contains(out, "ties to the smallest node name") {
		t.Errorf("simulate --policy best-fit: exit %d; want the table to name the tie-break, got:\n%s", code, out)
	}
}

func TestPolicyBadInput(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	config := func(name, plugins, args string) string {
		return writeFile(t, dir, name, `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
`+plugins+`
  pluginConfig:
`+args)
	}
	enabled := "      enabled:\n      - {name: DrasimPolicy, weight: 5}\n"
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown policy", []string{"--policy", "tetris"}, `--policy: unknown policy "tetris"`},
		{"threshold out of range", []string{"--scheduler-config", config("range.yaml", enabled, "  - name: DrasimPolicy\n    args: {policy: fgd, popularityThreshold: 300}\n")},
			"range.yaml: pluginConfig DrasimPolicy: popularityThreshold: 300: not in valid range (0, 100]"},
		{"unknown policy in args", []string{"--scheduler-config", config("name.yaml", enabled, "  - name: DrasimPolicy\n    args: {policy: tetris}\n")},
			`name.yaml: pluginConfig DrasimPolicy: policy: unknown policy "tetris"`},
		{"unknown field", []string{"--scheduler-config", config("field.yaml", enabled, "  - name: DrasimPolicy\n    args: {policy: fgd, weight: 3}\n")},
			`field.yaml: pluginConfig DrasimPolicy: error unmarshaling JSON: while decoding JSON: json: unknown field "weight"`},
		{"enabled without args", []string{"--scheduler-config", config("noargs.yaml", enabled, "  - name: NodeAffinity\n    args: {}\n")},
			"noargs.yaml: plugins.score.enabled names DrasimPolicy but no pluginConfig gives its args"},
		{"args without the plugin", []string{"--scheduler-config", config("notenabled.yaml", "      enabled: []\n", "  - name: DrasimPolicy\n    args: {policy: fgd}\n")},
			"notenabled.yaml: pluginConfig DrasimPolicy: the plugin is not enabled"},
		{"weight out of range", []string{"--scheduler-config", config("weight.yaml", "      enabled:\n      - {name: DrasimPolicy, weight: 1000}\n", "  - name: DrasimPolicy\n    args: {policy: fgd}\n")},
			"weight.yaml: plugins.score.enabled DrasimPolicy: weight 1000: not in valid range [1, 100]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, cmd := range []string{"simulate", "report", "timeline"} {
				args := append([]string{cmd}, tc.args...)
				code, _, errOut := runDrasim(t, args...)
				if code != 1 || !strings.Contains(errOut, tc.want) {
					t.Errorf("%s %v: exit %d, stderr %q; want exit 1 and %q", cmd, tc.args, code, errOut, tc.want)
				}
			}
		})
	}
}

func TestPolicyInSchedulerConfig(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	cfg := writeFile(t, dir, "fgd.yaml", `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled:
      - name: "*"
      enabled:
      - {name: DrasimPolicy, weight: 2}
  pluginConfig:
  - name: DrasimPolicy
    args: {policy: fgd, popularityThreshold: 90}
`)
	code, _, errOut := runDrasim(t, "simulate", "--scheduler-config", cfg)
	if code != 0 {
		t.Errorf("simulate with DrasimPolicy in the config: exit %d: %s", code, errOut)
	}
}
