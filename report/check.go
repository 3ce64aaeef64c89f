package report

import (
	"fmt"
	"io"

	"github.com/drasim/drasim/sim/analysis"
	"github.com/drasim/drasim/sim/timeline"
)

// WriteCheckTable writes drasim check's table: the gates' verdicts, then the
// resilience of the failure domains the gates asked about.
func WriteCheckTable(w io.Writer, results []analysis.GateResult, rep *analysis.Report) error {
	if err := WriteGateTable(w, results); err != nil {
		return err
	}
	return WriteResilienceTable(w, rep.Resilience)
}

// WriteCheckMarkdown writes drasim check's markdown (-o markdown, and the
// GitHub Actions job summary): the gates' verdicts, then the capacity
// report they were checked against.
func WriteCheckMarkdown(w io.Writer, results []analysis.GateResult, rep *analysis.Report) error {
	if err := WriteGateMarkdown(w, results); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	return WriteCapacityMarkdown(w, rep)
}

// WriteTimelineCheckMarkdown writes the markdown of gates checked on a
// timeline (drasim timeline --gates, drasim check --timeline; -o markdown
// and the job summary): the gates' verdicts, then the timeline.
func WriteTimelineCheckMarkdown(w io.Writer, results []analysis.GateResult, res *timeline.Result) error {
	if err := WriteGateMarkdown(w, results); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	return WriteTimelineMarkdown(w, res)
}
