package app

import (
	"github.com/drasim/drasim/sim/inspect"
	"github.com/drasim/drasim/sim/load"
	"github.com/spf13/cobra"
)

type inspectFlags struct {
	input   inputFlags
	GroupBy string
	Raw     bool
}

// NewInspectCommand summarizes what a snapshot holds.
func NewInspectCommand(streams Streams, g *GlobalOptions) *cobra.Command {
	f := &inspectFlags{}
	cmd := &cobra.Command{
		Use:   "inspect [-f SNAPSHOT]...",
		Short: "Summarize the nodes, devices, claims, pods and workloads of a snapshot",
		Long: `Summarize what a snapshot holds: node groups, devices per driver and
DeviceClass (with how many are allocated), pools, claims, pods and workloads.
Without -f, summarizes the embedded demo.`,
		Example: `  drasim inspect -f cluster-dump.yaml
  drasim inspect -f dump/ --group-by topology.kubernetes.io/zone -o yaml`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			res, err := loadOrDemo(streams, g.Verbosity, &f.input, load.Options{KeepControllers: f.Raw})
			if err != nil {
				return err
			}
			sum := inspect.Summarize(res.Snapshot, inspect.Options{GroupBy: f.GroupBy})
			return inspectFormats().write(streams.Out, g.Output, sum)
		},
	}
	f.input.add(cmd.Flags())
	cmd.Flags().StringVar(&f.GroupBy, "group-by", "node.kubernetes.io/instance-type", "node label to group nodes by")
	cmd.Flags().BoolVar(&f.Raw, "no-expand", false, "do not add the pods that workload controllers would create")
	return setFormats(cmd, inspectFormats().names()...)
}
