package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"strconv"

	"github.com/drasim/drasim/sim/fill"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Chart IDs of the fill page; tests look for them.
const (
	ChartFillAllocation    = "chart-fill-allocation"
	ChartFillFragmentation = "chart-fill-fragmentation"
)

// fillMarks are the arrivals the table shows besides the end.
var fillMarks = []int{50, 80, 100}

// pointAt is a curve's point at an arrival percent, if there is one.
func pointAt(points []fill.Point, k int) (fill.Point, bool) {
	for _, p := range points {
		if p.Arrived == k {
			return p, true
		}
	}
	return fill.Point{}, false
}

func meanAt(points []fill.MeanPoint, k int) (fill.MeanPoint, bool) {
	for _, p := range points {
		if p.Arrived == k {
			return p, true
		}
	}
	return fill.MeanPoint{}, false
}

// fillMarks are the table's columns: the marks below the target and the
// target itself.
func fillColumns(r *fill.Result) []int {
	last := int(r.Target*100 + 0.5)
	var out []int
	for _, m := range fillMarks {
		if m < last {
			out = append(out, m)
		}
	}
	return append(out, last)
}

func pct2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// fillTable is one row per run (policy and seed): pods placed and failed,
// the allocation at the marks, the fragmentation at the target.
func fillTable(r *fill.Result) Table {
	cols := fillColumns(r)
	t := Table{Header: []string{"POLICY", "SEED", "PODS", "PLACED", "FAILED"}}
	for _, k := range cols {
		t.Header = append(t.Header, fmt.Sprintf("ALLOC@%d%%", k))
	}
	t.Header = append(t.Header, fmt.Sprintf("FRAG@%d%%", cols[len(cols)-1]))
	for _, c := range r.Curves {
		row := []string{c.Policy, strconv.FormatInt(c.Seed, 10), strconv.Itoa(c.Submitted), strconv.Itoa(c.Placed), strconv.Itoa(c.Failed)}
		for _, k := range cols {
			if p, ok := pointAt(c.Points, k); ok {
				row = append(row, pct2(p.Allocation))
			} else {
				row = append(row, "-")
			}
		}
		if p, ok := pointAt(c.Points, cols[len(cols)-1]); ok {
			row = append(row, pct2(p.Fragmentation))
		} else {
			row = append(row, "-")
		}
		t.Append(row...)
	}
	return t
}

// fillMeanTable is one row per policy: the mean allocation at the marks
// with its 95% confidence interval, over the seeds.
func fillMeanTable(r *fill.Result) Table {
	cols := fillColumns(r)
	t := Table{Header: []string{"POLICY", "RUNS"}}
	for _, k := range cols {
		t.Header = append(t.Header, fmt.Sprintf("ALLOC@%d%%", k))
	}
	t.Header = append(t.Header, fmt.Sprintf("FRAG@%d%%", cols[len(cols)-1]))
	for _, m := range r.Means {
		row := []string{m.Policy, strconv.Itoa(m.Runs)}
		for _, k := range cols {
			if p, ok := meanAt(m.Points, k); ok {
				row = append(row, fmt.Sprintf("%s ± %s", pct2(p.Allocation), pct2(p.AllocationCI95)))
			} else {
				row = append(row, "-")
			}
		}
		if p, ok := meanAt(m.Points, cols[len(cols)-1]); ok {
			row = append(row, fmt.Sprintf("%s ± %s", pct2(p.Fragmentation), pct2(p.FragmentationCI95)))
		} else {
			row = append(row, "-")
		}
		t.Append(row...)
	}
	return t
}

func fillHeadline(r *fill.Result) string {
	return fmt.Sprintf("Inflation to %.0f%% of %d devices on %d nodes: %d workload pods, %d polic(ies), %d seed(s), %s order.",
		r.Target*100, r.Devices, r.Nodes, r.WorkloadPods, len(r.Curves)/max(len(r.Seeds), 1), len(r.Seeds), r.Order)
}

// WriteFillTable writes the experiment as text: the headline, a row per
// run, and with several seeds the means with their 95% confidence
// intervals.
func WriteFillTable(w io.Writer, r *fill.Result) error {
	if _, err := fmt.Fprintln(w, fillHeadline(r)); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(w, "Allocation and fragmentation: percent of the device capacity, at percent of capacity arrived."); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	t := fillTable(r)
	if err := t.Write(w); err != nil {
		return err
	}
	if len(r.Means) > 0 {
		if _, err := fmt.Fprintf(w, "\nMean over %d seeds (± 95%% confidence interval):\n\n", len(r.Seeds)); err != nil {
			return err
		}
		m := fillMeanTable(r)
		return m.Write(w)
	}
	return nil
}

// WriteFillCSV writes every curve point, one row per run and percent:
// policy, seed, arrived, allocation, fragmentation, fragmentationRate,
// pods.
func WriteFillCSV(w io.Writer, r *fill.Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"policy", "seed", "arrived", "allocation", "fragmentation", "fragmentationRate", "pods"}); err != nil {
		return err
	}
	for _, c := range r.Curves {
		for _, p := range c.Points {
			if err := cw.Write([]string{c.Policy, strconv.FormatInt(c.Seed, 10), strconv.Itoa(p.Arrived), pct2(p.Allocation), pct2(p.Fragmentation), pct2(p.FragmentationRate), strconv.Itoa(p.Pods)}); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// fillBand is one policy's line with its confidence band (empty for one
// run).
type fillBand struct {
	name           string
	mid, low, high plotter.XYs
}

// fillBands are the lines of one chart: the mean curves with their
// bands when there are several seeds, else each run's curve.
func fillBands(r *fill.Result, frag bool) []fillBand {
	var out []fillBand
	if len(r.Means) > 0 {
		for _, m := range r.Means {
			b := fillBand{name: m.Policy}
			for _, p := range m.Points {
				y, ci := p.Allocation, p.AllocationCI95
				if frag {
					y, ci = p.Fragmentation, p.FragmentationCI95
				}
				x := float64(p.Arrived)
				b.mid = append(b.mid, plotter.XY{X: x, Y: y})
				b.low = append(b.low, plotter.XY{X: x, Y: y - ci})
				b.high = append(b.high, plotter.XY{X: x, Y: y + ci})
			}
			out = append(out, b)
		}
		return out
	}
	for _, c := range r.Curves {
		name := c.Policy
		if len(r.Seeds) > 1 {
			name = fmt.Sprintf("%s seed %d", c.Policy, c.Seed)
		}
		b := fillBand{name: name}
		for _, p := range c.Points {
			y := p.Allocation
			if frag {
				y = p.Fragmentation
			}
			b.mid = append(b.mid, plotter.XY{X: float64(p.Arrived), Y: y})
		}
		out = append(out, b)
	}
	return out
}

// fillChart draws the curves of every policy on one chart, each with its
// 95% confidence band (a filled polygon) when there are several seeds.
func fillChart(r *fill.Result, frag bool) (*plot.Plot, bool, error) {
	p := newPlot("")
	p.X.Label.Text = "arrived requests (% of device capacity)"
	p.Y.Label.Text = "allocated (% of device capacity)"
	if frag {
		p.Y.Label.Text = "fragmented (% of device capacity)"
	}
	p.Legend.Top = true
	p.Legend.Left = true
	drawn := false
	for i, b := range fillBands(r, frag) {
		if len(b.mid) == 0 {
			continue
		}
		drawn = true
		clr := seriesColor(i)
		if len(b.low) > 0 {
			poly := append(append(plotter.XYs{}, b.low...), reversed(b.high)...)
			band, err := plotter.NewPolygon(poly)
			if err != nil {
				return nil, false, err
			}
			c := color.RGBAModel.Convert(clr).(color.RGBA)
			band.Color = color.RGBA{R: c.R / 4, G: c.G / 4, B: c.B / 4, A: 0x40}
			band.LineStyle.Width = 0
			p.Add(band)
		}
		ln, err := plotter.NewLine(b.mid)
		if err != nil {
			return nil, false, err
		}
		ln.Color = clr
		ln.Width = vg.Points(1.5)
		p.Add(ln)
		p.Legend.Add(b.name, ln)
	}
	if !drawn {
		return nil, false, nil
	}
	p.X.Min = 0
	p.Y.Min = 0
	if !frag {
		p.Y.Max = 110
		p.Y.Tick.Marker = plot.ConstantTicks(percentTicks())
	}
	return p, true, nil
}

func reversed(xys plotter.XYs) plotter.XYs {
	out := make(plotter.XYs, len(xys))
	for i, v := range xys {
		out[len(xys)-1-i] = v
	}
	return out
}

// WriteFillChartSVG writes the allocation chart (or, with frag, the
// fragmentation chart) as an SVG file's contents.
func WriteFillChartSVG(w io.Writer, r *fill.Result, frag bool) error {
	p, ok, err := fillChart(r, frag)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("no curve to draw")
	}
	svg, err := renderSVG(p, 7*vg.Inch, 4*vg.Inch)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, string(svg)+"\n")
	return err
}

// WriteFillHTML writes one self-contained page: the allocation and the
// fragmentation curves of every policy on one chart each (with 95%
// confidence bands over several seeds) and the tables of the text
// report.
func WriteFillHTML(w io.Writer, r *fill.Result) error {
	page := htmlPage{Title: "drasim fill", Headline: fillHeadline(r)}
	for _, spec := range []struct {
		id, title string
		frag      bool
	}{
		{ChartFillAllocation, "Allocation ratio", false},
		{ChartFillFragmentation, "Fragmentation (the paper's measure)", true},
	} {
		ch := chart{ID: spec.id, Title: spec.title, Empty: "No curve."}
		p, ok, err := fillChart(r, spec.frag)
		if err != nil {
			return fmt.Errorf("chart %s: %w", spec.id, err)
		}
		if ok {
			if ch.SVG, err = renderSVG(p, 7*vg.Inch, 4*vg.Inch); err != nil {
				return fmt.Errorf("chart %s: %w", spec.id, err)
			}
		}
		page.Charts = append(page.Charts, ch)
	}
	t := fillTable(r)
	page.Tables = append(page.Tables, htmlTable{Title: "Runs", Intro: "Allocation and fragmentation in percent of the device capacity, at percent of capacity arrived.", Header: t.Header, Rows: t.Rows, Empty: "No runs."})
	if len(r.Means) > 0 {
		m := fillMeanTable(r)
		page.Tables = append(page.Tables, htmlTable{Title: "Means over the seeds (± 95% confidence interval)", Header: m.Header, Rows: m.Rows})
	}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, page); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}
