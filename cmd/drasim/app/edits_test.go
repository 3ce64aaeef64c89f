package app

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/result"
)

const whatifCluster = "../../../sim/whatif/testdata/cluster.yaml"

// TestEditsApplyInCommandLineOrder: a flag, then a file, then a flag; the
// result echoes them in that order. Cordoning n3 after draining n1 leaves
// n2 (1 CPU free) for the evicted pods; web-a (2 CPU), raised to priority
// 5 by the last edit, fits there only by preempting db-0 (priority 0).
func TestEditsApplyInCommandLineOrder(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	file := writeTemp(t, "edits.yaml", "apiVersion: drasim.io/v1alpha1\nkind: Edits\nedits:\n- drain: {nodes: [n1]}\n")
	r := drasim(t, "", "simulate", "-f", whatifCluster, "--cordon", "n3", "--edits", file, "--set-priority", "Pod/web-a=5", "-o", "json")
	if r.code != ExitOK {
		t.Fatalf("exit code: want 0, got %d (stderr %q)", r.code, r.stder)
	}
	var res result.Result
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("decoding the result: %v", err)
	}
	var got []string
	for _, e := range res.Edits {
		got = append(got, e.Source)
	}
	want := []string{"--cordon n3", file + " edits[0]", "--set-priority Pod/web-a=5"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("edit sources: want %q, got %q", want, got)
	}
	for _, m := range res.Edits[1].Evicted {
		if m.Pod == "default/web-a" && (m.Phase != result.PhaseScheduled || m.Node != "n2") {
			t.Errorf("web-a (2 CPU, priority 5) with n1 and n3 cordoned: want scheduled on n2 by preemption, got %s on %q", m.Phase, m.Node)
		}
	}
	preempted := false
	for _, p := range res.Pods {
		if p.Key() == "default/db-0" {
			preempted = p.Phase == result.PhasePreempted
		}
	}
	if !preempted {
		t.Errorf("db-0 (priority 0 on n2): want preempted for web-a")
	}
}

func TestEditErrors(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	gates := writeTemp(t, "gates.yaml", "apiVersion: drasim.io/v1alpha1\nkind: Gates\ngates:\n- name: none pending\n  maxPendingPods: {max: 0}\n")
	bad := writeTemp(t, "bad.yaml", "apiVersion: drasim.io/v1alpha1\nkind: Edits\nedits:\n- cordon: {nodes: [n9]}\n")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		inStderr string
	}{
		{"malformed flag", []string{"simulate", "-f", whatifCluster, "--add-nodes", "big"}, ExitUsage, `--add-nodes "big": not NAME=COUNT`},
		{"unknown node", []string{"report", "-f", whatifCluster, "--edits", bad}, ExitFailure, bad + `: edits[0] (cordon): cordon.nodes[0]: node "n9" is not in the snapshot`},
		{"missing file", []string{"check", "-f", whatifCluster, "--gates", gates, "--edits", "/no/such.yaml"}, ExitFailure, "/no/such.yaml"},
		{"explain after a drain", []string{"explain", "default/web-a", "-f", whatifCluster, "--drain", "n1"}, ExitOK, ""},
		{"autoscale", []string{"autoscale", "-f", whatifCluster, "-f", "../../../sim/whatif/testdata/nodegroup.yaml", "--remove-nodes", "n3"}, ExitOK, ""},
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
			if tt.wantCode == ExitOK && !strings.Contains(r.stdout, "EDITS") {
				t.Errorf("stdout: want the EDITS table, got:\n%s", r.stdout)
			}
		})
	}
}
