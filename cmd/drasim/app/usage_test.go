package app

import (
	"os"
	"strings"
	"testing"
)

// A snapshot given as an argument is the most common slip: the error says
// how to give it, and every usage error points to the command's own help.
func TestPositionalSnapshotSuggestsFlag(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		inStderr []string
	}{
		{"simulate", []string{"simulate", "cluster.yaml"}, []string{"did you mean `-f cluster.yaml`?", "Run 'drasim simulate --help' for usage."}},
		{"two files", []string{"report", "a.yaml", "dir/"}, []string{"did you mean `-f a.yaml -f dir/`?", "Run 'drasim report --help' for usage."}},
		{"check", []string{"check", "--gates", "g.yaml", "cluster.yaml"}, []string{"did you mean `-f cluster.yaml`?", "Run 'drasim check --help' for usage."}},
		{"validate", []string{"validate", "extra"}, []string{"did you mean `-f extra`?"}},
		{"a command with no -f", []string{"version", "extra"}, []string{`unknown command "extra" for "drasim version"`, "Run 'drasim version --help' for usage."}},
		{"a bad flag value", []string{"timeline", "--duration", "soon"}, []string{"--duration", "Run 'drasim timeline --help' for usage."}},
		{"a nested command", []string{"generate", "trace", "--no-such"}, []string{"Run 'drasim generate trace --help' for usage."}},
		{"an unknown command", []string{"simulat"}, []string{"Run 'drasim --help' for usage."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := capacityCLI(t, tc.args...)
			if r.code != ExitUsage {
				t.Errorf("want exit %d, got %d (stderr %q)", ExitUsage, r.code, r.stder)
			}
			for _, w := range tc.inStderr {
				if !strings.Contains(r.stder, w) {
					t.Errorf("stderr %q does not contain %q", r.stder, w)
				}
			}
		})
	}
}

// Checks of the command line come before anything is read or replayed: a
// missing snapshot is not even opened.
func TestLateChecksComeFirst(t *testing.T) {
	const missing = "/does/not/exist.yaml"
	tests := []struct {
		name     string
		args     []string
		inStderr string
	}{
		{"simulate --parallelism 0", []string{"simulate", "-f", missing, "--parallelism", "0"}, "--parallelism must be at least 1, got 0"},
		{"simulate --parallelism -2", []string{"simulate", "-f", missing, "--parallelism", "-2"}, "--parallelism must be at least 1, got -2"},
		{"report --parallelism 0", []string{"report", "-f", missing, "--parallelism", "0"}, "--parallelism must be at least 1"},
		{"explain --tie-break", []string{"explain", "default/x", "-f", missing, "--tie-break", "coin"}, "--tie-break"},
		{"report --max-headroom", []string{"report", "-f", missing, "--max-headroom", "0"}, "--max-headroom must be positive"},
		{"report --spares syntax", []string{"report", "-f", missing, "--failure-domain", "node", "--spares", "x"}, "--spares"},
		{"autoscale --expander", []string{"autoscale", "-f", missing, "--expander", "cheapest"}, "--expander"},
		{"autoscale --compare-expanders", []string{"autoscale", "-f", missing, "--compare-expanders", "price,cheapest"}, "--compare-expanders cheapest"},
		{"autoscale --compare-expanders empty", []string{"autoscale", "-f", missing, "--compare-expanders", ","}, "--compare-expanders: no expander given"},
		{"autoscale --max-loops", []string{"autoscale", "-f", missing, "--max-loops", "0"}, "--max-loops must be at least 1"},
		{"simulate --autoscale --max-loops", []string{"simulate", "-f", missing, "--autoscale", "--max-loops", "0"}, "--max-loops must be at least 1"},
		{"timeline --resolution", []string{"timeline", "-f", missing, "--resolution", "0s"}, "--resolution must be positive"},
		{"timeline --arrival", []string{"timeline", "-f", missing, "--arrival", "sequential"}, "--arrival does not apply to a timeline"},
		{"timeline --max-scale-down-parallelism", []string{"timeline", "-f", missing, "--max-scale-down-parallelism", "0"}, "--max-scale-down-parallelism must be at least 1"},
		{"timeline --expander", []string{"timeline", "-f", missing, "--expander", "cheapest"}, "--expander"},
		{"timeline --parallelism", []string{"timeline", "-f", missing, "--parallelism", "0"}, "--parallelism must be at least 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := capacityCLI(t, tc.args...)
			if r.code != ExitUsage || !strings.Contains(r.stder, tc.inStderr) || strings.Contains(r.stder, missing) {
				t.Errorf("want exit %d and %q before %s is read, got %d %q", ExitUsage, tc.inStderr, missing, r.code, r.stder)
			}
		})
	}
}

// --spares names a NodeGroup: one the snapshot lacks is refused once the
// snapshot is read, before the replay, with the groups it has.
func TestUnknownSparesGroupBeforeTheReplay(t *testing.T) {
	snap := autoscaleScenarios + "cpu-gpu.yaml"
	r := capacityCLI(t, "report", "-f", snap, "--failure-domain", "node", "--spares", "nope=2")
	if r.code != ExitUsage || !strings.Contains(r.stder, `--spares nope=2: no NodeGroup "nope" in the snapshot (it has cpu, gpu-dra, gpu-plugin)`) {
		t.Errorf("want exit %d and the snapshot's groups, got %d %q", ExitUsage, r.code, r.stder)
	}
}

// --trace - reads standard input, as -f - does; both cannot.
func TestTraceFromStandardInput(t *testing.T) {
	trace, err := os.ReadFile(timelineTestdata + "trace.csv")
	if err != nil {
		t.Fatal(err)
	}
	queue := timelineTestdata + "queue.yaml"
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	want := drasim(t, "", "timeline", "-f", queue, "--trace", timelineTestdata+"trace.csv", "-o", "json")
	if want.code != ExitOK {
		t.Fatalf("the trace from its file: exit %d %q", want.code, want.stder)
	}
	got := drasim(t, string(trace), "timeline", "-f", queue, "--trace", "-", "-o", "json")
	if got.code != ExitOK {
		t.Fatalf("--trace -: want exit 0, got %d %q", got.code, got.stder)
	}
	// The trace's name is in the sources; the rest is the same.
	named := strings.NewReplacer("<stdin>", timelineTestdata+"trace.csv", `\u003cstdin\u003e`, timelineTestdata+"trace.csv").Replace(got.stdout)
	if named != want.stdout {
		t.Errorf("--trace - differs from the same trace read from its file")
	}
	both := drasim(t, string(trace), "timeline", "-f", "-", "--trace", "-")
	if both.code != ExitUsage || !strings.Contains(both.stder, "standard input") {
		t.Errorf("-f - with --trace -: want exit %d naming standard input, got %d %q", ExitUsage, both.code, both.stder)
	}
}

// A domainLoss gate's spares name a NodeGroup: one the snapshot lacks is
// an error about the gates file (gate and field), before the replay.
func TestGateSparesGroupBeforeTheReplay(t *testing.T) {
	gates := writeTemp(t, "gates.yaml", "apiVersion: drasim.io/v1alpha1\nkind: Gates\ngates:\n- name: spare\n  domainLoss: {domain: node, spares: {nodeGroup: bigg, count: 1}}\n")
	r := capacityCLI(t, "check", "-f", whatifCluster, "-f", "../../../sim/whatif/testdata/nodegroup.yaml", "--gates", gates)
	want := gates + `:5: gate "spare" (gates[0]): domainLoss.spares.nodeGroup: no NodeGroup "bigg" in the snapshot (it has big)`
	if r.code != ExitFailure || !strings.Contains(r.stder, want) || strings.Contains(r.stder, "capacity analysis") {
		t.Errorf("want exit %d and %q, got %d %q", ExitFailure, want, r.code, r.stder)
	}
}
