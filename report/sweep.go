package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/drasim/drasim/sim/sweep"
)

// sweepNumber writes a statistic with four significant digits, whole
// numbers from a thousand up.
func sweepNumber(v float64) string {
	if math.Abs(v) >= 1000 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// meanCI is "mean ± ci95" (just the mean for one run, "-" for none).
func meanCI(s sweep.Stat) string {
	switch s.N {
	case 0:
		return "-"
	case 1:
		return sweepNumber(s.Mean)
	}
	return sweepNumber(s.Mean) + " ± " + sweepNumber(s.CI95)
}

func sweepHeadline(s *sweep.Summary) string {
	return fmt.Sprintf("Sweep %s: drasim %s, %d point(s) x %d seed(s); %d of %d run(s) done, %d failed. Mean ± 95%% confidence interval over seeds.",
		s.Name, s.Command, len(s.Points), len(s.Seeds), s.Rows, s.Runs, s.Failed)
}

// sweepOverview is one row per point: its axis values, runs, failures and
// each metric's mean ± 95% CI.
func sweepOverview(s *sweep.Summary) Table {
	t := Table{}
	for _, a := range s.Axes {
		t.Header = append(t.Header, a.Name)
	}
	t.Header = append(t.Header, "runs", "failed")
	for _, m := range s.Metrics {
		t.Header = append(t.Header, m.Name)
	}
	for _, p := range s.Points {
		row := shownValues(p.Values)
		row = append(row, strconv.Itoa(p.Runs), strconv.Itoa(p.Failed))
		for _, st := range p.Stats {
			row = append(row, meanCI(st))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// sweepDetails is one row per point and metric: n, mean, standard
// deviation, min, max and the 95% confidence interval.
func sweepDetails(s *sweep.Summary) Table {
	t := Table{}
	for _, a := range s.Axes {
		t.Header = append(t.Header, a.Name)
	}
	t.Header = append(t.Header, "metric", "n", "mean", "sd", "min", "max", "95% CI")
	for _, p := range s.Points {
		for i, st := range p.Stats {
			row := shownValues(p.Values)
			row = append(row, s.Metrics[i].Name, strconv.Itoa(st.N))
			if st.N == 0 {
				row = append(row, "-", "-", "-", "-", "-")
			} else {
				row = append(row, sweepNumber(st.Mean), sweepNumber(st.SD), sweepNumber(st.Min), sweepNumber(st.Max),
					fmt.Sprintf("[%s, %s]", sweepNumber(st.Mean-st.CI95), sweepNumber(st.Mean+st.CI95)))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// sweepErrors lists each point's distinct errors.
func sweepErrors(s *sweep.Summary) Table {
	t := Table{}
	for _, a := range s.Axes {
		t.Header = append(t.Header, a.Name)
	}
	t.Header = append(t.Header, "failed", "error")
	for _, p := range s.Points {
		for _, e := range p.Errors {
			row := shownValues(p.Values)
			t.Rows = append(t.Rows, append(row, strconv.Itoa(p.Failed), e))
		}
	}
	return t
}

// sweepMetricsTable says where each metric comes from.
func sweepMetricsTable(s *sweep.Summary) Table {
	t := Table{Header: []string{"metric", "path"}}
	for _, m := range s.Metrics {
		t.Append(m.Name, m.Path)
	}
	return t
}

// WriteSweepTable writes the summary for a terminal.
func WriteSweepTable(w io.Writer, s *sweep.Summary) error {
	var b bytes.Buffer
	fmt.Fprintln(&b, sweepHeadline(s))
	fmt.Fprintln(&b)
	for _, sec := range []struct {
		title string
		table Table
	}{{"", sweepOverview(s)}, {"DETAILS", sweepDetails(s)}, {"ERRORS", sweepErrors(s)}} {
		if len(sec.table.Rows) == 0 {
			continue
		}
		if sec.title != "" {
			fmt.Fprintf(&b, "\n%s\n", sec.title)
		}
		if err := sec.table.Write(&sizedBuffer{&b, w}); err != nil {
			return err
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// sizedBuffer buffers a table with the width of the writer it goes to.
type sizedBuffer struct {
	*bytes.Buffer
	to io.Writer
}

// Width implements Sized when the final writer does.
func (s *sizedBuffer) Width() int {
	if sized, ok := s.to.(Sized); ok {
		return sized.Width()
	}
	return 0
}

// WriteSweepMarkdown writes the summary for a document or a pull request:
// the overview, where each metric comes from, the details and the errors.
func WriteSweepMarkdown(w io.Writer, s *sweep.Summary) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "## Sweep %s\n\n%s\n\n", markdownCell(s.Name), markdownCell(sweepHeadline(s)))
	writeMarkdownTable(&b, sweepOverview(s))
	fmt.Fprintf(&b, "\n### Metrics\n\n")
	writeMarkdownTable(&b, sweepMetricsTable(s))
	fmt.Fprintf(&b, "\n### Details\n\n")
	writeMarkdownTable(&b, sweepDetails(s))
	if errs := sweepErrors(s); len(errs.Rows) > 0 {
		fmt.Fprintf(&b, "\n### Errors\n\n")
		writeMarkdownTable(&b, errs)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteSweepJSON writes the summary as indented JSON.
func WriteSweepJSON(w io.Writer, s *sweep.Summary) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// WriteSweepCSV writes one row per point and metric, numbers unrounded.
func WriteSweepCSV(w io.Writer, s *sweep.Summary) error {
	cw := csv.NewWriter(w)
	header := []string{}
	for _, a := range s.Axes {
		header = append(header, a.Name)
	}
	header = append(header, "metric", "runs", "failed", "n", "mean", "sd", "min", "max", "ci95", "ci95_low", "ci95_high")
	if err := cw.Write(header); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, p := range s.Points {
		for i, st := range p.Stats {
			row := append([]string(nil), p.Values...)
			row = append(row, s.Metrics[i].Name, strconv.Itoa(p.Runs), strconv.Itoa(p.Failed), strconv.Itoa(st.N))
			if st.N == 0 {
				row = append(row, "", "", "", "", "", "", "")
			} else {
				row = append(row, f(st.Mean), f(st.SD), f(st.Min), f(st.Max), f(st.CI95), f(st.Mean-st.CI95), f(st.Mean+st.CI95))
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// SweepChartName is a chart's file name without extension:
// <metric>-by-<axis>, with anything but letters, digits, '-', '_' and '.'
// replaced.
func SweepChartName(c sweep.Chart) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
				return r
			}
			return '_'
		}, s)
	}
	return clean(c.Metric) + "-by-" + clean(c.Axis)
}

// shownValues are a point's axis values as reports show them
// (sweep.ShownValue).
func shownValues(values []string) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = sweep.ShownValue(v)
	}
	return out
}
