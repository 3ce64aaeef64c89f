package sweep

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ResultsKind is the kind of the header line of a results file.
const ResultsKind = "SweepResults"

// Header is the first line of a results file (JSON lines): which sweep the
// rows belong to, its columns and, for a shard, which one.
type Header struct {
	APIVersion  string         `json:"apiVersion"`
	Kind        string         `json:"kind"`
	Name        string         `json:"name"`
	Fingerprint string         `json:"fingerprint"`
	Command     string         `json:"command"`
	Runs        int            `json:"runs"`
	Shard       *Shard         `json:"shard,omitempty"`
	Axes        []HeaderAxis   `json:"axes"`
	Seeds       []int64        `json:"seeds"`
	Metrics     []HeaderMetric `json:"metrics"`
}

// HeaderAxis is an axis as results describe it.
type HeaderAxis struct {
	Name   string   `json:"name"`
	Kind   string   `json:"kind"`
	Values []string `json:"values"`
}

// HeaderMetric is a metric as results describe it.
type HeaderMetric struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// Shard is one part of a plan: the runs whose index modulo Count is Index.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

func (s *Shard) String() string {
	if s == nil {
		return "all runs"
	}
	return fmt.Sprintf("shard %d/%d", s.Index, s.Count)
}

// Header returns the header of the plan's results (of one shard when
// shard is not nil).
func (p *Plan) Header(shard *Shard) Header {
	h := Header{APIVersion: APIVersion, Kind: ResultsKind, Name: p.Name, Fingerprint: p.Fingerprint, Command: p.Command, Runs: len(p.Runs), Shard: shard, Seeds: p.Seeds}
	h.Axes = make([]HeaderAxis, 0, len(p.Axes))
	for _, a := range p.Axes {
		h.Axes = append(h.Axes, HeaderAxis{Name: a.Name, Kind: a.Kind, Values: a.Values})
	}
	h.Metrics = make([]HeaderMetric, 0, len(p.Metrics))
	for _, m := range p.Metrics {
		h.Metrics = append(h.Metrics, HeaderMetric{Name: m.Name, Path: m.text()})
	}
	return h
}

// sameSweep reports whether two headers describe the runs of one sweep.
func (h Header) sameSweep(o Header) bool {
	return h.Fingerprint == o.Fingerprint && h.Name == o.Name && h.Runs == o.Runs
}

// Row is one finished run: its point, seed, metrics (in header order;
// Present says which a failed run has), run time and error.
type Row struct {
	Run     int
	Point   []string
	Seed    int64
	Metrics []float64
	Present []bool
	// Seconds is the run's wall time, rounded to milliseconds; negative
	// when timing is off.
	Seconds float64
	Error   string
}

// Failed reports whether the run failed.
func (r *Row) Failed() bool { return r.Error != "" }

// formatNumber writes a float the shortest way that reads back exactly.
func formatNumber(f float64) string {
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// roundSeconds keeps milliseconds.
func roundSeconds(s float64) float64 { return math.Round(s*1000) / 1000 }

// AppendJSON writes the row as one JSON line, keys in header order.
func (r *Row) AppendJSON(b []byte, h *Header) []byte {
	b = append(b, `{"run":`...)
	b = strconv.AppendInt(b, int64(r.Run), 10)
	b = append(b, `,"axes":{`...)
	for i, a := range h.Axes {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, a.Name)
		b = append(b, ':')
		b = appendJSONString(b, r.Point[i])
	}
	b = append(b, `},"seed":`...)
	b = strconv.AppendInt(b, r.Seed, 10)
	b = append(b, `,"metrics":{`...)
	first := true
	for i, m := range h.Metrics {
		if !r.Present[i] {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendJSONString(b, m.Name)
		b = append(b, ':')
		b = append(b, formatNumber(r.Metrics[i])...)
	}
	b = append(b, '}')
	if r.Seconds >= 0 {
		b = append(b, `,"seconds":`...)
		b = append(b, formatNumber(r.Seconds)...)
	}
	if r.Error != "" {
		b = append(b, `,"error":`...)
		b = appendJSONString(b, r.Error)
	}
	return append(b, "}\n"...)
}

func appendJSONString(b []byte, s string) []byte {
	data, _ := json.Marshal(s)
	return append(b, data...)
}

// CSVHeader is the CSV header row: run, the axes, seed, the metrics,
// seconds, error.
func (h *Header) CSVHeader() []string {
	out := []string{ColumnRun}
	for _, a := range h.Axes {
		out = append(out, a.Name)
	}
	out = append(out, ColumnSeed)
	for _, m := range h.Metrics {
		out = append(out, m.Name)
	}
	return append(out, ColumnSeconds, ColumnError)
}

// CSV returns the row's CSV cells; a metric a failed run lacks is empty.
func (r *Row) CSV() []string {
	out := []string{strconv.Itoa(r.Run)}
	out = append(out, r.Point...)
	out = append(out, strconv.FormatInt(r.Seed, 10))
	for i, v := range r.Metrics {
		if r.Present[i] {
			out = append(out, formatNumber(v))
		} else {
			out = append(out, "")
		}
	}
	secs := ""
	if r.Seconds >= 0 {
		secs = formatNumber(r.Seconds)
	}
	return append(out, secs, r.Error)
}

// rowJSON is a row as JSON holds it.
type rowJSON struct {
	Run     *int               `json:"run"`
	Axes    map[string]string  `json:"axes"`
	Seed    int64              `json:"seed"`
	Metrics map[string]float64 `json:"metrics"`
	Seconds *float64           `json:"seconds"`
	Error   string             `json:"error"`
}

// Stream is what one results file (or a pod's log) holds: a header and the
// rows after it.
type Stream struct {
	Name   string
	Header Header
	Rows   []Row
	// Torn is true when the last line had no newline (the sweep was
	// stopped while writing it); that line is not among Rows.
	Torn bool
	// Skipped counts lines that are not JSON (log lines around the rows
	// when the stream comes from a pod's log).
	Skipped int
}

// ReadStreams reads results written as JSON lines: one or more streams,
// each a header line followed by rows. In logs, lines that are not JSON
// objects are skipped (and counted); in results files they are errors.
func ReadStreams(name string, r io.Reader, logs bool) ([]*Stream, error) {
	var out []*Stream
	br := bufio.NewReaderSize(r, 1<<16)
	lineNo := 0
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			lineNo++
			torn := line[len(line)-1] != '\n'
			text := bytes.TrimSpace(line)
			switch {
			case len(text) == 0:
			case text[0] != '{':
				if !logs {
					return nil, fmt.Errorf("%s:%d: not a JSON object", name, lineNo)
				}
				if len(out) > 0 {
					out[len(out)-1].Skipped++
				}
			case torn:
				if len(out) > 0 {
					out[len(out)-1].Torn = true
				}
			default:
				if err := readLine(name, lineNo, text, &out, logs); err != nil {
					return nil, err
				}
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no sweep results (a results file starts with a %s header line)", name, ResultsKind)
	}
	return out, nil
}

func readLine(name string, lineNo int, text []byte, out *[]*Stream, logs bool) error {
	var probe struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(text, &probe); err != nil {
		if logs {
			if len(*out) > 0 {
				(*out)[len(*out)-1].Skipped++
			}
			return nil
		}
		return fmt.Errorf("%s:%d: %v", name, lineNo, err)
	}
	if probe.Kind == ResultsKind {
		var h Header
		if err := json.Unmarshal(text, &h); err != nil {
			return fmt.Errorf("%s:%d: header: %v", name, lineNo, err)
		}
		*out = append(*out, &Stream{Name: name, Header: h})
		return nil
	}
	if len(*out) == 0 {
		if logs {
			return nil
		}
		return fmt.Errorf("%s:%d: a row before the %s header line", name, lineNo, ResultsKind)
	}
	s := (*out)[len(*out)-1]
	row, err := parseRow(text, &s.Header)
	if err != nil {
		return fmt.Errorf("%s:%d: %v", name, lineNo, err)
	}
	s.Rows = append(s.Rows, row)
	return nil
}

func parseRow(text []byte, h *Header) (Row, error) {
	var rj rowJSON
	if err := json.Unmarshal(text, &rj); err != nil {
		return Row{}, err
	}
	if rj.Run == nil {
		return Row{}, fmt.Errorf("a row without a run number")
	}
	if *rj.Run < 0 || *rj.Run >= h.Runs {
		return Row{}, fmt.Errorf("run %d: the sweep has runs 0 to %d", *rj.Run, h.Runs-1)
	}
	row := Row{Run: *rj.Run, Seed: rj.Seed, Error: rj.Error, Seconds: -1}
	if rj.Seconds != nil {
		row.Seconds = *rj.Seconds
	}
	for _, a := range h.Axes {
		v, ok := rj.Axes[a.Name]
		if !ok {
			return Row{}, fmt.Errorf("run %d: no value for axis %q", row.Run, a.Name)
		}
		row.Point = append(row.Point, v)
	}
	row.Metrics = make([]float64, len(h.Metrics))
	row.Present = make([]bool, len(h.Metrics))
	for i, m := range h.Metrics {
		if v, ok := rj.Metrics[m.Name]; ok {
			row.Metrics[i], row.Present[i] = v, true
		}
	}
	return row, nil
}

// WriteJSONLines writes a header and rows as JSON lines.
func WriteJSONLines(w io.Writer, h *Header, rows []Row) error {
	head, err := json.Marshal(h)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.Write(head)
	bw.WriteByte('\n')
	var buf []byte
	for i := range rows {
		buf = rows[i].AppendJSON(buf[:0], h)
		bw.Write(buf)
	}
	return bw.Flush()
}

// WriteCSV writes rows as CSV with the header's columns.
func WriteCSV(w io.Writer, h *Header, rows []Row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(h.CSVHeader()); err != nil {
		return err
	}
	for i := range rows {
		if err := cw.Write(rows[i].CSV()); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// pointKey joins a point's values for map keys.
func pointKey(point []string) string { return strings.Join(point, "\x00") }
