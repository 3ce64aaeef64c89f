package analysis

import (
	"context"
	"errors"
	"math"
	"sort"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/snapshot"
	"github.com/drasim/drasim/sim/whatif"
	v1 "k8s.io/api/core/v1"
)

// Defaults of Options.
const (
	DefaultMaxHeadroom   = 10000
	DefaultMaxSequential = 200
)

// Options control Analyze.
type Options struct {
	// GroupBy is the node label that groups nodes (DefaultGroupBy when
	// empty).
	GroupBy string
	// Probes, when set, replaces the workload mix: each distinct pod shape
	// of this snapshot (pods and the ResourceClaimTemplates they name) is
	// a shape, weighted by its number of pods.
	Probes *snapshot.Snapshot
	// Engine configures the probes' scheduler (sim.NewEngine): pass the
	// replay's options so that probes are judged as the replay's pods were,
	// by the same engine (--engine=reference included). Plugins, Reference,
	// TieBreak, Seed and Parallelism are read; the cluster is the run's.
	Engine sim.Options
	// MaxHeadroom bounds the headroom count of a shape
	// (DefaultMaxHeadroom when 0).
	MaxHeadroom int
	// MaxSequential bounds the instances placed by the sequential
	// headroom method (DefaultMaxSequential when 0): each costs a full
	// scheduling cycle over the cluster (about 15ms on 1,000 nodes).
	MaxSequential int
	// FailureDomains are the failure-domain analyses to run (Report.Resilience).
	FailureDomains []whatif.DomainOptions
	// Progress, when set, is called as the analysis advances through its
	// longer stages (StageHeadroom, StageLargest, StageDomains): with done
	// 0 when a stage starts, then after each of its units, done == total
	// ending it. Failure domains report from several goroutines.
	Progress func(stage string, done, total int)
}

// The stages Options.Progress reports, named by their units.
const (
	// StageHeadroom: the headroom of each shape of the mix.
	StageHeadroom = "shapes"
	// StageLargest: the largest request of each DeviceClass.
	StageLargest = "DeviceClasses"
	// StageDomains: the failure domains removed in turn.
	StageDomains = "failure domains"
)

func (o Options) progress(stage string, done, total int) {
	if o.Progress != nil {
		o.Progress(stage, done, total)
	}
}

func (o Options) withDefaults() Options {
	if o.GroupBy == "" {
		o.GroupBy = DefaultGroupBy
	}
	if o.MaxHeadroom <= 0 {
		o.MaxHeadroom = DefaultMaxHeadroom
	}
	if o.MaxSequential <= 0 {
		o.MaxSequential = DefaultMaxSequential
	}
	return o
}

// Analyze computes the capacity report of a finished replay. The run is
// only read: every probe runs on a copy of run.Cluster (Clone). It fails only on
// broken input (a plugin error) or when ctx is done.
func Analyze(ctx context.Context, run *sim.Run, opts Options) (*Report, error) {
	if run == nil || run.Cluster == nil || run.Result == nil {
		return nil, errors.New("analysis needs a finished run")
	}
	opts = opts.withDefaults()
	c := run.Cluster
	inv := newInventory(ctx, c.DRA())
	nodes := collectNodes(c, inv, opts.GroupBy)
	wl := newWorkloads(c.Snapshot(), opts.Probes)
	for _, pod := range c.Pods() {
		wl.of(pod)
	}

	rep := &Report{
		APIVersion: APIVersion,
		Kind:       Kind,
		Inputs: Inputs{
			Files: run.Result.Inputs.Files, KubernetesVersion: run.Result.Inputs.KubernetesVersion, TieBreak: run.Result.Inputs.TieBreak, Seed: run.Result.Inputs.Seed,
			GroupBy: opts.GroupBy, MaxHeadroom: opts.MaxHeadroom, MaxSequential: opts.MaxSequential,
			Nodes: len(c.Nodes()), Devices: len(inv.devices), Pods: len(run.Result.Pods),
		},
		Fit:             fitOf(run.Result, wl),
		Utilization:     utilizationOf(nodes, inv),
		PrioritizedList: prioritizedListOf(run, wl),
		Pods:            podRows(run.Result, wl),
	}
	classWarnings := inv.matcher.warnings()
	rep.Warnings = append(rep.Warnings, classWarnings...)

	mix, source, warnings := buildMix(run, opts, wl)
	rep.Inputs.MixSource = source
	rep.Warnings = append(rep.Warnings, warnings...)
	rep.Mix = make([]Shape, 0, len(mix))
	for _, s := range mix {
		rep.Mix = append(rep.Mix, s.Shape)
	}

	p, err := newProber(ctx, c, inv, opts)
	if err != nil {
		return nil, err
	}
	feasible := make([]map[string]bool, len(mix))
	rep.Headroom = make([]Headroom, 0, len(mix))
	opts.progress(StageHeadroom, 0, len(mix))
	for i, s := range mix {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if feasible[i], _, err = p.shapeFeasible(s); err != nil {
			return nil, err
		}
		h, err := p.headroom(s, feasible[i])
		if err != nil {
			return nil, err
		}
		if h.Fits == 0 {
			if h.Reason, err = p.message(s); err != nil {
				return nil, err
			}
		}
		rep.Headroom = append(rep.Headroom, h)
		opts.progress(StageHeadroom, i+1, len(mix))
	}
	rep.Fragmentation = fragmentationOf(mix, feasible, nodes, inv)

	rep.LargestRequests = make([]LargestRequest, 0, len(inv.classes))
	opts.progress(StageLargest, 0, len(inv.classes))
	for i, class := range inv.classes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		lr, err := p.largest(class.Name)
		if err != nil {
			return nil, err
		}
		rep.LargestRequests = append(rep.LargestRequests, lr)
		opts.progress(StageLargest, i+1, len(inv.classes))
	}
	rep.CounterSets = counterSetsOf(inv)
	rep.Stranded = strandedOf(nodes, mix)
	rep.Nodes = nodeRows(nodes)
	if rep.Resilience, err = resilienceOf(ctx, run, opts.FailureDomains, opts.Progress); err != nil {
		return nil, err
	}
	// Requests' own selectors are evaluated by the fragmentation metric;
	// their errors come after the classes'.
	rep.Warnings = append(rep.Warnings, inv.matcher.warnings()[len(classWarnings):]...)
	return rep, nil
}

// round4 keeps four decimals, so that reports (and golden files) do not
// depend on the last bits of a float.
func round4(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return math.Round(x*1e4) / 1e4
}

func share(part, whole int64) float64 {
	if whole <= 0 {
		return 0
	}
	return round4(float64(part) / float64(whole))
}

func sortResourceNames(names []v1.ResourceName) {
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
}
