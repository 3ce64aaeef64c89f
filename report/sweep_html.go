package report

import (
	"bytes"
	"fmt"
	"io"

	"github.com/drasim/drasim/sim/sweep"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Sweep chart size.
const (
	sweepChartWidth  = 5.5 * vg.Inch
	sweepChartHeight = 3.6 * vg.Inch
)

// sweepChartPlot draws one chart: the metric's mean at each value of the
// axis with its 95% confidence interval as an error bar, a line per
// series. Series are shifted a little sideways so that their bars do not
// hide each other. ok is false when no point has a value.
func sweepChartPlot(c sweep.Chart) (*plot.Plot, bool, error) {
	p := newPlot(fmt.Sprintf("%s by %s", c.Metric, c.Axis))
	p.X.Label.Text = c.Axis
	p.Y.Label.Text = c.Metric + " (mean, 95% CI)"
	drawn := false
	n := len(c.Series)
	lo, hi := 0.0, 0.0
	for si, ser := range c.Series {
		shift := 0.0
		if n > 1 {
			shift = (float64(si) - float64(n-1)/2) * 0.25 / float64(n)
		}
		var xys plotter.XYs
		var errs plotter.YErrors
		for vi, st := range ser.Stats {
			if st.N == 0 {
				continue
			}
			xys = append(xys, plotter.XY{X: float64(vi) + shift, Y: st.Mean})
			lo, hi = min(lo, st.Mean-st.CI95), max(hi, st.Mean+st.CI95)
			errs = append(errs, struct{ Low, High float64 }{st.CI95, st.CI95})
		}
		if len(xys) == 0 {
			continue
		}
		drawn = true
		clr := seriesColor(si)
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, false, err
		}
		line.Color = clr
		points.Color = clr
		points.Shape = draw.CircleGlyph{}
		bars, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{xys, errs})
		if err != nil {
			return nil, false, err
		}
		bars.Color = clr
		p.Add(line, points, bars)
		if n > 1 {
			p.Legend.Add(ser.Label, line, points)
		}
	}
	if !drawn {
		return nil, false, nil
	}
	// Half a category of room left and right, the axis from zero (or the
	// lowest bar), and room above the data for the legend's lines.
	values := 0
	if n > 0 {
		values = len(c.Series[0].Stats)
	}
	p.X.Min, p.X.Max = -0.5, float64(values)-0.5
	if hi == lo {
		hi = lo + 1
	}
	legend := 0.0
	if n > 1 {
		legend = 0.08*float64(n) + 0.04
	}
	p.Y.Min = lo
	p.Y.Max = hi + (hi-lo)*(0.05+legend)/(1-legend)
	p.Legend.Top = true
	return p, true, nil
}

// WriteSweepChartSVG writes one chart as an SVG file's contents; it writes
// nothing and returns false when the chart has no point.
func WriteSweepChartSVG(w io.Writer, c sweep.Chart, axisValues []string) (bool, error) {
	p, ok, err := sweepChartPlot(c)
	if err != nil || !ok {
		return false, err
	}
	p.NominalX(shownValues(axisValues)...)
	canvas := vgsvg.New(sweepChartWidth, sweepChartHeight)
	p.Draw(draw.New(canvas))
	var b bytes.Buffer
	if _, err := canvas.WriteTo(&b); err != nil {
		return false, err
	}
	_, err = w.Write(b.Bytes())
	return true, err
}

// axisValues returns the values of the named axis.
func axisValues(s *sweep.Summary, name string) []string {
	for _, a := range s.Axes {
		if a.Name == name {
			return a.Values
		}
	}
	return nil
}

// WriteSweepHTML writes one self-contained page: the headline, a chart per
// metric and axis (mean and 95% CI over seeds) and the tables of the
// markdown summary.
func WriteSweepHTML(w io.Writer, s *sweep.Summary) error {
	page := htmlPage{Title: "drasim sweep " + s.Name, Headline: sweepHeadline(s)}
	for _, m := range s.Metrics {
		page.Facts = append(page.Facts, fmt.Sprintf("%s: %s", m.Name, m.Path))
	}
	for i, c := range s.Charts {
		ch := chart{ID: fmt.Sprintf("chart-%d-%s", i, SweepChartName(c)), Title: fmt.Sprintf("%s by %s", c.Metric, c.Axis), Empty: "No run of this chart succeeded."}
		p, ok, err := sweepChartPlot(c)
		if err != nil {
			return fmt.Errorf("chart %s: %w", ch.ID, err)
		}
		if ok {
			p.NominalX(shownValues(axisValues(s, c.Axis))...)
			svg, err := renderSVG(p, sweepChartWidth, sweepChartHeight)
			if err != nil {
				return fmt.Errorf("chart %s: %w", ch.ID, err)
			}
			ch.SVG = svg
		}
		page.Charts = append(page.Charts, ch)
	}
	for _, sec := range []struct {
		title string
		table Table
		empty string
	}{
		{"Points", sweepOverview(s), "No run has a row yet."},
		{"Details", sweepDetails(s), "No run has a row yet."},
		{"Errors", sweepErrors(s), "No run failed."},
	} {
		page.Tables = append(page.Tables, htmlTable{Title: sec.title, Header: sec.table.Header, Rows: sec.table.Rows, Empty: sec.empty})
	}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, page); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}
