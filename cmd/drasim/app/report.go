package app

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/drasim/drasim/report"
	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/analysis"
	"github.com/drasim/drasim/sim/autoscale"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/snapshot"
	"github.com/drasim/drasim/sim/whatif"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// capacityFlags are the flags of the commands that analyze a replay
// (report and check).
type capacityFlags struct {
	input         inputFlags
	live          liveFlags
	engine        engineFlags
	edits         editFlags
	GroupBy       string
	Probe         string
	MaxHeadroom   int
	MaxSequential int
	// FailureDomains and Spares ask for failure-domain analyses.
	FailureDomains []string
	Spares         string
}

func (f *capacityFlags) add(fs *pflag.FlagSet) {
	f.input.add(fs)
	f.live.add(fs)
	f.engine.add(fs)
	f.edits.add(fs)
	fs.StringVar(&f.GroupBy, "group-by", analysis.DefaultGroupBy, "node label to group nodes by")
	fs.StringVar(&f.Probe, "probe", "", "probe file: pods (and the ResourceClaimTemplates they name) whose shapes replace the workload mix; identical pods weigh more")
	fs.IntVar(&f.MaxHeadroom, "max-headroom", analysis.DefaultMaxHeadroom, "stop counting the headroom of a shape at this many instances")
	fs.IntVar(&f.MaxSequential, "max-sequential", analysis.DefaultMaxSequential, "stop at this many instances for shapes that must be placed one full scheduling cycle at a time (pod affinity, hard topology spread)")
	markInput(fs, "probe")
	fs.StringArrayVar(&f.FailureDomains, "failure-domain", nil, "remove each failure domain in turn and report the pods its loss strands: node, or a node label such as topology.kubernetes.io/zone (repeatable)")
	fs.StringVar(&f.Spares, "spares", "", "with --failure-domain: add GROUP=COUNT spare nodes of a NodeGroup before each loss")
}

// domainOptions turns --failure-domain and --spares into analyses.
func (f *capacityFlags) domainOptions(simOpts sim.Options) ([]whatif.DomainOptions, error) {
	var group string
	var count int
	if f.Spares != "" {
		g, n, ok := strings.Cut(f.Spares, "=")
		c, err := strconv.Atoi(n)
		if !ok || g == "" || err != nil || c <= 0 {
			return nil, usageErrorf("--spares %q: want GROUP=COUNT with COUNT at least 1", f.Spares)
		}
		if len(f.FailureDomains) == 0 {
			return nil, usageErrorf("--spares needs --failure-domain")
		}
		group, count = g, c
	}
	var out []whatif.DomainOptions
	for _, d := range f.FailureDomains {
		if d == "" {
			return nil, usageErrorf("--failure-domain: want node or a node label")
		}
		out = append(out, whatif.DomainOptions{Domain: d, SpareGroup: group, Spares: count, Sim: simOpts})
	}
	return out, nil
}

// capacityRun is a replay (after the edits) and its capacity report.
type capacityRun struct {
	run *sim.Run
	rep *analysis.Report
	// original is the snapshot before the edits (nil when none).
	original *snapshot.Snapshot
	opts     sim.Options
	aopts    analysis.Options
}

// capacity replays the snapshot and analyzes the result. Input problems
// are ExitErrors with ExitFailure (or ExitUsage for the command line).
func (f *capacityFlags) capacity(ctx context.Context, streams Streams, verbosity int, gates *analysis.Gates) (*capacityRun, error) {
	if f.MaxHeadroom <= 0 {
		return nil, usageErrorf("--max-headroom must be positive, got %d", f.MaxHeadroom)
	}
	if f.MaxSequential <= 0 {
		return nil, usageErrorf("--max-sequential must be positive, got %d", f.MaxSequential)
	}
	res, err := loadInput(ctx, streams, verbosity, &f.input, &f.live, load.Options{})
	if err != nil {
		return nil, err
	}
	var original *snapshot.Snapshot
	applied, err := f.edits.apply(res)
	if err != nil {
		return nil, err
	}
	if applied != nil {
		original = applied.Original
	}
	if err := requireNodes(res, false); err != nil {
		return nil, err
	}
	if err := f.checkSpares(res); err != nil {
		return nil, err
	}
	if gates != nil {
		if err := gates.CheckNodeGroups(nodeGroupNames(res)); err != nil {
			return nil, &ExitError{Code: ExitFailure, Err: err}
		}
	}
	opts, err := f.engine.options(res.Files)
	if err != nil {
		return nil, err
	}
	aopts := analysis.Options{GroupBy: f.GroupBy, Engine: opts, MaxHeadroom: f.MaxHeadroom, MaxSequential: f.MaxSequential}
	if aopts.FailureDomains, err = f.domainOptions(opts); err != nil {
		return nil, err
	}
	if gates != nil {
		aopts.FailureDomains = append(aopts.FailureDomains, gates.DomainOptions(opts)...)
	}
	if f.Probe != "" {
		probes, err := load.Load([]string{f.Probe}, load.Options{Strict: f.input.Strict})
		if probes != nil {
			for _, w := range probes.Warnings {
				fmt.Fprintf(streams.Err, "warning: --probe: %s\n", w)
			}
		}
		if err == nil {
			err = admit(probes)
		}
		if err != nil {
			return nil, &ExitError{Code: ExitFailure, Err: fmt.Errorf("--probe: %w", err)}
		}
		if len(probes.Snapshot.Pods) == 0 {
			return nil, &ExitError{Code: ExitFailure, Err: fmt.Errorf("--probe %s: no pods (or workloads) in the file: nothing to probe with", f.Probe)}
		}
		aopts.Probes = probes.Snapshot
	}
	if ctx == nil {
		ctx = context.Background()
	}
	start := time.Now()
	bar := newProgressBar(streams.Err)
	opts.Progress = bar.Update
	run, err := sim.Simulate(ctx, res.Snapshot, opts)
	bar.Done()
	if err != nil {
		return nil, &ExitError{Code: ExitFailure, Err: err}
	}
	if applied != nil {
		applied.Resolve(run.Result)
	}
	replayed := time.Now()
	abar := newProgressBar(streams.Err)
	aopts.Progress = stageProgress(abar, verbosity, time.Now)
	rep, err := analysis.Analyze(ctx, run, aopts)
	abar.Done()
	aopts.Progress = nil
	if err != nil {
		return nil, &ExitError{Code: ExitFailure, Err: fmt.Errorf("capacity analysis: %w", err)}
	}
	rep.Edits = run.Result.Edits
	if len(res.Snapshot.ProvisioningRequests)+len(res.Snapshot.CapacityBuffers) > 0 {
		aopts := opts
		aopts.Progress = nil
		if rep.Autoscaling, err = autoscale.Assess(ctx, res.Snapshot, autoscale.Options{Sim: aopts}); err != nil {
			return nil, &ExitError{Code: ExitFailure, Err: fmt.Errorf("ProvisioningRequests and CapacityBuffers: %w", err)}
		}
	}
	if verbosity >= 1 {
		fmt.Fprintf(streams.Err, "replayed %d pending pods on %d nodes in %s, analyzed %d shape(s) in %s (seed %d)\n",
			run.Result.Inputs.PendingPods, run.Result.Inputs.Nodes, replayed.Sub(start).Round(time.Millisecond),
			len(rep.Mix), time.Since(replayed).Round(time.Millisecond), run.Result.Inputs.Seed)
	}
	return &capacityRun{run: run, rep: rep, original: original, opts: opts, aopts: aopts}, nil
}

// deviceMaps draws the device map after the replay and, when edits were
// applied, the one of a replay without them.
func (cr *capacityRun) deviceMaps(ctx context.Context, groupBy string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	cr.rep.DeviceMap = analysis.DeviceMapOf(ctx, cr.run.Cluster, groupBy)
	if cr.original == nil {
		return nil
	}
	opts := cr.opts
	opts.Progress = nil
	before, err := sim.Simulate(ctx, cr.original, opts)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("replay without the edits: %w", err)}
	}
	cr.rep.DeviceMapBefore = analysis.DeviceMapOf(ctx, before.Cluster, groupBy)
	return nil
}

type reportFlags struct {
	capacity   capacityFlags
	ReportFile string
}

// NewReportCommand replays a snapshot and reports its capacity: what fits,
// what is in use, what is stranded and how much room is left.
func NewReportCommand(streams Streams, g *GlobalOptions) *cobra.Command {
	f := &reportFlags{}
	cmd := &cobra.Command{
		Use:   "report [-f SNAPSHOT]...",
		Short: "Replay a snapshot and report capacity: fit, utilization, fragmentation, headroom, stranded resources",
		Long: `Replay scheduling as 'drasim simulate' does, then analyze the cluster it leaves:
pods scheduled and pending (by namespace, workload and reason), utilization per
node group, DeviceClass and driver, prioritized-list outcomes, the fragmentation
rate of idle devices for the workload mix, headroom per request shape, the
largest request each DeviceClass can still serve, shared counters of
partitionable devices, and stranded devices, CPU and memory. docs/metrics.md
defines every number.

The workload mix is the shapes of the pods the replay tried, weighted by count;
--probe FILE replaces it with the pods of FILE. Every "does it fit" is decided
by the scheduler's filters, DRA allocator included, on a copy of the cluster.

Formats (-o): table, markdown (for pull-request comments), json, yaml, csv (one
row per pod and per node) and html (one self-contained page with charts);
--output-html FILE writes the HTML page to FILE. Without -f, uses the demo.`,
		Example: `  drasim report -f cluster-dump.yaml
  drasim report -f dump/ --probe next-quarter.yaml -o markdown
  drasim report -f dump/ --output-html capacity.html
  drasim report -f dump/ -o csv > rows.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runReport(cmd.Context(), streams, g, f)
		},
	}
	f.capacity.add(cmd.Flags())
	cmd.Flags().StringVar(&f.ReportFile, "output-html", "", "write the HTML report (charts and tables, self-contained) to FILE (old name: --report)")
	markOutput(cmd.Flags(), "output-html")
	preflight(cmd, f.capacity.check)
	return setFormats(cmd, capacityFormats().names()...)
}

func runReport(ctx context.Context, streams Streams, g *GlobalOptions, f *reportFlags) error {
	cr, err := f.capacity.capacity(ctx, streams, g.Verbosity, nil)
	if err != nil {
		return err
	}
	rep := cr.rep
	if g.files.isSet("output-html") || g.Output == "html" {
		if err := cr.deviceMaps(ctx, f.capacity.GroupBy); err != nil {
			return err
		}
	}
	if g.files.isSet("output-html") {
		if err := g.files.write("output-html", func(w io.Writer) error { return report.WriteCapacityHTML(w, rep) }); err != nil {
			return err
		}
		if g.Output == "html" {
			if t := g.files.target("output-html"); !t.IsStdout() {
				fmt.Fprintf(streams.Err, "Wrote the HTML report to %s.\n", t.Path)
			}
			return nil
		}
	}
	return capacityFormats().write(streams.Out, g.Output, rep)
}
