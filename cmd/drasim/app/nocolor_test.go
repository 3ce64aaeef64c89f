package app

import (
	"strings"
	"testing"
)

// --no-color never did anything (drasim prints no colors): it is deprecated
// but still accepted, so old scripts keep working and get the same output.
func TestNoColorIsDeprecatedButAccepted(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	plain := drasim(t, "", "validate", "-f", demoScenario, "-o", "json")
	with := drasim(t, "", "validate", "-f", demoScenario, "-o", "json", "--no-color")
	if with.code != plain.code || with.code != ExitOK {
		t.Fatalf("exit code with --no-color: want %d, got %d (stderr %q)", plain.code, with.code, with.stder)
	}
	if with.stdout != plain.stdout {
		t.Errorf("--no-color changed standard output:\nwithout:\n%s\nwith:\n%s", plain.stdout, with.stdout)
	}
	if want := "warning: --no-color is deprecated and does nothing"; !strings.Contains(with.stder, want) {
		t.Errorf("stderr %q: want the deprecation warning %q", with.stder, want)
	}
	if strings.Contains(plain.stder, "no-color") {
		t.Errorf("stderr without --no-color mentions it: %q", plain.stder)
	}

	t.Setenv("DRASIM_NO_COLOR", "true")
	env := drasim(t, "", "validate", "-f", demoScenario, "-o", "json")
	if env.code != ExitOK || env.stdout != plain.stdout {
		t.Errorf("DRASIM_NO_COLOR=true: want exit 0 and the same output, got exit %d, stderr %q", env.code, env.stder)
	}

	help := drasim(t, "", "simulate", "--help")
	if strings.Contains(help.stdout, "no-color") {
		t.Errorf("simulate --help still lists --no-color:\n%s", help.stdout)
	}
}
