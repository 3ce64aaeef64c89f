package app

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/drasim/drasim/report"
	"github.com/drasim/drasim/sim/analysis"
	"github.com/drasim/drasim/sim/timeline"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"
)

// stepSummaryEnv names the file GitHub Actions shows as the job summary.
const stepSummaryEnv = "GITHUB_STEP_SUMMARY"

type checkFlags struct {
	capacity capacityFlags
	Gates    string
	JUnit    string
	Timeline string
}

// NewCheckCommand replays a snapshot and checks its capacity report against
// a gates file, for CI: exit 0 when every gate passes, 3 when one fails.
func NewCheckCommand(streams Streams, g *GlobalOptions) *cobra.Command {
	f := &checkFlags{}
	cmd := &cobra.Command{
		Use:   "check -f SNAPSHOT... --gates GATES.yaml",
		Short: "Fail CI when a capacity gate fails: pending pods, headroom, fragmentation, first choices, utilization",
		Long: `Replay the snapshot, compute its capacity report (see 'drasim report') and check
each gate of GATES.yaml (apiVersion drasim.io/v1alpha1, kind Gates):

  gates:
  - name: no training pod left pending
    maxPendingPods: {max: 0, namespace: ml, selector: {matchLabels: {app: train}}}
  - name: room for 4 more inference pods
    minHeadroom: {shape: Deployment/infer, min: 4}
  - name: a100 fragmentation
    maxFragmentationRate: {class: a100.example.com, max: 0.25}
  - name: most prioritized-list claims get their first choice
    minFirstChoiceShare: {min: 0.8}
  - name: h100 nodes not full
    maxUtilization: {group: p5.48xlarge, resource: devices, max: 0.9}

Shares are between 0 and 1. --output-junit FILE writes one JUnit testcase per gate.

--timeline FILE checks a finished timeline instead (drasim timeline -o json or
-o yaml), with the gates on timelines:

  - name: inference waits little
    maxWait: {percentile: 95, max: 2m, workload: inference}
  - name: the day costs at most 5000
    maxCost: {max: 5000}
  - name: every training pod runs
    maxNeverPlaced: {max: 0, workload: training}
  - name: first choices
    minFirstChoiceShare: {min: 0.5}

When GITHUB_STEP_SUMMARY is set (GitHub Actions), the gate verdicts and the
markdown capacity report are appended to that file.

Exit status: 0 every gate passed, 3 a gate failed, 1 bad input (snapshot,
probe or gates file), 2 usage error.`,
		Example: `  drasim check -f cluster/ --gates ci/capacity-gates.yaml
  drasim check --timeline day.json --gates ci/timeline-gates.yaml
  drasim check -f cluster/ --probe ci/next-release.yaml --gates ci/gates.yaml --output-junit capacity.xml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.Timeline != "" {
				return checkTimelineFile(streams, g, f, cmd.LocalNonPersistentFlags())
			}
			return runCheck(cmd.Context(), streams, g, f)
		},
	}
	f.capacity.add(cmd.Flags())
	cmd.Flags().StringVar(&f.Gates, "gates", "", "gates file (kind Gates) with the assertions to check")
	cmd.Flags().StringVar(&f.JUnit, "output-junit", "", "write the verdicts as JUnit XML to FILE, one testcase per gate (old name: --junit)")
	markInput(cmd.Flags(), "gates")
	markOutput(cmd.Flags(), "output-junit")
	cmd.Flags().StringVar(&f.Timeline, "timeline", "", "check a timeline (drasim timeline -o json or yaml) instead of replaying a snapshot")
	markInput(cmd.Flags(), "timeline")
	appendsStepSummary(cmd, "gates")
	preflight(cmd, func() error {
		if f.Timeline != "" {
			return nil // checkTimelineFile refuses the replay's flags
		}
		return f.capacity.check()
	})
	return setFormats(cmd, checkFormats().names()...)
}

func runCheck(ctx context.Context, streams Streams, g *GlobalOptions, f *checkFlags) error {
	defer paceCollector(streams)()
	if f.Gates == "" {
		return usageErrorf("no gates file given: use --gates FILE")
	}
	if len(f.capacity.input.Files) == 0 && !f.capacity.live.set() {
		return usageErrorf("no snapshot given: use -f FILE or -f DIR (repeatable, - for standard input), or --kubeconfig/--context")
	}
	// Read the gates before the replay: a typo should not cost a replay.
	data, err := os.ReadFile(f.Gates)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("--gates: %w", err)}
	}
	gates, err := analysis.ParseGates(f.Gates, data)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	cr, err := f.capacity.capacity(ctx, streams, g.Verbosity, gates)
	if err != nil {
		return err
	}
	run, rep := cr.run, cr.rep
	results, err := analysis.EvaluateGates(gates, rep, run)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	verdicts := analysis.NewGateReport(f.Gates, results)

	if err := g.files.write("output-junit", func(w io.Writer) error { return report.WriteJUnit(w, "drasim check "+f.Gates, results) }); err != nil {
		return err
	}
	if path := os.Getenv(stepSummaryEnv); path != "" {
		if err := appendStepSummary(path, results, rep); err != nil {
			return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%s: %w", stepSummaryEnv, err)}
		}
	}
	if err := checkFormats().write(streams.Out, g.Output, checkVerdicts{verdicts, rep}); err != nil {
		return err
	}
	return gateFailure(verdicts)
}

// appendStepSummary appends the verdicts and the capacity report, in
// markdown, to the job summary file.
func appendStepSummary(path string, results []analysis.GateResult, rep *analysis.Report) error {
	return appendMarkdown(path, func(w io.Writer) error { return report.WriteCheckMarkdown(w, results, rep) })
}

// appendMarkdown appends what write writes, and a blank line, to a file
// (the job summary).
func appendMarkdown(path string, write func(io.Writer) error) error {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	b.WriteString("\n")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// checkTimelineFile checks the gates on a timeline written by drasim
// timeline -o json (or yaml).
// Of the command's own flags it takes only --gates and --output-junit:
// the others are about the snapshot a timeline has already replayed.
func checkTimelineFile(streams Streams, g *GlobalOptions, f *checkFlags, local *pflag.FlagSet) error {
	var refused []string
	local.VisitAll(func(fl *pflag.Flag) {
		switch {
		case !fl.Changed || fl.Name == "timeline" || fl.Name == "gates" || fl.Name == "output-junit":
		case fl.Shorthand != "":
			refused = append(refused, "-"+fl.Shorthand)
		default:
			refused = append(refused, "--"+fl.Name)
		}
	})
	if len(refused) > 0 {
		return usageErrorf("--timeline checks a finished timeline: it takes no %s", strings.Join(refused, ", "))
	}
	if f.Gates == "" {
		return usageErrorf("no gates file given: use --gates FILE")
	}
	data, err := os.ReadFile(f.Gates)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("--gates: %w", err)}
	}
	gates, err := analysis.ParseGates(f.Gates, data)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	data, err = os.ReadFile(f.Timeline)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("--timeline: %w", err)}
	}
	var res timeline.Result
	if err := yaml.UnmarshalStrict(data, &res); err != nil {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("--timeline %s: %w", f.Timeline, err)}
	}
	if res.APIVersion != timeline.APIVersion || res.Kind != timeline.Kind {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("--timeline %s: want apiVersion %s, kind %s (drasim timeline -o json), got %q, %q", f.Timeline, timeline.APIVersion, timeline.Kind, res.APIVersion, res.Kind)}
	}
	return checkTimelineGates(streams, g, f.Gates, gates, &res)
}
