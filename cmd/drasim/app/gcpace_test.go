package app

import (
	"os"
	"runtime/debug"
	"testing"
)

// gcPercent reads the collector's pace (setting it back at once).
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestPaceCollector: a replaying command slows the collector down and
// bounds the heap, and puts both back when it ends; GOGC or GOMEMLIMIT
// in the environment, and a sweep's runs, keep the process's settings.
func TestPaceCollector(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		if v, ok := os.LookupEnv(env); ok {
			t.Cleanup(func() { os.Setenv(env, v) })
			os.Unsetenv(env)
		}
	}
	defer debug.SetGCPercent(debug.SetGCPercent(123))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 40))

	restore := paceCollector(Streams{})
	if got, lim := gcPercent(), debug.SetMemoryLimit(-1); got != replayGCPercent || lim != replayMemoryLimit {
		t.Errorf("during the command: GOGC %d and limit %d, want %d and %d", got, lim, replayGCPercent, replayMemoryLimit)
	}
	restore()
	if got, lim := gcPercent(), debug.SetMemoryLimit(-1); got != 123 || lim != 1<<40 {
		t.Errorf("after the command: GOGC %d and limit %d, want the settings before it (123 and %d)", got, lim, int64(1<<40))
	}

	restore = paceCollector(Streams{Loaded: &Loaded{}})
	if got := gcPercent(); got != 123 {
		t.Errorf("a sweep's run changed GOGC to %d", got)
	}
	restore()

	t.Setenv("GOGC", "150")
	t.Setenv("GOMEMLIMIT", "3GiB")
	restore = paceCollector(Streams{})
	if got, lim := gcPercent(), debug.SetMemoryLimit(-1); got != 123 || lim != 1<<40 {
		t.Errorf("with GOGC and GOMEMLIMIT set: GOGC %d and limit %d, want them untouched", got, lim)
	}
	restore()
}
