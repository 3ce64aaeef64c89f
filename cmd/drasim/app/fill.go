package app

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/drasim/drasim/report"
	"github.com/drasim/drasim/sim/fill"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/policy"
	"github.com/drasim/drasim/sim/schedule"
	"github.com/drasim/drasim/sim/snapshot"
	"github.com/drasim/drasim/sim/timeline"
	"github.com/spf13/cobra"
	v1 "k8s.io/api/core/v1"
)

type fillFlags struct {
	input       inputFlags
	engine      engineFlags
	Nodes       string
	Traces      []string
	Target      float64
	Seeds       string
	Order       string
	DeviceClass string
	HTML        string
	Chart       string
	Placements  string
	Merge       []string
}

// tieBreakSimulator is fill's own --tie-break value: ties to the node the
// paper's simulator puts first, after it renamed the nodes with a seeded
// permutation (fill.Policy.SimulatorTies).
const tieBreakSimulator schedule.TieBreak = "simulator"

// NewFillCommand runs the inflation experiment of Weng et al. (ATC'23).
func NewFillCommand(streams Streams, g *GlobalOptions) *cobra.Command {
	f := &fillFlags{}
	cmd := &cobra.Command{
		Use:   "fill [-f SNAPSHOT]... [--nodes NODES.csv] --trace PODS.csv",
		Short: "Fill a cluster with an inflated workload, no departures, and chart allocation and fragmentation per scoring policy",
		Long: `Run the inflation experiment of "Beware of Fragmentation" (Weng et al., USENIX
ATC'23): the workload's pods are submitted one at a time, in a seeded shuffled
order, to the cluster; none ever leaves; the workload is inflated by seeded
sampling of its own pods until its device requests reach --target of the
cluster's device capacity (default 1.3, i.e. 130%). Each pod gets one
scheduling cycle of the same scheduler as 'drasim simulate' (the real DRA
allocator included); a pod that does not fit is dropped, as in the paper's
simulator. After every pod, the allocated share of the device capacity and the
paper's fragmentation measure are taken; the curves are reported at every 1%
of arrived capacity, binned as the paper's scripts bin them.

Input: the Alibaba openb CSVs (--nodes openb_node_list_gpu_node.csv --trace
openb_pod_list_default.csv) or any drasim snapshot (-f): its nodes and bound
pods are the cluster, its pending pods (then the traces' pods) the workload.
--policy runs several policies on the same workload; --seeds several seeds
(e.g. 42-51) and gives the mean curves with 95% confidence bands.
docs/policies.md describes the protocol and how it matches the paper.`,
		Example: `  drasim fill --nodes openb_node_list_gpu_node.csv --trace openb_pod_list_default.csv --seed 42
  drasim fill --nodes openb_node_list_gpu_node.csv --trace openb_pod_list_default.csv \
      --policy kube,most-allocated --seeds 42-51 --output-html fill.html
  drasim fill -f cluster.yaml --target 1.0 -o csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runFill(cmd.Context(), streams, g, f)
		},
	}
	fs := cmd.Flags()
	f.input.add(fs)
	f.engine.add(fs)
	// The research policies run as the paper's simulator configures them
	// (every node scored, ties to the smallest of the names the simulator
	// gives the nodes: applyPolicy and fill.Policy.SimulatorTies);
	// kube's own profiles as kube-scheduler v1.37.2 runs them.
	fs.Lookup("tie-break").DefValue = ""
	fs.Lookup("tie-break").Usage = "how to choose among equally scored nodes: kube, random (seeded by --seed), name (the smallest node name) or simulator (the smallest of the names the paper's simulator gives the nodes: a permutation drawn from --seed after the inflation, then the name); default: simulator for the research policies, kube for kube and most-allocated"
	fs.Lookup("seed").Usage = "seed of the order, the inflation and the tie-break (the paper's runs use 42 to 51)"
	_ = fs.MarkHidden("arrival")
	fs.StringVar(&f.Nodes, "nodes", "", "the cluster's nodes from an openb node list (openb_node_list_gpu_node.csv), added to -f's")
	fs.StringArrayVar(&f.Traces, "trace", nil, "the workload: an openb pod list or drasim's CSV trace (repeatable; an openb node list adds nodes)")
	fs.Lookup("policy").Usage = "scoring policies, comma-separated, each run on the same workload: " + strings.Join(fill.Policies(), ", ") + " (docs/policies.md)"
	fs.Float64Var(&f.Target, "target", fill.DefaultTarget, "inflate the workload until its device requests reach this share of the device capacity")
	fs.StringVar(&f.Seeds, "seeds", "", "run several seeds instead of --seed: a list (42,43) or a range (42-51); gives mean curves with 95% confidence bands")
	fs.StringVar(&f.Order, "order", string(fill.OrderShuffle), "submission order: shuffle (sorted by name, then shuffled with the seed, as the paper) or trace")
	fs.StringVar(&f.DeviceClass, "device-class", "", "count only the devices of this DeviceClass as capacity (default: every device of a node)")
	fs.StringVar(&f.HTML, "output-html", "", "write the HTML report (the curves of every policy on one chart) to FILE")
	fs.StringArrayVar(&f.Merge, "merge", nil, "render the JSON results of earlier fill runs (-o json; policies or seeds run apart) as one, with the means over all their seeds, instead of running (repeatable)")
	markInput(fs, "merge")
	markInput(fs, "nodes")
	markInput(fs, "trace")
	fs.StringVar(&f.Chart, "output-chart", "", "write the allocation chart (every policy's curve, bands over seeds) as SVG to FILE")
	fs.StringVar(&f.Placements, "output-placements", "", "write where each submitted pod went, per policy and seed, as CSV to FILE (policy,seed,index,pod,node,devices; node empty for a pod that did not fit)")
	markOutput(fs, "output-html")
	markOutput(fs, "output-chart")
	markOutput(fs, "output-placements")
	return setFormats(cmd, fillFormats().names()...)
}

// parseSeeds reads "42-51" or "1,7,42".
func parseSeeds(s string) ([]int64, error) {
	if from, to, ok := strings.Cut(s, "-"); ok && from != "" {
		a, err1 := strconv.ParseInt(strings.TrimSpace(from), 10, 64)
		b, err2 := strconv.ParseInt(strings.TrimSpace(to), 10, 64)
		if err1 != nil || err2 != nil || b < a || b-a >= 1000 {
			return nil, fmt.Errorf("%q: want FROM-TO with FROM <= TO, at most 1000 seeds", s)
		}
		var out []int64
		for v := a; v <= b; v++ {
			out = append(out, v)
		}
		return out, nil
	}
	var out []int64
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.ParseInt(strings.TrimSpace(part), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q: want whole numbers separated by commas, or FROM-TO", s)
		}
		out = append(out, v)
	}
	return out, nil
}

func (f *fillFlags) options(files []string) (fill.Options, error) {
	// --tie-break simulator is name with the simulator's node ranks.
	switch schedule.TieBreak(f.engine.TieBreak) {
	case "", schedule.TieBreakKube, schedule.TieBreakRandom, schedule.TieBreakName, tieBreakSimulator:
	default:
		return fill.Options{}, usageErrorf("%s %q: use kube, random, name or simulator", flagSource(f.engine.fs, "tie-break"), f.engine.TieBreak)
	}
	engine := f.engine
	simulatorTies := schedule.TieBreak(engine.TieBreak) == tieBreakSimulator
	if simulatorTies {
		engine.TieBreak = string(schedule.TieBreakName)
	}
	tieBreakGiven := flagGiven(engine.fs, "tie-break")
	base := engine
	base.Policy = string(policy.Kube)
	simOpts, err := base.options(files)
	if err != nil {
		return fill.Options{}, err
	}
	if f.Target <= 0 {
		return fill.Options{}, &ExitError{Code: ExitFailure, Err: fmt.Errorf("--target must be positive (a share of the device capacity, e.g. 1.3), got %v", f.Target)}
	}
	if f.Order != string(fill.OrderShuffle) && f.Order != string(fill.OrderTrace) {
		return fill.Options{}, usageErrorf("--order %q: use shuffle or trace", f.Order)
	}
	opts := fill.Options{Sim: simOpts, Target: f.Target, Order: fill.Order(f.Order), DeviceClass: f.DeviceClass, Seeds: []int64{f.engine.Seed}}
	if f.Seeds != "" {
		if opts.Seeds, err = parseSeeds(f.Seeds); err != nil {
			return fill.Options{}, usageErrorf("--seeds %v", err)
		}
	}
	// Each policy is a name the engine flags turn into scheduler options,
	// as for every replaying command; kube's own profiles (most-allocated)
	// are kube's options changed.
	for _, name := range strings.Split(f.engine.Policy, ",") {
		name = strings.TrimSpace(name)
		e := engine
		kube := slices.Contains(fill.KubePolicies(), name)
		if kube {
			e.Policy = string(policy.Kube)
		} else if _, err := policy.ParseName(name); err != nil {
			return fill.Options{}, &ExitError{Code: ExitFailure, Err: fmt.Errorf("--policy: unknown policy %q: use one of %s", name, strings.Join(fill.Policies(), ", "))}
		} else {
			e.Policy = name
		}
		so, err := e.options(files)
		if err != nil {
			return fill.Options{}, err
		}
		if kube {
			if so, err = fill.KubePolicyOptions(name, so); err != nil {
				return fill.Options{}, &ExitError{Code: ExitFailure, Err: fmt.Errorf("--policy: %w", err)}
			}
		}
		// The research policies break ties as the paper's simulator
		// unless --tie-break says otherwise.
		opts.Policies = append(opts.Policies, fill.Policy{Name: name, Sim: so, SimulatorTies: simulatorTies || !kube && !tieBreakGiven})
	}
	return opts, nil
}

// loadInput reads the snapshot and the CSVs: the snapshot's nodes and
// bound pods are the cluster, its pending pods and the traces' pods the
// workload (openb's through the timeline's reader).
func (f *fillFlags) loadInput(streams Streams, verbosity int) (*fill.Input, error) {
	snap := &snapshot.Snapshot{Sources: map[snapshot.Ref]snapshot.Source{}}
	var files []string
	if len(f.input.Files) > 0 {
		res, err := f.input.load(streams, verbosity, load.Options{})
		if err != nil {
			return nil, err
		}
		snap, files = res.Snapshot, res.Files
	} else if f.Nodes == "" && len(f.Traces) == 0 {
		return nil, usageErrorf("no input: give -f SNAPSHOT, or --nodes and --trace (the openb CSVs)")
	}
	var traces []timeline.TraceFile
	paths := f.Traces
	if f.Nodes != "" {
		paths = append([]string{f.Nodes}, paths...)
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, &ExitError{Code: ExitFailure, Err: fmt.Errorf("--trace: %w", err)}
		}
		if path == f.Nodes && timeline.DetectFormat(firstLine(data)) != timeline.FormatOpenbNodes {
			return nil, &ExitError{Code: ExitFailure, Err: fmt.Errorf("--nodes %s: not an openb node list (want the header sn,cpu_milli,memory_mib,gpu,model)", path)}
		}
		traces = append(traces, timeline.TraceFile{Name: path, Data: data})
	}
	tin, err := timeline.Prepare(snap, files, traces)
	if err != nil {
		return nil, &ExitError{Code: ExitFailure, Err: err}
	}
	cluster := *tin.Snapshot
	cluster.Pods = nil
	in := &fill.Input{Snapshot: &cluster, Files: tin.Files}
	for _, p := range tin.Snapshot.Pods {
		if p.Spec.NodeName != "" {
			cluster.Pods = append(cluster.Pods, p)
		} else if p.Status.Phase != v1.PodSucceeded && p.Status.Phase != v1.PodFailed {
			in.Workload = append(in.Workload, p)
		}
	}
	for _, a := range tin.Arrivals {
		in.Workload = append(in.Workload, a.Pod)
	}
	return in, nil
}

// firstLine is a CSV's header line.
func firstLine(data []byte) string {
	line, _, _ := strings.Cut(strings.TrimPrefix(string(data), "\ufeff"), "\n")
	return strings.TrimSpace(line)
}

func runFill(ctx context.Context, streams Streams, g *GlobalOptions, f *fillFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if len(f.Merge) > 0 {
		res, err := mergeFills(f.Merge)
		if err != nil {
			return err
		}
		return writeFillResult(streams, g, res)
	}
	defer paceCollector(streams)()
	in, err := f.loadInput(streams, g.Verbosity)
	if err != nil {
		return err
	}
	opts, err := f.options(in.Files)
	if err != nil {
		return err
	}
	var placements []fill.Placement
	if g.files.isSet("output-placements") {
		opts.Placed = func(p fill.Placement) { placements = append(placements, p) }
	}
	start := time.Now()
	res, err := fill.Run(ctx, in, opts)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if err := g.files.write("output-placements", func(w io.Writer) error { return writePlacements(w, placements) }); err != nil {
		return err
	}
	if g.Verbosity >= 1 {
		fmt.Fprintf(streams.Err, "filled %d device(s) with %d run(s) in %s\n", res.Devices, len(res.Curves), time.Since(start).Round(time.Millisecond))
	}
	return writeFillResult(streams, g, res)
}

func writeFillResult(streams Streams, g *GlobalOptions, res *fill.Result) error {
	if g.files.isSet("output-chart") {
		if err := g.files.write("output-chart", func(w io.Writer) error { return report.WriteFillChartSVG(w, res, false) }); err != nil {
			return err
		}
	}
	if written, err := writeTimelineHTML(streams, g, "HTML report", func(w io.Writer) error { return report.WriteFillHTML(w, res) }); written || err != nil {
		return err
	}
	return fillFormats().write(streams.Out, g.Output, res)
}

// writePlacements writes fill's placements as CSV, devices separated by
// spaces.
func writePlacements(w io.Writer, ps []fill.Placement) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"policy", "seed", "index", "pod", "node", "devices"}); err != nil {
		return err
	}
	for _, p := range ps {
		row := []string{p.Policy, strconv.FormatInt(p.Seed, 10), strconv.Itoa(p.Index), p.Pod, p.Node, strings.Join(p.Devices, " ")}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// mergeFills reads fill results (JSON) and merges them.
func mergeFills(paths []string) (*fill.Result, error) {
	var all []*fill.Result
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, &ExitError{Code: ExitFailure, Err: fmt.Errorf("--merge: %w", err)}
		}
		var r fill.Result
		if err := json.Unmarshal(data, &r); err != nil || r.Kind != fill.Kind {
			return nil, &ExitError{Code: ExitFailure, Err: fmt.Errorf("--merge %s: not the JSON of drasim fill -o json (kind %s)", p, fill.Kind)}
		}
		all = append(all, &r)
	}
	res, err := fill.Merge(all...)
	if err != nil {
		return nil, &ExitError{Code: ExitFailure, Err: fmt.Errorf("--merge: %w", err)}
	}
	return res, nil
}
