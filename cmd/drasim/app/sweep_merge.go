package app

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/drasim/drasim/internal/outfile"
	"github.com/drasim/drasim/report"
	"github.com/drasim/drasim/sim/sweep"
	"github.com/spf13/cobra"
)

type sweepMergeFlags struct {
	Out      string
	FromLogs bool
	Partial  bool
}

func newSweepMergeCommand(streams Streams, g *GlobalOptions) *cobra.Command {
	f := &sweepMergeFlags{}
	cmd := &cobra.Command{
		Use:   "merge RESULTS... --output-dir DIR",
		Short: "Join the results of a sweep's shards into the results of the whole sweep",
		Long: `Join the results of a sweep's shards (their directories, shard files, or pod
logs with --from-logs) into DIR/results.jsonl and DIR/results.csv: the same
files, byte for byte, that the sweep run on one machine writes (apart from the
run times). Results of another sweep, rows outside their shard and runs that
differ between files are errors; so are runs without a row, unless --partial.`,
		Example: `  drasim sweep merge shards/ --output-dir results/
  drasim sweep merge logs/*.log --from-logs --output-dir results/`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return runSweepMerge(streams, g, f, args)
		},
	}
	cmd.Flags().StringVar(&f.Out, "output-dir", "", "write results.jsonl and results.csv into DIR (required)")
	cmd.Flags().BoolVar(&f.FromLogs, "from-logs", false, "the files are pod logs: lines that are not rows are skipped")
	cmd.Flags().BoolVar(&f.Partial, "partial", false, "write what there is when runs have no row")
	markOutputDir(cmd.Flags(), "output-dir")
	return setFormats(cmd, "table")
}

func runSweepMerge(streams Streams, g *GlobalOptions, f *sweepMergeFlags, args []string) error {
	if f.Out == "" {
		return usageErrorf("no output directory: use --output-dir DIR")
	}
	m, files, err := readResults(args, f.FromLogs, f.Partial)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	for _, w := range m.Warnings {
		fmt.Fprintf(streams.Err, "warning: %s\n", w)
	}
	dir := g.files.dir("output-dir", f.Out)
	if err := dir.create(); err != nil {
		return err
	}
	jsonl := dir.target(sweep.ResultsBase + ".jsonl")
	csvOut := dir.target(sweep.ResultsBase + ".csv")
	for _, t := range []outfile.Target{jsonl, csvOut} {
		if err := t.Check(files); err != nil {
			return &ExitError{Code: ExitUsage, Err: err}
		}
	}
	if err := refuseOtherResults(jsonl.Path, csvOut.Path, m.Header); err != nil {
		return err
	}
	if err := jsonl.Write(nil, func(w io.Writer) error { return sweep.WriteJSONLines(w, &m.Header, m.Rows) }); err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if err := csvOut.Write(nil, func(w io.Writer) error { return sweep.WriteCSV(w, &m.Header, m.Rows) }); err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	return report.WriteSweepMerged(streams.Out, len(files), m, csvOut.Path, jsonl.Path, f.Out)
}

// refuseOtherResults keeps merge from replacing files that are not the
// results of the same sweep.
func refuseOtherResults(jsonl, csvPath string, h sweep.Header) error {
	data, err := os.ReadFile(jsonl)
	if err != nil {
		if _, cerr := os.Stat(csvPath); cerr == nil {
			return usageErrorf("refusing to write %s: it exists without %s, so it is not a sweep's results", csvPath, filepath.Base(jsonl))
		}
		return nil
	}
	old, err := sweep.ReadStreams(jsonl, bytes.NewReader(data), false)
	if err != nil || len(old) != 1 || old[0].Header.Fingerprint != h.Fingerprint || old[0].Header.Name != h.Name {
		return usageErrorf("refusing to write %s: it holds other results (choose another --output-dir)", jsonl)
	}
	return nil
}
