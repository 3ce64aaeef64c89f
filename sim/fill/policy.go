package fill

import (
	"fmt"
	"sort"
	"strings"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/schedule/plugins/config"
)

// The policies every build knows.
const (
	// PolicyKube is kube-scheduler v1.37.2's default profile as
	// configured (LeastAllocated unless the configuration says else).
	PolicyKube = "kube"
	// PolicyMostAllocated is the default profile with NodeResourcesFit
	// scoring MostAllocated over CPU and memory.
	PolicyMostAllocated = "most-allocated"
)

// policies map a policy's name to the scheduler options it runs with,
// from the options the caller gave.
var policies = map[string]func(sim.Options) sim.Options{
	PolicyKube: func(o sim.Options) sim.Options { return o },
	PolicyMostAllocated: func(o sim.Options) sim.Options {
		fit := o.Plugins.NodeResourcesFit
		fit.ScoringStrategy = &config.ScoringStrategy{Type: config.MostAllocated, Resources: config.DefaultResourceSpec()}
		o.Plugins.NodeResourcesFit = fit
		return o
	},
}

// Policies are the names PolicyOptions knows, sorted.
func Policies() []string {
	out := make([]string, 0, len(policies))
	for k := range policies {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// PolicyOptions are the scheduler options of a policy.
func PolicyOptions(name string, o sim.Options) (sim.Options, error) {
	f, ok := policies[name]
	if !ok {
		return o, fmt.Errorf("unknown policy %q: use one of %s", name, strings.Join(Policies(), ", "))
	}
	return f(o), nil
}
