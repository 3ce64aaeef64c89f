package app

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/drasim/drasim/report"
	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/result"
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
			if g.Output == "table" {
				if err := report.WriteEditsTable(streams.Out, ex.Edits); err != nil {
					return err
				}
				if applied != nil {
					fmt.Fprintln(streams.Out)
				}
				return writeExplanation(streams.Out, ex)
			}
			return writeStructured(streams.Out, g.Output, ex)
		},
	}
	f.input.add(cmd.Flags())
	f.engine.add(cmd.Flags())
	cmd.Flags().StringVarP(&f.Namespace, "namespace", "n", "", "the pod's namespace (default: default, as kubectl's)")
	f.edits.add(cmd.Flags())
	return setFormats(cmd, "table", "json", "yaml")
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

func writeExplanation(w io.Writer, ex *sim.Explanation) error {
	fmt.Fprintf(w, "Pod %s, position %d of %d in the queue.\n", ex.Pod, ex.QueuePosition, ex.QueueLength)
	if ex.Attempts > 1 {
		fmt.Fprintf(w, "Tried %d times; this is its last attempt.\n", ex.Attempts)
	}
	switch {
	case ex.OnNominatedNode:
		fmt.Fprintf(w, "Would be scheduled on %s, the node its preemption nominated it to (tried alone, first).\n", ex.Node)
	case ex.Node != "":
		fmt.Fprintf(w, "Would be scheduled on %s.\n", ex.Node)
	case ex.Reason == result.ReasonSchedulerError:
		where := ex.ErrorPlugin
		if ex.ErrorNode != "" {
			where += " on node " + ex.ErrorNode
		}
		fmt.Fprintf(w, "Scheduling failed with an error in %s (PodScheduled reason SchedulerError; kube retries the pod with backoff and goes on with the others): %s\n", where, ex.Message)
	default:
		fmt.Fprintf(w, "Does not fit: %s\n", ex.Message)
	}
	if ex.PreFilter != "" {
		fmt.Fprintf(w, "Rejected before any node was tried by %s\n", ex.PreFilter)
		return nil
	}
	t := report.Table{Header: []string{"Node", "Verdict", "Score", "Details"}}
	for _, n := range ex.Nodes {
		if !n.Feasible {
			detail := n.Plugin + ": " + n.Reason
			for _, f := range n.DeviceReasons {
				target := f.Claim
				if f.Request != "" {
					target += "/" + f.Request
				}
				detail += "; " + target + ": " + f.Reason
			}
			t.Append(n.Name, "rejected", "-", detail)
			continue
		}
		verdict := "feasible"
		if n.Chosen {
			verdict = "CHOSEN"
		}
		var parts []string
		for _, s := range n.Scores {
			parts = append(parts, fmt.Sprintf("%s=%d", s.Plugin, s.Weighted))
		}
		for _, d := range n.Devices {
			dev := d.Device
			if d.Alternative != "" {
				dev += fmt.Sprintf(" [%s #%d]", d.Alternative, d.AlternativeRank)
			}
			parts = append(parts, dev)
		}
		t.Append(n.Name, verdict, fmt.Sprint(n.Total), strings.Join(parts, " "))
	}
	if err := t.Write(w); err != nil {
		return err
	}
	if err := writePodGroup(w, ex.PodGroup); err != nil {
		return err
	}
	return writePreemption(w, ex.Preemption)
}

// writePodGroup shows the gang's verdict, which decides the pod's.
func writePodGroup(w io.Writer, g *sim.PodGroupExplanation) error {
	if g == nil {
		return nil
	}
	fmt.Fprintf(w, "\nPOD GROUP %s/%s (minCount %d, %d of %d pods placed)\n", g.Namespace, g.Name, g.MinCount, g.Placed, g.Pods)
	switch g.Phase {
	case result.PodGroupScheduled:
		fmt.Fprintln(w, "The gang was placed whole: its pods bound together.")
		return nil
	case result.PodGroupWaiting:
		fmt.Fprintln(w, "Never tried: GangScheduling keeps the gang out of the activeQ until minCount of its pods exist.")
		return nil
	}
	fmt.Fprintf(w, "The gang did not fit: %s\n", g.Message)
	if g.Blocker != "" {
		fmt.Fprintf(w, "In its last cycle %s fit nowhere; every pod the cycle had placed was taken back.\n", g.Blocker)
	}
	if !g.Reached {
		fmt.Fprintln(w, "That cycle stopped before this pod (minCount could no longer be met); the nodes above are from the last cycle that tried it.")
	}
	fmt.Fprintf(w, "This pod's message: %s\n", g.PodMessage)
	return nil
}

// writePreemption shows DefaultPreemption's decision: the candidate nodes,
// their victims and why each one not chosen lost, and the nodes where
// deleting lower-priority pods would not have helped.
func writePreemption(w io.Writer, p *sim.PreemptionExplanation) error {
	if p == nil {
		return nil
	}
	fmt.Fprintf(w, "\nPREEMPTION (attempt %d): %s\n", p.Attempt, p.Message)
	if len(p.Candidates) > 0 {
		t := report.Table{Header: []string{"Node", "Verdict", "Victims", "PDB violations", "Why not"}}
		for _, c := range p.Candidates {
			verdict, why := "candidate", c.LostOn
			if c.Chosen {
				verdict, why = "CHOSEN", "-"
			}
			t.Append(c.Node, verdict, strings.Join(c.Victims, ", "), fmt.Sprint(c.PDBViolations), why)
		}
		if err := t.Write(w); err != nil {
			return err
		}
	}
	if len(p.Rejected) > 0 {
		t := report.Table{Header: []string{"Node", "Why preemption does not help"}}
		for _, r := range p.Rejected {
			t.Append(r.Name, r.Plugin+": "+r.Reason)
		}
		return t.Write(w)
	}
	return nil
}
