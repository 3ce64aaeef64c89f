package load

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/drasim/drasim/sim/snapshot"
)

// Options controls loading.
type Options struct {
	// Strict turns unknown and duplicate fields into errors instead of warnings.
	Strict bool
	// Stdin is read when a path is "-".
	Stdin io.Reader
	// KeepControllers leaves workload controllers unexpanded: no pods are
	// generated for them (useful for `inspect` of raw manifests).
	KeepControllers bool
}

// Warning, Error and Errors are the findings of reading a snapshot; the
// types are snapshot's, so that the stages below load that report on
// input (sim/kube's controllers, NodeGroups) need not import the loader.
type (
	Warning = snapshot.Warning
	Error   = snapshot.Error
	Errors  = snapshot.Errors
)

// Result is what Load returns besides the snapshot.
type Result struct {
	Snapshot *snapshot.Snapshot
	Warnings []Warning
	// Files lists every file read, in reading order.
	Files []string
}

// Files expands paths into the files to read: directories are walked
// recursively for .yaml, .yml and .json files, in lexical order so that
// loading is deterministic.
func Files(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		if p == "-" {
			out = append(out, p)
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, unwrapPathError(err))
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			if IsSnapshotFile(path) {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, unwrapPathError(err))
		}
		sort.Strings(found)
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: directory holds no .yaml, .yml or .json files", p)
		}
		out = append(out, found...)
	}
	return out, nil
}

// IsSnapshotFile reports whether Files reads a file of this name when it
// walks a directory: .yaml, .yml and .json files.
func IsSnapshotFile(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Load reads every path (see Files) into one snapshot.
func Load(paths []string, opts Options) (*Result, error) {
	files, err := Files(paths)
	if err != nil {
		return nil, err
	}
	l := newLoader(opts)
	for _, f := range files {
		name := f
		if f == "-" {
			name = "<stdin>"
			if opts.Stdin == nil {
				return nil, errors.New("-: no standard input to read")
			}
			// Standard input is read whole: yaml.v3 may have to read it
			// again.
			var text string
			if text, err = readText(opts.Stdin, 0); err == nil {
				l.addFile(name, text)
			}
		} else {
			err = l.addPath(name, f)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, unwrapPathError(err))
		}
	}
	return l.finish(files)
}

// LoadBytes reads one in-memory file, named name in messages.
func LoadBytes(name string, data []byte, opts Options) (*Result, error) {
	l := newLoader(opts)
	l.addFile(name, string(data))
	return l.finish([]string{name})
}

// readText reads r to its end into a string, sized for size bytes.
func readText(r io.Reader, size int64) (string, error) {
	var b strings.Builder
	if size > 0 && size < math.MaxInt32 {
		b.Grow(int(size) + 1)
	}
	_, err := io.Copy(&b, r)
	return b.String(), err
}
