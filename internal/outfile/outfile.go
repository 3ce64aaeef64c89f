package outfile

import (
	"bufio"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Stdout is the path that means standard output.
const Stdout = "-"

// newFileMode is the mode of a file Write creates, before the umask.
const newFileMode fs.FileMode = 0o644

// ErrUsage marks the errors that come from the command line (an output
// that is also an input, a directory given as a file), as opposed to a
// failure of the file system.
var ErrUsage = errors.New("usage")

// Target is one output: the flag that named it and the path the user gave.
type Target struct {
	// Flag is the flag as the user knows it, e.g. "--output-snapshot";
	// every error starts with it. A name without a leading dash is an
	// environment variable (GITHUB_STEP_SUMMARY) and is shown as NAME=path.
	Flag string
	// Path is the path as given; "-" is standard output.
	Path string
}

// IsStdout reports whether t is standard output.
func (t Target) IsStdout() bool { return t.Path == Stdout }

// String renders "--flag path", or "NAME=path" for an environment
// variable.
func (t Target) String() string {
	if !strings.HasPrefix(t.Flag, "-") {
		return t.Flag + "=" + t.Path
	}
	return t.Flag + " " + t.Path
}

// Same reports whether a and b name one file: the same path, however
// spelled, or two names of one existing file (a symlink, a hard link).
// Standard output is not a file here; callers handle "-" themselves.
func Same(a, b Target) bool {
	if a.IsStdout() || b.IsStdout() || a.Path == "" || b.Path == "" {
		return false
	}
	if sa, err := os.Stat(a.Path); err == nil {
		if sb, err := os.Stat(b.Path); err == nil {
			return os.SameFile(sa, sb)
		}
	}
	return canonical(a.Path) == canonical(b.Path)
}

// canonical is path made absolute, with its directory's symlinks
// resolved (the file itself may not exist yet).
func canonical(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	dir, base := filepath.Split(abs)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return filepath.Join(dir, base)
}

// Error is a problem with one target.
type Error struct {
	Target Target
	Err    error
}

func (e *Error) Error() string { return e.Target.String() + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// usageError is an error of the command line: it unwraps to ErrUsage as
// well as to its own message.
type usageError struct{ msg string }

func (e usageError) Error() string        { return e.msg }
func (e usageError) Is(target error) bool { return target == ErrUsage }

func (t Target) fail(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		// The operation and path may be those of a temporary file.
		err = pe.Err
	}
	return &Error{Target: t, Err: err}
}

func (t Target) usagef(format string, args ...any) error {
	return &Error{Target: t, Err: usageError{fmt.Sprintf(format, args...)}}
}

// Check reports why t cannot be written, before any work is done: its
// directory is missing, not a directory or not writable, the path is a
// directory, or it is one of inputs (paths of files the command reads;
// "-" and names that are not files are ignored). Inputs are compared as
// files, so symlinks and hard links are seen through.
func (t Target) Check(inputs []string) error {
	if t.IsStdout() {
		return nil
	}
	if t.Path == "" {
		return t.usagef("no path given")
	}
	st, err := os.Stat(t.Path)
	switch {
	case err == nil:
		if st.IsDir() {
			return t.usagef("is a directory; give a file name")
		}
		for _, in := range inputs {
			if in == Stdout {
				continue
			}
			if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
				if in == t.Path {
					return t.usagef("refusing to write: this file is read as input")
				}
				return t.usagef("refusing to write: it is %s, which is read as input", in)
			}
		}
		if !st.Mode().IsRegular() {
			return nil // written through; opening it now could block (a FIFO)
		}
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ENOTDIR):
		if lst, lerr := os.Lstat(t.Path); lerr == nil && lst.Mode()&fs.ModeSymlink != 0 {
			return nil // a dangling symlink: writing through creates its target
		}
	default:
		return t.fail(err)
	}
	dir := filepath.Dir(t.Path)
	dst, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return t.fail(fmt.Errorf("directory %s does not exist", dir))
	case err != nil:
		return t.fail(err)
	case !dst.IsDir():
		return t.fail(fmt.Errorf("%s is not a directory", dir))
	}
	// The file is written next to its final path and renamed into place;
	// an existing file in a directory we cannot write is written in place.
	if err := unix.Access(dir, unix.W_OK); err != nil {
		if st != nil && unix.Access(t.Path, unix.W_OK) == nil {
			return nil
		}
		return t.fail(fmt.Errorf("directory %s is not writable: %w", dir, err))
	}
	return nil
}

// Write writes t with write: to stdout for "-", in place for symlinks and
// special files, atomically for regular files and new paths (see the
// package documentation). Errors name t, never a temporary file.
func (t Target) Write(stdout io.Writer, write func(io.Writer) error) error {
	if t.IsStdout() {
		if err := write(stdout); err != nil {
			return t.fail(err)
		}
		return nil
	}
	st, err := os.Lstat(t.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return t.replace(newFileMode, false, write)
	case err != nil:
		return t.fail(err)
	case st.Mode().IsRegular():
		if unix.Access(filepath.Dir(t.Path), unix.W_OK) != nil {
			return t.through(write) // no temporary file can go next to it
		}
		return t.replace(st.Mode().Perm(), true, write)
	case st.IsDir():
		return t.usagef("is a directory; give a file name")
	}
	return t.through(write)
}

// through opens the path (following symlinks; creating a symlink's
// missing target) and writes into it.
func (t Target) through(write func(io.Writer) error) error {
	flags := os.O_WRONLY
	if st, err := os.Stat(t.Path); err != nil || st.Mode().IsRegular() {
		// A symlink to a regular file, or to nothing yet.
		flags |= os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(t.Path, flags, newFileMode)
	if err != nil {
		return t.fail(err)
	}
	err = writeBuffered(f, write)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return t.fail(err)
	}
	return nil
}

// replace writes a temporary file next to the path and renames it over
// the path. keepMode sets mode exactly (the replaced file's mode); else
// mode is the creation mode, which the umask reduces.
func (t Target) replace(mode fs.FileMode, keepMode bool, write func(io.Writer) error) error {
	f, err := createTemp(t.Path, mode)
	if err != nil {
		return t.fail(err)
	}
	tmp := f.Name()
	err = writeBuffered(f, write)
	if err == nil && keepMode {
		err = f.Chmod(mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, t.Path)
	}
	if err != nil {
		os.Remove(tmp)
		return t.fail(err)
	}
	return nil
}

// createTemp creates a new file ".<name>.tmp-<random>" in the directory of
// path, with mode before the umask (os.CreateTemp would make it 0600).
func createTemp(path string, mode fs.FileMode) (*os.File, error) {
	dir, base := filepath.Split(path)
	for range 100 {
		name := filepath.Join(dir, "."+base+".tmp-"+rand.Text()[:10])
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("cannot create a temporary file next to %s", path)
}

// writeBuffered runs write on a buffered f and flushes it.
func writeBuffered(f *os.File, write func(io.Writer) error) error {
	bw := bufio.NewWriterSize(f, 64<<10)
	if err := write(bw); err != nil {
		return err
	}
	return bw.Flush()
}
