package app

import (
	"fmt"
	"io"
	"time"

	"github.com/drasim/drasim/sim/generate"
	"github.com/spf13/cobra"
)

type generateTraceFlags struct {
	Arrivals   int
	Horizon    time.Duration
	DailyCycle float64
	Workloads  string
	Seed       int64
	OutputFile string
	Force      bool
}

// newGenerateTraceCommand writes an arrival trace for drasim timeline.
func newGenerateTraceCommand(streams Streams, g *GlobalOptions) *cobra.Command {
	f := &generateTraceFlags{}
	cmd := &cobra.Command{
		Use:   "trace [--arrivals N] [--horizon 24h] [--output-trace FILE]",
		Short: "Write an arrival trace (CSV) for drasim timeline",
		Long: `Write a CSV trace of pods arriving over a horizon, for 'drasim timeline --trace':
a Poisson process whose rate follows a daily cycle (--daily-cycle: 0 flat, 1 from
nothing at 02:00 to twice the mean at 14:00), the generated workloads in the
given mix, and lognormal run times per workload (inference median 20m,
training 2h, mig 30m, cpu 10m). The pods use the namespaces and claim
templates of 'drasim generate --timeline'. The same flags always write the
same bytes.`,
		Example: `  drasim generate trace --arrivals 20000 --daily-cycle 0.6 --output-trace day.csv
  drasim generate trace --arrivals 500 --horizon 4h --workloads inference=3,training=1 --seed 2`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return runGenerateTrace(streams, g, f) },
	}
	fl := cmd.Flags()
	fl.IntVar(&f.Arrivals, "arrivals", 1000, fmt.Sprintf("number of pods (0..%d)", generate.MaxArrivals))
	fl.DurationVar(&f.Horizon, "horizon", 24*time.Hour, "time the arrivals spread over")
	fl.Float64Var(&f.DailyCycle, "daily-cycle", 0.5, "amplitude of the daily cycle of the arrival rate, 0..1")
	fl.StringVar(&f.Workloads, "workloads", "", "workload weights, e.g. inference=5,training=1,mig=2,cpu=2 (the default)")
	fl.Int64Var(&f.Seed, "seed", 0, "seed for every random draw")
	fl.StringVar(&f.OutputFile, "output-trace", "", "write to FILE instead of standard output")
	fl.BoolVar(&f.Force, "force", false, "replace --output-trace if it exists")
	markOutput(fl, "output-trace")
	// The trace is always CSV; the default "table" is accepted.
	return setFormats(cmd, "table", "csv")
}

func runGenerateTrace(streams Streams, g *GlobalOptions, f *generateTraceFlags) error {
	opts := generate.TraceOptions{Seed: f.Seed, Arrivals: f.Arrivals, Horizon: f.Horizon, DailyCycle: f.DailyCycle}
	var err error
	if opts.Workloads, err = generate.ParseWeights(f.Workloads); err != nil {
		return usageErrorf("--workloads: %v", err)
	}
	if err := opts.Validate(); err != nil {
		return usageErrorf("--%v", err)
	}
	if err := g.files.refuseReplacing("output-trace", f.Force); err != nil {
		return err
	}
	rows, err := generate.GenerateTrace(opts)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	comment := fmt.Sprintf("drasim generate trace --arrivals %d --horizon %s --daily-cycle %g --seed %d", f.Arrivals, f.Horizon, f.DailyCycle, f.Seed)
	write := func(w io.Writer) error { return generate.WriteTraceCSV(w, rows, comment) }
	if !g.files.isSet("output-trace") {
		if err := write(streams.Out); err != nil {
			return &ExitError{Code: ExitFailure, Err: err}
		}
		return nil
	}
	if err := g.files.write("output-trace", write); err != nil {
		return err
	}
	fmt.Fprintf(streams.Err, "Generated %d arrivals over %s (seed %d); wrote %s\n", len(rows), f.Horizon, f.Seed, f.OutputFile)
	return nil
}
