package report

import (
	"bytes"
	"fmt"
	"io"

	"github.com/drasim/drasim/sim/timeline"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
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

// lineChart draws lines over time; ok is false when there is nothing to
// draw.
func lineChart(yLabel string, lines []series, yMin, yMax float64) (*plot.Plot, bool, error) {
	p := newPlot("")
	p.X.Label.Text = "hours"
	p.Y.Label.Text = yLabel
	p.Legend.Top = true
	drawn := false
	for i, l := range lines {
		if len(l.points) == 0 {
			continue
		}
		drawn = true
		ln, err := plotter.NewLine(l.points)
		if err != nil {
			return nil, false, err
		}
		ln.Color = seriesColor(i)
		ln.Width = vg.Points(1.5)
		p.Add(ln)
		if l.name != "" {
			p.Legend.Add(l.name, ln)
		}
	}
	if !drawn {
		return nil, false, nil
	}
	p.Y.Min = yMin
	if yMax > yMin {
		p.Y.Max = yMax
	}
	return p, true, nil
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
	percent                  bool
}

var timelineCharts = []lineChartSpec{
	{ChartTimelinePods, "Pods pending and running", "pods", "No samples.", false},
	{ChartTimelineNodes, "Nodes per group", "nodes", "No samples.", false},
	{ChartTimelineCostRate, "Cost per hour", "cost per hour", "No samples.", false},
	{ChartTimelineCost, "Cost so far", "cost", "No samples.", false},
	{ChartTimelineDevices, "Devices in use per DeviceClass", "share allocated (%)", "No devices.", true},
	{ChartTimelineFragmentation, "Fragmentation rate of idle devices", "rate (%)", "Not measured (--fragmentation-every 0).", true},
	{ChartTimelineAlternatives, "Prioritized-list alternatives of the pods bound so far", "share of requests (%)", "No request has firstAvailable alternatives.", true},
}

func drawCharts(specs []lineChartSpec, lines map[string][]series) ([]chart, error) {
	var out []chart
	for _, c := range specs {
		ch := chart{ID: c.id, Title: c.title, Empty: c.empty}
		yMax := 0.0
		if c.percent {
			yMax = 110 // room for the legend
		}
		p, ok, err := lineChart(c.yLabel, lines[c.id], 0, yMax)
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", c.id, err)
		}
		if ok {
			if c.percent {
				p.Y.Tick.Marker = plot.ConstantTicks(percentTicks())
			}
			if ch.SVG, err = renderSVG(p, 6*vg.Inch, 3*vg.Inch); err != nil {
				return nil, fmt.Errorf("chart %s: %w", c.id, err)
			}
		}
		out = append(out, ch)
	}
	return out, nil
}

// WriteTimelineHTML writes one self-contained HTML page: the key numbers,
// line charts over time drawn with gonum/plot as inline SVG (pods, nodes
// per group, cost, devices in use per class, fragmentation,
// prioritized-list alternatives) and every table of the text report, the
// time series in full.
func WriteTimelineHTML(w io.Writer, r *timeline.Result) error {
	page := htmlPage{Title: "drasim timeline", Headline: timelineHeadline(r), Facts: timelineFacts(r), Warnings: r.Warnings}
	charts, err := drawCharts(timelineCharts, timelineLines(r))
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
	{ChartTimelinePods, "Pods pending", "pods", "No samples.", false},
	{ChartTimelineNodes, "Nodes", "nodes", "No samples.", false},
	{ChartTimelineCost, "Cost so far", "cost", "No samples.", false},
	{ChartTimelineAlternatives, "First-choice share of the pods bound so far", "share of requests (%)", "No request has firstAvailable alternatives.", true},
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
	charts, err := drawCharts(comparisonCharts, lines)
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
