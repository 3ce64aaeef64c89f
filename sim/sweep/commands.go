package sweep

import (
	"context"

	"github.com/drasim/drasim/sim/load"
)

// FlagRole says how a sweep may use a command's flag.
type FlagRole int

const (
	// FlagPlain flags take their value as written.
	FlagPlain FlagRole = iota
	// FlagInputFile flags name files the command reads: relative paths are
	// relative to the sweep file, and sweep job bundles the files.
	FlagInputFile
	// FlagOutputFile flags make a command write a file; runs of a sweep
	// write rows, never files, so a sweep refuses them.
	FlagOutputFile
	// FlagReserved flags are set by the sweep itself (-f, -o, --seed, the
	// config and profiling flags).
	FlagReserved
)

// Flag is one flag of a command as a sweep sees it.
type Flag struct {
	Role FlagRole
}

// Commands tells a sweep what drasim's commands and their flags are. The
// command line implements it; sim/sweep never imports the command line.
type Commands interface {
	// Command returns an error when a sweep cannot run the command (there
	// is no such command, or it writes no JSON result).
	Command(name string) error
	// Flag describes a flag of a command, or returns an error that says
	// why there is none (and which flag was perhaps meant).
	Flag(command, name string) (Flag, error)
	// Check tries a run's command line (args, its -f files inputs) on
	// in, a snapshot with nothing to schedule, and returns the error the
	// command gives for a value it refuses (a misspelt expander, an
	// unknown feature gate); other failures are not its business.
	Check(args, inputs []string, in *load.Result) error
}

// Exec runs one run's command line (r.Args, the command's name first) and
// returns what it wrote to standard output. in is the snapshot the sweep
// loaded for the run: the command must read it instead of the files of
// the command line's -f flags (r.Inputs).
type Exec func(ctx context.Context, r Run, in *load.Result) ([]byte, error)

// The flags a sweep sets on every run and reads its own meaning into.
const (
	flagSeed         = "seed"
	flagParallelism  = "parallelism"
	flagFeatureGates = "feature-gates"
)
