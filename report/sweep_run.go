package report

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/drasim/drasim/sim/sweep"
)

// WriteSweepPlan lists a plan's runs, or a shard's (drasim sweep
// --dry-run): the sweep, its fingerprint, the first run's command line, and
// a table of every run's point and seed.
func WriteSweepPlan(w io.Writer, plan *sweep.Plan, shard *sweep.Shard) error {
	indexes := plan.Shard(0, 1)
	if shard != nil {
		indexes = plan.Shard(shard.Index, shard.Count)
	}
	fmt.Fprintf(w, "Sweep %s: drasim %s, %d axis(es), %d seed(s), %d run(s)", plan.Name, plan.Command, len(plan.Axes), len(plan.Seeds), len(plan.Runs))
	if shard != nil {
		fmt.Fprintf(w, "; shard %d/%d has %d", shard.Index, shard.Count, len(indexes))
	}
	fmt.Fprintf(w, ".\nFingerprint %s. The first run's command line:\n  drasim %s\n\n", plan.Fingerprint, strings.Join(plan.Runs[0].Args, " "))
	t := Table{Header: []string{"run"}}
	for _, a := range plan.Axes {
		t.Header = append(t.Header, a.Name)
	}
	t.Header = append(t.Header, "seed")
	for _, i := range indexes {
		r := plan.Runs[i]
		row := append([]string{strconv.Itoa(r.Index)}, r.Point...)
		t.Rows = append(t.Rows, append(row, strconv.FormatInt(r.Seed, 10)))
	}
	return t.Write(w)
}

// WriteSweepOutcome writes what drasim sweep prints when its runs are done:
// how many ran and failed, in how long, the memory measured, where the rows
// are, and the command that comes next (sweep report, or sweep merge for a
// shard).
func WriteSweepOutcome(w io.Writer, plan *sweep.Plan, shard *sweep.Shard, o *sweep.Outcome, jsonl, csvPath string) error {
	var b bytes.Buffer
	what := fmt.Sprintf("sweep %s", plan.Name)
	if shard != nil {
		what += fmt.Sprintf(" (shard %d/%d)", shard.Index, shard.Count)
	}
	fmt.Fprintf(&b, "%s: %d of %d runs done", what, o.Done, o.Total)
	if o.Resumed > 0 {
		fmt.Fprintf(&b, " (%d from an earlier start)", o.Resumed)
	}
	fmt.Fprintf(&b, ", %d failed, in %s with %d worker(s).\n", o.Failed, o.Elapsed.Round(time.Millisecond), o.Workers)
	if o.RunMemory > 0 {
		fmt.Fprintf(&b, "Memory: inputs %s, one run about %s more at its peak.\n", FormatMiB(o.BaseMemory), FormatMiB(o.RunMemory))
	}
	fmt.Fprintf(&b, "Results: %s, %s\n", csvPath, jsonl)
	if o.Failed > 0 {
		fmt.Fprintf(&b, "The failed runs' errors are in the error column.\n")
	}
	if shard == nil {
		fmt.Fprintf(&b, "Aggregate over seeds: drasim sweep report %s\n", filepath.Dir(jsonl))
	} else {
		fmt.Fprintf(&b, "Join the shards: drasim sweep merge %s --output-dir DIR\n", filepath.Dir(jsonl))
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteSweepMerged writes what drasim sweep merge prints: how many files
// and rows it joined, where the results are, and the command that comes
// next.
func WriteSweepMerged(w io.Writer, files int, m *sweep.Merged, csvPath, jsonl, dir string) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Merged %d file(s): %d of %d runs", files, len(m.Rows), m.Header.Runs)
	if m.Missing > 0 {
		fmt.Fprintf(&b, " (%d without a row)", m.Missing)
	}
	fmt.Fprintf(&b, ".\nResults: %s, %s\nAggregate over seeds: drasim sweep report %s\n", csvPath, jsonl, dir)
	_, err := w.Write(b.Bytes())
	return err
}

// FormatMiB is a byte count in MiB, rounded up.
func FormatMiB(n int64) string { return fmt.Sprintf("%d MiB", (n+(1<<20)-1)>>20) }
