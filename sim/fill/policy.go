package fill

import (
	"fmt"
	"sort"
	"strings"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/policy"
	"github.com/drasim/drasim/sim/schedule/plugins/config"
)

// Policy is a scoring policy by name and the scheduler options it runs
// with (sim.Options: the profile, DrasimPolicy's args among them, the
// tie-break).
type Policy struct {
	Name string
	Sim  sim.Options
	// SimulatorTies breaks ties as the paper's simulator: with
	// schedule.TieBreakName, the smallest of the names it gives the
	// nodes, a seeded permutation's index before each name (nodeRanks),
	// instead of the nodes' own names.
	SimulatorTies bool
}

// forRun are the policy's options for the run of one seed: the seed
// drives the tie-break (ranks are the simulator's node order for the
// seed, nodeRanks) and the random policy; FGD measures against the
// workload's shapes (the simulator's typical pods, from the trace before
// inflation) unless its args name a workload.
func (p Policy) forRun(seed int64, in *Input, gates feature.Gates, ranks map[string]int) (sim.Options, error) {
	so := p.Sim
	so.Seed = seed
	if p.SimulatorTies {
		so.TieRank = ranks
	}
	if a := so.Plugins.Policy; a != nil {
		args := *a
		args.Seed = seed
		if args.Policy == policy.FGD && args.Workload == nil {
			w, err := workloadOf(in, gates, args.PopularityThreshold)
			if err != nil {
				return so, err
			}
			args.Workload = w
		}
		so.Plugins.Policy = &args
	}
	return so, nil
}

// workloadOf is the distribution of the workload's request shapes.
func workloadOf(in *Input, gates feature.Gates, threshold int) (*policy.Workload, error) {
	shaper := policy.NewShaper(in.Snapshot, gates)
	shapes := make([]policy.Shape, 0, len(in.Workload))
	for _, pod := range in.Workload {
		shapes = append(shapes, shaper.Shape(pod))
	}
	return policy.NewWorkload(shapes, threshold)
}

// The policies fill adds to sim/policy's.
const (
	// PolicyKube is kube-scheduler v1.37.2's default profile as
	// configured (LeastAllocated unless the configuration says else).
	PolicyKube = "kube"
	// PolicyMostAllocated is the default profile with NodeResourcesFit
	// scoring MostAllocated over CPU and memory.
	PolicyMostAllocated = "most-allocated"
)

// policies map the profiles of kube's own scoring to the scheduler
// options they run with, from the options the caller gave (kube's).
var policies = map[string]func(sim.Options) sim.Options{
	PolicyKube: func(o sim.Options) sim.Options { return o },
	PolicyMostAllocated: func(o sim.Options) sim.Options {
		fit := o.Plugins.NodeResourcesFit
		fit.ScoringStrategy = &config.ScoringStrategy{Type: config.MostAllocated, Resources: config.DefaultResourceSpec()}
		o.Plugins.NodeResourcesFit = fit
		return o
	},
}

// KubePolicies are the names KubePolicyOptions knows, sorted.
func KubePolicies() []string {
	out := make([]string, 0, len(policies))
	for k := range policies {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Policies are every policy fill runs: kube's profiles, then sim/policy's
// research policies in the paper's order.
func Policies() []string {
	out := KubePolicies()
	for _, n := range policy.Names() {
		out = append(out, string(n))
	}
	return out
}

// KubePolicyOptions are the scheduler options of one of kube's profiles
// (KubePolicies), from kube's default options o.
func KubePolicyOptions(name string, o sim.Options) (sim.Options, error) {
	f, ok := policies[name]
	if !ok {
		return o, fmt.Errorf("unknown policy %q: use one of %s", name, strings.Join(Policies(), ", "))
	}
	return f(o), nil
}
