package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/drasim/drasim/report"
	"github.com/drasim/drasim/sim/sweep"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/resource"
)

// sweepGCPercent is the garbage collector's pace during a sweep (GOGC).
const sweepGCPercent = 400

type sweepFlags struct {
	Out          string
	Workers      int
	MaxMemory    string
	Shard        string
	Restart      bool
	RetryFailed  bool
	NoTiming     bool
	PrintResults bool
	DryRun       bool
}

// NewSweepCommand runs experiments: one command over axes and seeds.
func NewSweepCommand(streams Streams, g *GlobalOptions) *cobra.Command {
	f := &sweepFlags{}
	cmd := &cobra.Command{
		Use:   "sweep SWEEP.yaml",
		Short: "Run an experiment: a command over the cross product of axes and seeds, in parallel, one row of metrics per run",
		Long: `Run the experiment a sweep file (drasim.io/v1alpha1 Sweep) describes: its
command (simulate, report, autoscale, ...) once per point of its axes (any flag
of the command, feature gates, NodeGroup sizes, workload replica multipliers)
and per seed, on inputs loaded once and shared by every run, as many runs at
once as there are cores (or as --max-memory allows).

Each run adds a row (its axis values, seed, metrics, run time and error) to
DIR/results.jsonl and DIR/results.csv (--output-dir) as it finishes; when every run is done
both files are rewritten in run order. Run the same command again to resume a
stopped sweep: runs with a row are skipped. A run that fails is a row with its
error; the others go on.

--shard I/N runs every N-th run from the I-th (I may name an environment
variable: JOB_COMPLETION_INDEX in a Kubernetes Indexed Job); 'drasim sweep
merge' joins the shards' results. 'drasim sweep report' aggregates the rows
over seeds; 'drasim sweep job' writes the Kubernetes Job. See docs/sweeps.md.`,
		Example: `  drasim sweep expanders.yaml
  drasim sweep expanders.yaml --dry-run
  drasim sweep expanders.yaml --output-dir results/ --workers 4 --max-memory 6Gi
  drasim sweep expanders.yaml --shard 3/10 --output-dir shards/
  drasim sweep report results/ -o markdown`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSweep(cmd.Context(), streams, g, f, args[0])
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.Out, "output-dir", "", "write the results into DIR (default: NAME-results, after the sweep's name)")
	fs.IntVar(&f.Workers, "workers", 0, "runs at once (default: number of CPUs)")
	fs.StringVar(&f.MaxMemory, "max-memory", "", "memory budget, e.g. 4Gi: the first run is measured alone and no more runs run at once than fit")
	fs.StringVar(&f.Shard, "shard", "", "run shard I of N (I/N); I may name an environment variable that holds it, e.g. JOB_COMPLETION_INDEX/10")
	fs.BoolVar(&f.Restart, "restart", false, "discard the rows of an earlier run of this sweep in --output-dir and start over")
	fs.BoolVar(&f.RetryFailed, "retry-failed", false, "when resuming, run again the runs whose rows have an error")
	fs.BoolVar(&f.NoTiming, "no-timing", false, "leave run times out of the rows, so that two sweeps give the same bytes")
	fs.BoolVar(&f.PrintResults, "print-results", false, "when done, write the results (JSON lines) to standard output, for collectors that read pod logs")
	fs.BoolVar(&f.DryRun, "dry-run", false, "check the sweep and list its runs without running them")
	markOutputDir(fs, "output-dir")
	cmd.AddCommand(
		newSweepReportCommand(streams, g),
		newSweepMergeCommand(streams, g),
		newSweepJobCommand(streams, g),
	)
	return setFormats(cmd, "table")
}

// loadSweep reads and validates a sweep file, loads the first run's
// inputs (warnings on stderr, admitted as every command admits its input)
// and checks the plan against them.
func loadSweep(streams Streams, path string) (*sweep.Plan, *sweep.Inputs, error) {
	plan, err := loadPlan(path)
	if err != nil {
		return nil, nil, err
	}
	in, err := plan.LoadInputs(admit)
	if in.First != nil {
		for _, w := range in.First.Warnings {
			fmt.Fprintf(streams.Err, "warning: %s\n", w)
		}
	}
	if err != nil {
		var ee *ExitError
		if errors.As(err, &ee) {
			return nil, nil, err
		}
		return nil, nil, &ExitError{Code: ExitFailure, Err: err}
	}
	if err := plan.CheckInputs(in, newSweepCommands()); err != nil {
		return nil, nil, &ExitError{Code: ExitFailure, Err: err}
	}
	return plan, in, nil
}

// loadPlan reads and validates a sweep file.
func loadPlan(path string) (*sweep.Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &ExitError{Code: ExitFailure, Err: err}
	}
	sw, err := sweep.Parse(path, data)
	if err != nil {
		return nil, &ExitError{Code: ExitFailure, Err: err}
	}
	plan, err := sweep.NewPlan(path, sw, newSweepCommands())
	if err != nil {
		return nil, &ExitError{Code: ExitFailure, Err: err}
	}
	return plan, nil
}

// parseShard reads I/N. I may name an environment variable holding the
// index, as JOB_COMPLETION_INDEX does in an Indexed Job's pod.
func parseShard(s string) (*sweep.Shard, error) {
	if s == "" {
		return nil, nil
	}
	is, ns, ok := strings.Cut(s, "/")
	if !ok {
		return nil, usageErrorf("--shard %q: want I/N, e.g. 3/10 or JOB_COMPLETION_INDEX/10", s)
	}
	n, err := strconv.Atoi(ns)
	if err != nil || n < 1 {
		return nil, usageErrorf("--shard %q: N must be a whole number of shards, at least 1", s)
	}
	from := ""
	if _, err := strconv.Atoi(is); err != nil && is != "" {
		from = is
		v, set := os.LookupEnv(is)
		if !set {
			return nil, usageErrorf("--shard %q: environment variable %s is not set", s, is)
		}
		is = v
	}
	i, err := strconv.Atoi(is)
	if err != nil || i < 0 || i >= n {
		if from != "" {
			return nil, usageErrorf("--shard %q: %s=%q is not a shard index from 0 to %d", s, from, is, n-1)
		}
		return nil, usageErrorf("--shard %q: I must be a whole number from 0 to %d", s, n-1)
	}
	return &sweep.Shard{Index: i, Count: n}, nil
}

// parseBytes reads a memory quantity (4Gi, 512Mi, 2e9).
func parseBytes(flag, s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	q, err := resource.ParseQuantity(s)
	if err != nil || q.Sign() <= 0 {
		return 0, usageErrorf("--%s %q: want a size such as 4Gi or 512Mi", flag, s)
	}
	return q.Value(), nil
}

func runSweep(ctx context.Context, streams Streams, g *GlobalOptions, f *sweepFlags, path string) error {
	shard, err := parseShard(f.Shard)
	if err != nil {
		return err
	}
	maxMemory, err := parseBytes("max-memory", f.MaxMemory)
	if err != nil {
		return err
	}
	if f.Workers < 0 {
		return usageErrorf("--workers must not be negative, got %d", f.Workers)
	}
	plan, in, err := loadSweep(streams, path)
	if err != nil {
		return err
	}
	if f.DryRun {
		return report.WriteSweepPlan(streams.Out, plan, shard)
	}
	out := g.files.dir("output-dir", plan.Name+"-results")
	if err := out.create(); err != nil {
		return err
	}
	store, err := sweep.OpenStore(out.Path, plan.Header(shard), sweep.StoreOptions{Restart: f.Restart, RetryFailed: f.RetryFailed, Write: out.write})
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%s %s: %w", out.Flag, out.Path, err)}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	// Runs allocate much and keep little: collecting garbage at a quarter
	// of Go's default pace costs a quarter less CPU for about twice the
	// heap, which --max-memory caps. GOGC in the environment wins.
	if _, set := os.LookupEnv("GOGC"); !set {
		defer debug.SetGCPercent(debug.SetGCPercent(sweepGCPercent))
	}
	// SIGINT and SIGTERM (a pod being stopped) let the runs under way
	// finish and their rows be written; the next start resumes.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	bar := newProgressBar(streams.Err)
	logged := 0
	progress := func(p sweep.Progress) {
		note := ""
		if p.Failed > 0 {
			note += fmt.Sprintf(", %d failed", p.Failed)
		}
		if p.ETA > 0 {
			note += fmt.Sprintf(", ETA %s", p.ETA.Round(time.Second))
		}
		bar.update(p.Done, p.Total, "runs", note)
		// Off a terminal (a pod's log), -v 1 prints a line every tenth.
		if !bar.enabled && g.Verbosity >= 1 && p.Total > 0 && (p.Done*10/p.Total > logged || p.Done == p.Total) {
			logged = p.Done * 10 / p.Total
			fmt.Fprintf(streams.Err, "%d/%d runs%s, %s\n", p.Done, p.Total, note, p.Elapsed.Round(time.Second))
		}
	}
	outcome, err := sweep.Execute(ctx, plan, in, store, sweep.Options{
		Exec: sweepExec, Workers: f.Workers, MaxMemory: maxMemory, Shard: shard,
		NoTiming: f.NoTiming, Progress: progress,
	})
	bar.Done()
	if err != nil {
		store.Close(false)
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if err := store.Close(outcome.Complete); err != nil {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%s %s: %w", out.Flag, out.Path, err)}
	}
	jsonl, csvPath := store.Paths()
	summary := streams.Out
	if f.PrintResults {
		summary = streams.Err
		if err := copyResults(streams.Out, jsonl); err != nil {
			return &ExitError{Code: ExitFailure, Err: err}
		}
	}
	if err := report.WriteSweepOutcome(summary, plan, shard, outcome, jsonl, csvPath); err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if !outcome.Complete {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("stopped after %d of %d runs; the same command resumes the sweep", outcome.Done, outcome.Total)}
	}
	return nil
}

// copyResults writes a results file to w.
func copyResults(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}
