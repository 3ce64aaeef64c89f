package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/drasim/drasim/internal/outfile"
	"github.com/drasim/drasim/report"
	"github.com/drasim/drasim/sim/load"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Flags that name files carry an annotation, so that one check before the
// run sees every output and every input of the command line. A new output
// flag is declared with markOutput and written with files.write; nothing
// else is needed for it to be checked, refused over an input and written
// by internal/outfile's rules.
const fileAnnotation = "drasim.io/file"

const (
	fileOutput    = "output"     // a file the command writes
	fileOutputDir = "output-dir" // a directory the command writes files into
	fileInput     = "input"      // a file the command reads
	fileSnapshot  = "snapshot"   // -f: files, directories or -, expanded as the loader expands them
)

// markOutput declares flag name as naming a file the command writes.
func markOutput(fs *pflag.FlagSet, name string) { annotateFile(fs, name, fileOutput) }

// markOutputDir declares flag name as naming a directory the command
// writes files into (files.dir).
func markOutputDir(fs *pflag.FlagSet, name string) { annotateFile(fs, name, fileOutputDir) }

// markInput declares flag name as naming a file the command reads.
func markInput(fs *pflag.FlagSet, name string) { annotateFile(fs, name, fileInput) }

func annotateFile(fs *pflag.FlagSet, name, kind string) {
	if err := fs.SetAnnotation(name, fileAnnotation, []string{kind}); err != nil {
		panic(err) // a programming error: the flag is not defined
	}
}

// flagAliases maps the old names of output flags to the names of the one
// scheme (--output-<what>); the old names keep working, in flags, the
// environment and the config file.
func flagAliases() map[string]string {
	return map[string]string{
		"junit":       "output-junit",
		"report":      "output-html",
		"cpuprofile":  "output-cpuprofile",
		"memprofile":  "output-memprofile",
		"output-file": "output-snapshot",
	}
}

func normalizeFlagName(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	if to, ok := flagAliases()[name]; ok {
		return pflag.NormalizedName(to)
	}
	return pflag.NormalizedName(name)
}

// files are the output files of one command line and where standard output
// goes. When an output is "-", it takes standard output and the command's
// own report goes to standard error, so that `--output-snapshot - | drasim
// simulate -f -` works and the summary stays on the terminal.
type files struct {
	stdout  io.Writer       // the real standard output, where "-" writes
	stderr  io.Writer       // where the report goes when an output is "-"
	out     *switchedWriter // what the commands write their report to
	targets map[string]outfile.Target
	dirs    map[string]outputDir
}

func newFiles(streams Streams) *files {
	return &files{stdout: streams.Out, stderr: streams.Err, out: &switchedWriter{w: streams.Out}, targets: map[string]outfile.Target{}, dirs: map[string]outputDir{}}
}

// switchedWriter is standard output for the commands, sent to standard
// error when an output file takes standard output.
type switchedWriter struct{ w io.Writer }

func (s *switchedWriter) Write(p []byte) (int, error) { return s.w.Write(p) }

// Width keeps tables fitted to the terminal (report.Sized).
func (s *switchedWriter) Width() int {
	if sized, ok := s.w.(report.Sized); ok {
		return sized.Width()
	}
	return 0
}

var _ report.Sized = (*switchedWriter)(nil)

// prepare runs before the command: it collects the output flags that are
// set and checks each against the files the command will read (the config
// file, the input flags' files and -f expanded as the loader expands it),
// so that a wrong output path fails before any work.
func (fl *files) prepare(cmd *cobra.Command, configFile string) error {
	var inputs, snapshotPaths []string
	if configFile != "" {
		inputs = append(inputs, configFile)
	}
	var outputs []outfile.Target
	var dirs []outputDir
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		kinds := f.Annotations[fileAnnotation]
		if len(kinds) == 0 {
			return
		}
		values := flagValues(f)
		switch kinds[0] {
		case fileOutput:
			if len(values) == 1 && values[0] != "" {
				outputs = append(outputs, outfile.Target{Flag: "--" + f.Name, Path: values[0]})
			}
		case fileOutputDir:
			if len(values) == 1 && values[0] != "" {
				dirs = append(dirs, outputDir{Flag: "--" + f.Name, Path: values[0]})
			}
		case fileInput:
			inputs = append(inputs, values...)
		case fileSnapshot:
			snapshotPaths = append(snapshotPaths, values...)
		}
	})
	if summary := stepSummaryTarget(cmd); summary != nil {
		outputs = append(outputs, *summary)
	}
	for _, d := range dirs {
		if err := d.check(); err != nil {
			return err
		}
		fl.dirs[strings.TrimPrefix(d.Flag, "--")] = d
	}
	if len(outputs) == 0 {
		return nil
	}
	// Errors about the snapshot paths are the loader's to report.
	read, _ := load.Files(snapshotPaths)
	inputs = append(inputs, read...)
	var onStdout []string
	for i, t := range outputs {
		if err := t.Check(inputs); err != nil {
			if errors.Is(err, outfile.ErrUsage) {
				return &ExitError{Code: ExitUsage, Err: err}
			}
			return &ExitError{Code: ExitFailure, Err: err}
		}
		for _, prev := range outputs[:i] {
			if outfile.Same(prev, t) {
				return usageErrorf("%s and %s name the same file: each output needs its own", prev, t)
			}
		}
		if t.Flag == stepSummaryEnv {
			continue // appended to by the command itself (appendMarkdown)
		}
		if t.IsStdout() || isStdoutPath(t.Path) {
			onStdout = append(onStdout, t.String())
		}
		fl.targets[strings.TrimPrefix(t.Flag, "--")] = t
	}
	if len(onStdout) > 1 {
		return usageErrorf("%s all write to standard output; only one output can", strings.Join(onStdout, ", "))
	}
	if len(onStdout) == 1 {
		fl.out.w = fl.stderr
	}
	fl.warnReadNextTime(outputs, snapshotPaths)
	return nil
}

// stepSummaryAnnotation, on a command, names the flag with which the
// command appends to the GitHub Actions job summary (GITHUB_STEP_SUMMARY).
const stepSummaryAnnotation = "drasim.io/step-summary"

// appendsStepSummary declares that cmd appends to GITHUB_STEP_SUMMARY
// when its flag is set: the summary is then an output like any other,
// checked before the run and refused over an input.
func appendsStepSummary(cmd *cobra.Command, flag string) {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[stepSummaryAnnotation] = flag
}

// stepSummaryTarget is the job summary cmd will append to, or nil.
func stepSummaryTarget(cmd *cobra.Command) *outfile.Target {
	flag := cmd.Annotations[stepSummaryAnnotation]
	path := os.Getenv(stepSummaryEnv)
	if flag == "" || path == "" {
		return nil
	}
	if f := cmd.Flags().Lookup(flag); f == nil || f.Value.String() == "" {
		return nil
	}
	return &outfile.Target{Flag: stepSummaryEnv, Path: path}
}

// isStdoutPath reports the paths that name this process's standard output:
// an output written there takes standard output as "-" does.
func isStdoutPath(path string) bool {
	switch filepath.Clean(path) {
	case "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1":
		return true
	}
	return false
}

// warnReadNextTime warns about an output that the loader will read as
// input the next time the same -f directory is given: a snapshot written
// there makes the next run fail on duplicate objects.
func (fl *files) warnReadNextTime(outputs []outfile.Target, snapshotPaths []string) {
	for _, t := range outputs {
		if t.IsStdout() || !load.IsSnapshotFile(t.Path) {
			continue
		}
		for _, p := range snapshotPaths {
			if p != "-" && isInside(t.Path, p) {
				fmt.Fprintf(fl.stderr, "warning: %s is inside %s: the next run with -f %s reads it as input too (its objects would be duplicates)\n", t, p, p)
				break
			}
		}
	}
}

// isInside reports whether the file path lies under directory dir (both
// resolved through symlinks).
func isInside(path, dir string) bool {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return false
	}
	resolve := func(p string) string {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		return p
	}
	rel, err := filepath.Rel(resolve(dir), filepath.Join(resolve(filepath.Dir(path)), filepath.Base(path)))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// flagValues returns a flag's value, or values for a repeatable flag.
func flagValues(f *pflag.Flag) []string {
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		return sv.GetSlice()
	}
	return []string{f.Value.String()}
}

// isSet reports whether the output flag name names a file.
func (fl *files) isSet(name string) bool {
	_, ok := fl.targets[name]
	return ok
}

// target returns the output of flag name.
func (fl *files) target(name string) outfile.Target { return fl.targets[name] }

// write writes the output of flag name (nothing when the flag is not set).
func (fl *files) write(name string, write func(io.Writer) error) error {
	t, ok := fl.targets[name]
	if !ok {
		return nil
	}
	if err := t.Write(fl.stdout, write); err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	return nil
}

// outputDir is a directory the command writes files into: each file is
// written by internal/outfile's rules (atomically, never half a file),
// and errors name the flag.
type outputDir struct {
	Flag string // e.g. "--output-dir"
	Path string
}

// check refuses, before any work, a path that cannot be a directory.
func (d outputDir) check() error {
	if d.Path == outfile.Stdout {
		return usageErrorf("%s: a directory cannot be standard output", d.Flag)
	}
	if st, err := os.Stat(d.Path); err == nil && !st.IsDir() {
		return usageErrorf("%s %s: is a file; give a directory", d.Flag, d.Path)
	}
	return nil
}

// dir returns the output directory of flag name, or def (a path) when
// the flag is not set.
func (fl *files) dir(name, def string) outputDir {
	if d, ok := fl.dirs[name]; ok {
		return d
	}
	return outputDir{Flag: "--" + name, Path: def}
}

// create makes the directory (and its parents) when it does not exist.
func (d outputDir) create() error {
	if err := d.check(); err != nil {
		return err
	}
	if err := os.MkdirAll(d.Path, 0o755); err != nil {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%s: %w", d.Flag, err)}
	}
	return nil
}

// target is the file base in the directory.
func (d outputDir) target(base string) outfile.Target {
	return outfile.Target{Flag: d.Flag, Path: filepath.Join(d.Path, base)}
}

// write writes the file at path (in the directory) by outfile's rules.
func (d outputDir) write(path string, write func(io.Writer) error) error {
	return outfile.Target{Flag: d.Flag, Path: path}.Write(nil, write)
}
