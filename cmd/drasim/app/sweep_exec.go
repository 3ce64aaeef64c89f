package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/drasim/drasim/internal/suggest"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/sweep"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// sweepCommands tells a sweep about drasim's commands and flags, read from
// the command tree itself: a new command or flag can be an axis at once.
type sweepCommands struct {
	root *cobra.Command
}

var _ sweep.Commands = (*sweepCommands)(nil)

func newSweepCommands() *sweepCommands {
	root, _ := newRootCommand(Streams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
	return &sweepCommands{root: root}
}

// notSweepable are the commands that write no result to read numbers from.
var notSweepable = map[string]string{
	"sweep":      "a sweep cannot run sweeps",
	"version":    "it prints the version",
	"completion": "it prints a shell completion script",
	"generate":   "it writes a snapshot, not a result (generate the snapshots first and make them inputs)",
	"capture":    "it reads a live cluster and writes a snapshot, not a result (capture first and make the capture an input)",
	"validate":   "it checks the files themselves, and a sweep loads them once before its runs",
	"explain":    "it takes a pod's name as an argument, and a sweep sets flags only",
	"help":       "it prints help",
}

// reservedFlags are the flags a sweep sets itself or that must not differ
// between runs (besides -f, and the output files every command refuses).
var reservedFlags = map[string]bool{
	"output": true, "seed": true, "config": true, "verbosity": true, "help": true,
}

func (c *sweepCommands) find(name string) (*cobra.Command, error) {
	var names []string
	for _, cmd := range c.root.Commands() {
		if cmd.Name() == name {
			return cmd, nil
		}
		if cmd.IsAvailableCommand() {
			if _, no := notSweepable[cmd.Name()]; !no {
				names = append(names, cmd.Name())
			}
		}
	}
	sort.Strings(names)
	return nil, fmt.Errorf("no drasim command %q: use one of %s", name, strings.Join(names, ", "))
}

// Command implements sweep.Commands.
func (c *sweepCommands) Command(name string) error {
	if why, no := notSweepable[name]; no {
		return fmt.Errorf("drasim %s cannot be swept: %s", name, why)
	}
	_, err := c.find(name)
	return err
}

// Flag implements sweep.Commands.
func (c *sweepCommands) Flag(command, name string) (sweep.Flag, error) {
	cmd, err := c.find(command)
	if err != nil {
		return sweep.Flag{}, err
	}
	f := cmd.Flags().Lookup(name)
	if f == nil {
		f = cmd.InheritedFlags().Lookup(name)
	}
	if f == nil {
		return sweep.Flag{}, fmt.Errorf("drasim %s has no flag --%s%s", command, name, suggestFlag(cmd, name))
	}
	kind := ""
	if kinds := f.Annotations[fileAnnotation]; len(kinds) == 1 {
		kind = kinds[0]
	}
	switch {
	case reservedFlags[f.Name] || kind == fileSnapshot:
		return sweep.Flag{Role: sweep.FlagReserved}, nil
	case kind == fileInput:
		return sweep.Flag{Role: sweep.FlagInputFile}, nil
	case kind == fileOutput || kind == fileOutputDir:
		return sweep.Flag{Role: sweep.FlagOutputFile}, nil
	}
	return sweep.Flag{Role: sweep.FlagPlain}, nil
}

// suggestFlag names the command's flag closest to a misspelt one.
func suggestFlag(cmd *cobra.Command, name string) string {
	best, bestDist := "", 3
	visit := func(f *pflag.Flag) {
		if d := suggest.Distance(name, f.Name); d < bestDist {
			best, bestDist = f.Name, d
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean --%s?)", best)
}

// Check implements sweep.Commands: it runs the command line on in, a
// snapshot with nothing to schedule, with its context already cancelled,
// so that the command judges its flags (a misspelt expander, an unknown
// feature gate, a number that is not one) and stops at its first piece of
// work. Usage errors count, and so does a command that reads its -f files
// itself instead of taking the sweep's snapshot (errNotTaken).
func (c *sweepCommands) Check(args, inputs []string, in *load.Result) error {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	loaded := &Loaded{Files: inputs, Result: in}
	code, _, stderr := runInProcess(ctx, args, loaded)
	switch {
	case code == ExitUsage:
		return errors.New(runError(stderr))
	case loaded.missed || (code == ExitOK || code == ExitGateFailed) && len(inputs) > 0 && !loaded.taken:
		return errNotTaken(args[0])
	}
	return nil
}

// errNotTaken says that a command read its inputs itself instead of
// taking the sweep's snapshot: its runs would replay the files, not the
// sweep's variants, and load them once per run.
func errNotTaken(command string) error {
	return fmt.Errorf("drasim %s read its -f files itself instead of taking the sweep's loaded snapshot (a flag such as --strict makes it load them its own way)", command)
}

// runInProcess runs one drasim command line with its own streams.
func runInProcess(ctx context.Context, args []string, loaded *Loaded) (int, []byte, string) {
	var out, errb bytes.Buffer
	code := runContext(ctx, Streams{In: strings.NewReader(""), Out: &out, Err: &errb, Loaded: loaded}, args)
	return code, out.Bytes(), errb.String()
}

// runError is what a failed run said, without the "drasim: " prefix and
// the usage hint.
func runError(stderr string) string {
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if strings.HasPrefix(line, "Run 'drasim --help'") || strings.HasPrefix(line, "warning: ") {
			continue
		}
		lines = append(lines, strings.TrimSpace(strings.TrimPrefix(line, "drasim: ")))
	}
	if len(lines) == 0 {
		return "the command failed without a message"
	}
	return strings.Join(lines, "; ")
}

// sweepExec is the sweep's Exec: the command line runs in this process, as
// if typed, with the sweep's snapshot given instead of its -f files. Runs
// under way are not cancelled: a stopped sweep lets them finish and keeps
// their rows.
func sweepExec(_ context.Context, r sweep.Run, in *load.Result) ([]byte, error) {
	loaded := &Loaded{Files: r.Inputs, Result: in}
	code, stdout, stderr := runInProcess(context.Background(), r.Args, loaded)
	if loaded.missed {
		return nil, errNotTaken(r.Args[0])
	}
	switch code {
	case ExitOK, ExitGateFailed:
		// A failed gate is a result (drasim check), not a broken run.
		if len(r.Inputs) > 0 && !loaded.taken {
			return nil, errNotTaken(r.Args[0])
		}
		return stdout, nil
	}
	return nil, fmt.Errorf("exit status %d: %s", code, runError(stderr))
}

var _ sweep.Exec = sweepExec
