package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/drasim/drasim/report"
	"github.com/drasim/drasim/scenarios"
	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/analysis"
	"github.com/drasim/drasim/sim/autoscale"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/schedule"
	"github.com/drasim/drasim/sim/snapshot"
	"github.com/drasim/drasim/sim/timeline"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// scaleDownFlags are cluster-autoscaler's scale-down flags, CA's names and
// defaults.
type scaleDownFlags struct {
	Enabled                     bool
	UnneededTime                time.Duration
	UtilizationThreshold        float64
	GPUUtilizationThreshold     float64
	DelayAfterAdd               time.Duration
	DelayAfterDelete            time.Duration
	UnremovableRecheck          time.Duration
	MaxParallelism              int
	MaxDrainParallelism         int
	IgnoreDaemonSetsUtilization bool
	SkipNodesWithSystemPods     bool
	SkipNodesWithLocalStorage   bool
}

func (f *scaleDownFlags) add(fs *pflag.FlagSet) {
	d := autoscale.DefaultScaleDownOptions()
	fs.BoolVar(&f.Enabled, "scale-down-enabled", d.Enabled, "delete nodes that stay unneeded, as cluster-autoscaler does")
	fs.DurationVar(&f.UnneededTime, "scale-down-unneeded-time", d.UnneededTime, "how long a node must be unneeded before it is deleted")
	fs.Float64Var(&f.UtilizationThreshold, "scale-down-utilization-threshold", d.UtilizationThreshold, "a node whose utilization (CPU or memory requests, or its most used device pool) is at most this may be deleted")
	fs.Float64Var(&f.GPUUtilizationThreshold, "scale-down-gpu-utilization-threshold", d.GPUUtilizationThreshold, "the same for nodes with nvidia.com/gpu allocatable")
	fs.DurationVar(&f.DelayAfterAdd, "scale-down-delay-after-add", d.DelayAfterAdd, "no scale-down so long after a scale-up")
	fs.DurationVar(&f.DelayAfterDelete, "scale-down-delay-after-delete", d.DelayAfterDelete, "no scale-down so long after a node was deleted")
	fs.DurationVar(&f.UnremovableRecheck, "unremovable-node-recheck-timeout", d.UnremovableRecheck, "a node found unremovable is looked at again after this")
	fs.IntVar(&f.MaxParallelism, "max-scale-down-parallelism", d.MaxParallelism, "most nodes deleted at once")
	fs.IntVar(&f.MaxDrainParallelism, "max-drain-parallelism", d.MaxDrainParallelism, "most nodes that need a drain deleted at once")
	fs.BoolVar(&f.IgnoreDaemonSetsUtilization, "ignore-daemonsets-utilization", d.IgnoreDaemonSetsUtilization, "leave DaemonSet pods out of a node's utilization")
	fs.BoolVar(&f.SkipNodesWithSystemPods, "skip-nodes-with-system-pods", d.SkipNodesWithSystemPods, "keep nodes with kube-system pods (not DaemonSet or mirror pods)")
	fs.BoolVar(&f.SkipNodesWithLocalStorage, "skip-nodes-with-local-storage", d.SkipNodesWithLocalStorage, "keep nodes with pods using hostPath or emptyDir volumes")
}

func (f *scaleDownFlags) options() (autoscale.ScaleDownOptions, error) {
	o := autoscale.DefaultScaleDownOptions()
	o.Enabled, o.UnneededTime, o.UtilizationThreshold, o.GPUUtilizationThreshold = f.Enabled, f.UnneededTime, f.UtilizationThreshold, f.GPUUtilizationThreshold
	o.DelayAfterAdd, o.DelayAfterDelete, o.UnremovableRecheck = f.DelayAfterAdd, f.DelayAfterDelete, f.UnremovableRecheck
	o.MaxParallelism, o.MaxDrainParallelism, o.IgnoreDaemonSetsUtilization = f.MaxParallelism, f.MaxDrainParallelism, f.IgnoreDaemonSetsUtilization
	o.SkipNodesWithSystemPods, o.SkipNodesWithLocalStorage = f.SkipNodesWithSystemPods, f.SkipNodesWithLocalStorage
	switch {
	case o.UnneededTime < 0 || o.DelayAfterAdd < 0 || o.DelayAfterDelete < 0 || o.UnremovableRecheck < 0:
		return o, usageErrorf("scale-down durations must not be negative")
	case o.UtilizationThreshold < 0 || o.UtilizationThreshold > 1 || o.GPUUtilizationThreshold < 0 || o.GPUUtilizationThreshold > 1:
		return o, usageErrorf("--scale-down-utilization-threshold and --scale-down-gpu-utilization-threshold must be between 0 and 1")
	case o.MaxParallelism < 1:
		return o, usageErrorf("--max-scale-down-parallelism must be at least 1, got %d", o.MaxParallelism)
	case o.MaxDrainParallelism < 0:
		return o, usageErrorf("--max-drain-parallelism must not be negative, got %d", o.MaxDrainParallelism)
	}
	return o, nil
}

type timelineFlags struct {
	input              inputFlags
	engine             engineFlags
	scale              scaleFlags
	scaleDown          scaleDownFlags
	Traces             []string
	Autoscale          bool
	NodeGroups         string
	ScanInterval       time.Duration
	Duration           time.Duration
	Resolution         autoDuration
	FragmentationEvery autoDuration
	ReportFile         string
	Compare            []string
	Gates              string
	JUnit              string
	GatesOutput        string
	Example            string
}

// Timeline examples compiled into the binary (--example).
const (
	exampleDemo         = "demo"
	exampleProvisioning = "provisioning"
)

func (f *timelineFlags) add(fs *pflag.FlagSet) {
	f.input.add(fs)
	f.engine.add(fs)
	fs.Lookup("parallelism").Usage = "filter workers (default: 1; the number of CPUs with --engine reference)"
	// Arrivals come from annotations and traces: --arrival is simulate's.
	_ = fs.MarkHidden("arrival")
	f.scale.addScaleUp(fs)
	f.scaleDown.add(fs)
	fs.StringArrayVar(&f.Traces, "trace", nil, "arrival trace: drasim's CSV, or the Alibaba openb pod or node list (told apart by the header); repeatable")
	fs.BoolVar(&f.Autoscale, "autoscale", true, "run cluster-autoscaler with the snapshot's NodeGroups (off when there are none)")
	fs.StringVar(&f.NodeGroups, "node-groups", "", "read the NodeGroups from FILE instead of the snapshot")
	fs.DurationVar(&f.ScanInterval, "scan-interval", timeline.DefaultScanInterval, "cluster-autoscaler's loop interval")
	fs.DurationVar(&f.Duration, "duration", 0, "end the timeline at this time (default: 30m after the last arrival, completion or node change)")
	fs.Var(&f.Resolution, "resolution", "time series step (auto: 5m up to a week's horizon, then as fine as keeps the series to 2016 samples)")
	fs.Var(&f.FragmentationEvery, "fragmentation-every", "measure the fragmentation rate this often (0: never; auto: hourly up to a week's horizon, then as often as keeps to 168 measurements; each costs a dry cycle per request shape)")
	fs.StringVar(&f.ReportFile, "output-html", "", "write the HTML report (line charts over time and every table) to FILE (old name: --report)")
	fs.StringArrayVar(&f.Compare, "compare", nil, "run the same arrivals again with other settings, NAME=FLAGS, e.g. 'price=--expander price' (repeatable; the base run is compared too)")
	fs.StringVar(&f.Gates, "gates", "", "check gates (kind Gates: maxWait, maxCost, maxNeverPlaced, minFirstChoiceShare) on the timeline; exit 3 when one fails")
	fs.StringVar(&f.JUnit, "output-junit", "", "with --gates, write the verdicts as JUnit XML to FILE (old name: --junit)")
	fs.StringVar(&f.GatesOutput, "output-gates", "", "with --gates, write the verdicts (kind GateReport) to FILE: YAML when it ends in .yaml or .yml, else JSON")
	fs.StringVar(&f.Example, "example", "", "run an embedded example instead of -f and --trace: demo (the default without input: 4 hours, 2 GPU node groups) or provisioning (ProvisioningRequests and a gang scaled up for; GenericWorkload on unless --feature-gates is given)")
	markInput(fs, "trace")
	markInput(fs, "node-groups")
	markInput(fs, "gates")
	markOutput(fs, "output-html")
	markOutput(fs, "output-junit")
	markOutput(fs, "output-gates")
}

// NewTimelineCommand runs a cluster over simulated time.
func NewTimelineCommand(streams Streams, g *GlobalOptions) *cobra.Command {
	f := &timelineFlags{}
	cmd := &cobra.Command{
		Use:   "timeline [-f SNAPSHOT]... [--trace FILE]...",
		Short: "Simulate a cluster over hours and days: arrivals, queueing, completions, cluster-autoscaler scaling up and down",
		Long: `Replay a workload over simulated time on a cluster: pods arrive (annotated YAML,
a CSV trace, or the Alibaba openb GPU trace), wait in kube-scheduler's queue, are
scheduled as 'drasim simulate' schedules them (the real DRA allocator included),
run for their duration and finish, giving their devices back. With NodeGroups,
cluster-autoscaler runs every scan interval: scale-up as 'drasim autoscale'
decides it, nodes Ready after their group's provisioning delay (spec.
provisioningDelay, default 3m), and scale-down of nodes unneeded for
--scale-down-unneeded-time, as cluster-autoscaler 1.36 does it.

Arrivals: a pod (or its Job, Deployment, ...) with the annotation
drasim.io/arrival: 15m is created then; drasim.io/duration: 2h is how long it
runs (else its activeDeadlineSeconds, else for ever). Traces (--trace): drasim's
CSV (arrival,workload,replicas,cpu,memory,claim_template|devices,device_class,
duration,priority,provisioning_request) or openb_pod_list_*.csv and openb_node_list_*.csv.
docs/timeline.md explains the model and its limits.

Output: per-pod records, a time series (--resolution) and a summary (wait
percentiles by workload and priority, node-hours and cost per group,
scale-ups and scale-downs, prioritized-list alternatives, pods never placed)
as table, markdown, json, yaml, csv or html (--output-html FILE: line charts).
--gates checks gates on the timeline (exit 3 when one fails); the output stays
the timeline, and --output-gates FILE writes the verdicts.
--compare runs the same arrivals under other settings side by side. Without
-f and --trace, runs the embedded demo; --example provisioning runs the example
of ProvisioningRequests and a gang.`,
		Example: `  drasim timeline
  drasim timeline --example provisioning
  drasim timeline -f cluster.yaml -f nodegroups.yaml --trace day.csv --output-html day.html
  drasim timeline -f cluster.yaml --trace day.csv --compare 'price=--expander price' --compare 'fa=--expander first-available'
  drasim timeline --trace openb_node_list_gpu_node.csv --trace openb_pod_list_default.csv --autoscale=false
  drasim timeline -f cluster/ --trace day.csv --gates ci/timeline-gates.yaml -o json --output-gates verdicts.json > day.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTimeline(cmd.Context(), streams, g, f, cmd.Flags())
		},
	}
	f.add(cmd.Flags())
	appendsStepSummary(cmd, "gates")
	preflight(cmd, func() error { return f.check(slices.Contains(f.input.Files, "-")) })
	return setFormats(cmd, timelineFormats().names()...)
}

func runTimeline(ctx context.Context, streams Streams, g *GlobalOptions, f *timelineFlags, fs *pflag.FlagSet) error {
	if f.JUnit != "" && f.Gates == "" {
		return usageErrorf("--output-junit needs --gates")
	}
	if f.GatesOutput != "" && f.Gates == "" {
		return usageErrorf("--output-gates needs --gates")
	}
	if f.Gates != "" && len(f.Compare) > 0 {
		return usageErrorf("--gates checks one timeline: it cannot be used with --compare")
	}
	var gates *analysis.Gates
	if f.Gates != "" {
		data, err := os.ReadFile(f.Gates)
		if err != nil {
			return &ExitError{Code: ExitFailure, Err: fmt.Errorf("--gates: %w", err)}
		}
		if gates, err = analysis.ParseGates(f.Gates, data); err != nil {
			return &ExitError{Code: ExitFailure, Err: err}
		}
	}
	switch f.Example {
	case "", exampleDemo:
	case exampleProvisioning:
		// The example's gang is a gang only with GenericWorkload.
		if !fs.Changed("feature-gates") {
			f.engine.FeatureGates = "GenericWorkload=true"
		}
	default:
		return usageErrorf("--example: want %s or %s, got %q", exampleDemo, exampleProvisioning, f.Example)
	}
	if f.Example != "" && (len(f.input.Files) > 0 || len(f.Traces) > 0) {
		return usageErrorf("--example runs an embedded example: it cannot be used with -f or --trace")
	}
	// A timeline allocates much and keeps little, as a replay does.
	defer paceCollector(streams)()
	in, err := f.loadInput(streams, g.Verbosity)
	if err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if len(f.Compare) > 0 {
		return f.compare(ctx, streams, g, fs, in)
	}
	res, err := f.run(ctx, streams, g.Verbosity, in, "")
	if err != nil {
		return err
	}
	var verdicts *analysis.GateReport
	if gates != nil {
		if verdicts, err = timelineVerdicts(g, f.Gates, gates, res); err != nil {
			return err
		}
	}
	written, err := writeTimelineHTML(streams, g, "HTML report", func(w io.Writer) error { return report.WriteTimelineHTML(w, res) })
	if !written && err == nil {
		err = timelineFormats().write(streams.Out, g.Output, timelineOutput{res, verdicts})
	}
	if err != nil || verdicts == nil {
		return err
	}
	return gateFailure(verdicts)
}

// timelineVerdicts evaluates the gates on the timeline and writes the
// verdicts to --output-gates, --output-junit and the job summary; the
// command's output stays the timeline.
func timelineVerdicts(g *GlobalOptions, file string, gates *analysis.Gates, res *timeline.Result) (*analysis.GateReport, error) {
	results, err := analysis.EvaluateTimelineGates(gates, res.Measures())
	if err != nil {
		return nil, &ExitError{Code: ExitFailure, Err: err}
	}
	verdicts := analysis.NewGateReport(file, results)
	if err := g.files.write("output-gates", func(w io.Writer) error {
		format := "json"
		if t := g.files.target("output-gates"); strings.HasSuffix(t.Path, ".yaml") || strings.HasSuffix(t.Path, ".yml") {
			format = "yaml"
		}
		return structured(itself[*analysis.GateReport]).write(w, format, verdicts)
	}); err != nil {
		return nil, err
	}
	if err := g.files.write("output-junit", func(w io.Writer) error { return report.WriteJUnit(w, "drasim timeline "+file, results) }); err != nil {
		return nil, err
	}
	if path := os.Getenv(stepSummaryEnv); path != "" {
		if err := appendMarkdown(path, func(w io.Writer) error { return report.WriteTimelineCheckMarkdown(w, results, res) }); err != nil {
			return nil, &ExitError{Code: ExitFailure, Err: fmt.Errorf("%s: %w", stepSummaryEnv, err)}
		}
	}
	return verdicts, nil
}

// writeTimelineHTML writes --output-html; done is true when that was the
// whole output (-o html went to the file).
func writeTimelineHTML(streams Streams, g *GlobalOptions, what string, write func(io.Writer) error) (done bool, err error) {
	if !g.files.isSet("output-html") {
		return false, nil
	}
	if err := g.files.write("output-html", write); err != nil {
		return true, err
	}
	if g.Output != "html" {
		return false, nil
	}
	if t := g.files.target("output-html"); !t.IsStdout() {
		fmt.Fprintf(streams.Err, "Wrote the %s to %s.\n", what, t.Path)
	}
	return true, nil
}

// loadInput reads the snapshot, the node groups and the traces; without
// any, the embedded demo.
func (f *timelineFlags) loadInput(streams Streams, verbosity int) (*timeline.Input, error) {
	var snap *snapshot.Snapshot
	var files []string
	var traces []timeline.TraceFile
	if f.Example == exampleProvisioning {
		res, err := load.LoadBytes("example:"+scenarios.TimelineProvisioningName, scenarios.TimelineProvisioning(), load.Options{Strict: f.input.Strict})
		if err != nil {
			return nil, &ExitError{Code: ExitFailure, Err: fmt.Errorf("embedded example: %w", err)}
		}
		snap, files = res.Snapshot, res.Files
		fmt.Fprintf(streams.Err, "Running the embedded example timeline %s (%s, --feature-gates %s).\n", exampleProvisioning, scenarios.TimelineProvisioningName, f.engine.FeatureGates)
	} else if len(f.input.Files) == 0 && len(f.Traces) == 0 {
		res, err := load.LoadBytes("demo:"+scenarios.TimelineDemoName, scenarios.TimelineDemo(), load.Options{Strict: f.input.Strict})
		if err != nil {
			return nil, &ExitError{Code: ExitFailure, Err: fmt.Errorf("embedded demo: %w", err)}
		}
		snap, files = res.Snapshot, res.Files
		traces = append(traces, timeline.TraceFile{Name: "demo:" + scenarios.TimelineDemoTraceName, Data: scenarios.TimelineDemoTrace()})
		fmt.Fprintf(streams.Err, "No -f or --trace given: running the embedded demo timeline (%s, %s).\n", scenarios.TimelineDemoName, scenarios.TimelineDemoTraceName)
	} else {
		if len(f.input.Files) > 0 {
			res, err := f.input.load(streams, verbosity, load.Options{})
			if err != nil {
				return nil, err
			}
			snap, files = res.Snapshot, res.Files
		} else {
			snap = &snapshot.Snapshot{Sources: map[snapshot.Ref]snapshot.Source{}}
		}
		for _, path := range f.Traces {
			name, data, err := readTraceFile(streams, path)
			if err != nil {
				return nil, &ExitError{Code: ExitFailure, Err: fmt.Errorf("--trace: %w", err)}
			}
			traces = append(traces, timeline.TraceFile{Name: name, Data: data})
		}
	}
	if f.NodeGroups != "" {
		res, err := load.Load([]string{f.NodeGroups}, load.Options{Strict: f.input.Strict})
		if err != nil {
			return nil, &ExitError{Code: ExitFailure, Err: fmt.Errorf("--node-groups: %w", err)}
		}
		cp := *snap
		cp.NodeGroups = res.Snapshot.NodeGroups
		if cp.Sources != nil {
			cp.Sources = map[snapshot.Ref]snapshot.Source{}
			for k, v := range snap.Sources {
				cp.Sources[k] = v
			}
			for k, v := range res.Snapshot.Sources {
				if k.Kind == "NodeGroup" {
					cp.Sources[k] = v
				}
			}
		}
		snap = &cp
		files = append(files, f.NodeGroups)
	}
	in, err := timeline.Prepare(snap, files, traces)
	if err != nil {
		return nil, &ExitError{Code: ExitFailure, Err: err}
	}
	return in, nil
}

// readTraceFile reads a --trace file, or standard input for "-" (named
// <stdin> in messages, as -f - is).
func readTraceFile(streams Streams, path string) (string, []byte, error) {
	if path != "-" {
		data, err := os.ReadFile(path)
		return path, data, err
	}
	if streams.In == nil {
		return "", nil, errors.New("-: no standard input to read")
	}
	data, err := io.ReadAll(streams.In)
	return "<stdin>", data, err
}

// options turns the flags into timeline options.
func (f *timelineFlags) options(in *timeline.Input, name string) (timeline.Options, error) {
	simOpts, err := f.simOptions(in.Files)
	if err != nil {
		return timeline.Options{}, err
	}
	if err := f.checkTimes(); err != nil {
		return timeline.Options{}, err
	}
	// Unset steps adapt to the horizon (the engine's defaults).
	opts := timeline.Options{Name: name, Sim: simOpts, ScanInterval: f.ScanInterval, Resolution: f.Resolution.or(0),
		FragmentationEvery: f.FragmentationEvery.or(timeline.FragmentationAuto), End: f.Duration}
	if opts.ScaleDown, err = f.scaleDown.options(); err != nil {
		return timeline.Options{}, err
	}
	if f.Autoscale && len(in.Snapshot.NodeGroups) > 0 {
		a, err := f.scale.options(simOpts, f.scale.Expander)
		if err != nil {
			return timeline.Options{}, err
		}
		opts.Autoscale = &a
	}
	return opts, nil
}

// simOptions are the engine's options for a timeline.
func (f *timelineFlags) simOptions(files []string) (sim.Options, error) {
	simOpts, err := f.engine.options(files)
	if err != nil {
		return sim.Options{}, err
	}
	if simOpts.Arrival != schedule.ArrivalBatch {
		return sim.Options{}, usageErrorf("--arrival does not apply to a timeline: pods arrive at their drasim.io/arrival time or the trace's")
	}
	return simOpts, nil
}

// checkTimes refuses intervals and durations that cannot work.
func (f *timelineFlags) checkTimes() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"--scan-interval", f.ScanInterval}, {"--resolution", f.Resolution.or(1)}} {
		if d.v <= 0 {
			return usageErrorf("%s must be positive, got %s", d.name, d.v)
		}
	}
	if f.Duration < 0 || f.FragmentationEvery.or(0) < 0 {
		return usageErrorf("--duration and --fragmentation-every must not be negative")
	}
	return nil
}

func (f *timelineFlags) run(ctx context.Context, streams Streams, verbosity int, in *timeline.Input, name string) (*timeline.Result, error) {
	opts, err := f.options(in, name)
	if err != nil {
		return nil, err
	}
	var memo timeline.MemoStats
	opts.Memo = &memo
	progress := newTimelineProgress(streams.Err, verbosity, name)
	opts.Progress = progress.update
	start := time.Now()
	res, err := timeline.Run(ctx, in, opts)
	progress.done()
	if err != nil {
		return nil, &ExitError{Code: ExitFailure, Err: err}
	}
	if verbosity >= 1 {
		fmt.Fprintf(streams.Err, "simulated %s with %d arrival(s) and %d scheduling cycle(s) in %s (seed %d)\n",
			res.Inputs.End.Duration(), res.Inputs.Arrivals, res.Summary.Cycles, time.Since(start).Round(time.Millisecond), res.Inputs.Seed)
	}
	if verbosity >= 2 {
		fmt.Fprintf(streams.Err, "failed cycles given again by the memo: %d; run: %d\n", memo.Hits, memo.Misses)
	}
	return res, nil
}

// compare runs the base settings and each --compare variant on the same
// input.
func (f *timelineFlags) compare(ctx context.Context, streams Streams, g *GlobalOptions, base *pflag.FlagSet, in *timeline.Input) error {
	cmp := timeline.NewComparison()
	res, err := f.run(ctx, streams, g.Verbosity, in, "base")
	if err != nil {
		return err
	}
	cmp.Add("base", nil, res)
	seen := map[string]bool{"base": true}
	for _, spec := range f.Compare {
		name, args, err := parseVariant(spec)
		if err != nil {
			return err
		}
		if seen[name] {
			return usageErrorf("--compare %s: the name %q is used twice", spec, name)
		}
		seen[name] = true
		v, err := f.variant(base, args)
		if err != nil {
			return usageErrorf("--compare %s: %v", name, err)
		}
		vin := in
		if v.NodeGroups != f.NodeGroups {
			if vin, err = v.loadInput(streams, g.Verbosity); err != nil {
				return err
			}
		}
		res, err := v.run(ctx, streams, g.Verbosity, vin, name)
		if err != nil {
			return fmt.Errorf("--compare %s: %w", name, err)
		}
		cmp.Add(name, args, res)
	}
	if written, err := writeTimelineHTML(streams, g, "HTML comparison", func(w io.Writer) error { return report.WriteTimelineComparisonHTML(w, cmp) }); written || err != nil {
		return err
	}
	if g.Output == "csv" {
		return usageErrorf("-o csv writes one timeline: use json or yaml for a comparison")
	}
	return timelineComparisonFormats().write(streams.Out, g.Output, cmp)
}

// parseVariant splits NAME=FLAGS and the flags into arguments (single and
// double quotes group words).
func parseVariant(spec string) (string, []string, error) {
	name, rest, ok := strings.Cut(spec, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return "", nil, usageErrorf("--compare %q: want NAME=FLAGS, e.g. 'price=--expander price'", spec)
	}
	var args []string
	var cur strings.Builder
	var quote rune
	inWord := false
	for _, r := range rest {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return "", nil, usageErrorf("--compare %s: unterminated quote", name)
	}
	if inWord {
		args = append(args, cur.String())
	}
	return name, args, nil
}

// variant returns the flags of a --compare run: the base flags with args
// applied on top. Flags that change the input or the output are refused.
func (f *timelineFlags) variant(base *pflag.FlagSet, args []string) (*timelineFlags, error) {
	v := *f
	fs := pflag.NewFlagSet("compare", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SetNormalizeFunc(normalizeFlagName)
	v.add(fs)
	v = *f // add reset the fields to their defaults; the base values win
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	for _, name := range []string{"filename", "trace", "compare", "output-html", "gates", "output-junit", "output-gates", "strict"} {
		if fs.Changed(name) {
			return nil, fmt.Errorf("--%s cannot change in a comparison: every run has the same input and one output", name)
		}
	}
	return &v, nil
}

// checkTimelineGates evaluates the gates on a timeline and reports the
// verdicts: exit 0 when every gate passed, 3 when one failed.
func checkTimelineGates(streams Streams, g *GlobalOptions, file string, gates *analysis.Gates, res *timeline.Result) error {
	results, err := analysis.EvaluateTimelineGates(gates, res.Measures())
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	verdicts := analysis.NewGateReport(file, results)
	if err := g.files.write("output-junit", func(w io.Writer) error { return report.WriteJUnit(w, "drasim timeline "+file, results) }); err != nil {
		return err
	}
	if path := os.Getenv(stepSummaryEnv); path != "" {
		if err := appendMarkdown(path, func(w io.Writer) error { return report.WriteTimelineCheckMarkdown(w, results, res) }); err != nil {
			return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%s: %w", stepSummaryEnv, err)}
		}
	}
	if err := timelineCheckFormats().write(streams.Out, g.Output, timelineOutput{res, verdicts}); err != nil {
		return err
	}
	return gateFailure(verdicts)
}

// gateFailure is the error of a failed gate report (exit 3), nil when
// every gate passed.
func gateFailure(verdicts *analysis.GateReport) error {
	if verdicts.Passed {
		return nil
	}
	var failed []string
	for _, r := range verdicts.Results {
		if !r.Passed {
			failed = append(failed, fmt.Sprintf("%q", r.Name))
		}
	}
	return &ExitError{Code: ExitGateFailed, Err: fmt.Errorf("%d of %d gate(s) failed: %s", verdicts.Failed, len(verdicts.Results), strings.Join(failed, ", "))}
}

// autoDuration is a duration flag whose default ("auto") the engine picks.
type autoDuration struct {
	d   time.Duration
	set bool
}

var _ pflag.Value = (*autoDuration)(nil)

func (a *autoDuration) String() string {
	if !a.set {
		return "auto"
	}
	return a.d.String()
}

func (a *autoDuration) Set(s string) error {
	if s == "auto" {
		*a = autoDuration{}
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*a = autoDuration{d: d, set: true}
	return nil
}

func (a *autoDuration) Type() string { return "duration" }

// or is the value given, else def.
func (a autoDuration) or(def time.Duration) time.Duration {
	if a.set {
		return a.d
	}
	return def
}
