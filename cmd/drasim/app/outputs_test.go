package app

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// copyFile copies src into dir under name and returns the copy's path.
func copyFile(t *testing.T, src, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// outputCase is one output-file flag on a command that takes it: the
// snapshot the command needs (input) and its arguments, where "IN" stands
// for the -f value; the flag's value is appended last.
type outputCase struct {
	name  string
	input string
	args  []string
}

func (c outputCase) with(in, out string) []string {
	args := make([]string, 0, len(c.args)+1)
	for _, a := range c.args {
		if a == "IN" {
			a = in
		}
		args = append(args, a)
	}
	return append(args, out)
}

// outputCases are every output-file flag.
func outputCases(t *testing.T) []outputCase {
	gates := writeTemp(t, "gates.yaml", "apiVersion: drasim.io/v1alpha1\nkind: Gates\ngates:\n- name: anything\n  maxPendingPods: {max: 1000}\n")
	return []outputCase{
		{"simulate --output-snapshot", demoScenario, []string{"simulate", "-f", "IN", "--output-snapshot"}},
		{"report --report", demoScenario, []string{"report", "-f", "IN", "--report"}},
		{"check --junit", demoScenario, []string{"check", "-f", "IN", "--gates", gates, "--junit"}},
		{"simulate --cpuprofile", demoScenario, []string{"simulate", "-f", "IN", "--cpuprofile"}},
		{"simulate --memprofile", demoScenario, []string{"simulate", "-f", "IN", "--memprofile"}},
		{"autoscale --output-snapshot", autoscaleScenarios + "partitionable.yaml", []string{"autoscale", "-f", "IN", "--output-snapshot"}},
	}
}

func TestOutputRefusesEveryFileReadFromADirectory(t *testing.T) {
	t.Setenv(stepSummaryEnv, "")
	for _, tc := range outputCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			victim := copyFile(t, tc.input, dir, "cluster.yaml")
			before, _ := os.ReadFile(victim)
			r := capacityCLI(t, tc.with(dir, victim)...)
			if r.code != ExitUsage || !strings.Contains(r.stder, victim) || !strings.Contains(r.stder, "read as input") {
				t.Errorf("output naming a file read from -f %s: want exit %d and a refusal naming %s, got %d %q", dir, ExitUsage, victim, r.code, r.stder)
			}
			if after, _ := os.ReadFile(victim); !bytes.Equal(after, before) {
				t.Errorf("%s was overwritten", victim)
			}
		})
	}
}

func TestOutputInAMissingDirectoryFailsBeforeTheRun(t *testing.T) {
	t.Setenv(stepSummaryEnv, "")
	for _, tc := range outputCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "missing", "out.file")
			r := capacityCLI(t, tc.with(tc.input, path)...)
			if r.code == ExitOK || !strings.Contains(r.stder, path) || strings.Contains(r.stder, ".tmp") {
				t.Errorf("output in a missing directory: want a failure naming %s (not a temporary file), got %d %q", path, r.code, r.stder)
			}
			if r.stdout != "" {
				t.Errorf("want the command stopped before the run, got output %.100q", r.stdout)
			}
		})
	}
}

func TestOutputDashIsStandardOutput(t *testing.T) {
	t.Chdir(t.TempDir())
	r := drasim(t, "", "simulate", "--output-snapshot", "-")
	if r.code != ExitOK {
		t.Fatalf("simulate --output-snapshot -: want exit 0, got %d: %s", r.code, r.stder)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error(`a file named "-" was created`)
	}
	if !strings.HasPrefix(r.stdout, "apiVersion: v1\n") || !strings.Contains(r.stdout, "kind: List") {
		t.Errorf("want the snapshot (a List) on standard output, got %.200q", r.stdout)
	}
	if !strings.Contains(r.stder, "Scheduled: 17") {
		t.Errorf("want the summary table on standard error when the snapshot takes standard output, got %q", r.stder)
	}
}

func TestOutputTwoOnStandardOutputIsAUsageError(t *testing.T) {
	r := drasim(t, "", "simulate", "--output-snapshot", "-", "--memprofile", "-")
	if r.code != ExitUsage || !strings.Contains(r.stder, "standard output") {
		t.Errorf("two outputs on standard output: want exit %d naming standard output, got %d %q", ExitUsage, r.code, r.stder)
	}
}

func TestOutputWritesThroughASymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.yaml")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if r := drasim(t, "", "simulate", "--output-snapshot", link); r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stder)
	}
	st, err := os.Lstat(link)
	if err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink %s was replaced (mode %v, %v)", link, st.Mode(), err)
	}
	if data, _ := os.ReadFile(target); !bytes.Contains(data, []byte("kind: List")) {
		t.Errorf("the symlink's target was not written: %.100q", data)
	}
}

func TestOutputWritesIntoAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// The test holds a reader and a writer of its own, so that neither
	// drasim's open nor the reader can block forever, whatever drasim does.
	fd, err := unix.Open(fifo, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		t.Fatal(err)
	}
	reader := os.NewFile(uintptr(fd), fifo)
	defer reader.Close()
	holder, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte)
	go func() {
		data, _ := io.ReadAll(reader)
		got <- data
	}()
	r := drasim(t, "", "simulate", "--output-snapshot", fifo)
	holder.Close()
	data := <-got
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stder)
	}
	if !bytes.Contains(data, []byte("kind: List")) {
		t.Errorf("want the snapshot read from the FIFO, got %.100q", data)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", st.Mode(), err)
	}
}

// mknod makes a character device like /dev/null (1, 3) or /dev/full (1, 7)
// in a temporary directory, so that a broken writer cannot replace the real
// one. It skips the test where that is not allowed.
func mknod(t *testing.T, name string, minor uint32) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := unix.Mknod(path, unix.S_IFCHR|0o666, int(unix.Mkdev(1, minor))); err != nil {
		t.Skipf("mknod %s: %v (needs root)", path, err)
	}
	if f, err := os.OpenFile(path, os.O_WRONLY, 0); err != nil {
		t.Skipf("opening the device %s: %v (a nodev mount?)", path, err)
	} else {
		f.Close()
	}
	return path
}

func TestOutputWritesIntoACharacterDevice(t *testing.T) {
	null := mknod(t, "null", 3)
	for _, tc := range outputCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			r := capacityCLI(t, tc.with(tc.input, null)...)
			if r.code != ExitOK {
				t.Fatalf("exit %d: %s", r.code, r.stder)
			}
			if st, err := os.Lstat(null); err != nil || st.Mode()&os.ModeCharDevice == 0 {
				t.Fatalf("the device %s was replaced by a %v", null, st.Mode())
			}
		})
	}
	full := mknod(t, "full", 7)
	r := drasim(t, "", "simulate", "--output-snapshot", full)
	if r.code != ExitFailure || !strings.Contains(r.stder, "--output-snapshot "+full+": ") || !strings.Contains(r.stder, syscall.ENOSPC.Error()) {
		t.Errorf("a full device: want exit 1 naming %s and %q, got %d %q", full, syscall.ENOSPC, r.code, r.stder)
	}
	if st, err := os.Lstat(full); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("the device %s was replaced", full)
	}
}

func TestOutputFilesAreCreated0644(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	t.Setenv(stepSummaryEnv, "")
	for _, tc := range outputCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out.file")
			if r := capacityCLI(t, tc.with(tc.input, path)...); r.code != ExitOK {
				t.Fatalf("exit %d: %s", r.code, r.stder)
			}
			st, err := os.Stat(path)
			if err != nil || st.Mode().Perm() != 0o644 {
				t.Errorf("want %s created with mode 0644 (umask 022), got %v %v", path, st.Mode(), err)
			}
		})
	}
}

func TestOutputSnapshotIntoAnInputDirectoryWarns(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, demoScenario, dir, "cluster.yaml")
	out := filepath.Join(dir, "after.yaml")
	r := drasim(t, "", "simulate", "-f", dir, "--output-snapshot", out)
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stder)
	}
	if !strings.Contains(r.stder, "warning: --output-snapshot "+out) || !strings.Contains(r.stder, "-f "+dir) {
		t.Errorf("want a warning that the next run with -f %s reads %s too, got %q", dir, out, r.stder)
	}
	// The next run does fail on duplicates, which is what the warning is for.
	if r := drasim(t, "", "simulate", "-f", dir); r.code != ExitFailure {
		t.Errorf("the next run: want the duplicates refused, got exit %d", r.code)
	}
	if _, err := os.Stat(out); errors.Is(err, os.ErrNotExist) {
		t.Errorf("the snapshot was not written")
	}
}

func TestOutputFlagsOldNamesAreAliases(t *testing.T) {
	dir := t.TempDir()
	// In the config file and the environment too.
	cfg := writeTemp(t, "drasim.yaml", "report: "+filepath.Join(dir, "from-config.html")+"\n")
	t.Setenv("DRASIM_MEMPROFILE", filepath.Join(dir, "from-env.prof"))
	r := drasim(t, "", "--config", cfg, "report", "-f", demoScenario, "--cpuprofile", filepath.Join(dir, "from-flag.prof"))
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stder)
	}
	for _, name := range []string{"from-config.html", "from-env.prof", "from-flag.prof"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("want %s written through its old flag name: %v", name, err)
		}
	}
}

// /dev/stdout is standard output too: the report then goes to standard
// error, as with "-", rather than into the middle of the snapshot.
func TestOutputDevStdoutTakesStandardOutput(t *testing.T) {
	if _, err := os.Stat("/dev/stdout"); err != nil {
		t.Skip("no /dev/stdout here")
	}
	r := drasim(t, "", "simulate", "--output-snapshot", "/dev/stdout", "--output-memprofile", "-")
	if r.code != ExitUsage || !strings.Contains(r.stder, "--output-snapshot /dev/stdout") {
		t.Errorf("/dev/stdout and - together: want a usage error naming both, got %d %q", r.code, r.stder)
	}
}
