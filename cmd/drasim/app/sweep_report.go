package app

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/drasim/drasim/report"
	"github.com/drasim/drasim/sim/sweep"
	"github.com/spf13/cobra"
)

// resultsFiles expands results paths: a directory stands for its shard
// files (shard-*.jsonl), or its results.jsonl when it has none.
func resultsFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		shards, err := filepath.Glob(filepath.Join(p, "shard-*.jsonl"))
		if err != nil {
			return nil, err
		}
		sort.Strings(shards)
		if len(shards) > 0 {
			out = append(out, shards...)
			continue
		}
		whole := filepath.Join(p, sweep.ResultsBase+".jsonl")
		if _, err := os.Stat(whole); err != nil {
			return nil, fmt.Errorf("%s holds no sweep results (%s.jsonl or shard-*.jsonl)", p, sweep.ResultsBase)
		}
		out = append(out, whole)
	}
	return out, nil
}

// readResults reads and merges results files (or pods' logs).
func readResults(paths []string, logs, partial bool) (*sweep.Merged, []string, error) {
	files, err := resultsFiles(paths)
	if err != nil {
		return nil, nil, err
	}
	var streams []*sweep.Stream
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, nil, err
		}
		s, err := sweep.ReadStreams(f, fh, logs)
		fh.Close()
		if err != nil {
			return nil, nil, err
		}
		streams = append(streams, s...)
	}
	m, err := sweep.Merge(streams, partial)
	return m, files, err
}

type sweepReportFlags struct {
	ReportFile string
	Charts     string
}

func newSweepReportCommand(streams Streams, g *GlobalOptions) *cobra.Command {
	f := &sweepReportFlags{}
	cmd := &cobra.Command{
		Use:   "report RESULTS...",
		Short: "Aggregate a sweep's rows over seeds: mean, standard deviation, min/max, 95% confidence interval, charts",
		Long: `Read a sweep's results (a results directory, its shard files, or results.jsonl
files) and aggregate each point's runs over seeds: for every metric the number
of successful runs, mean, sample standard deviation, min, max and the 95%
confidence interval of the mean (Student's t). Failed runs are counted and
their errors listed, never averaged. Unfinished sweeps are reported on the
rows they have.

Formats (-o): table, markdown, json, csv (one row per point and metric), html
(one self-contained page with a chart of each metric against each axis, error
bars at the 95% CI). --output-html FILE writes the HTML page; --output-charts
DIR writes each chart as DIR/METRIC-by-AXIS.svg.`,
		Example: `  drasim sweep report expanders-results/
  drasim sweep report expanders-results/ -o markdown --output-charts docs/charts
  drasim sweep report expanders-results/ --output-html sweep.html`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return runSweepReport(streams, g, f, args)
		},
	}
	cmd.Flags().StringVar(&f.ReportFile, "output-html", "", "write the HTML page (charts and tables, self-contained) to FILE")
	cmd.Flags().StringVar(&f.Charts, "output-charts", "", "write each chart into DIR as METRIC-by-AXIS.svg")
	markOutput(cmd.Flags(), "output-html")
	markOutputDir(cmd.Flags(), "output-charts")
	return setFormats(cmd, sweepReportFormats().names()...)
}

func runSweepReport(streams Streams, g *GlobalOptions, f *sweepReportFlags, args []string) error {
	m, files, err := readResults(args, false, true)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if g.files.isSet("output-html") {
		if err := g.files.target("output-html").Check(files); err != nil {
			return &ExitError{Code: ExitUsage, Err: err}
		}
	}
	for _, w := range m.Warnings {
		fmt.Fprintf(streams.Err, "warning: %s\n", w)
	}
	if m.Missing > 0 {
		fmt.Fprintf(streams.Err, "warning: %d of %d runs have no row yet; the report covers the others\n", m.Missing, m.Header.Runs)
	}
	s := sweep.Aggregate(m.Header, m.Rows)
	if f.Charts != "" {
		if err := writeSweepCharts(streams.Err, s, g.files.dir("output-charts", f.Charts)); err != nil {
			return err
		}
	}
	if g.files.isSet("output-html") {
		if err := g.files.write("output-html", func(w io.Writer) error { return report.WriteSweepHTML(w, s) }); err != nil {
			return err
		}
		if g.Output == "html" {
			if t := g.files.target("output-html"); !t.IsStdout() {
				fmt.Fprintf(streams.Err, "Wrote the HTML report to %s.\n", t.Path)
			}
			return nil
		}
	}
	return sweepReportFormats().write(streams.Out, g.Output, s)
}

// writeSweepCharts writes every chart with a point as DIR/NAME.svg.
func writeSweepCharts(log io.Writer, s *sweep.Summary, dir outputDir) error {
	if err := dir.create(); err != nil {
		return err
	}
	var written []string
	for _, c := range s.Charts {
		var values []string
		for _, a := range s.Axes {
			if a.Name == c.Axis {
				values = a.Values
			}
		}
		var svg bytes.Buffer
		drawn, err := report.WriteSweepChartSVG(&svg, c, values)
		if err != nil {
			return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%s: %w", dir.Flag, err)}
		}
		if !drawn {
			continue
		}
		t := dir.target(report.SweepChartName(c) + ".svg")
		if err := t.Write(nil, func(w io.Writer) error { _, err := w.Write(svg.Bytes()); return err }); err != nil {
			return &ExitError{Code: ExitFailure, Err: err}
		}
		written = append(written, t.Path)
	}
	fmt.Fprintf(log, "Wrote %d chart(s): %s\n", len(written), strings.Join(written, ", "))
	return nil
}
