package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"

	"github.com/drasim/drasim/sim/timeline"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Chart IDs of the timeline pages; tests look for them.
const (
	ChartTimelinePods          = "chart-pods"
	ChartTimelineNodes         = "chart-nodes"
	ChartTimelineCostRate      = "chart-cost-rate"
	ChartTimelineCost          = "chart-cost"
	ChartTimelineDevices       = "chart-devices"
	ChartTimelineFragmentation = "chart-fragmentation-over-time"
	ChartTimelineAlternatives  = "chart-alternatives"
)

// series is one line of a chart.
type series struct {
	name   string
	points plotter.XYs
}

// hours is a sample's time on the x axis.
func hours(s timeline.Sample) float64 { return float64(s.Time) / 3600 }

// lineChart draws lines over time, from 0 to xMax hours (the data's end
// when 0); ok is false when there is nothing to draw. The legend is not
// drawn on the plot, where it would cover lines: it is returned, for
// renderLineChart to draw above the plot.
func lineChart(yLabel string, lines []series, xMax, yMin, yMax float64) (*plot.Plot, []legendItem, bool, error) {
	p := newPlot("")
	p.X.Label.Text = "hours"
	p.X.Tick.Marker = niceTicks{}
	p.Y.Label.Text = yLabel
	var legend []legendItem
	drawn := false
	for i, l := range lines {
		if len(l.points) == 0 {
			continue
		}
		drawn = true
		ln, err := plotter.NewLine(l.points)
		if err != nil {
			return nil, nil, false, err
		}
		ln.Color = seriesColor(i)
		ln.Width = vg.Points(1.5)
		p.Add(ln)
		if l.name != "" {
			legend = append(legend, legendItem{l.name, ln})
		}
	}
	if !drawn {
		return nil, nil, false, nil
	}
	p.X.Min = 0
	if xMax > 0 {
		p.X.Max = max(p.X.Max, xMax)
	}
	p.Y.Min = yMin
	if yMax > yMin {
		p.Y.Max = yMax
	}
	return p, legend, true, nil
}

// legendItem is one entry of a chart's legend.
type legendItem struct {
	name  string
	thumb plot.Thumbnailer
}

// legendRows lays the legend out in rows across the width, left to right:
// each entry's x offset and row.
func legendRows(items []legendItem, sty text.Style, thumb, width vg.Length) (xs []vg.Length, rows []int, n int) {
	gap := sty.Width("  ")
	x, row := vg.Length(0), 0
	for _, it := range items {
		w := thumb + sty.Width(" "+it.name)
		if x > 0 && x+w > width {
			x, row = 0, row+1
		}
		xs, rows = append(xs, x), append(rows, row)
		x += w + gap
	}
	if len(items) > 0 {
		n = row + 1
	}
	return xs, rows, n
}

// renderLineChart draws the plot with its legend in rows above it, so
// that no legend covers a line, and a margin left of the Y axis' label
// (a browser's font may draw it a little wider than gonum measured).
func renderLineChart(p *plot.Plot, legend []legendItem, width, height vg.Length) (template.HTML, error) {
	const margin = 4 // points around the legend and left of the axis label
	proto := plot.NewLegend()
	sty := p.Legend.TextStyle
	xs, rows, n := legendRows(legend, sty, proto.ThumbnailWidth, width-2*vg.Points(margin))
	rowHeight := sty.Height("M") + vg.Points(2)
	strip := vg.Length(0)
	if n > 0 {
		strip = vg.Length(n)*rowHeight + vg.Points(2*margin)
	}
	c := vgsvg.New(width, height+strip)
	dc := draw.New(c)
	p.Draw(draw.Crop(dc, vg.Points(margin), 0, 0, -strip))
	top := draw.Crop(dc, vg.Points(margin), 0, height, -vg.Points(margin))
	for i, it := range legend {
		l := plot.NewLegend()
		l.TextStyle, l.Top, l.Left = sty, true, true
		l.XOffs, l.YOffs = xs[i], -vg.Length(rows[i])*rowHeight
		l.Add(it.name, it.thumb)
		l.Draw(top)
	}
	return svgElement(c, p.Y.Tick.Label)
}

// timelineLines are the charts of one timeline, each as lines.
func timelineLines(r *timeline.Result) map[string][]series {
	out := map[string][]series{}
	pending, running := series{name: "pending"}, series{name: "running"}
	provisioning := series{name: "provisioning"}
	rate, cost := series{name: "cost per hour"}, series{name: "cost so far"}
	frag := series{name: "fragmentation rate"}
	var groups, classes []string
	byGroup, byClass := map[string]*series{}, map[string]*series{}
	var ranks []*series
	for _, s := range r.Series {
		x := hours(s)
		pending.points = append(pending.points, plotter.XY{X: x, Y: float64(s.Pending)})
		running.points = append(running.points, plotter.XY{X: x, Y: float64(s.Running)})
		provisioning.points = append(provisioning.points, plotter.XY{X: x, Y: float64(s.Provisioning)})
		rate.points = append(rate.points, plotter.XY{X: x, Y: s.CostRate})
		cost.points = append(cost.points, plotter.XY{X: x, Y: s.Cost})
		for _, g := range s.Nodes {
			if byGroup[g.Group] == nil {
				groups = append(groups, g.Group)
				byGroup[g.Group] = &series{name: g.Group}
			}
			byGroup[g.Group].points = append(byGroup[g.Group].points, plotter.XY{X: x, Y: float64(g.Nodes)})
		}
		for _, d := range s.Devices {
			if d.Devices == 0 {
				continue
			}
			if byClass[d.Class] == nil {
				classes = append(classes, d.Class)
				byClass[d.Class] = &series{name: d.Class}
			}
			byClass[d.Class].points = append(byClass[d.Class].points, plotter.XY{X: x, Y: 100 * float64(d.Allocated) / float64(d.Devices)})
		}
		if s.Fragmentation != nil {
			frag.points = append(frag.points, plotter.XY{X: x, Y: 100 * *s.Fragmentation})
		}
		if total := sumInts(s.Alternatives); total > 0 {
			for i, n := range s.Alternatives {
				for len(ranks) <= i {
					ranks = append(ranks, &series{name: ordinal(len(ranks)+1) + " choice"})
				}
				ranks[i].points = append(ranks[i].points, plotter.XY{X: x, Y: 100 * float64(n) / float64(total)})
			}
		}
	}
	out[ChartTimelinePods] = []series{pending, running}
	var nodes []series
	for _, g := range groups {
		nodes = append(nodes, *byGroup[g])
	}
	out[ChartTimelineNodes] = append(nodes, provisioning)
	out[ChartTimelineCostRate] = []series{rate}
	out[ChartTimelineCost] = []series{cost}
	for _, c := range classes {
		out[ChartTimelineDevices] = append(out[ChartTimelineDevices], *byClass[c])
	}
	out[ChartTimelineFragmentation] = []series{frag}
	for _, s := range ranks {
		out[ChartTimelineAlternatives] = append(out[ChartTimelineAlternatives], *s)
	}
	return out
}

type lineChartSpec struct {
	id, title, yLabel, empty string
	// percent: a 0..100 axis; count: whole numbers (pods, nodes).
	percent, count bool
}

var timelineCharts = []lineChartSpec{
	{ChartTimelinePods, "Pods pending and running", "pods", "No samples.", false, true},
	{ChartTimelineNodes, "Nodes per group", "nodes", "No samples.", false, true},
	{ChartTimelineCostRate, "Cost per hour", "cost per hour", "No samples.", false, false},
	{ChartTimelineCost, "Cost so far", "cost", "No samples.", false, false},
	{ChartTimelineDevices, "Devices in use per DeviceClass", "share allocated (%)", "No devices.", true, false},
	{ChartTimelineFragmentation, "Fragmentation rate of idle devices", "rate (%)", "Not measured (--fragmentation-every 0).", true, false},
	{ChartTimelineAlternatives, "Prioritized-list alternatives of the pods bound so far", "share of requests (%)", "No request has firstAvailable alternatives.", true, false},
}

// drawCharts draws each chart of specs from 0 to end hours.
func drawCharts(specs []lineChartSpec, lines map[string][]series, end float64) ([]chart, error) {
	var out []chart
	for _, c := range specs {
		ch := chart{ID: c.id, Title: c.title, Empty: c.empty}
		yMax := 0.0
		if c.percent {
			yMax = 105 // a line at 100% stays clear of the chart's edge
		}
		p, legend, ok, err := lineChart(c.yLabel, lines[c.id], end, 0, yMax)
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", c.id, err)
		}
		if ok {
			switch {
			case c.percent:
				p.Y.Tick.Marker = plot.ConstantTicks(percentTicks())
			case c.count:
				p.Y.Max = max(p.Y.Max, 1) // a line at 0 all along gets an axis 0..1
				p.Y.Tick.Marker = wholeTicks{}
			}
			if ch.SVG, err = renderLineChart(p, legend, 6*vg.Inch, 3*vg.Inch); err != nil {
				return nil, fmt.Errorf("chart %s: %w", c.id, err)
			}
		}
		out = append(out, ch)
	}
	return out, nil
}

// wholeTicks label an axis of counts with whole numbers only.
type wholeTicks struct{}

var _ plot.Ticker = wholeTicks{}

func (wholeTicks) Ticks(lo, hi float64) []plot.Tick { return niceTicks{minStep: 1}.Ticks(lo, hi) }

// niceTicks label an axis at 1, 2 or 5 times a power of ten apart (at
// least minStep, when set), at most 6 labels, with the decimals the step
// needs: hours as 0, 5, 10, ... rather than 0.00 and 25.00.
type niceTicks struct{ minStep float64 }

var _ plot.Ticker = niceTicks{}

func (n niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'f', -1, 64)}}
	}
	p := math.Pow(10, math.Floor(math.Log10((hi-lo)/6)))
	step := 10 * p
	for _, f := range []float64{1, 2, 5} {
		if (hi-lo)/(f*p) <= 6 {
			step = f * p
			break
		}
	}
	step = max(step, n.minStep)
	decimals := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	var out []plot.Tick
	for i := math.Ceil(lo/step - 1e-9); i*step <= hi+1e-9*step; i++ {
		v := i * step
		if v == 0 {
			v = 0 // not -0
		}
		out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', decimals, 64)})
	}
	return out
}

// WriteTimelineHTML writes one self-contained HTML page: the key numbers,
// line charts over time drawn with gonum/plot as inline SVG (pods, nodes
// per group, cost, devices in use per class, fragmentation,
// prioritized-list alternatives) and every table of the text report, the
// time series in full.
func WriteTimelineHTML(w io.Writer, r *timeline.Result) error {
	page := htmlPage{Title: "drasim timeline", Headline: timelineHeadline(r), Facts: timelineFacts(r), Warnings: r.Warnings}
	charts, err := drawCharts(timelineCharts, timelineLines(r), float64(r.Inputs.End)/3600)
	if err != nil {
		return err
	}
	page.Charts = charts
	for _, s := range timelineSections(r, len(r.Series)) {
		page.Tables = append(page.Tables, htmlTable{Title: s.title, Intro: s.intro, Header: s.table.Header, Rows: s.table.Rows, Empty: s.empty})
	}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, page); err != nil {
		return err
	}
	_, err = w.Write(b.Bytes())
	return err
}

var comparisonCharts = []lineChartSpec{
	{ChartTimelinePods, "Pods pending", "pods", "No samples.", false, true},
	{ChartTimelineNodes, "Nodes", "nodes", "No samples.", false, true},
	{ChartTimelineCost, "Cost so far", "cost", "No samples.", false, false},
	{ChartTimelineAlternatives, "First-choice share of the pods bound so far", "share of requests (%)", "No request has firstAvailable alternatives.", true, false},
}

// WriteTimelineComparisonHTML writes the comparison as one page: the table
// and the runs' time series overlaid.
func WriteTimelineComparisonHTML(w io.Writer, c *timeline.Comparison) error {
	page := htmlPage{Title: "drasim timeline comparison", Headline: fmt.Sprintf("%d timeline(s) of the same arrivals.", len(c.Entries))}
	lines := map[string][]series{}
	for _, e := range c.Entries {
		pending, nodes, cost, first := series{name: e.Name}, series{name: e.Name}, series{name: e.Name}, series{name: e.Name}
		for _, s := range e.Series {
			x := hours(s)
			pending.points = append(pending.points, plotter.XY{X: x, Y: float64(s.Pending)})
			total := 0
			for _, g := range s.Nodes {
				total += g.Nodes
			}
			nodes.points = append(nodes.points, plotter.XY{X: x, Y: float64(total)})
			cost.points = append(cost.points, plotter.XY{X: x, Y: s.Cost})
			if n := sumInts(s.Alternatives); n > 0 {
				first.points = append(first.points, plotter.XY{X: x, Y: 100 * float64(s.Alternatives[0]) / float64(n)})
			}
		}
		lines[ChartTimelinePods] = append(lines[ChartTimelinePods], pending)
		lines[ChartTimelineNodes] = append(lines[ChartTimelineNodes], nodes)
		lines[ChartTimelineCost] = append(lines[ChartTimelineCost], cost)
		lines[ChartTimelineAlternatives] = append(lines[ChartTimelineAlternatives], first)
	}
	end := 0.0
	for _, e := range c.Entries {
		if n := len(e.Series); n > 0 {
			end = max(end, hours(e.Series[n-1]))
		}
	}
	charts, err := drawCharts(comparisonCharts, lines, end)
	if err != nil {
		return err
	}
	page.Charts = charts
	t := comparisonTimelineTable(c)
	page.Tables = []htmlTable{{Title: "Runs", Header: t.Header, Rows: t.Rows, Empty: "No runs."}}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, page); err != nil {
		return err
	}
	_, err = w.Write(b.Bytes())
	return err
}
