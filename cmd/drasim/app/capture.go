package app

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/drasim/drasim/sim/capture"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/snapshot"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// liveFlags read a live cluster, as kubectl does: a kubeconfig and a
// context.
type liveFlags struct {
	Kubeconfig string
	Context    string
}

func (f *liveFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.Kubeconfig, "kubeconfig", "", "read the cluster live with this kubeconfig instead of -f (read only; default KUBECONFIG or ~/.kube/config when --context is given)")
	fs.StringVar(&f.Context, "context", "", "read the cluster live through this kubeconfig context instead of -f (read only)")
}

func (f *liveFlags) set() bool { return f.Kubeconfig != "" || f.Context != "" }

// capture reads the cluster; errors are input errors (exit 1) naming the
// kubeconfig, the context or the refusal.
func (f *liveFlags) capture(ctx context.Context, streams Streams, opts capture.Options) (*snapshot.Snapshot, string, error) {
	cfg, name, err := capture.Config(capture.Source{Kubeconfig: f.Kubeconfig, Context: f.Context})
	if err != nil {
		return nil, "", &ExitError{Code: ExitFailure, Err: err}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	s, warnings, err := capture.Capture(ctx, cfg, opts)
	for _, w := range warnings {
		fmt.Fprintf(streams.Err, "warning: context %s: %s\n", name, w)
	}
	if err != nil {
		return nil, "", &ExitError{Code: ExitFailure, Err: fmt.Errorf("context %s: %w", name, err)}
	}
	return s, name, nil
}

// loadLive reads the cluster and loads it as -f would load its capture.
func (f *liveFlags) loadLive(ctx context.Context, streams Streams, verbosity int, in *inputFlags) (*load.Result, error) {
	return admitted(f.readLive(ctx, streams, verbosity, in))
}

// readLive is loadLive without the admission check, which it returns to be
// run.
func (f *liveFlags) readLive(ctx context.Context, streams Streams, verbosity int, in *inputFlags) (*load.Result, admission, error) {
	if len(in.Files) > 0 {
		return nil, nil, usageErrorf("--kubeconfig and --context read the cluster live: leave out -f (or capture it first with drasim capture and use -f)")
	}
	s, name, err := f.capture(ctx, streams, capture.Options{})
	if err != nil {
		return nil, nil, err
	}
	var b bytes.Buffer
	if err := cluster.WriteList(&b, s); err != nil {
		return nil, nil, &ExitError{Code: ExitFailure, Err: err}
	}
	res, err := load.LoadBytes("live:"+name, b.Bytes(), load.Options{Strict: in.Strict})
	if res != nil {
		for _, w := range res.Warnings {
			fmt.Fprintf(streams.Err, "warning: %s\n", w)
		}
	}
	if err != nil {
		return nil, nil, &ExitError{Code: ExitFailure, Err: err}
	}
	if verbosity >= 1 {
		fmt.Fprintf(streams.Err, "read context %s live: %d nodes, %d pods, %d ResourceSlices, %d ResourceClaims\n",
			name, len(res.Snapshot.Nodes), len(res.Snapshot.Pods), len(res.Snapshot.ResourceSlices), len(res.Snapshot.ResourceClaims))
	}
	return res, admissionOf(res), nil
}

// loadInput loads -f, the live cluster, or the embedded demo.
func loadInput(ctx context.Context, streams Streams, verbosity int, in *inputFlags, live *liveFlags, opts load.Options) (*load.Result, error) {
	return admitted(readInput(ctx, streams, verbosity, in, live, opts))
}

// readInput is loadInput without the admission check, which it returns to
// be run.
func readInput(ctx context.Context, streams Streams, verbosity int, in *inputFlags, live *liveFlags, opts load.Options) (*load.Result, admission, error) {
	if live != nil && live.set() {
		return live.readLive(ctx, streams, verbosity, in)
	}
	return readOrDemo(streams, verbosity, in, opts)
}

type captureFlags struct {
	live       liveFlags
	Namespace  string
	Selector   string
	Anonymize  bool
	NodeGroups []string
	OutputFile string
}

// NewCaptureCommand reads a live cluster into a snapshot file.
func NewCaptureCommand(streams Streams, g *GlobalOptions) *cobra.Command {
	f := &captureFlags{}
	cmd := &cobra.Command{
		Use:   "capture [--kubeconfig FILE] [--context NAME] [--output-snapshot FILE]",
		Short: "Read a live cluster (read only) into a snapshot that -f loads",
		Long: `Read the kinds drasim models from a live cluster through the kubeconfig and
context, as kubectl reads them, and write them as one List that -f loads:
Nodes, Pods, Namespaces, PriorityClasses, Deployments, ReplicaSets,
StatefulSets, DaemonSets, Jobs, PodDisruptionBudgets, and resource.k8s.io's
DeviceClasses, ResourceSlices, ResourceClaims, ResourceClaimTemplates and
DeviceTaintRules. managedFields are dropped. drasim only lists: it never
writes to a cluster.

--namespace and -l narrow the namespaced kinds (-l selects pods and
workloads, and keeps the claims and templates they use); nodes, slices and
classes are read whole. -f FILE copies the NodeGroups of FILE into the
capture. --anonymize renames nodes, namespaces, pods, workloads, claims,
labels and images consistently and drops annotations, environment and
addresses, keeping device attributes, requests and priorities, so that the
capture can be shared and still replays to the same decisions.`,
		Example: `  drasim capture --output-snapshot cluster.yaml
  drasim capture --context prod --namespace ml -l team=vision --output-snapshot vision.yaml
  drasim capture --anonymize -f nodegroups.yaml --output-snapshot shareable.yaml
  drasim simulate --context prod --drain pool=a`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCapture(cmd.Context(), streams, g, f)
		},
	}
	f.live.add(cmd.Flags())
	cmd.Flags().StringVarP(&f.Namespace, "namespace", "n", "", "read namespaced kinds of this namespace only (default: all namespaces)")
	cmd.Flags().StringVarP(&f.Selector, "selector", "l", "", "read only the pods and workloads with these labels, e.g. team=vision")
	cmd.Flags().BoolVar(&f.Anonymize, "anonymize", false, "rename what identifies the cluster, keep what decides scheduling")
	cmd.Flags().StringArrayVarP(&f.NodeGroups, "filename", "f", nil, "file with drasim.io NodeGroups to copy into the capture (repeatable)")
	markInput(cmd.Flags(), "filename")
	cmd.Flags().StringVar(&f.OutputFile, "output-snapshot", "", "write the capture to FILE (atomically) instead of standard output (old name: --output-file)")
	markOutput(cmd.Flags(), "output-snapshot")
	return setFormats(cmd, "table", "yaml")
}

func runCapture(ctx context.Context, streams Streams, g *GlobalOptions, f *captureFlags) error {
	opts := capture.Options{Namespace: f.Namespace, Selector: f.Selector}
	if len(f.NodeGroups) > 0 {
		res, err := load.Load(f.NodeGroups, load.Options{KeepControllers: true})
		if err != nil {
			return &ExitError{Code: ExitFailure, Err: fmt.Errorf("-f: %w", err)}
		}
		if len(res.Snapshot.NodeGroups) == 0 {
			return &ExitError{Code: ExitFailure, Err: fmt.Errorf("-f %v: no NodeGroup in the file(s)", f.NodeGroups)}
		}
		opts.NodeGroups = res.Snapshot.NodeGroups
	}
	s, name, err := f.live.capture(ctx, streams, opts)
	if err != nil {
		return err
	}
	if f.Anonymize {
		capture.Anonymize(s)
	}
	write := func(w io.Writer) error { return cluster.WriteList(w, s) }
	fmt.Fprintf(streams.Err, "Captured context %s: %d node(s), %d pod(s), %d ResourceSlice(s), %d ResourceClaim(s)%s.\n",
		name, len(s.Nodes), len(s.Pods), len(s.ResourceSlices), len(s.ResourceClaims), map[bool]string{true: ", anonymized"}[f.Anonymize])
	if !g.files.isSet("output-snapshot") {
		return write(streams.Out)
	}
	return g.files.write("output-snapshot", write)
}
