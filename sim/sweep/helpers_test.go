package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/drasim/drasim/sim/load"
)

// fakeCommands is a command line with two commands: simulate (flags seed,
// parallelism, feature-gates, expander, scheduler-config as an input file,
// output-snapshot as an output file, filename and output) and version.
// Check refuses --expander=bogus as the real command would.
type fakeCommands struct{}

var fakeFlags = map[string]FlagRole{
	"seed": FlagReserved, "filename": FlagReserved, "output": FlagReserved,
	"parallelism": FlagPlain, "feature-gates": FlagPlain, "expander": FlagPlain, "max-loops": FlagPlain,
	"scheduler-config": FlagInputFile, "output-snapshot": FlagOutputFile,
}

func (fakeCommands) Command(name string) error {
	if name != "simulate" {
		return fmt.Errorf("no drasim command %q", name)
	}
	return nil
}

func (fakeCommands) Flag(command, name string) (Flag, error) {
	role, ok := fakeFlags[name]
	if !ok {
		return Flag{}, fmt.Errorf("drasim %s has no flag --%s", command, name)
	}
	return Flag{Role: role}, nil
}

func (fakeCommands) Check(args, _ []string, _ *load.Result) error {
	for _, a := range args {
		if a == "--expander=bogus" {
			return fmt.Errorf(`--expander: unknown expander "bogus"`)
		}
	}
	return nil
}

// fakeOutput is what fakeExec writes for a run: the snapshot's counts and
// the flags it was given.
type fakeOutput struct {
	Nodes, Pods int
	Seed        string
	Expander    string
	Summary     struct {
		Scheduled int `json:"scheduled"`
	} `json:"summary"`
}

// fakeExec answers a run without replaying: nodes and pods of the
// snapshot, the seed and expander flags; --expander=fail fails the run.
// It counts its calls.
type fakeExec struct {
	mu    sync.Mutex
	calls []string
}

func (f *fakeExec) exec(_ context.Context, r Run, in *load.Result) ([]byte, error) {
	args := r.Args
	out := fakeOutput{Nodes: len(in.Snapshot.Nodes), Pods: len(in.Snapshot.Pods)}
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--seed="); ok {
			out.Seed = v
		}
		if v, ok := strings.CutPrefix(a, "--expander="); ok {
			out.Expander = v
		}
	}
	f.mu.Lock()
	f.calls = append(f.calls, strings.Join(args, " "))
	f.mu.Unlock()
	if out.Expander == "fail" {
		return nil, fmt.Errorf("exit status 1: the run failed on purpose")
	}
	out.Summary.Scheduled = out.Pods - 1
	return json.Marshal(out)
}

func (f *fakeExec) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

// writeSweep writes a sweep file (and copies the cluster fixture) into a
// fresh directory and returns the sweep file's path.
func writeSweep(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", "cluster.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"cluster.yaml": string(data), "sweep.yaml": body, "sched-a.yaml": "a", "sched-b.yaml": "b"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "sweep.yaml")
}

// mustPlan parses and plans a sweep file.
func mustPlan(t *testing.T, path string) *Plan {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sw, err := Parse(path, data)
	if err != nil {
		t.Fatalf("Parse: want no error, got %v", err)
	}
	p, err := NewPlan(path, sw, fakeCommands{})
	if err != nil {
		t.Fatalf("NewPlan: want no error, got\n%v", err)
	}
	return p
}

// testWrite writes a file through a temporary file, as the command
// line's writer does.
func testWrite(path string, write func(io.Writer) error) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// fixedClock makes every run take no time, so that rows compare byte for
// byte.
func fixedClock() time.Time { return time.Unix(0, 0) }
