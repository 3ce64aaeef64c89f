package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/drasim/drasim/report"
	"github.com/drasim/drasim/scenarios"
	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/load"
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
}

func (f *engineFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.TieBreak, "tie-break", "kube", "how to choose among equally scored nodes: kube (kube-scheduler v1.37.2's heap over the feasible nodes) or random (seeded by --seed)")
	fs.Int64Var(&f.Seed, "seed", 0, "seed for --tie-break=random (printed in the report)")
	fs.BoolVar(&f.ScoreAllNodes, "score-all-nodes", false, "score every feasible node instead of kube's sample (percentageOfNodesToScore)")
	fs.StringVar(&f.FeatureGates, "feature-gates", "", "Kubernetes feature gates that change DRA scheduling, e.g. DRAConsumableCapacity=false")
	fs.StringVar(&f.SchedulerConfig, "scheduler-config", "", "KubeSchedulerConfiguration file (plugin weights, scoring strategy, percentageOfNodesToScore)")
	fs.IntVar(&f.Parallelism, "parallelism", 0, "filter workers (default: number of CPUs)")
	fs.StringVar(&f.Engine, "engine", "fast", "fast, or reference: ask the allocator on every node with no shortcut (same decisions, for comparison)")
	fs.StringVar(&f.Arrival, "arrival", "batch", "when pending pods reach the scheduler: batch (all at once) or sequential (one at a time in file order, each placed before the next, as the oracle replays them)")
}

func (f *engineFlags) options(files []string) (sim.Options, error) {
	gates, err := dra.ParseGates(f.FeatureGates)
	if err != nil {
		return sim.Options{}, usageErrorf("--feature-gates: %v", err)
	}
	tieBreak, err := schedule.ParseTieBreak(f.TieBreak)
	if err != nil {
		return sim.Options{}, usageErrorf("--tie-break: %v", err)
	}
	if f.Engine != "fast" && f.Engine != "reference" {
		return sim.Options{}, usageErrorf("--engine %q: use fast or reference", f.Engine)
	}
	if f.Arrival != string(schedule.ArrivalBatch) && f.Arrival != string(schedule.ArrivalSequential) {
		return sim.Options{}, usageErrorf("--arrival %q: use batch or sequential", f.Arrival)
	}
	opts := sim.Options{Gates: gates, TieBreak: tieBreak, Seed: f.Seed, ScoreAllNodes: f.ScoreAllNodes, Parallelism: f.Parallelism, Files: files, Reference: f.Engine == "reference", Arrival: schedule.Arrival(f.Arrival)}
	if f.SchedulerConfig != "" {
		cfg, err := sim.LoadSchedulerConfig(f.SchedulerConfig)
		if err != nil {
			return sim.Options{}, &ExitError{Code: ExitFailure, Err: err}
		}
		opts.Plugins = cfg
	}
	return opts, nil
}

type simulateFlags struct {
	input          inputFlags
	engine         engineFlags
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
  drasim simulate -f dump/ -o json --output-snapshot after.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSimulate(cmd.Context(), streams, g, f)
		},
	}
	f.input.add(cmd.Flags())
	f.engine.add(cmd.Flags())
	cmd.Flags().StringVar(&f.OutputSnapshot, "output-snapshot", "", "write the cluster after the replay to FILE as a List (loadable by drasim and comparable with kubectl get -o yaml)")
	cmd.Flags().BoolVar(&f.Autoscale, "autoscale", false, "scale up with the snapshot's NodeGroups (as cluster-autoscaler 1.36 would) before reporting")
	f.scale.add(cmd.Flags())
	return cmd
}

func runSimulate(ctx context.Context, streams Streams, g *GlobalOptions, f *simulateFlags) error {
	if err := checkOutput(g.Output, "table", "json", "yaml"); err != nil {
		return err
	}
	res, err := loadOrDemo(streams, g.Verbosity, &f.input)
	if err != nil {
		return err
	}
	if f.OutputSnapshot != "" {
		if err := refuseInputOverwrite(f.OutputSnapshot, res.Files); err != nil {
			return err
		}
	}
	opts, err := f.engine.options(res.Files)
	if err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if f.Autoscale {
		return runSimulateAutoscale(ctx, streams, g, res, opts, &f.scale, f.OutputSnapshot)
	}
	start := time.Now()
	bar := newProgressBar(streams.Err)
	opts.Progress = bar.Update
	run, err := sim.Simulate(ctx, res.Snapshot, opts)
	bar.Done()
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if g.Verbosity >= 1 {
		r := run.Result
		fmt.Fprintf(streams.Err, "replayed %d pending pods on %d nodes in %s (seed %d)\n", r.Inputs.PendingPods, r.Inputs.Nodes, time.Since(start).Round(time.Millisecond), r.Inputs.Seed)
	}
	if f.OutputSnapshot != "" {
		if err := writeFileAtomic(f.OutputSnapshot, run.Cluster.WriteSnapshot); err != nil {
			return &ExitError{Code: ExitFailure, Err: fmt.Errorf("--output-snapshot: %w", err)}
		}
	}
	if g.Output == "table" {
		return report.WriteSimulationTable(streams.Out, run.Result)
	}
	return writeStructured(streams.Out, g.Output, run.Result)
}

// loadOrDemo loads -f, or the embedded demo when no file is given.
func loadOrDemo(streams Streams, verbosity int, in *inputFlags) (*load.Result, error) {
	if len(in.Files) > 0 {
		return in.load(streams, verbosity, load.Options{})
	}
	res, err := load.LoadBytes("demo:"+scenarios.DemoName, scenarios.Demo(), load.Options{Strict: in.Strict})
	if err != nil {
		return nil, &ExitError{Code: ExitFailure, Err: fmt.Errorf("embedded demo: %w", err)}
	}
	fmt.Fprintf(streams.Err, "No -f given: running the embedded demo scenario (%s).\n", scenarios.DemoName)
	return res, nil
}

// refuseInputOverwrite makes sure an output never replaces an input.
func refuseInputOverwrite(out string, inputs []string) error {
	outInfo, err := os.Stat(out)
	if err != nil {
		return nil // does not exist yet
	}
	for _, in := range inputs {
		if in == "-" {
			continue
		}
		if st, err := os.Stat(in); err == nil && os.SameFile(st, outInfo) {
			return usageErrorf("refusing to write %s: it is one of the input files", out)
		}
	}
	return nil
}

// writeFileAtomic writes through a temporary file in the same directory and
// renames it into place, so a failed run never leaves half a file.
func writeFileAtomic(path string, write func(w io.Writer) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
