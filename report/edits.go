package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/drasim/drasim/sim/result"
)

// WriteEditsTable renders what each what-if edit changed: one line per
// edit, then every pod an edit moved or added with where the replay put
// it, the evictions a PodDisruptionBudget refused, and the edits'
// warnings.
func WriteEditsTable(w io.Writer, edits []result.Edit) error {
	for _, s := range editSections(edits) {
		fmt.Fprintf(w, "\n%s\n", strings.ToUpper(s.title))
		if err := s.table.Write(w); err != nil {
			return err
		}
	}
	for _, msg := range editWarnings(edits) {
		fmt.Fprintf(w, "warning: %s\n", msg)
	}
	return nil
}

// editSections lays the edits out as the capacity report's sections: one
// line per edit, the pods they moved, the evictions refused (the last two
// only when there are any).
func editSections(edits []result.Edit) []section {
	if len(edits) == 0 {
		return nil
	}
	summary := Table{Header: []string{"#", "Edit", "Changed"}}
	moved := Table{Header: []string{"#", "Pod", "From", "Now"}}
	blocked := Table{Header: []string{"#", "Pod", "Node", "Budget", "Why"}}
	for _, e := range edits {
		n := fmt.Sprint(e.Index)
		summary.Append(n, e.Description, changedCell(e))
		for _, m := range e.Evicted {
			moved.Append(n, m.Pod, orDash(m.From), nowCell(m))
		}
		for _, m := range e.Added {
			moved.Append(n, m.Pod, "(new)", nowCell(m))
		}
		for _, b := range e.Blocked {
			blocked.Append(n, b.Pod, b.Node, b.Budget, b.Reason)
		}
	}
	out := []section{{title: "Edits", table: summary, intro: strings.Join(editWarnings(edits), " ")}}
	if len(moved.Rows) > 0 {
		out = append(out, section{title: "Pods moved by the edits", table: moved})
	}
	if len(blocked.Rows) > 0 {
		out = append(out, section{title: "Evictions refused", table: blocked})
	}
	return out
}

// editWarnings are the edits' warnings, each naming its edit.
func editWarnings(edits []result.Edit) []string {
	var out []string
	for _, e := range edits {
		for _, msg := range e.Warnings {
			out = append(out, fmt.Sprintf("edit %d (%s): %s", e.Index, e.Source, msg))
		}
	}
	return out
}

// changedCell sums up one edit: nodes, devices, pods and their outcomes.
func changedCell(e result.Edit) string {
	var parts []string
	switch e.Type {
	case "addNodes":
		parts = append(parts, fmt.Sprintf("%d node(s) added", len(e.Nodes)))
	case "removeNodes":
		parts = append(parts, fmt.Sprintf("%d node(s) removed", len(e.Nodes)))
	case "cordon", "drain":
		parts = append(parts, fmt.Sprintf("%d node(s) cordoned", len(e.Nodes)))
	}
	if e.Devices > 0 {
		verb := map[string]string{"addNodes": "added", "removeNodes": "removed", "removeDriver": "removed", "taintDevices": "tainted"}[e.Type]
		parts = append(parts, fmt.Sprintf("%d device(s) %s", e.Devices, verb))
	}
	if len(e.Evicted) > 0 {
		parts = append(parts, fmt.Sprintf("%d pod(s) queued again (%s)", len(e.Evicted), outcomes(e.Evicted)))
	}
	if len(e.Added) > 0 {
		parts = append(parts, fmt.Sprintf("%d pod(s) added (%s)", len(e.Added), outcomes(e.Added)))
	}
	if len(e.Removed) > 0 {
		parts = append(parts, fmt.Sprintf("%d pod(s) deleted", len(e.Removed)))
	}
	if len(e.Changed) > 0 {
		parts = append(parts, fmt.Sprintf("%d pod(s) changed in place", len(e.Changed)))
	}
	if len(e.Blocked) > 0 {
		parts = append(parts, fmt.Sprintf("%d eviction(s) refused", len(e.Blocked)))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, "; ")
}

// outcomes counts moved pods by outcome: "2 scheduled, 1 pending".
func outcomes(list []result.MovedPod) string {
	var scheduled, pending, other int
	for _, m := range list {
		switch m.Phase {
		case result.PhaseScheduled, result.PhaseBound:
			scheduled++
		case result.PhaseUnschedulable:
			pending++
		default:
			other++
		}
	}
	parts := []string{fmt.Sprintf("%d scheduled", scheduled), fmt.Sprintf("%d pending", pending)}
	if other > 0 {
		parts = append(parts, fmt.Sprintf("%d other", other))
	}
	return strings.Join(parts, ", ")
}

func nowCell(m result.MovedPod) string {
	switch m.Phase {
	case result.PhaseScheduled, result.PhaseBound:
		return m.Node
	case result.PhaseUnschedulable:
		return "pending"
	case "":
		return "-"
	}
	return strings.ToLower(m.Phase)
}
