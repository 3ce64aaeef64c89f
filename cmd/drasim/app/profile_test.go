package app

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gzipMagic starts every pprof profile (gzip-compressed protobuf).
var gzipMagic = []byte{0x1f, 0x8b}

func TestProfilesAreWritten(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.out"), filepath.Join(dir, "mem.out")
	r := drasim(t, "", "simulate", "-o", "json", "--cpuprofile", cpu, "--memprofile", mem)
	if r.code != ExitOK {
		t.Fatalf("simulate with profiles: want exit 0, got %d: %s", r.code, r.stder)
	}
	for _, path := range []string{cpu, mem} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("want a profile at %s: %v", path, err)
		}
		if !bytes.HasPrefix(data, gzipMagic) {
			t.Errorf("%s: want a gzip-compressed pprof profile, got %q...", path, data[:min(8, len(data))])
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("want only the two profiles in %s (no temporary files left), got %d entries", dir, len(entries))
	}
}

func TestProfilesOfAFailedRunAreDropped(t *testing.T) {
	dir := t.TempDir()
	cpu := filepath.Join(dir, "cpu.out")
	r := drasim(t, "", "simulate", "-f", filepath.Join(dir, "missing.yaml"), "--cpuprofile", cpu)
	if r.code == ExitOK {
		t.Fatal("simulate of a missing file: want a failure")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("a failed run must leave no profile (nor temporary file), found %d entries", len(entries))
	}
}

func TestProfileNeverOverwritesAnInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "cluster.yaml")
	src, err := os.ReadFile(demoScenario)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, src, 0o644); err != nil {
		t.Fatal(err)
	}
	r := drasim(t, "", "simulate", "-f", in, "--cpuprofile", in)
	if r.code != ExitUsage {
		t.Fatalf("--cpuprofile naming the input: want exit %d, got %d", ExitUsage, r.code)
	}
	got, _ := os.ReadFile(in)
	if !bytes.Equal(got, src) {
		t.Error("the input file was changed")
	}
}

func TestProfileInAMissingDirectoryFailsFirst(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	// The old flag names are aliases of --output-cpuprofile and
	// --output-memprofile; errors use the new names.
	for _, flag := range []string{"--cpuprofile", "--memprofile", "--output-cpuprofile", "--output-memprofile"} {
		path := filepath.Join(dir, "p.out")
		r := drasim(t, "", "simulate", flag, path)
		name := strings.Replace(flag, "--", "--output-", 1)
		if strings.HasPrefix(flag, "--output-") {
			name = flag
		}
		want := "drasim: " + name + " " + path + ": directory " + dir + " does not exist\n"
		if r.code != ExitFailure || r.stder != want {
			t.Errorf("%s in a missing directory: want exit %d and %q, got %d and %q", flag, ExitFailure, want, r.code, r.stder)
		}
		if r.stdout != "" {
			t.Errorf("%s in a missing directory: want the command not run, got output %.80q", flag, r.stdout)
		}
	}
}
