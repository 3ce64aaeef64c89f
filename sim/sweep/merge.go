package sweep

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Merged is a sweep's rows joined from its shards' streams.
type Merged struct {
	// Header is the whole sweep's header (no shard).
	Header Header
	// Rows are in run order.
	Rows []Row
	// Missing counts the runs without a row (0 unless partial results
	// were allowed).
	Missing int
	// Warnings say what was dropped on the way (log lines, torn lines,
	// duplicate rows).
	Warnings []string
}

// Merge joins the streams of one sweep (its shards' results, a stopped
// run's results, pods' logs) into the rows of the whole sweep, in run
// order: the same rows, byte for byte, as the sweep run in one piece.
// Streams of another sweep, rows outside their stream's shard and runs
// that differ between streams are errors; so are runs without a row,
// unless partial.
func Merge(streams []*Stream, partial bool) (*Merged, error) {
	if len(streams) == 0 {
		return nil, fmt.Errorf("no results to merge")
	}
	// Sort streams by name for a deterministic choice among duplicates.
	streams = append([]*Stream(nil), streams...)
	sort.SliceStable(streams, func(i, j int) bool { return streams[i].Name < streams[j].Name })
	first := streams[0]
	m := &Merged{Header: first.Header}
	m.Header.Shard = nil
	rows := map[int]Row{}
	from := map[int]string{}
	shardsSeen := map[int]bool{}
	count := 0
	for _, s := range streams {
		h := s.Header
		if !h.sameSweep(first.Header) {
			return nil, fmt.Errorf("%s holds results of sweep %q (fingerprint %s, %d runs), %s of %q (fingerprint %s, %d runs): merge the shards of one sweep",
				s.Name, h.Name, h.Fingerprint, h.Runs, first.Name, first.Header.Name, first.Header.Fingerprint, first.Header.Runs)
		}
		if h.Shard != nil {
			if h.Shard.Count <= 0 || h.Shard.Index < 0 || h.Shard.Index >= h.Shard.Count {
				return nil, fmt.Errorf("%s: invalid shard %d/%d", s.Name, h.Shard.Index, h.Shard.Count)
			}
			if count != 0 && count != h.Shard.Count {
				return nil, fmt.Errorf("%s is shard %d/%d, other results are in %d shards: merge the shards of one split", s.Name, h.Shard.Index, h.Shard.Count, count)
			}
			count = h.Shard.Count
			shardsSeen[h.Shard.Index] = true
		}
		if s.Skipped > 0 {
			m.Warnings = append(m.Warnings, fmt.Sprintf("%s: skipped %d line(s) that are not rows (log lines)", s.Name, s.Skipped))
		}
		if s.Torn {
			m.Warnings = append(m.Warnings, fmt.Sprintf("%s: dropped a torn last line (the run was stopped while writing it)", s.Name))
		}
		for _, r := range s.Rows {
			if h.Shard != nil && r.Run%h.Shard.Count != h.Shard.Index {
				return nil, fmt.Errorf("%s: run %d is not in shard %d/%d", s.Name, r.Run, h.Shard.Index, h.Shard.Count)
			}
			prev, dup := rows[r.Run]
			if !dup {
				rows[r.Run], from[r.Run] = r, s.Name
				continue
			}
			switch {
			case prev.Failed() && !r.Failed():
				rows[r.Run], from[r.Run] = r, s.Name
			case !prev.Failed() && !r.Failed() && !sameResult(prev, r):
				return nil, fmt.Errorf("run %d differs between %s and %s: a run must give the same metrics every time", r.Run, from[r.Run], s.Name)
			}
			m.Warnings = append(m.Warnings, fmt.Sprintf("run %d is in %s and %s; kept one", r.Run, from[r.Run], s.Name))
		}
	}
	for i := 0; i < m.Header.Runs; i++ {
		if r, ok := rows[i]; ok {
			m.Rows = append(m.Rows, r)
		} else {
			m.Missing++
		}
	}
	if m.Missing > 0 && !partial {
		msg := fmt.Sprintf("%d of %d runs have no row", m.Missing, m.Header.Runs)
		if count > 0 {
			var absent []string
			for i := 0; i < count; i++ {
				if !shardsSeen[i] {
					absent = append(absent, fmt.Sprint(i))
				}
			}
			if len(absent) > 0 {
				msg += fmt.Sprintf("; shards missing (of %d): %s", count, strings.Join(absent, ", "))
			} else {
				msg += "; every shard is there, some are unfinished (resume them)"
			}
		}
		return nil, fmt.Errorf("%s", msg)
	}
	return m, nil
}

// sameResult compares what a run computed, not how long it took.
func sameResult(a, b Row) bool {
	return a.Seed == b.Seed && reflect.DeepEqual(a.Point, b.Point) && reflect.DeepEqual(a.Metrics, b.Metrics) && reflect.DeepEqual(a.Present, b.Present)
}
