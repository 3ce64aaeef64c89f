package app

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/snapshot"
	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type explainFlags struct {
	input     inputFlags
	engine    engineFlags
	edits     editFlags
	Namespace string
}

// NewExplainCommand shows, for one pending pod, what every node said.
func NewExplainCommand(streams Streams, g *GlobalOptions) *cobra.Command {
	f := &explainFlags{}
	cmd := &cobra.Command{
		Use:   "explain [-n NAMESPACE] POD [-f SNAPSHOT]...",
		Short: "Show, node by node, why a pending pod goes where it goes (or nowhere)",
		Long: `Replay the queue up to the pod, then show its scheduling cycle: for each node
the first filter that rejected it and why, or, for feasible nodes, each
plugin's normalized and weighted score and the devices (and prioritized-list
alternatives) the allocator would choose there. The pod is NAMESPACE/POD, or
POD in the namespace of -n (default: default). Without -f, uses the demo.`,
		Example: `  drasim explain train-0 -n ml -f cluster-dump.yaml
  drasim explain ml/train-0 -f cluster-dump.yaml`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ns, name, err := podArg(args[0], f.Namespace)
			if err != nil {
				return err
			}
			defer paceCollector(streams)()
			res, err := loadOrDemo(streams, g.Verbosity, &f.input, load.Options{})
			if err != nil {
				return err
			}
			if err := requireNodes(res, false); err != nil {
				return err
			}
			if err := findPod(res.Snapshot, ns, name); err != nil {
				return err
			}
			applied, err := f.edits.apply(res)
			if err != nil {
				return err
			}
			opts, err := f.engine.options(res.Files)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			ex, err := sim.Explain(ctx, res.Snapshot, opts, ns, name)
			if err != nil {
				return &ExitError{Code: ExitFailure, Err: err}
			}
			if applied != nil {
				ex.Edits = applied.Edits
			}
			return explainFormats().write(streams.Out, g.Output, editedOutput[*sim.Explanation]{ex, applied != nil})
		},
	}
	f.input.add(cmd.Flags())
	f.engine.add(cmd.Flags())
	cmd.Flags().StringVarP(&f.Namespace, "namespace", "n", "", "the pod's namespace (default: default, as kubectl's)")
	f.edits.add(cmd.Flags())
	preflight(cmd, f.engine.check)
	return setFormats(cmd, explainFormats().names()...)
}

// podArg reads POD or NAMESPACE/POD with the namespace of -n.
func podArg(arg, namespace string) (ns, name string, err error) {
	ns, name = namespace, arg
	if before, after, ok := strings.Cut(arg, "/"); ok {
		if namespace != "" && namespace != before {
			return "", "", usageErrorf("the pod is given as %s and -n says %s: give one namespace", arg, namespace)
		}
		ns, name = before, after
	}
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	return ns, name, nil
}

// findPod fails, before any replay, for a pod the snapshot does not hold,
// with a hint when pods of that name are in other namespaces.
func findPod(s *snapshot.Snapshot, ns, name string) error {
	var elsewhere []string
	for _, p := range s.Pods {
		switch {
		case p.Name != name:
		case p.Namespace == ns:
			return nil
		default:
			elsewhere = append(elsewhere, p.Namespace)
		}
	}
	if len(elsewhere) == 0 {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("pod %s/%s is not in the snapshot", ns, name)}
	}
	sort.Strings(elsewhere)
	hint := fmt.Sprintf("a pod %s is in namespace %s: use -n %s", name, elsewhere[0], elsewhere[0])
	if len(elsewhere) > 1 {
		hint = fmt.Sprintf("pods named %s are in namespaces %s: use -n with one of them", name, strings.Join(elsewhere, ", "))
	}
	return &ExitError{Code: ExitFailure, Err: fmt.Errorf("pod %s/%s is not in the snapshot; %s", ns, name, hint)}
}
