package sim

import (
	"context"
	"fmt"

	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/result"
	"github.com/drasim/drasim/sim/schedule"
	"github.com/drasim/drasim/sim/schedule/profile"
	v1 "k8s.io/api/core/v1"
)

// Engine is kube-scheduler wired to one cluster: the DynamicResources
// plugin on the cluster's DRA state, the profile's plugins in kube's order
// (with a scoring policy's plugin when the options ask for one), and the
// schedulers and replayers made from them. Every scheduler drasim runs is
// made by an Engine, so the engine options (the reference engine above
// all) reach every one of them: the replay, explain, the analysis probes,
// the autoscaler's loops and checks, fill and the timeline.
type Engine struct {
	c       *cluster.Cluster
	dra     *dra.Plugin
	profile *framework.Profile
	opts    Options
}

// NewEngine wires the profile of opts to c with a DynamicResources plugin
// of its own. Options.Gates and NodeOrder are the cluster's already (it is
// built); the engine reads Plugins and Reference, and the scheduler options
// (TieBreak, Seed, ...) that ScheduleOptions derives.
func NewEngine(c *cluster.Cluster, opts Options) (*Engine, error) {
	opts = opts.WithRelease()
	return NewEngineOn(c, opts, dra.New(c.DRA(), dra.Options{Reference: opts.Reference, PostFilterReasons: opts.Release().DRAPostFilterReasons, OlderErrorWording: opts.Release().OlderAllocatorErrors}))
}

// NewEngineOn is NewEngine with a DynamicResources plugin that already
// works on c's DRA state: its allocator answers, cached by claim and node
// class, then serve this engine too (the autoscaler's checks share the
// timeline's plugin this way).
func NewEngineOn(c *cluster.Cluster, opts Options, draPlugin *dra.Plugin) (*Engine, error) {
	opts = opts.WithRelease()
	// The replay keeps the claims' books on the cluster's DRA state (a
	// pod's claims, deallocation, release), the plugin allocates on its
	// own: they must be one state.
	if draPlugin.State() != c.DRA() {
		return nil, fmt.Errorf("internal error: the DynamicResources plugin works on another DRA state than the cluster's")
	}
	prof, err := profile.New(c, draPlugin, opts.Plugins)
	if err != nil {
		return nil, fmt.Errorf("scheduler profile: %w", err)
	}
	return &Engine{c: c, dra: draPlugin, profile: prof, opts: opts}, nil
}

// Cluster is the cluster the engine schedules on.
func (e *Engine) Cluster() *cluster.Cluster { return e.c }

// DRA is the engine's DynamicResources plugin.
func (e *Engine) DRA() *dra.Plugin { return e.dra }

// Profile is the engine's scheduler profile.
func (e *Engine) Profile() *framework.Profile { return e.profile }

// Options are the options the engine was made with.
func (e *Engine) Options() Options { return e.opts }

// Reference reports whether the engine is the reference engine (every
// node asked on its own, no shortcut).
func (e *Engine) Reference() bool { return e.opts.Reference }

// Scheduler returns a scheduler of the engine's profile on its cluster.
// so is taken as given but for Reference, which is always the engine's:
// a scheduler and its DynamicResources plugin never disagree about it.
func (e *Engine) Scheduler(so schedule.Options) *schedule.Scheduler {
	so.Reference = e.opts.Reference
	return schedule.New(e.c, e.profile, so)
}

// Replayer returns a scheduling queue and a scheduler of the engine's
// profile on its cluster (so as in Scheduler).
func (e *Engine) Replayer(so schedule.Options) *schedule.Replayer {
	so.Reference = e.opts.Reference
	return schedule.NewReplayer(e.c, e.profile, so)
}

// ChosenDevices returns what the allocator chose for the pod's unallocated
// claims on a node that the attempt found feasible (the attempt's cycle
// state keeps DynamicResources' answer per node): explain shows them per
// node, a step-wise check compares them with the real scheduler's.
func (e *Engine) ChosenDevices(pod *v1.Pod, a *schedule.Attempt, node string) []result.Device {
	return devicesOf(unallocatedClaims(e.dra, pod), e.dra.ChosenAllocation(a.State, node))
}

// Replay schedules every queued pod of the cluster through kube's queue
// (schedule.Replay) and returns the result; the cluster is changed in
// place.
func (e *Engine) Replay(ctx context.Context, so schedule.Options) (*result.Result, error) {
	r := e.Replayer(so)
	if err := r.ReplayQueue(ctx); err != nil {
		return nil, err
	}
	return r.Result(), nil
}
