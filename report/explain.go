package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/result"
)

// WriteExplanationTable writes what drasim explain shows for one pod: its
// place in the queue, the verdict, every node's filter verdict or scores
// and devices, and the pod group and preemption sections when they apply.
func WriteExplanationTable(w io.Writer, ex *sim.Explanation) error {
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
	t := Table{Header: []string{"Node", "Verdict", "Score", "Details"}}
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
	if err := writeExplainPodGroup(w, ex.PodGroup); err != nil {
		return err
	}
	if err := writeExplainGroupPreemption(w, ex.GroupPreemption); err != nil {
		return err
	}
	return writeExplainPreemption(w, ex.Preemption)
}

// writeExplainGroupPreemption shows DefaultPreemption's decision for the
// pod's gang: where the rerun without lower-priority pods put each pod,
// the nominations, and the victims it could not give back.
func writeExplainGroupPreemption(w io.Writer, p *sim.GroupPreemptionExplanation) error {
	if p == nil {
		return nil
	}
	fmt.Fprintf(w, "\nGANG PREEMPTION (pod group cycle %d): %s\n", p.Cycle, p.Message)
	placed := slices.ContainsFunc(p.Pods, func(gp sim.GroupPreemptionPod) bool { return gp.RerunNode != "" || gp.Nominated != "" })
	if placed {
		t := Table{Header: []string{"Pod", "Rerun node", "Nominated"}}
		for _, gp := range p.Pods {
			t.Append(gp.Pod, orDash(gp.RerunNode), orDash(gp.Nominated))
		}
		if err := t.Write(w); err != nil {
			return err
		}
	}
	if len(p.Victims) == 0 {
		return nil
	}
	fmt.Fprintln(w, "Victims (every pod of lower priority was removed for the rerun; these could not be given back):")
	t := Table{Header: []string{"Victim", "Node", "Priority", "PDB violation"}}
	for _, v := range p.Victims {
		violation := "no"
		if v.PDBViolation {
			violation = "yes"
		}
		t.Append(v.Pod, v.Node, fmt.Sprint(v.Priority), violation)
	}
	return t.Write(w)
}

// writeExplainPodGroup shows the gang's verdict, which decides the pod's.
func writeExplainPodGroup(w io.Writer, g *sim.PodGroupExplanation) error {
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

// writeExplainPreemption shows DefaultPreemption's decision: the candidate nodes,
// their victims and why each one not chosen lost, and the nodes where
// deleting lower-priority pods would not have helped.
func writeExplainPreemption(w io.Writer, p *sim.PreemptionExplanation) error {
	if p == nil {
		return nil
	}
	fmt.Fprintf(w, "\nPREEMPTION (attempt %d): %s\n", p.Attempt, p.Message)
	if len(p.Candidates) > 0 {
		t := Table{Header: []string{"Node", "Verdict", "Victims", "PDB violations", "Why not"}}
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
		t := Table{Header: []string{"Node", "Why preemption does not help"}}
		for _, r := range p.Rejected {
			t.Append(r.Name, r.Plugin+": "+r.Reason)
		}
		return t.Write(w)
	}
	return nil
}
