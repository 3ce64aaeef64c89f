package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/drasim/drasim/report"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"
	"golang.org/x/sys/unix"
)

// Exit codes. CI pipelines rely on them: "too full" (3) is not "broken" (1).
const (
	ExitOK         = 0
	ExitFailure    = 1 // invalid input or a failure while running
	ExitUsage      = 2 // the command line itself is wrong
	ExitGateFailed = 3 // a capacity gate failed (drasim check)
)

// Streams are the standard streams a command reads and writes, and the
// snapshot it may find already loaded.
type Streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// Loaded, when set, is a snapshot read before the command runs: a
	// command whose -f names the same files takes it instead of reading
	// them (drasim sweep loads its inputs once for all its runs).
	Loaded *Loaded
}

// ExitError carries the exit code a failed command should end with.
type ExitError struct {
	Code int
	Err  error
	// Quiet means the command already printed what went wrong.
	Quiet bool
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

func usageErrorf(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// Main runs drasim with the process's arguments and streams and exits.
func Main() {
	var out io.Writer = os.Stdout
	if cols := terminalWidth(os.Stdout); cols > 0 {
		// Tables fit the terminal; pipes and files get whole lines.
		out = report.SizedWriter{Writer: os.Stdout, Columns: cols}
	}
	os.Exit(Run(Streams{In: os.Stdin, Out: out, Err: os.Stderr}, os.Args[1:]))
}

// terminalWidth returns the width of the terminal f is, or 0 when f is not
// a terminal.
func terminalWidth(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Col == 0 {
		return 0
	}
	return int(ws.Col)
}

// Run executes one drasim command line and returns its exit code. Errors are
// printed to streams.Err as one "drasim: ..." message, without usage text.
func Run(streams Streams, args []string) int {
	return runContext(context.Background(), streams, args)
}

// runContext is Run with the context the command gets (cmd.Context()).
func runContext(ctx context.Context, streams Streams, args []string) int {
	root, prof := newRootCommand(streams)
	return execute(ctx, root, prof, streams, args)
}

// execute runs the command line on a built command tree and returns its
// exit code.
func execute(ctx context.Context, root *cobra.Command, prof *profiles, streams Streams, args []string) int {
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if perr := prof.finish(err == nil); perr != nil && err == nil {
		err = perr
	}
	if err == nil {
		return ExitOK
	}
	code := ExitFailure
	var ee *ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.Code
		if ee.Quiet {
			return code
		}
	case unknownCommand(root, args):
		code = ExitUsage
	}
	msg := strings.TrimRight(err.Error(), "\n")
	fmt.Fprintf(streams.Err, "drasim: %s\n", strings.ReplaceAll(msg, "\n", "\n  "))
	if code == ExitUsage {
		// The help of the command that was given, when it was found.
		path := root.CommandPath()
		if cmd != nil {
			path = cmd.CommandPath()
			// A flag the message names may not be on the command line.
			for _, src := range sourcesNamed(cmd.Flags(), msg) {
				fmt.Fprintf(streams.Err, "  (%s)\n", src)
			}
		}
		fmt.Fprintf(streams.Err, "Run '%s --help' for usage.\n", path)
	}
	return code
}

// unknownCommand reports whether the command line names no drasim
// command: cobra's command lookup then fails, with an untyped error, before
// any command runs. Every other mistake of the command line is typed where
// it is found: flags by the FlagErrorFunc, arguments by each command's Args
// (usageArgs), drasim's own checks by usageErrorf. No message is parsed.
func unknownCommand(root *cobra.Command, args []string) bool {
	_, _, err := root.Find(args)
	return err != nil
}

// usageArgs makes the argument checks of c and of every command under it
// return usage errors: cobra's validators (cobra.NoArgs, ExactArgs, ...)
// return plain errors.
func usageArgs(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				if hint := snapshotArgsHint(cmd, args); hint != "" {
					err = errors.New(hint)
				}
				return &ExitError{Code: ExitUsage, Err: err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
}

// snapshotArgsHint is the message for arguments given to a command that
// takes none but reads a snapshot with -f: they are most likely the
// snapshot ("drasim simulate cluster.yaml"). It is "" for other commands.
func snapshotArgsHint(cmd *cobra.Command, args []string) string {
	if len(args) == 0 || cmd.Flags().Lookup("filename") == nil || cmd.HasAvailableSubCommands() {
		return ""
	}
	if cmd.Args == nil || cmd.ValidateArgs(nil) != nil {
		return "" // the command takes arguments of its own (explain POD)
	}
	flags := make([]string, len(args))
	for i, a := range args {
		flags[i] = "-f " + a
	}
	return fmt.Sprintf("%s takes no arguments: snapshots are given with -f; did you mean `%s`?", cmd.CommandPath(), strings.Join(flags, " "))
}

// GlobalOptions are the flags every command has.
type GlobalOptions struct {
	ConfigFile string
	Verbosity  int
	Output     string

	// files are the command line's output files, checked before the run
	// and written with files.write.
	files *files
}

// NewRootCommand builds the drasim command tree.
func NewRootCommand(streams Streams) *cobra.Command {
	root, _ := newRootCommand(streams)
	return root
}

// newRootCommand builds the command tree and returns the profiles that
// Run must finish once the command has run.
func newRootCommand(streams Streams) (*cobra.Command, *profiles) {
	fl := newFiles(streams)
	g := &GlobalOptions{files: fl}
	prof := &profiles{files: fl}
	v := viper.New()
	// Commands write their report to fl.out: standard output, unless an
	// output file takes it.
	streams.Out = fl.out
	root := &cobra.Command{
		Use:   "drasim",
		Short: "Simulate Kubernetes scheduling with Dynamic Resource Allocation on a cluster snapshot",
		Long: `drasim replays kube-scheduler v1.37 on a snapshot of a cluster (Nodes,
ResourceSlices, DeviceClasses, ResourceClaims, Pods and workloads, as
'kubectl get -o yaml' writes them) with the real DRA allocator, and reports
what fits, what does not and why.

Configuration: flags win over DRASIM_* environment variables, which win over
the config file (--config or DRASIM_CONFIG, else
$XDG_CONFIG_HOME/drasim/config.yaml, else ./drasim.yaml unless it is a
Kubernetes object such as a snapshot).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			// A run of a sweep (given its snapshot loaded) takes its
			// flags from its command line alone: it depends on the
			// sweep file, not on the environment of the machine.
			config := ""
			if streams.Loaded == nil {
				var err error
				if config, err = applyConfig(cmd, v, g.ConfigFile); err != nil {
					return err
				}
			}
			warnNoColor(cmd)
			if err := checkFormat(cmd, g.Output); err != nil {
				if src := flagSource(cmd.Flags(), "output"); src != "--output" {
					return usageErrorf("%s: %w", src, errors.Unwrap(err))
				}
				return err
			}
			if err := fl.prepare(cmd, config); err != nil {
				return err
			}
			return prof.start()
		},
	}
	root.SetGlobalNormalizationFunc(normalizeFlagName)
	// -o lists, in each command's help, the formats that command offers.
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		if f := c.Flags().Lookup("output"); f != nil {
			f.Usage = outputUsage(c)
		}
		help(c, args)
	})
	// --version, as kubectl and most tools have it; the same line as
	// drasim version.
	root.Version = currentVersion().line()
	root.SetVersionTemplate("{{.Version}}\n")
	root.Flags().Bool("version", false, "print drasim's version (the line drasim version prints)")
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.Err)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return flagError(err) })
	pf := root.PersistentFlags()
	pf.StringVar(&g.ConfigFile, "config", "", "config file, keys named as the flags (also DRASIM_CONFIG; default $XDG_CONFIG_HOME/drasim/config.yaml, then ./drasim.yaml unless it is a Kubernetes object)")
	pf.IntVarP(&g.Verbosity, "verbosity", "v", 0, "log verbosity: 0 quiet, 1 progress, 2 details")
	pf.StringVarP(&g.Output, "output", "o", "table", "output format; each command's help lists the formats it offers")
	addNoColor(pf)
	prof.addFlags(root)

	root.AddCommand(
		NewVersionCommand(streams, g),
		NewCompletionCommand(streams),
		NewValidateCommand(streams, g),
		NewInspectCommand(streams, g),
		NewSimulateCommand(streams, g),
		NewExplainCommand(streams, g),
		NewReportCommand(streams, g),
		NewCheckCommand(streams, g),
		NewAutoscaleCommand(streams, g),
		NewTimelineCommand(streams, g),
		NewFillCommand(streams, g),
		NewGenerateCommand(streams, g),
		NewCaptureCommand(streams, g),
		NewSweepCommand(streams, g),
	)
	usageArgs(root)
	return root, prof
}
