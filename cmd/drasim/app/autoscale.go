package app

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/analysis"
	"github.com/drasim/drasim/sim/autoscale"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/whatif"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// scaleFlags are the cluster-autoscaler settings, shared by autoscale and
// simulate --autoscale.
type scaleFlags struct {
	Expander           string
	PriorityConfig     string
	MaxNodesTotal      int
	MaxNodesPerScaleUp int
	MaxLoops           int
	DeviceClassWeights map[string]string
	GangAware          bool
	ProvReqClaims      string
}

func (f *scaleFlags) add(fs *pflag.FlagSet) {
	f.addScaleUp(fs)
	fs.IntVar(&f.MaxLoops, "max-loops", autoscale.DefaultMaxLoops, "maximum number of scale-ups")
}

// addScaleUp adds the flags of one scale-up decision: those of a timeline,
// whose loops never stop (--max-loops keeps its default).
func (f *scaleFlags) addScaleUp(fs *pflag.FlagSet) {
	f.MaxLoops = autoscale.DefaultMaxLoops
	fs.StringVar(&f.Expander, "expander", autoscale.ExpanderRandom, "expander chain, comma-separated as cluster-autoscaler's --expander: "+strings.Join(autoscale.ExpanderNames(), ", "))
	fs.StringVar(&f.PriorityConfig, "expander-priority-config", "", "priority expander configuration: the cluster-autoscaler-priority-expander ConfigMap (or its priorities YAML)")
	fs.IntVar(&f.MaxNodesTotal, "max-nodes-total", 0, "maximum number of nodes in the cluster, existing ones included (0: no limit)")
	fs.IntVar(&f.MaxNodesPerScaleUp, "max-nodes-per-scaleup", autoscale.DefaultMaxNodesPerScaleUp, "maximum number of nodes one scale-up adds")
	fs.StringToStringVar(&f.DeviceClassWeights, "device-class-weights", nil, "weights of idle devices per DeviceClass for least-waste-dra, e.g. h100.example.com=8,l4.example.com=1 (default 1)")
	markInput(fs, "expander-priority-config")
	fs.BoolVar(&f.GangAware, "gang-aware-scale-up", false, "research option: count a gang (PodGroup) in a scale-up estimate only when minCount of its pods fit, devices included (cluster-autoscaler scales up for a gang's pods one by one)")
	fs.StringVar(&f.ProvReqClaims, "provisioning-request-claims", autoscale.ClaimsUpstream, "claims for the virtual pods of ProvisioningRequests and CapacityBuffers whose templates use ResourceClaimTemplates: upstream (cluster-autoscaler makes none, so they never fit: kubernetes/autoscaler issue 10065) or correct (made as the resource-claim controller would)")
}

// options turns the flags into autoscale options; expanders overrides
// --expander (for --compare-expanders).
func (f *scaleFlags) options(simOpts sim.Options, expanders string) (autoscale.Options, error) {
	chain, err := autoscale.ParseExpanders(expanders)
	if err != nil {
		return autoscale.Options{}, usageErrorf("--expander: %v", err)
	}
	if f.MaxNodesTotal < 0 {
		return autoscale.Options{}, usageErrorf("--max-nodes-total must not be negative, got %d", f.MaxNodesTotal)
	}
	if f.MaxNodesPerScaleUp <= 0 {
		return autoscale.Options{}, usageErrorf("--max-nodes-per-scaleup must be at least 1, got %d", f.MaxNodesPerScaleUp)
	}
	if f.MaxLoops <= 0 {
		return autoscale.Options{}, usageErrorf("--max-loops must be at least 1, got %d", f.MaxLoops)
	}
	opts := autoscale.Options{Sim: simOpts, Expanders: chain, MaxNodesTotal: f.MaxNodesTotal, MaxNodesPerScaleUp: f.MaxNodesPerScaleUp, MaxLoops: f.MaxLoops,
		GangAwareScaleUp: f.GangAware, ProvReqClaims: f.ProvReqClaims}
	if f.ProvReqClaims != "" && f.ProvReqClaims != autoscale.ClaimsUpstream && f.ProvReqClaims != autoscale.ClaimsCorrect {
		return autoscale.Options{}, usageErrorf("--provisioning-request-claims: want %s or %s, got %q", autoscale.ClaimsUpstream, autoscale.ClaimsCorrect, f.ProvReqClaims)
	}
	if len(f.DeviceClassWeights) > 0 {
		opts.DeviceClassWeights = map[string]float64{}
		for class, v := range f.DeviceClassWeights {
			w, err := strconv.ParseFloat(v, 64)
			if err != nil || w < 0 {
				return autoscale.Options{}, usageErrorf("--device-class-weights: %s=%s: want a number >= 0", class, v)
			}
			opts.DeviceClassWeights[class] = w
		}
	}
	needsPriorities := false
	for _, e := range chain {
		needsPriorities = needsPriorities || e == autoscale.ExpanderPriority
	}
	switch {
	case f.PriorityConfig != "":
		data, err := os.ReadFile(f.PriorityConfig)
		if err != nil {
			return autoscale.Options{}, &ExitError{Code: ExitFailure, Err: fmt.Errorf("--expander-priority-config: %w", err)}
		}
		if opts.Priorities, err = autoscale.ParsePriorities(data); err != nil {
			return autoscale.Options{}, &ExitError{Code: ExitFailure, Err: fmt.Errorf("--expander-priority-config %s: %w", f.PriorityConfig, err)}
		}
	case needsPriorities:
		return autoscale.Options{}, usageErrorf("the priority expander needs --expander-priority-config FILE")
	}
	return opts, nil
}

type autoscaleFlags struct {
	input            inputFlags
	live             liveFlags
	engine           engineFlags
	edits            editFlags
	scale            scaleFlags
	OutputSnapshot   string
	CompareExpanders string
}

// NewAutoscaleCommand simulates cluster-autoscaler's scale-up on a snapshot.
func NewAutoscaleCommand(streams Streams, g *GlobalOptions) *cobra.Command {
	f := &autoscaleFlags{}
	cmd := &cobra.Command{
		Use:   "autoscale -f SNAPSHOT...",
		Short: "Plan cluster-autoscaler's scale-up for the pods that stay pending",
		Long: `Replay scheduling, then run cluster-autoscaler 1.36's scale-up loop on the
pods that stay pending: group them, check which NodeGroup template (drasim.io/v1alpha1
NodeGroup objects in the snapshot) can run them with the full filter chain and the
real DRA allocator, bin-pack them onto new template nodes, let the expander chain
choose, add the nodes and replay again, until nothing pending can be helped.
Prints every option, the expanders' reasons, the nodes to add and why the pods
that are still pending stay so. See docs/autoscaler.md.`,
		Example: `  drasim autoscale -f cluster.yaml -f nodegroups.yaml
  drasim autoscale -f cluster/ --expander priority,least-waste --expander-priority-config priorities.yaml
  drasim autoscale -f cluster/ --compare-expanders price,least-waste-dra,first-available
  drasim autoscale -f cluster/ -o json --output-snapshot after-scale-up.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runAutoscale(cmd.Context(), streams, g, f)
		},
	}
	f.input.add(cmd.Flags())
	f.live.add(cmd.Flags())
	f.engine.add(cmd.Flags())
	f.edits.add(cmd.Flags())
	f.scale.add(cmd.Flags())
	cmd.Flags().StringVar(&f.CompareExpanders, "compare-expanders", "", "run each expander on the same input and print them side by side, e.g. price,least-waste-dra,first-available (a chain joins its expanders with +)")
	cmd.Flags().StringVar(&f.OutputSnapshot, "output-snapshot", "", "write the cluster after the scale-up (new nodes and slices, pods placed) to FILE as a List; - for standard output")
	markOutput(cmd.Flags(), "output-snapshot")
	preflight(cmd, f.engine.check, func() error {
		if f.CompareExpanders != "" && f.OutputSnapshot != "" {
			return usageErrorf("--output-snapshot writes one plan's cluster: it cannot be used with --compare-expanders")
		}
		if _, err := f.scale.options(sim.Options{}, f.scale.Expander); err != nil {
			return err
		}
		return f.checkCompare()
	})
	return setFormats(cmd, scaleUpFormats().names()...)
}

func runAutoscale(ctx context.Context, streams Streams, g *GlobalOptions, f *autoscaleFlags) error {
	defer paceCollector(streams)()
	if f.CompareExpanders != "" && f.OutputSnapshot != "" {
		return usageErrorf("--output-snapshot writes one plan's cluster: it cannot be used with --compare-expanders")
	}
	var res *load.Result
	var err error
	if f.live.set() {
		res, err = f.live.loadLive(ctx, streams, g.Verbosity, &f.input)
	} else {
		res, err = f.input.load(streams, g.Verbosity, load.Options{})
	}
	if err != nil {
		return err
	}
	if err := requireNodes(res, true); err != nil {
		return err
	}
	applied, err := f.edits.apply(res)
	if err != nil {
		return err
	}
	simOpts, err := f.engine.options(res.Files)
	if err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if f.CompareExpanders != "" {
		return compareExpanders(ctx, streams, g, f, res, applied, simOpts)
	}
	opts, err := f.scale.options(simOpts, f.scale.Expander)
	if err != nil {
		return err
	}
	out, err := autoscale.Run(ctx, res.Snapshot, opts)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if applied != nil {
		applied.Resolve(out.Plan.Result)
	}
	if err := g.files.write("output-snapshot", out.Cluster.WriteSnapshot); err != nil {
		return err
	}
	return scaleUpFormats().write(streams.Out, g.Output, editedOutput[*autoscale.Plan]{out.Plan, applied != nil})
}

// checkCompare refuses, before anything is read, a --compare-expanders
// entry that names no expander chain: it would fail after the entries
// before it had run.
func (f *autoscaleFlags) checkCompare() error {
	if f.CompareExpanders == "" {
		return nil
	}
	n := 0
	for _, entry := range strings.Split(f.CompareExpanders, ",") {
		if entry = strings.TrimSpace(entry); entry == "" {
			continue
		}
		n++
		if _, err := autoscale.ParseExpanders(strings.ReplaceAll(entry, "+", ",")); err != nil {
			return usageErrorf("--compare-expanders %s: %v", entry, err)
		}
	}
	if n == 0 {
		return usageErrorf("--compare-expanders: no expander given")
	}
	return nil
}

func compareExpanders(ctx context.Context, streams Streams, g *GlobalOptions, f *autoscaleFlags, res *load.Result, applied *whatif.Applied, simOpts sim.Options) error {
	cmp := autoscale.NewComparison()
	for _, entry := range strings.Split(f.CompareExpanders, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		opts, err := f.scale.options(simOpts, strings.ReplaceAll(entry, "+", ","))
		if err != nil {
			return err
		}
		out, err := autoscale.Run(ctx, res.Snapshot, opts)
		if err != nil {
			return &ExitError{Code: ExitFailure, Err: fmt.Errorf("expander %s: %w", entry, err)}
		}
		if applied != nil {
			applied.Resolve(out.Plan.Result)
		}
		cmp.Add(out.Plan)
		// Fragmentation after the scale-up, measured on the scaled cluster
		// by the same analysis as drasim report.
		rep, err := analysis.Analyze(ctx, &sim.Run{Cluster: out.Cluster, Result: out.Plan.Result}, analysis.Options{})
		if err != nil {
			return &ExitError{Code: ExitFailure, Err: fmt.Errorf("expander %s: fragmentation after the scale-up: %w", entry, err)}
		}
		cmp.SetFragmentation(rep.Fragmentation.Rate, rep.Fragmentation.IdleDevices)
	}
	if len(cmp.Entries) == 0 {
		return usageErrorf("--compare-expanders: no expander given")
	}
	return scaleUpComparisonFormats().write(streams.Out, g.Output, cmp)
}

// runSimulateAutoscale is simulate --autoscale: the replay after the
// scale-up, in simulate's own output (the SimulationResult for json and
// yaml), with the scale-up summed up above the table.
func runSimulateAutoscale(ctx context.Context, streams Streams, g *GlobalOptions, res *load.Result, applied *whatif.Applied, simOpts sim.Options, sf *scaleFlags) error {
	opts, err := sf.options(simOpts, sf.Expander)
	if err != nil {
		return err
	}
	out, err := autoscale.Run(ctx, res.Snapshot, opts)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if applied != nil {
		applied.Resolve(out.Plan.Result)
	}
	if err := g.files.write("output-snapshot", out.Cluster.WriteSnapshot); err != nil {
		return err
	}
	return simulateScaleUpFormats().write(streams.Out, g.Output, out.Plan)
}
