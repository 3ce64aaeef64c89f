package sweep

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// WriteFile writes a whole file so that a failure never leaves half of it
// (the command line's atomic writer).
type WriteFile func(path string, write func(io.Writer) error) error

// ResultsBase is the file name (without extension) of a whole sweep's
// results; ShardBase names a shard's.
const ResultsBase = "results"

// ShardBase is the file name (without extension) of a shard's results:
// shard-0003-of-0010, so that the shards of one sweep sort in order and can
// share a directory (a PersistentVolumeClaim).
func ShardBase(s *Shard) string {
	if s == nil {
		return ResultsBase
	}
	width := len(fmt.Sprint(s.Count - 1))
	width = max(width, 4)
	return fmt.Sprintf("shard-%0*d-of-%0*d", width, s.Index, width, s.Count)
}

// ErrOtherSweep is returned when an output directory holds the results of a
// different sweep (or of something else).
var ErrOtherSweep = errors.New("holds other results")

// Store is where a sweep writes its rows: BASE.jsonl (a header line, then
// one row per line) and BASE.csv in one directory, appended as runs
// finish and rewritten in run order when the sweep is complete.
type Store struct {
	header    Header
	jsonlPath string
	csvPath   string
	jsonl     *os.File
	csv       *os.File
	csvw      *csv.Writer
	rows      map[int]Row
	resumed   int
	write     WriteFile
	buf       []byte
}

// StoreOptions say how to open a store.
type StoreOptions struct {
	// Restart discards the rows of an earlier run of the same sweep.
	Restart bool
	// RetryFailed runs again the runs whose rows have an error.
	RetryFailed bool
	// Write writes whole files atomically.
	Write WriteFile
}

// OpenStore opens the results of a sweep (of one shard when h.Shard is set)
// in dir, creating dir if needed. Rows already there from a stopped run of
// the same sweep are kept and their runs skipped; results of another sweep
// are never overwritten (ErrOtherSweep), unless Restart.
func OpenStore(dir string, h Header, opts StoreOptions) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	base := ShardBase(h.Shard)
	s := &Store{
		header: h, rows: map[int]Row{}, write: opts.Write,
		jsonlPath: filepath.Join(dir, base+".jsonl"),
		csvPath:   filepath.Join(dir, base+".csv"),
	}
	if !opts.Restart {
		if err := s.resume(opts.RetryFailed); err != nil {
			return nil, err
		}
	}
	// Rewrite both files from the rows kept: drops a torn last line and
	// rebuilds a CSV that an interrupted write left behind.
	if err := s.rewrite(); err != nil {
		return nil, err
	}
	var err error
	if s.jsonl, err = os.OpenFile(s.jsonlPath, os.O_WRONLY|os.O_APPEND, 0); err != nil {
		return nil, err
	}
	if s.csv, err = os.OpenFile(s.csvPath, os.O_WRONLY|os.O_APPEND, 0); err != nil {
		s.jsonl.Close()
		return nil, err
	}
	s.csvw = csv.NewWriter(s.csv)
	return s, nil
}

// Paths returns the JSON lines and CSV files.
func (s *Store) Paths() (jsonl, csv string) { return s.jsonlPath, s.csvPath }

func (s *Store) resume(retryFailed bool) error {
	data, err := os.ReadFile(s.jsonlPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, err := os.Stat(s.csvPath); err == nil {
			return fmt.Errorf("%s exists without %s: not the results of a sweep, so it is left alone (choose another output directory): %w", s.csvPath, filepath.Base(s.jsonlPath), ErrOtherSweep)
		}
		return nil
	case err != nil:
		return err
	}
	streams, err := ReadStreams(s.jsonlPath, bytes.NewReader(data), false)
	if err != nil {
		return fmt.Errorf("%w (--restart starts the sweep over): %w", err, ErrOtherSweep)
	}
	if len(streams) != 1 {
		return fmt.Errorf("%s holds %d headers, want 1: %w", s.jsonlPath, len(streams), ErrOtherSweep)
	}
	old := streams[0]
	if !old.Header.sameSweep(s.header) {
		return fmt.Errorf("%s holds the results of another sweep (%q, fingerprint %s; this is %q, fingerprint %s): the sweep file or its inputs changed; use another output directory, or --restart to discard them: %w",
			s.jsonlPath, old.Header.Name, old.Header.Fingerprint, s.header.Name, s.header.Fingerprint, ErrOtherSweep)
	}
	if shardString(old.Header.Shard) != shardString(s.header.Shard) {
		return fmt.Errorf("%s holds %s, not %s: %w", s.jsonlPath, old.Header.Shard, s.header.Shard, ErrOtherSweep)
	}
	for _, r := range old.Rows {
		if retryFailed && r.Failed() {
			continue
		}
		s.rows[r.Run] = r
	}
	s.resumed = len(s.rows)
	return nil
}

func shardString(s *Shard) string { return s.String() }

// Resumed is the number of rows kept from an earlier run.
func (s *Store) Resumed() int { return s.resumed }

// Done reports whether run i has a row.
func (s *Store) Done(i int) bool {
	_, ok := s.rows[i]
	return ok
}

// Add appends a finished run's row to both files.
func (s *Store) Add(r Row) error {
	s.rows[r.Run] = r
	s.buf = r.AppendJSON(s.buf[:0], &s.header)
	if _, err := s.jsonl.Write(s.buf); err != nil {
		return err
	}
	if err := s.csvw.Write(r.CSV()); err != nil {
		return err
	}
	s.csvw.Flush()
	return s.csvw.Error()
}

// Rows returns the rows in run order.
func (s *Store) Rows() []Row {
	out := make([]Row, 0, len(s.rows))
	for _, r := range s.rows {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Run < out[j].Run })
	return out
}

// rewrite writes both files whole, rows in run order.
func (s *Store) rewrite() error {
	rows := s.Rows()
	if err := s.write(s.jsonlPath, func(w io.Writer) error { return WriteJSONLines(w, &s.header, rows) }); err != nil {
		return err
	}
	return s.write(s.csvPath, func(w io.Writer) error { return WriteCSV(w, &s.header, rows) })
}

// Close closes the files. With complete set (every run of the store's
// shard has a row), the files are rewritten in run order, so that a sweep
// gives the same bytes however its runs interleaved.
func (s *Store) Close(complete bool) error {
	err := errors.Join(s.jsonl.Close(), s.csv.Close())
	if err != nil || !complete {
		return err
	}
	return s.rewrite()
}
