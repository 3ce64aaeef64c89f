package app

import (
	"fmt"
	"io"

	"github.com/drasim/drasim/report"
	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/analysis"
	"github.com/drasim/drasim/sim/autoscale"
	"github.com/drasim/drasim/sim/fill"
	"github.com/drasim/drasim/sim/inspect"
	"github.com/drasim/drasim/sim/result"
	"github.com/drasim/drasim/sim/sweep"
	"github.com/drasim/drasim/sim/timeline"
	"github.com/drasim/drasim/sim/validate"
)

// format is one -o format of a result type: its name and the renderer
// that writes a T in it.
type format[T any] struct {
	name  string
	write func(io.Writer, T) error
}

// formats is the registry of one result type: every -o format that can
// write it, in the order the help lists them. A command declares the names
// (setFormats(cmd, f.names()...)) and writes through the same registry, so
// that what -o offers and what the writer can do are one list.
type formats[T any] []format[T]

// names returns the formats' names in order.
func (fs formats[T]) names() []string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
	}
	return names
}

// write writes v in the named format. A name the registry lacks is a usage
// error listing the ones it has (the command's -o check refuses it before
// any work where the command writes one result type).
func (fs formats[T]) write(w io.Writer, name string, v T) error {
	for _, f := range fs {
		if f.name == name {
			return f.write(w, v)
		}
	}
	return usageErrorf("invalid output format %q for this command: use one of %v", name, fs.names())
}

// structured returns the json and yaml formats, which write what project
// returns of the result (the result itself for most types).
func structured[T any](project func(T) any) formats[T] {
	return formats[T]{
		{"json", func(w io.Writer, v T) error { return report.WriteJSON(w, project(v)) }},
		{"yaml", func(w io.Writer, v T) error { return report.WriteYAML(w, project(v)) }},
	}
}

// itself is the projection of a result that is written whole.
func itself[T any](v T) any { return v }

// registry builds a registry from formats and groups of formats, in order.
func registry[T any](groups ...formats[T]) formats[T] {
	var fs formats[T]
	for _, g := range groups {
		fs = append(fs, g...)
	}
	return fs
}

// one is a registry group of a single format.
func one[T any](name string, write func(io.Writer, T) error) formats[T] {
	return formats[T]{{name, write}}
}

// The registries, one per result type a command writes to standard output.

// simulateFormats: simulate's result.
func simulateFormats() formats[*result.Result] {
	return registry(one("table", report.WriteSimulationTable), structured(itself[*result.Result]))
}

// simulateScaleUpFormats: simulate --autoscale, the replay after the
// scale-up (the SimulationResult for json and yaml), with the scale-up
// summed up above the table. Its names are simulateFormats'.
func simulateScaleUpFormats() formats[*autoscale.Plan] {
	return registry(
		one("table", report.WriteSimulateScaleUpTable),
		structured(func(p *autoscale.Plan) any { return p.Result }),
	)
}

// editedOutput is a result of a run on an edited snapshot: its table lists
// the edits first when there were any to apply.
type editedOutput[T any] struct {
	result T
	edited bool
}

// writeEditsAbove writes the edits' table and a blank line when the run
// applied edits.
func writeEditsAbove(w io.Writer, edited bool, edits []result.Edit) error {
	if !edited {
		return nil
	}
	if err := report.WriteEditsTable(w, edits); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return nil
}

// explainFormats: one pod's explanation.
func explainFormats() formats[editedOutput[*sim.Explanation]] {
	type out = editedOutput[*sim.Explanation]
	return registry(
		one("table", func(w io.Writer, o out) error {
			if err := report.WriteEditsTable(w, o.result.Edits); err != nil {
				return err
			}
			if o.edited {
				fmt.Fprintln(w)
			}
			return report.WriteExplanationTable(w, o.result)
		}),
		structured(func(o out) any { return o.result }),
	)
}

// scaleUpFormats: autoscale's plan.
func scaleUpFormats() formats[editedOutput[*autoscale.Plan]] {
	type out = editedOutput[*autoscale.Plan]
	return registry(
		one("table", func(w io.Writer, o out) error {
			if err := writeEditsAbove(w, o.edited, o.result.Result.Edits); err != nil {
				return err
			}
			return report.WriteScaleUpTable(w, o.result)
		}),
		one("markdown", func(w io.Writer, o out) error { return report.WriteScaleUpMarkdown(w, o.result) }),
		structured(func(o out) any { return o.result }),
	)
}

// scaleUpComparisonFormats: autoscale --compare-expanders.
func scaleUpComparisonFormats() formats[*autoscale.Comparison] {
	return registry(
		one("table", report.WriteScaleUpComparisonTable),
		one("markdown", report.WriteScaleUpComparisonMarkdown),
		structured(itself[*autoscale.Comparison]),
	)
}

// inspectFormats: inspect's summary.
func inspectFormats() formats[*inspect.Summary] {
	return registry(one("table", report.WriteInspectTable), structured(itself[*inspect.Summary]))
}

// validateFormats: validate's report.
func validateFormats() formats[*validate.Report] {
	return registry(one("table", report.WriteValidationTable), structured(itself[*validate.Report]))
}

// versionFormats: the version.
func versionFormats() formats[versionInfo] {
	return registry(
		one("table", func(w io.Writer, info versionInfo) error {
			_, err := fmt.Fprintln(w, info.line())
			return err
		}),
		structured(itself[versionInfo]),
	)
}

// capacityFormats: report's capacity report.
func capacityFormats() formats[*analysis.Report] {
	return formats[*analysis.Report]{
		{"table", report.WriteCapacityTable},
		{"markdown", report.WriteCapacityMarkdown},
		{"json", report.WriteCapacityJSON},
		{"yaml", report.WriteCapacityYAML},
		{"csv", report.WriteCapacityCSV},
		{"html", report.WriteCapacityHTML},
	}
}

// checkVerdicts is check's verdicts with the capacity report they judged.
type checkVerdicts struct {
	verdicts *analysis.GateReport
	rep      *analysis.Report
}

// checkFormats: check's verdicts on a snapshot.
func checkFormats() formats[checkVerdicts] {
	return registry(
		one("table", func(w io.Writer, o checkVerdicts) error { return report.WriteCheckTable(w, o.verdicts.Results, o.rep) }),
		one("markdown", func(w io.Writer, o checkVerdicts) error {
			return report.WriteCheckMarkdown(w, o.verdicts.Results, o.rep)
		}),
		structured(func(o checkVerdicts) any { return o.verdicts }),
	)
}

// timelineOutput is a timeline with the verdicts of its gates, if any.
type timelineOutput struct {
	res      *timeline.Result
	verdicts *analysis.GateReport
}

// timelineCheckFormats: check's verdicts on a timeline (check --timeline).
func timelineCheckFormats() formats[timelineOutput] {
	return registry(
		one("table", func(w io.Writer, o timelineOutput) error { return report.WriteGateTable(w, o.verdicts.Results) }),
		one("markdown", func(w io.Writer, o timelineOutput) error {
			return report.WriteTimelineCheckMarkdown(w, o.verdicts.Results, o.res)
		}),
		structured(func(o timelineOutput) any { return o.verdicts }),
	)
}

// timelineFormats: a timeline; the table and markdown add the gate
// verdicts, when there are any.
func timelineFormats() formats[timelineOutput] {
	return registry(
		one("table", func(w io.Writer, o timelineOutput) error {
			if err := report.WriteTimelineTable(w, o.res); err != nil || o.verdicts == nil {
				return err
			}
			if _, err := fmt.Fprint(w, "\nGATES\n"); err != nil {
				return err
			}
			return report.WriteGateTable(w, o.verdicts.Results)
		}),
		one("markdown", func(w io.Writer, o timelineOutput) error {
			if o.verdicts != nil {
				return report.WriteTimelineCheckMarkdown(w, o.verdicts.Results, o.res)
			}
			return report.WriteTimelineMarkdown(w, o.res)
		}),
		structured(func(o timelineOutput) any { return o.res }),
		one("csv", func(w io.Writer, o timelineOutput) error { return report.WriteTimelineCSV(w, o.res) }),
		one("html", func(w io.Writer, o timelineOutput) error { return report.WriteTimelineHTML(w, o.res) }),
	)
}

// timelineComparisonFormats: timeline --compare (csv writes one timeline,
// so a comparison has none).
func timelineComparisonFormats() formats[*timeline.Comparison] {
	return registry(
		one("table", report.WriteTimelineComparisonTable),
		one("markdown", report.WriteTimelineComparisonMarkdown),
		one("html", report.WriteTimelineComparisonHTML),
		structured(itself[*timeline.Comparison]),
	)
}

// fillFormats: fill's curves.
func fillFormats() formats[*fill.Result] {
	return registry(
		one("table", report.WriteFillTable),
		structured(itself[*fill.Result]),
		one("csv", report.WriteFillCSV),
		one("html", report.WriteFillHTML),
	)
}

// sweepReportFormats: sweep report's statistics.
func sweepReportFormats() formats[*sweep.Summary] {
	return formats[*sweep.Summary]{
		{"table", report.WriteSweepTable},
		{"markdown", report.WriteSweepMarkdown},
		{"json", report.WriteSweepJSON},
		{"csv", report.WriteSweepCSV},
		{"html", report.WriteSweepHTML},
	}
}
