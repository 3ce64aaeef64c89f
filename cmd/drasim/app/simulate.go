package app

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/kubeversion"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/policy"
	"github.com/drasim/drasim/sim/schedule"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// engineFlags are the flags of every command that replays scheduling.
type engineFlags struct {
	TieBreak        string
	Seed            int64
	ScoreAllNodes   bool
	FeatureGates    string
	SchedulerConfig string
	Parallelism     int
	Engine          string
	Arrival         string
	NodeOrder       string
	KubeVersion     string
	Policy          string

	// fs is the flag set the flags are in, to name where a value came
	// from (flagSource), and says which flags were given (--policy picks a
	// tie-break only when --tie-break was not).
	fs *pflag.FlagSet
}

func (f *engineFlags) add(fs *pflag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.Policy, "policy", "kube", "scoring policy: kube (kube-scheduler v1.37.2's default profile, unchanged), or kube's filters with one research policy as the only score: random, dot-product, gpu-clustering, gpu-packing, best-fit, fgd (docs/policies.md)")
	fs.StringVar(&f.TieBreak, "tie-break", "kube", "how to choose among equally scored nodes: kube (kube-scheduler v1.37.2's heap over the feasible nodes), random (seeded by --seed) or name (the smallest node name, as the FGD paper's simulator; the default with a research --policy)")
	fs.Int64Var(&f.Seed, "seed", 0, "seed for --tie-break=random (printed in the report)")
	fs.BoolVar(&f.ScoreAllNodes, "score-all-nodes", false, "score every feasible node instead of kube's sample (percentageOfNodesToScore)")
	fs.StringVar(&f.FeatureGates, "feature-gates", "", "Kubernetes feature gates that change DRA scheduling, e.g. DRAConsumableCapacity=false")
	fs.StringVar(&f.SchedulerConfig, "scheduler-config", "", "KubeSchedulerConfiguration file (plugin weights, scoring strategy, percentageOfNodesToScore)")
	fs.IntVar(&f.Parallelism, "parallelism", 0, "filter workers (default: number of CPUs)")
	fs.StringVar(&f.Engine, "engine", "fast", "fast, or reference: ask the allocator on every node with no shortcut (same decisions, for comparison)")
	markInput(fs, "scheduler-config")
	fs.StringVar(&f.NodeOrder, "node-order", "name", "the order kube-scheduler met the nodes in, which decides ties: name (a scheduler started after the nodes joined), creation (one that ran while they joined: creationTimestamp, then file order) or file")
	fs.StringVar(&f.KubeVersion, "kube-version", kubeversion.Latest, "the Kubernetes release to model: "+strings.Join(kubeversion.Names(), ", ")+" (its feature-gate defaults, default profile, served API versions and DRA behaviour; docs/fidelity.md)")
	fs.StringVar(&f.Arrival, "arrival", "batch", "when pending pods reach the scheduler: batch (all at once) or sequential (one at a time in file order, each placed before the next, as the oracle replays them)")
}

// parse checks the engine flags and turns them into options, without the
// input files and the scheduler configuration (options adds them).
func (f *engineFlags) parse() (sim.Options, error) {
	rel, err := kubeversion.Parse(f.KubeVersion)
	if err != nil {
		return sim.Options{}, usageErrorf("%s: %v", flagSource(f.fs, "kube-version"), err)
	}
	gates, err := rel.ParseGates(f.FeatureGates)
	if err != nil {
		return sim.Options{}, usageErrorf("%s: %v", flagSource(f.fs, "feature-gates"), err)
	}
	tieBreak, err := schedule.ParseTieBreak(f.TieBreak)
	if err != nil {
		return sim.Options{}, usageErrorf("%s: %v", flagSource(f.fs, "tie-break"), err)
	}
	if f.Engine != "fast" && f.Engine != "reference" {
		return sim.Options{}, usageErrorf("%s %q: use fast or reference", flagSource(f.fs, "engine"), f.Engine)
	}
	if f.Arrival != string(schedule.ArrivalBatch) && f.Arrival != string(schedule.ArrivalSequential) {
		return sim.Options{}, usageErrorf("%s %q: use batch or sequential", flagSource(f.fs, "arrival"), f.Arrival)
	}
	// 0, the default, means "choose"; given, a worker count below one is
	// a mistake, not a request for the default.
	if f.Parallelism < 0 || (f.Parallelism == 0 && flagGiven(f.fs, "parallelism")) {
		return sim.Options{}, usageErrorf("%s must be at least 1, got %d", flagSource(f.fs, "parallelism"), f.Parallelism)
	}
	nodeOrder, err := cluster.ParseNodeOrder(f.NodeOrder)
	if err != nil {
		return sim.Options{}, usageErrorf("%s: %v", flagSource(f.fs, "node-order"), err)
	}
	return sim.Options{KubeVersion: rel, Gates: gates, TieBreak: tieBreak, Seed: f.Seed, ScoreAllNodes: f.ScoreAllNodes, Parallelism: f.Parallelism, Reference: f.Engine == "reference", Arrival: schedule.Arrival(f.Arrival), NodeOrder: nodeOrder}, nil
}

func (f *engineFlags) options(files []string) (sim.Options, error) {
	opts, err := f.parse()
	if err != nil {
		return sim.Options{}, err
	}
	opts.Files = files
	// The input was admitted as it was read (loadInput), before edits.
	opts.Admitted = true
	if f.SchedulerConfig != "" {
		cfg, err := sim.LoadSchedulerConfig(f.SchedulerConfig)
		if err != nil {
			return sim.Options{}, &ExitError{Code: ExitFailure, Err: err}
		}
		opts.Plugins = cfg
	}
	name, err := policy.ParseName(f.Policy)
	if err != nil {
		return sim.Options{}, &ExitError{Code: ExitFailure, Err: fmt.Errorf("--policy: %w", err)}
	}
	if name != policy.Kube {
		applyPolicy(&opts, name, f.fs != nil && f.fs.Changed("tie-break"))
	}
	return opts.WithRelease(), nil
}

// applyPolicy is the --policy shortcut, the paper's simulator's profile:
// kube's filters, the policy as the only score, every feasible node
// scored (percentageOfNodesToScore 100, unless the scheduler config sets
// it) and ties going to the smallest node name (the simulator's patched
// selectHost), unless --tie-break says otherwise. The random policy draws
// from --seed.
func applyPolicy(opts *sim.Options, name policy.Name, tieBreakGiven bool) {
	var args policy.Args
	if opts.Plugins.Policy != nil {
		args = *opts.Plugins.Policy // the config's drivers and threshold
	} else {
		args.Seed = opts.Seed
	}
	args.Policy = name
	opts.Plugins.Policy = &args
	opts.Plugins.DisableDefaultScores = true
	if opts.Plugins.PercentageOfNodesToScore == 0 {
		opts.Plugins.PercentageOfNodesToScore = 100
	}
	if !tieBreakGiven {
		opts.TieBreak = schedule.TieBreakName
	}
}

type simulateFlags struct {
	input          inputFlags
	live           liveFlags
	engine         engineFlags
	edits          editFlags
	OutputSnapshot string
	Autoscale      bool
	scale          scaleFlags
}

// NewSimulateCommand replays scheduling on a snapshot.
func NewSimulateCommand(streams Streams, g *GlobalOptions) *cobra.Command {
	f := &simulateFlags{}
	cmd := &cobra.Command{
		Use:   "simulate [-f SNAPSHOT]...",
		Short: "Replay kube-scheduler v1.37 with DRA on a snapshot and report what fits",
		Long: `Replay scheduling of every pending pod in the snapshot, one at a time, as
kube-scheduler v1.37.2 would, with the real DRA allocator. Without -f, runs the
embedded demo: a small mixed GPU cluster with prioritized-list claims.`,
		Example: `  drasim simulate
  drasim simulate -f cluster-dump.yaml -f next-week-jobs.yaml
  drasim simulate -f dump/ -o json --output-snapshot after.yaml
  drasim simulate -f dump/ --drain pool=a --add-nodes h100=4
  drasim simulate -f dump/ --edits upgrade.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSimulate(cmd.Context(), streams, g, f)
		},
	}
	f.input.add(cmd.Flags())
	f.live.add(cmd.Flags())
	f.engine.add(cmd.Flags())
	f.edits.add(cmd.Flags())
	cmd.Flags().StringVar(&f.OutputSnapshot, "output-snapshot", "", "write the cluster after the replay to FILE as a List (loadable by drasim and comparable with kubectl get -o yaml); - for standard output")
	markOutput(cmd.Flags(), "output-snapshot")
	cmd.Flags().BoolVar(&f.Autoscale, "autoscale", false, "scale up with the snapshot's NodeGroups (as cluster-autoscaler 1.36 would) before reporting")
	f.scale.add(cmd.Flags())
	preflight(cmd, f.engine.check, func() error {
		if !f.Autoscale {
			return nil
		}
		_, err := f.scale.options(sim.Options{}, f.scale.Expander)
		return err
	})
	return setFormats(cmd, simulateFormats().names()...)
}

// simulateChecked replays the snapshot. An input the admission check
// rejects may make the replay panic: the check's error (which rejected
// returns again to the caller) wins then.
func simulateChecked(ctx context.Context, res *load.Result, opts sim.Options, rejected func() error) (*sim.Run, error) {
	defer func() {
		if p := recover(); p != nil && rejected() == nil {
			panic(p)
		}
	}()
	return sim.Simulate(ctx, res.Snapshot, opts)
}

func runSimulate(ctx context.Context, streams Streams, g *GlobalOptions, f *simulateFlags) error {
	defer paceCollector(streams)()
	res, check, err := readInput(ctx, streams, g.Verbosity, &f.input, &f.live, load.Options{})
	if err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	// The admission check reads the snapshot, as the replay does: with
	// nothing to edit it (what-if edits, the autoscaler's nodes) it runs
	// beside the replay, on the core the replay leaves idle, and a
	// rejection still decides the command's outcome.
	var checked <-chan error
	if check != nil && len(f.edits.list) == 0 && !f.Autoscale {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		ch := make(chan error, 1)
		go func() {
			err := check()
			if err != nil {
				cancel() // the replay is for nothing
			}
			ch <- err
		}()
		checked = ch
	} else if _, err := admitted(res, check, nil); err != nil {
		return err
	}
	// rejected waits for the check and returns its error; it must be
	// called before any other outcome.
	var rejection error
	rejected := func() error {
		if checked != nil {
			rejection, checked = <-checked, nil
		}
		return rejection
	}
	if err := requireNodes(res, f.Autoscale); err != nil {
		return cmp.Or(rejected(), err)
	}
	applied, err := f.edits.apply(res)
	if err != nil {
		return cmp.Or(rejected(), err)
	}
	opts, err := f.engine.options(res.Files)
	if err != nil {
		return cmp.Or(rejected(), err)
	}
	if f.Autoscale {
		return runSimulateAutoscale(ctx, streams, g, res, applied, opts, &f.scale)
	}
	start := time.Now()
	bar := newProgressBar(streams.Err)
	opts.Progress = bar.Update
	run, err := simulateChecked(ctx, res, opts, rejected)
	bar.Done()
	if err := rejected(); err != nil {
		return err
	}
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if applied != nil {
		applied.Resolve(run.Result)
	}
	if g.Verbosity >= 1 {
		r := run.Result
		fmt.Fprintf(streams.Err, "replayed %d pending pods on %d nodes in %s (seed %d)\n", r.Inputs.PendingPods, r.Inputs.Nodes, time.Since(start).Round(time.Millisecond), r.Inputs.Seed)
	}
	if err := g.files.write("output-snapshot", run.Cluster.WriteSnapshot); err != nil {
		return err
	}
	return simulateFormats().write(streams.Out, g.Output, run.Result)
}
