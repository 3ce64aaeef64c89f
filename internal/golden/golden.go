// Package golden is drasim's one golden-file helper for tests: Check
// compares an output with its golden file (or rewrites the file with
// -update), Main fails a package's run when a golden file is read by no
// test (an orphan: its test is gone or renamed, so nothing checks it any
// more), and Shared keeps a text that many goldens contain, such as the
// HTML pages' stylesheet, in one golden file of its own.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files from the current output (make update)")

// Update reports whether the run rewrites the golden files (-update).
func Update() bool { return *update }

// read holds, for Main's orphan check, the golden files the package's
// tests checked, by clean path.
var read = struct {
	sync.Mutex
	paths map[string]bool
}{paths: map[string]bool{}}

func markRead(path string) {
	read.Lock()
	defer read.Unlock()
	read.paths[filepath.Clean(path)] = true
}

// Shared is a part of many golden files stored once: in each golden file
// the text between the first Start and the End after it is replaced by
// Marker, and the text itself is checked against the golden file Path.
type Shared struct {
	Path, Start, End, Marker string
}

// Option changes how Check stores a golden file.
type Option func(*checkOptions)

type checkOptions struct{ shared []Shared }

// WithShared stores the shared part s once instead of in every golden file.
func WithShared(s Shared) Option {
	return func(o *checkOptions) { o.shared = append(o.shared, s) }
}

// Check compares got with the golden file at path and reports a difference
// as (-want +got); with -update it writes got there instead (making its
// folder). The file counts as read for Main's orphan check.
func Check(t testing.TB, path string, got []byte, opts ...Option) {
	t.Helper()
	var o checkOptions
	for _, opt := range opts {
		opt(&o)
	}
	for _, s := range o.shared {
		var part []byte
		got, part = cut(got, s)
		if part != nil {
			Check(t, s.Path, part)
		}
	}
	markRead(path)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("golden: %v", err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("golden: writing %s: %v", path, err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		t.Fatalf("golden file %s is missing: run `make update` (go test -update) to create it", path)
	}
	if err != nil {
		t.Fatalf("golden: reading %s: %v", path, err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got); if the change is intended, run `make update` (go test -update):\n%s", path, diff)
	}
}

// cut returns b with the shared part replaced by its marker, and the part;
// a nil part when b does not contain it.
func cut(b []byte, s Shared) (rest, part []byte) {
	i := bytes.Index(b, []byte(s.Start))
	if i < 0 {
		return b, nil
	}
	from := i + len(s.Start)
	j := bytes.Index(b[from:], []byte(s.End))
	if j < 0 {
		return b, nil
	}
	part = slices.Clone(b[from : from+j])
	rest = slices.Concat(b[:from], []byte(s.Marker), b[from+j:])
	return rest, part
}

// Main runs a package's tests (call it from TestMain) and then checks that
// every file matching the globs (relative to the package, e.g.
// "testdata/*/*.golden.*") was read by Check: a golden file no test reads
// is an orphan and fails the run. The check runs only when the whole
// package ran (no -run, -skip or -short) and passed.
func Main(m *testing.M, globs ...string) int {
	code := m.Run()
	if code != 0 || !wholeRun() {
		return code
	}
	orphans, err := Orphans(globs...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "golden: %v\n", err)
		return 1
	}
	return reportOrphans(os.Stderr, orphans)
}

// reportOrphans writes one line per orphan and returns the exit code.
func reportOrphans(w io.Writer, orphans []string) int {
	if len(orphans) == 0 {
		return 0
	}
	for _, p := range orphans {
		fmt.Fprintf(w, "golden file %s is read by no test: delete it (git rm) or give it back its test\n", p)
	}
	fmt.Fprintln(w, "FAIL (orphan golden files)")
	return 1
}

// Orphans returns, sorted, the files matching the globs that no Check read.
func Orphans(globs ...string) ([]string, error) {
	read.Lock()
	defer read.Unlock()
	var orphans []string
	for _, g := range globs {
		files, err := filepath.Glob(g)
		if err != nil {
			return nil, fmt.Errorf("glob %q: %w", g, err)
		}
		for _, f := range files {
			if !read.paths[filepath.Clean(f)] && !slices.Contains(orphans, f) {
				orphans = append(orphans, f)
			}
		}
	}
	slices.Sort(orphans)
	return orphans, nil
}

// wholeRun reports whether every test of the package ran: no -run, -skip
// or -short narrowed it.
func wholeRun() bool {
	for _, name := range []string{"test.run", "test.skip"} {
		if f := flag.Lookup(name); f != nil && strings.TrimSpace(f.Value.String()) != "" {
			return false
		}
	}
	return !testing.Short()
}
