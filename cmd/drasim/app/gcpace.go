package app

import (
	"os"
	"runtime/debug"
)

// replayGCPercent is the garbage collector's pace while a command loads a
// snapshot and replays it (GOGC): a replay allocates much and keeps
// little, so a slower pace than Go's default of 100 spends less of the
// two cores on collecting (docs/benchmarks-archive.md, "Sweeps (issue 15)" and the timeline's passes).
const replayGCPercent = 400

// replayMemoryLimit is the heap size beyond which the garbage collector
// goes back to a faster pace (GOMEMLIMIT): the issues' targets run within
// 2 GiB, and the slower pace must not take the heap past that while the
// live data fits.
const replayMemoryLimit = 1536 << 20

// paceCollector sets the garbage collector's pace and soft memory limit
// for a command that replays, and returns what puts them back. GOGC and
// GOMEMLIMIT in the environment win. A command run by a sweep (given its
// snapshot loaded) leaves the process's settings to the sweep, whose runs
// share it.
func paceCollector(streams Streams) (restore func()) {
	if streams.Loaded != nil {
		return func() {}
	}
	var undo []func()
	if _, set := os.LookupEnv("GOGC"); !set {
		old := debug.SetGCPercent(replayGCPercent)
		undo = append(undo, func() { debug.SetGCPercent(old) })
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		old := debug.SetMemoryLimit(replayMemoryLimit)
		undo = append(undo, func() { debug.SetMemoryLimit(old) })
	}
	return func() {
		for _, f := range undo {
			f()
		}
	}
}
