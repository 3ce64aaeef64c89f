package profile

import (
	"slices"
	"strings"
	"testing"

	"github.com/drasim/drasim/internal/build"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/policy"
	"github.com/drasim/drasim/sim/schedule"
	"github.com/drasim/drasim/sim/schedule/plugins"
)

// The profile switches DefaultPreemption off by the name the scheduler,
// which implements it, gives its statuses.
func TestPreemptionName(t *testing.T) {
	if schedule.PreemptionPlugin != plugins.DefaultPreemption {
		t.Errorf("schedule.PreemptionPlugin = %q, plugins.DefaultPreemption = %q: want one name", schedule.PreemptionPlugin, plugins.DefaultPreemption)
	}
}

func names[P interface{ Name() string }](pls []P) []string {
	out := make([]string, len(pls))
	for i, pl := range pls {
		out[i] = pl.Name()
	}
	return out
}

func TestNew(t *testing.T) {
	c := cluster.Build(build.NewCluster().Node("n1", 8, 1).Snapshot(), feature.Defaults())
	tests := []struct {
		name           string
		cfg            Config
		wantErr        string
		wantPreemption bool
		wantScores     []string
	}{
		{name: "kube's default profile", wantPreemption: true,
			wantScores: []string{"TaintToleration", "NodeAffinity", "NodeResourcesFit", "PodTopologySpread", "InterPodAffinity", dra.Name, "NodeResourcesBalancedAllocation", "ImageLocality"}},
		{name: "preemption off", cfg: Config{Disabled: map[string]bool{plugins.DefaultPreemption: true}},
			wantScores: []string{"TaintToleration", "NodeAffinity", "NodeResourcesFit", "PodTopologySpread", "InterPodAffinity", dra.Name, "NodeResourcesBalancedAllocation", "ImageLocality"}},
		{name: "a research policy as the only score", cfg: Config{Policy: &policy.Args{Policy: "best-fit"}, DisableDefaultScores: true}, wantPreemption: true,
			wantScores: []string{policy.PluginName}},
		{name: "unknown plugin", cfg: Config{Disabled: map[string]bool{"NoSuchPlugin": true}}, wantErr: `unknown plugin "NoSuchPlugin"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(c, dra.New(c.DRA()), tt.cfg)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("New: error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if p.Preemption != tt.wantPreemption {
				t.Errorf("Preemption = %v, want %v", p.Preemption, tt.wantPreemption)
			}
			var scores []string
			for _, ws := range p.Score {
				scores = append(scores, ws.Plugin.Name())
			}
			if !slices.Equal(scores, tt.wantScores) {
				t.Errorf("score plugins %v, want %v", scores, tt.wantScores)
			}
			// Every plugin stands in the profile once, in kube's order.
			if got, want := names(p.Plugins())[:len(plugins.DefaultOrder())], plugins.DefaultOrder(); !slices.Equal(got, want) {
				t.Errorf("plugins %v, want kube's order %v first", got, want)
			}
		})
	}
}
