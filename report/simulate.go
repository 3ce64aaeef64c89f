package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/drasim/drasim/sim/result"
)

// maxScheduledRows bounds the scheduled-pods table; the full list is in the
// JSON/YAML output.
const maxScheduledRows = 40

// tieBreakNote says how ties were broken when it is not kube's own rule:
// only then does the seed change the outcome.
func tieBreakNote(tieBreak string, seed int64) string {
	switch tieBreak {
	case "random":
		return fmt.Sprintf(", random tie-break, seed %d", seed)
	case "name":
		return ", ties to the smallest node name"
	}
	return ""
}

// WriteSimulationTable renders a replay for a person: what went in, what
// fit, and, for every pod that did not, kube's message.
func WriteSimulationTable(w io.Writer, r *result.Result) error {
	writeSimulationHeader(w, r)
	if err := WriteEditsTable(w, r.Edits); err != nil {
		return err
	}
	for _, section := range []func(io.Writer, *result.Result) error{writeScheduledPods, writePreemptedPods, writePendingPods, writePodGroups, writeDeviceReasons} {
		if err := section(w, r); err != nil {
			return err
		}
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	return nil
}

// writeSimulationHeader says what was replayed with which settings, and
// the outcome counts.
func writeSimulationHeader(w io.Writer, r *result.Result) {
	in := r.Inputs
	fmt.Fprintf(w, "Replayed %d pending pod(s) on %d node(s) with %d device(s) (kube-scheduler %s%s", in.PendingPods, in.Nodes, in.Devices, in.KubernetesVersion, tieBreakNote(in.TieBreak, in.Seed))
	if in.FeatureGates != "" {
		fmt.Fprintf(w, ", feature gates %s", in.FeatureGates)
	}
	if in.ScoreAllNodes {
		fmt.Fprint(w, ", scoring all nodes")
	}
	fmt.Fprintln(w, ").")
	s := r.Summary
	fmt.Fprintf(w, "Scheduled: %d   Unschedulable: %d   Already bound: %d", s.Scheduled, s.Unschedulable, s.AlreadyBound)
	if s.SchedulerErrors > 0 {
		fmt.Fprintf(w, "   Scheduler errors: %d", s.SchedulerErrors)
	}
	if s.Gated > 0 {
		fmt.Fprintf(w, "   Gated: %d", s.Gated)
	}
	if s.Skipped > 0 {
		fmt.Fprintf(w, "   Other scheduler: %d", s.Skipped)
	}
	if s.Preempted > 0 {
		fmt.Fprintf(w, "   Preempted: %d", s.Preempted)
	}
	fmt.Fprintln(w)
}

// writeScheduledPods lists the pods placed, up to maxScheduledRows.
func writeScheduledPods(w io.Writer, r *result.Result) error {
	scheduled := Table{Header: []string{"Pod", "Node", "Devices"}}
	shown := 0
	for _, p := range r.Pods {
		if p.Phase != result.PhaseScheduled {
			continue
		}
		shown++
		if shown > maxScheduledRows {
			continue
		}
		scheduled.Append(p.Key(), p.Node, devicesCell(p))
	}
	if len(scheduled.Rows) > 0 {
		fmt.Fprintln(w, "\nSCHEDULED")
		if err := scheduled.Write(w); err != nil {
			return err
		}
		if shown > maxScheduledRows {
			fmt.Fprintf(w, "... and %d more (all of them in -o json)\n", shown-maxScheduledRows)
		}
	}
	return nil
}

// writePreemptedPods lists the pods deleted for a pod of higher priority.
func writePreemptedPods(w io.Writer, r *result.Result) error {
	preempted := Table{Header: []string{"Pod", "Priority", "Node", "Preempted by", "Why"}}
	for _, p := range r.Pods {
		if p.Phase != result.PhasePreempted || p.PreemptedBy == nil {
			continue
		}
		by := p.PreemptedBy
		why := fmt.Sprintf("priority %d < %d", p.Priority, by.Priority)
		if by.PDBViolation {
			why += "; its PodDisruptionBudget allowed no more disruptions"
		}
		who := by.Pod
		if by.PodGroup {
			who = "pod group " + who
		}
		preempted.Append(p.Key(), fmt.Sprint(p.Priority), p.Node, who, why)
	}
	if len(preempted.Rows) > 0 {
		fmt.Fprintln(w, "\nPREEMPTED (deleted to make room for a pod of higher priority)")
		if err := preempted.Write(w); err != nil {
			return err
		}
	}
	return nil
}

// writePendingPods lists the pods not placed, gated or left to another
// scheduler, with why.
func writePendingPods(w io.Writer, r *result.Result) error {
	pending := Table{Header: []string{"Pod", "Why"}}
	for _, p := range r.Pods {
		switch p.Phase {
		case result.PhaseUnschedulable, result.PhaseGated, result.PhaseSkipped:
			why := p.Message
			if p.Reason != "" {
				why = p.Reason + ": " + why
			}
			pending.Append(p.Key(), why)
		}
	}
	if len(pending.Rows) > 0 {
		fmt.Fprintln(w, "\nPENDING")
		if err := pending.Write(w); err != nil {
			return err
		}
	}
	return nil
}

// writeDeviceReasons lists why DynamicResources rejected nodes, per claim
// and request.
func writeDeviceReasons(w io.Writer, r *result.Result) error {
	devices := Table{Header: []string{"Pod", "Claim and request", "Nodes", "Why the devices do not fit"}}
	for _, p := range r.Pods {
		for _, d := range p.DeviceReasons {
			target := d.Claim
			if d.Request != "" {
				target += " / " + d.Request
			}
			devices.Append(p.Key(), target, fmt.Sprint(d.Nodes), d.Reason)
		}
	}
	if len(devices.Rows) > 0 {
		fmt.Fprintln(w, "\nDEVICES (why DynamicResources rejected the nodes)")
		if err := devices.Write(w); err != nil {
			return err
		}
	}
	return nil
}

// writePodGroups lists the pod groups: placed whole, pending whole (and
// the member that did not fit), or, with the gate off, placed in part.
func writePodGroups(w io.Writer, r *result.Result) error {
	groups := Table{Header: []string{"Pod group", "Min count", "Placed", "Status", "Why"}}
	for _, g := range r.PodGroups {
		var status string
		why := g.Message
		switch {
		case g.Phase == result.PodGroupScheduled:
			status, why = "placed", ""
		case g.Phase == result.PodGroupWaiting:
			status, why = "waiting", fmt.Sprintf("only %d of minCount %d pods exist", g.Pods, g.MinCount)
		case g.Phase == result.PodGroupGateOff && g.Partial:
			status, why = "partial", fmt.Sprintf("GenericWorkload is off: %d of minCount %d pods placed one by one; with the gate on kube places minCount or none", g.Placed, g.MinCount)
		case g.Phase == result.PodGroupGateOff:
			status, why = "gate off", "GenericWorkload is off: pods placed one by one"
		default:
			status = "pending"
			if g.Blocker != "" {
				why = g.Blocker + " fits nowhere; " + why
			}
		}
		groups.Append(g.Namespace+"/"+g.Name, fmt.Sprint(g.MinCount), fmt.Sprintf("%d/%d", g.Placed, g.Pods), status, why)
	}
	if len(groups.Rows) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nPOD GROUPS (gangs: all of minCount or none)")
	return groups.Write(w)
}

// devicesCell lists a pod's devices compactly: "gpu: a100-0 (2nd choice)".
func devicesCell(p result.Pod) string {
	var parts []string
	for _, c := range p.Claims {
		for _, d := range c.Devices {
			s := d.Device
			if d.Alternative != "" {
				s += fmt.Sprintf(" (%s, %s choice)", d.Alternative, ordinal(d.AlternativeRank))
			}
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

func ordinal(n int) string {
	switch n {
	case 1:
		return "1st"
	case 2:
		return "2nd"
	case 3:
		return "3rd"
	}
	return fmt.Sprintf("%dth", n)
}
