package app

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// profiles writes Go pprof profiles of a run (--output-cpuprofile,
// --output-memprofile), for finding the next bottleneck on one's own
// snapshot: `go tool pprof -top drasim cpu.out`. The CPU profile is
// collected in memory and, like the heap profile, written by the output
// writer (files) when the command ends, so a failed run leaves no profile;
// the paths are checked with every other output before the run.
type profiles struct {
	files            *files
	cpuPath, memPath string
	cpu              *bytes.Buffer
}

func (p *profiles) addFlags(cmd *cobra.Command) {
	pf := cmd.PersistentFlags()
	pf.StringVar(&p.cpuPath, "output-cpuprofile", "", "write a Go CPU profile of the command to FILE (old name: --cpuprofile)")
	pf.StringVar(&p.memPath, "output-memprofile", "", "write a Go heap profile, taken when the command ends, to FILE (old name: --memprofile)")
	markOutput(pf, "output-cpuprofile")
	markOutput(pf, "output-memprofile")
}

// start begins CPU profiling.
func (p *profiles) start() error {
	if p.cpuPath == "" {
		return nil
	}
	p.cpu = &bytes.Buffer{}
	if err := pprof.StartCPUProfile(p.cpu); err != nil {
		p.cpu = nil
		return &ExitError{Code: ExitFailure, Err: err}
	}
	return nil
}

// finish stops CPU profiling and writes the profiles. ok says whether the
// command succeeded; profiles of a failed command are dropped.
func (p *profiles) finish(ok bool) error {
	var errs []error
	if p.cpu != nil {
		pprof.StopCPUProfile()
		if ok {
			cpu := p.cpu
			errs = append(errs, p.files.write("output-cpuprofile", func(w io.Writer) error {
				_, err := cpu.WriteTo(w)
				return err
			}))
		}
		p.cpu = nil
	}
	if p.memPath != "" && ok {
		runtime.GC() // the heap as the command leaves it
		errs = append(errs, p.files.write("output-memprofile", func(w io.Writer) error { return pprof.WriteHeapProfile(w) }))
	}
	return errors.Join(errs...)
}
