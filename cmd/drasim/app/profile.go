package app

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// profiles writes Go pprof profiles of a run (--cpuprofile, --memprofile),
// for finding the next bottleneck on one's own snapshot: `go tool pprof
// -top drasim cpu.out`. Each file is written next to its final path and
// renamed into place when the command ends, so a failed run leaves no
// half-written profile, and a path that is one of the command's input
// files is refused.
type profiles struct {
	cpuPath, memPath string
	cpu              *os.File
}

func (p *profiles) addFlags(cmd *cobra.Command) {
	pf := cmd.PersistentFlags()
	pf.StringVar(&p.cpuPath, "cpuprofile", "", "write a Go CPU profile of the command to this file")
	pf.StringVar(&p.memPath, "memprofile", "", "write a Go heap profile, taken when the command ends, to this file")
}

// start begins CPU profiling; cmd is the command being run.
func (p *profiles) start(cmd *cobra.Command) error {
	var inputs []string
	if f := cmd.Flags().Lookup("filename"); f != nil {
		inputs, _ = cmd.Flags().GetStringArray("filename")
	}
	for _, path := range []string{p.cpuPath, p.memPath} {
		if path == "" {
			continue
		}
		if err := refuseInputOverwrite(path, inputs); err != nil {
			return &ExitError{Code: ExitUsage, Err: err}
		}
	}
	// Fail before the work, not after it, when a profile cannot be written.
	if p.memPath != "" {
		if _, err := os.Stat(filepath.Dir(p.memPath)); err != nil {
			return profileError("--memprofile", p.memPath, err)
		}
	}
	if p.cpuPath == "" {
		return nil
	}
	f, err := os.CreateTemp(filepath.Dir(p.cpuPath), "."+filepath.Base(p.cpuPath)+".tmp-*")
	if err != nil {
		return profileError("--cpuprofile", p.cpuPath, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return profileError("--cpuprofile", p.cpuPath, err)
	}
	p.cpu = f
	return nil
}

// finish stops CPU profiling and writes the heap profile. ok says whether
// the command succeeded; profiles of a failed command are dropped.
func (p *profiles) finish(ok bool) error {
	var errs []error
	if p.cpu != nil {
		pprof.StopCPUProfile()
		name := p.cpu.Name()
		err := p.cpu.Close()
		if err == nil && ok {
			err = os.Rename(name, p.cpuPath)
		}
		if err != nil || !ok {
			os.Remove(name)
		}
		if err != nil {
			errs = append(errs, profileError("--cpuprofile", p.cpuPath, err))
		}
		p.cpu = nil
	}
	if p.memPath != "" && ok {
		runtime.GC() // the heap as the command leaves it
		err := writeFileAtomic(p.memPath, func(w io.Writer) error { return pprof.WriteHeapProfile(w) })
		if err != nil {
			errs = append(errs, profileError("--memprofile", p.memPath, err))
		}
	}
	return errors.Join(errs...)
}

// profileError names the flag and the path the user gave, not the
// temporary file the error may be about.
func profileError(flag, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s %s: %w", flag, path, err)
}
