package app

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/drasim/drasim/report"
	"github.com/drasim/drasim/scenarios"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/validate"
	"github.com/spf13/pflag"
)

// inputFlags are the snapshot flags of every command that reads one.
type inputFlags struct {
	Files  []string
	Strict bool
}

func (f *inputFlags) add(fs *pflag.FlagSet) {
	fs.StringArrayVarP(&f.Files, "filename", "f", nil, "snapshot file or directory (repeatable; - reads standard input)")
	fs.BoolVar(&f.Strict, "strict", false, "treat unknown fields as errors (a field written twice is always one)")
	annotateFile(fs, "filename", fileSnapshot)
}

// load reads the snapshot and prints loader warnings to stderr. A load
// failure is an ExitError with code 1 that lists every problem.
func (f *inputFlags) load(streams Streams, verbosity int, opts load.Options) (*load.Result, error) {
	return admitted(f.read(streams, verbosity, opts))
}

// read is load without the admission check, which it returns to be run.
func (f *inputFlags) read(streams Streams, verbosity int, opts load.Options) (*load.Result, admission, error) {
	if len(f.Files) == 0 {
		return nil, nil, usageErrorf("no snapshot given: use -f FILE or -f DIR (repeatable, - for standard input)")
	}
	opts.Strict = f.Strict
	opts.Stdin = streams.In
	if res, ok := streams.Loaded.lookup(f.Files, opts); ok {
		return res, nil, nil
	}
	res, err := load.Load(f.Files, opts)
	if res != nil && verbosity >= 1 {
		fmt.Fprintf(streams.Err, "read %d file(s): %d nodes, %d pods, %d ResourceSlices, %d ResourceClaims\n",
			len(res.Files), len(res.Snapshot.Nodes), len(res.Snapshot.Pods), len(res.Snapshot.ResourceSlices), len(res.Snapshot.ResourceClaims))
	}
	if res != nil {
		for _, w := range res.Warnings {
			fmt.Fprintf(streams.Err, "warning: %s\n", w)
		}
	}
	if err != nil {
		return res, nil, &ExitError{Code: ExitFailure, Err: err}
	}
	return res, admissionOf(res), nil
}

// loadOrDemo loads -f, or the embedded demo when no file is given: every
// command that only looks at a snapshot (simulate, explain, report,
// inspect, validate) can be tried without one. The commands that answer
// about one's own cluster (check, autoscale) call load instead.
func loadOrDemo(streams Streams, verbosity int, in *inputFlags, opts load.Options) (*load.Result, error) {
	return admitted(readOrDemo(streams, verbosity, in, opts))
}

// readOrDemo is loadOrDemo without the admission check, which it returns
// to be run.
func readOrDemo(streams Streams, verbosity int, in *inputFlags, opts load.Options) (*load.Result, admission, error) {
	if len(in.Files) > 0 {
		return in.read(streams, verbosity, opts)
	}
	res, err := loadDemo(streams, in, opts)
	if err != nil {
		return nil, nil, err
	}
	return res, admissionOf(res), nil
}

// admission is admit for a loaded snapshot, handed back by the read
// functions so that a command may run it beside other work that only
// reads the snapshot (the replay: the check takes a second of one core at
// 50,000 nodes). A snapshot admitted already (Loaded) has none. Whatever
// runs beside it, its error is the command's.
type admission func() error

func admissionOf(res *load.Result) admission {
	return func() error { return admit(res) }
}

// admitted runs the admission check of what a read function returned.
func admitted(res *load.Result, check admission, err error) (*load.Result, error) {
	if err == nil && check != nil {
		err = check()
	}
	return res, err
}

// loadDemo reads the embedded demo and says so on standard error.
func loadDemo(streams Streams, in *inputFlags, opts load.Options) (*load.Result, error) {
	opts.Strict = in.Strict
	res, err := load.LoadBytes("demo:"+scenarios.DemoName, scenarios.Demo(), opts)
	if err != nil {
		return nil, &ExitError{Code: ExitFailure, Err: fmt.Errorf("embedded demo: %w", err)}
	}
	fmt.Fprintf(streams.Err, "No -f given: running the embedded demo scenario (%s).\n", scenarios.DemoName)
	return res, nil
}

// admit refuses a snapshot that holds objects the API server would reject
// (validate.Rejected), before anything simulates it: such input can make
// the allocator fail or panic, and a cluster could never hold it.
func admit(res *load.Result) error {
	ds := validate.Rejected(res.Snapshot)
	if len(ds) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the API server would reject this input (%s; drasim validate also shows the warnings):", plural(len(ds), "error"))
	for _, d := range ds {
		b.WriteString("\n")
		b.WriteString(report.DescribeDiagnostic(d))
	}
	return &ExitError{Code: ExitFailure, Err: errors.New(b.String())}
}

// requireNodes refuses a snapshot with nothing to simulate: no Node, or
// for the autoscaler (nodeGroups) no Node and no NodeGroup to add one from.
// validate only warns about it (NothingToSimulate).
func requireNodes(res *load.Result, nodeGroups bool) error {
	s := res.Snapshot
	if len(s.Nodes) > 0 || nodeGroups && len(s.NodeGroups) > 0 {
		return nil
	}
	what := "no Node (add the cluster's nodes: kubectl get nodes -o yaml)"
	switch {
	case len(s.Sources) == 0 && len(s.Skipped) == 0:
		what = "no Kubernetes object"
	case nodeGroups:
		what = "no Node and no NodeGroup to add nodes from"
	}
	verb := "holds"
	if len(res.Files) > 1 {
		verb = "hold"
	}
	return &ExitError{Code: ExitFailure, Err: fmt.Errorf("nothing to simulate: %s %s %s", describeFiles(res.Files), verb, what)}
}

// describeFiles names the files read, as the loader names them.
func describeFiles(files []string) string {
	names := make([]string, len(files))
	for i, f := range files {
		if f == "-" {
			f = "<stdin>"
		}
		names[i] = f
	}
	if len(names) > 3 {
		return fmt.Sprintf("%s and %d more files", strings.Join(names[:2], ", "), len(names)-2)
	}
	return strings.Join(names, ", ")
}

// plural renders "1 problem", "2 problems".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Loaded is a snapshot already read from Files with load's default options
// (not strict, controllers expanded) and admitted (admit) by whoever read
// it: a run of a sweep. Several commands may share it at once: a command
// gets its own copy of the Result (what-if edits replace its Snapshot),
// and must replace, never change, the objects of the Snapshot. A command
// given one reads no DRASIM_* variable and no config file.
type Loaded struct {
	Files  []string
	Result *load.Result
	// taken is set when the command took Result instead of reading Files,
	// missed when it read files itself (other files, or other options).
	// A sweep checks both, so that a command cannot silently replay the
	// files instead of the sweep's variant.
	taken, missed bool
}

// lookup returns the loaded snapshot when it was read from files with opts.
func (l *Loaded) lookup(files []string, opts load.Options) (*load.Result, bool) {
	if l == nil {
		return nil, false
	}
	if opts.Strict || opts.KeepControllers || !slices.Equal(l.Files, files) {
		l.missed = true
		return nil, false
	}
	l.taken = true
	res := *l.Result
	return &res, true
}
