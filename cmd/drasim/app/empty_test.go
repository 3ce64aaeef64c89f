package app

import (
	"strings"
	"testing"
)

// podsOnly is a snapshot with a pod to schedule and no node to put it on.
const podsOnly = `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: i}]
`

func TestNothingToSimulateIsAnError(t *testing.T) {
	t.Setenv(stepSummaryEnv, "")
	empty := writeTemp(t, "empty.yaml", "")
	comments := writeTemp(t, "comments.yaml", "# nothing here\n---\n")
	pods := writeTemp(t, "pods.yaml", podsOnly)
	gates := writeTemp(t, "gates.yaml", "apiVersion: drasim.io/v1alpha1\nkind: Gates\ngates:\n- name: anything\n  maxPendingPods: {max: 1000}\n")
	inputs := []struct {
		name, path, stdin, want string
	}{
		{"an empty file", empty, "", empty + " holds no Kubernetes object"},
		{"only comments", comments, "", comments + " holds no Kubernetes object"},
		{"empty standard input", "-", "", "<stdin> holds no Kubernetes object"},
		{"no node", pods, "", pods + " holds no Node"},
	}
	commands := [][]string{
		{"simulate"},
		{"simulate", "--autoscale"},
		{"explain", "p"},
		{"report"},
		{"check", "--gates", gates},
		{"autoscale"},
	}
	for _, in := range inputs {
		for _, cmd := range commands {
			t.Run(in.name+"/"+strings.Join(cmd, " "), func(t *testing.T) {
				t.Setenv("XDG_CONFIG_HOME", t.TempDir())
				r := drasim(t, in.stdin, append(append([]string(nil), cmd...), "-f", in.path)...)
				if r.code != ExitFailure || !strings.Contains(r.stder, "nothing to simulate: "+in.want) {
					t.Errorf("want exit %d and %q, got %d %q", ExitFailure, "nothing to simulate: "+in.want, r.code, r.stder)
				}
			})
		}
		t.Run(in.name+"/validate", func(t *testing.T) {
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			r := drasim(t, in.stdin, "validate", "-f", in.path)
			if r.code != ExitOK || !strings.Contains(r.stdout, "warning: ") || !strings.Contains(r.stdout, "nothing to simulate") ||
				!strings.Contains(r.stdout, "valid: 1 file(s), 0 error(s), 1 warning(s)") {
				t.Errorf("validate: want exit 0 with one warning that there is nothing to simulate, got %d\n%s%s", r.code, r.stdout, r.stder)
			}
		})
	}
}
