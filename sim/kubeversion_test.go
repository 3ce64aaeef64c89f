package sim

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/kubeversion"
	"github.com/drasim/drasim/sim/load"
)

// draScored reports whether any node of the explanation has a
// DynamicResources score.
func draScored(ex *Explanation) bool {
	for _, n := range ex.Nodes {
		for _, s := range n.Scores {
			if s.Plugin == dra.Name {
				return true
			}
		}
	}
	return false
}

// TestKubeVersionDRAScore: kube-scheduler 1.34's DynamicResources has no
// Score (KEP-4816 added it in 1.35), so a 1.34 replay must not score
// nodes by it; 1.35 and later do (weight 2). The result states the
// release it modelled.
func TestKubeVersionDRAScore(t *testing.T) {
	res, err := load.Load([]string{filepath.Join("..", "scenarios", "01-prioritized-list.yaml")}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		version string
		scored  bool
	}{{"1.34", false}, {"1.35", true}, {"1.37", true}} {
		opts := Options{KubeVersion: kubeversion.MustGet(tc.version)}
		ex, err := Explain(context.Background(), res.Snapshot, opts, "default", "flex-0")
		if err != nil {
			t.Fatal(err)
		}
		if got := draScored(ex); got != tc.scored {
			t.Errorf("%s: DynamicResources scored: got %v, want %v", tc.version, got, tc.scored)
		}
		run, err := Simulate(context.Background(), res.Snapshot, opts)
		if err != nil {
			t.Fatal(err)
		}
		if want := opts.Release().Patch; run.Result.Inputs.KubernetesVersion != want {
			t.Errorf("%s: result states %q, want %q", tc.version, run.Result.Inputs.KubernetesVersion, want)
		}
	}
}

// TestKubeVersionRefusesUnservedInput: a replay for a release refuses an
// object that release would not serve, naming file, object and field.
func TestKubeVersionRefusesUnservedInput(t *testing.T) {
	file := filepath.Join("..", "scenarios", "08-device-taint-rule.yaml")
	res, err := load.Load([]string{file}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Simulate(context.Background(), res.Snapshot, Options{KubeVersion: kubeversion.MustGet("1.35")})
	want := file + `:174 (document 9): DeviceTaintRule "node-2-maintenance": apiVersion: Kubernetes v1.35 does not serve resource.k8s.io/v1`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("want an error containing %q, got %v", want, err)
	}
	if _, err := Simulate(context.Background(), res.Snapshot, Options{}); err != nil {
		t.Fatalf("1.37 serves resource.k8s.io/v1 DeviceTaintRules: %v", err)
	}
}
