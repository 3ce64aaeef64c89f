package app

import (
	"fmt"
	"io"
	"os"

	"github.com/drasim/drasim/report"
	"github.com/drasim/drasim/sim/generate"
	"github.com/spf13/cobra"
)

type generateFlags struct {
	Nodes            int
	Pods             int
	Seed             int64
	Profiles         string
	Workloads        string
	OutputFile       string
	Force            bool
	Timeline         bool
	MaxNodesPerGroup int
}

// NewGenerateCommand writes a synthetic snapshot: GPU nodes with their
// ResourceSlices, DeviceClasses and pending pods that claim devices.
func NewGenerateCommand(streams Streams, g *GlobalOptions) *cobra.Command {
	f := &generateFlags{}
	cmd := &cobra.Command{
		Use:   "generate [--nodes N] [--pods N] [--output-snapshot FILE]",
		Short: "Write a synthetic cluster snapshot with GPU nodes and pending pods",
		Long: `Write a synthetic snapshot that drasim (and kubectl) can read: nodes of a few
realistic shapes with their ResourceSlices, the DeviceClasses that select their
GPUs, and pending pods that claim GPUs through ResourceClaimTemplates.

Node profiles:
  dgx-h100  8 H100 GPUs (pcieRoot and NUMA attributes)
  a100-mig  8 partitionable A100 GPUs: the whole GPU or 1g.10gb, 2g.20gb,
            3g.40gb partitions on shared counters
  l4        4 L4 GPUs
  cpu       no devices
Workloads:
  inference one GPU from a prioritized list: H100, then A100 (whole or 3g),
            then L4
  training  8 H100s, or 4 H100s on one NUMA node
  mig       one 1g.10gb or 2g.20gb partition
  cpu       CPU and memory only

Weights are relative and apportioned exactly; the seed decides the order in
which pods arrive and the choices inside a workload. The same flags always
write the same bytes.`,
		Example: `  drasim generate --nodes 1000 --pods 2000 --output-snapshot cluster.yaml
  drasim generate --profiles dgx-h100=1,l4=3 --workloads inference=1 --seed 7 | drasim simulate -f -
  drasim generate --nodes 50 --pods 0 --timeline --output-snapshot cluster.yaml && drasim generate trace --arrivals 5000 --output-trace day.csv`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return runGenerate(streams, g, f) },
	}
	fl := cmd.Flags()
	fl.IntVar(&f.Nodes, "nodes", 100, fmt.Sprintf("number of nodes (1..%d)", generate.MaxNodes))
	fl.IntVar(&f.Pods, "pods", 200, fmt.Sprintf("number of pending pods (0..%d)", generate.MaxPods))
	fl.Int64Var(&f.Seed, "seed", 0, "seed for every random choice")
	fl.StringVar(&f.Profiles, "profiles", "", "node profile weights, e.g. dgx-h100=2,a100-mig=2,l4=3,cpu=3 (the default)")
	fl.StringVar(&f.Workloads, "workloads", "", "workload weights, e.g. inference=5,training=1,mig=2,cpu=2 (the default)")
	fl.StringVar(&f.OutputFile, "output-snapshot", "", "write to FILE instead of standard output (old name: --output-file)")
	fl.BoolVar(&f.Force, "force", false, "replace --output-snapshot if it exists")
	markOutput(fl, "output-snapshot")
	fl.BoolVar(&f.Timeline, "timeline", false, "for drasim timeline: a NodeGroup per profile and every workload's claim templates, so that 'drasim generate trace' fits")
	fl.IntVar(&f.MaxNodesPerGroup, "max-nodes-per-group", 0, "with --timeline, each NodeGroup's maxSize (default: four times its nodes, at least 8)")
	cmd.AddCommand(newGenerateTraceCommand(streams, g))
	// The snapshot is always YAML; the default "table" is accepted rather
	// than -o json silently ignored.
	return setFormats(cmd, "table", "yaml")
}

func runGenerate(streams Streams, g *GlobalOptions, f *generateFlags) error {
	opts := generate.Options{Seed: f.Seed, Nodes: f.Nodes, Pods: f.Pods, Timeline: f.Timeline, MaxNodesPerGroup: f.MaxNodesPerGroup}
	var err error
	if opts.Profiles, err = generate.ParseWeights(f.Profiles); err != nil {
		return usageErrorf("--profiles: %v", err)
	}
	if opts.Workloads, err = generate.ParseWeights(f.Workloads); err != nil {
		return usageErrorf("--workloads: %v", err)
	}
	if err := opts.Validate(); err != nil {
		// Validate's messages start with the option's name, which is the
		// flag's name.
		return usageErrorf("--%v", err)
	}
	if err := g.files.refuseReplacing("output-snapshot", f.Force); err != nil {
		return err
	}
	snap, err := generate.Generate(opts)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	write := func(w io.Writer) error { return generate.WriteYAML(w, snap) }
	if !g.files.isSet("output-snapshot") {
		if err := write(streams.Out); err != nil {
			return &ExitError{Code: ExitFailure, Err: err}
		}
		if g.Verbosity > 0 {
			return report.WriteGenerateSummary(streams.Err, snap, f.Seed, "")
		}
		return nil
	}
	if err := g.files.write("output-snapshot", write); err != nil {
		return err
	}
	return report.WriteGenerateSummary(streams.Err, snap, f.Seed, f.OutputFile)
}

// refuseReplacing refuses to replace an existing file named by output
// flag name, unless force: what generate writes is made once and kept.
func (fl *files) refuseReplacing(name string, force bool) error {
	t, ok := fl.targets[name]
	if !ok || force || t.IsStdout() {
		return nil
	}
	if st, err := os.Stat(t.Path); err == nil && st.Mode().IsRegular() {
		return usageErrorf("%s: the file exists; use --force to replace it", t)
	}
	return nil
}
