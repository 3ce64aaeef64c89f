package sim

import (
	"context"

	"github.com/drasim/drasim/internal/seams"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/kubeversion"
	"github.com/drasim/drasim/sim/result"
	"github.com/drasim/drasim/sim/schedule"
	"github.com/drasim/drasim/sim/schedule/profile"
	"github.com/drasim/drasim/sim/snapshot"
)

// KubernetesVersion is the kube-scheduler release drasim follows unless
// Options.KubeVersion names another.
const KubernetesVersion = "v1.37.2"

// Options configure one replay.
type Options struct {
	// KubeVersion is the Kubernetes release the run models: its gate
	// defaults, profile, served API versions and behaviour
	// (kubeversion.Default, 1.37, when nil).
	KubeVersion *kubeversion.Release
	// Gates are the feature gates (the release's defaults when nil).
	Gates feature.Gates
	// Plugins are the scheduler profile's plugin settings.
	Plugins profile.Config
	// TieBreak picks among equally scored nodes (kube's rule when empty).
	TieBreak schedule.TieBreak
	// Seed drives the random tie-break (schedule.TieBreakRandom).
	Seed int64
	// TieRank orders tied nodes for schedule.TieBreakName
	// (schedule.Options.TieRank).
	TieRank map[string]int
	// ScoreAllNodes disables kube's node sampling.
	ScoreAllNodes bool
	// Parallelism is the number of filter workers (default GOMAXPROCS).
	Parallelism int
	// Files are recorded in the result's inputs.
	Files []string
	// Progress, when set, is called after each scheduling cycle.
	Progress func(done, total int)
	// Arrival says when the pending pods arrive in the scheduling queue:
	// all at once (batch, the default) or one at a time in the snapshot's
	// order (sequential, as the oracle's replay creates them).
	Arrival schedule.Arrival
	// Reference selects the reference engine: every node is asked on its
	// own, with no shortcut. It must decide exactly as the default engine;
	// it exists to prove that and to measure the difference.
	Reference bool
	// OnlyQueued limits the result to the queued pods (schedule.Options).
	OnlyQueued bool
	// NodeOrder is the order the scheduler met the nodes in
	// (cluster.NodeOrderName when empty).
	NodeOrder cluster.NodeOrder
	// Admitted says the caller has run Admit on the snapshot (the CLI
	// does, right after loading); otherwise Simulate, Explain and
	// NewEngineFor run it and refuse what the API server would reject.
	Admitted bool
	// Resume starts the scheduler where another one stood
	// (schedule.Options.Resume), to replay a moment of a longer run: a
	// test-only seam (internal/seams).
	Resume *seams.Checkpoint
}

// Run is a finished replay: the cluster after it and the result.
type Run struct {
	Cluster *cluster.Cluster
	Result  *result.Result
	DRA     *dra.Plugin
}

// Release is the Kubernetes release the options model.
func (o Options) Release() *kubeversion.Release {
	if o.KubeVersion == nil {
		return kubeversion.Default()
	}
	return o.KubeVersion
}

// WithRelease returns the options with what their release changes in the
// profile applied: the release's gate defaults when no gates are given, no
// DynamicResources score before 1.35, BalancedAllocation's older score
// before 1.36 (the scheduler's own differences are in ScheduleOptions).
// Every replay applies it; applying it twice changes nothing.
func (o Options) WithRelease() Options {
	rel := o.Release()
	if o.Gates == nil {
		o.Gates = rel.DefaultGates()
	}
	if rel.BalancedWithPodOnly {
		o.Plugins.BalancedAllocation.WithPodOnly = true
	}
	if !rel.DRAScore && !o.Plugins.Unscored[dra.Name] {
		unscored := map[string]bool{dra.Name: true}
		for k, v := range o.Plugins.Unscored {
			unscored[k] = v
		}
		o.Plugins.Unscored = unscored
	}
	return o
}

// ForRelease refuses a snapshot that holds objects the options' release
// would not take as written (kubeversion.Release.Check) and returns it as
// an API server of an older release, with the options' gates, would store
// it (Release.DropDisabledFields: fields of features off there are
// dropped), or refuses it when that release's API server would refuse an
// object once those fields are gone. For the newest release the snapshot
// is returned unchanged: there, --feature-gates asks what the scheduler
// does with the objects as they are. Call it with the options WithRelease has completed.
func (o Options) ForRelease(snap *snapshot.Snapshot) (*snapshot.Snapshot, error) {
	rel := o.Release()
	if err := rel.Check(snap); err != nil {
		return nil, err
	}
	if rel.IsLatest() {
		return snap, nil
	}
	return rel.DropDisabledFields(snap, o.Gates)
}

// NewEngineFor admits the snapshot (unless Options.Admitted says the
// caller did) and builds its cluster state and the engine on it, for the
// options' release: where Simulate, Explain and a step-wise driver start.
func NewEngineFor(snap *snapshot.Snapshot, opts Options) (*Engine, error) {
	if err := admit(snap, opts); err != nil {
		return nil, err
	}
	opts = opts.WithRelease()
	snap, err := opts.ForRelease(snap)
	if err != nil {
		return nil, err
	}
	return NewEngine(cluster.BuildOrdered(snap, opts.Gates, opts.NodeOrder), opts)
}

// ScheduleOptions are the scheduler options of a replay with these
// options; every replay of a run (autoscaler loops included) uses them.
func (o Options) ScheduleOptions() schedule.Options {
	return schedule.Options{QuietPreemption: !o.Release().PreemptionMessage, NowVictimOrder: o.Release().NowVictimOrder, TieBreak: o.TieBreak, Seed: o.Seed, TieRank: o.TieRank, ScoreAllNodes: o.ScoreAllNodes, Parallelism: o.Parallelism, Progress: o.Progress, Reference: o.Reference, OnlyQueued: o.OnlyQueued, Arrival: o.Arrival, Resume: o.Resume}
}

// Simulate replays every pending pod of the snapshot. The snapshot itself
// is not changed.
func Simulate(ctx context.Context, snap *snapshot.Snapshot, opts Options) (*Run, error) {
	e, err := NewEngineFor(snap, opts)
	if err != nil {
		return nil, err
	}
	return replay(ctx, e)
}

// SimulateCluster replays the queue of a cluster that is already built,
// e.g. a copy of a replayed cluster with some pods queued again
// (cluster.CloneWithout). The cluster is changed in place.
func SimulateCluster(ctx context.Context, c *cluster.Cluster, opts Options) (*Run, error) {
	e, err := NewEngine(c, opts)
	if err != nil {
		return nil, err
	}
	return replay(ctx, e)
}

func replay(ctx context.Context, e *Engine) (*Run, error) {
	opts, c := e.opts, e.c
	res, err := e.Replay(ctx, opts.ScheduleOptions())
	if err != nil {
		return nil, err
	}
	res.Inputs.Files = opts.Files
	res.Inputs.KubernetesVersion = opts.Release().String()
	res.Inputs.FeatureGates = opts.Release().GatesString(c.DRA().Gates())
	res.Inputs.ScoringStrategy = scoringStrategy(opts.Plugins)
	if o := c.NodeOrder(); o != cluster.NodeOrderName {
		res.Inputs.NodeOrder = string(o)
	}
	if pol := opts.Plugins.Policy; pol != nil {
		res.Inputs.Policy = string(pol.Policy)
	}
	return &Run{Cluster: c, Result: res, DRA: e.dra}, nil
}

func scoringStrategy(p profile.Config) string {
	if s := p.NodeResourcesFit.ScoringStrategy; s != nil && s.Type != "" {
		return string(s.Type)
	}
	return "LeastAllocated"
}
