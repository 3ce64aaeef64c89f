package report

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"image/color"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/drasim/drasim/sim/analysis"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Chart IDs in the HTML report; tests look for them.
const (
	ChartUtilization     = "chart-utilization"
	ChartFragmentation   = "chart-fragmentation"
	ChartHeadroom        = "chart-headroom"
	ChartPrioritizedList = "chart-prioritized-list"
)

// seriesColor is the i-th colour of a colour-blind-safe set (Okabe-Ito).
func seriesColor(i int) color.Color {
	okabeIto := [...]color.RGBA{
		{0x00, 0x72, 0xB2, 0xff}, {0xE6, 0x9F, 0x00, 0xff}, {0x00, 0x9E, 0x73, 0xff},
		{0xCC, 0x79, 0xA7, 0xff}, {0x56, 0xB4, 0xE9, 0xff}, {0xD5, 0x5E, 0x00, 0xff}, {0xF0, 0xE4, 0x42, 0xff},
	}
	return okabeIto[i%len(okabeIto)]
}

// unallocatedColor marks claims that got no alternative.
func unallocatedColor() color.Color { return color.RGBA{0x99, 0x99, 0x99, 0xff} }

// percentTicks label a 0..100 axis that runs higher to leave room for a
// legend.
func percentTicks() []plot.Tick {
	return []plot.Tick{{Value: 0, Label: "0"}, {Value: 25, Label: "25"}, {Value: 50, Label: "50"}, {Value: 75, Label: "75"}, {Value: 100, Label: "100"}}
}

// chart is one rendered chart: its ID, title and inline SVG (empty when
// there is nothing to draw).
type chart struct {
	ID    string
	Title string
	SVG   template.HTML
	Empty string
}

type htmlTable struct {
	Title  string
	Intro  string
	Header []string
	Rows   [][]string
	Empty  string
}

type htmlPage struct {
	// Title heads the page (and names the browser tab).
	Title    string
	Headline string
	Facts    []string
	Maps     []deviceMapView
	Legend   []legendEntry
	Charts   []chart
	Tables   []htmlTable
	Warnings []string
}

// The page is XHTML-compatible (every element closed, no named entities
// but XML's) so that it parses as XML as well as HTML, and holds everything
// it needs: no scripts, fonts or images are fetched.
var pageTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" lang="en">
<head>
<meta charset="utf-8"/>
<title>{{.Title}}</title>
<style>
body { font-family: sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.5em; }
h2 { font-size: 1.2em; margin-top: 1.5em; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; font-size: 0.9em; }
th { background: #f3f3f3; }
.charts { display: flex; flex-wrap: wrap; gap: 1.5em; }
figure { margin: 0; max-width: 100%; }
figure svg { max-width: 100%; height: auto; }
svg text { font-family: "Liberation Sans", Arial, Helvetica, sans-serif !important; }
figcaption { font-weight: bold; margin-bottom: 0.3em; }
.warning { color: #a33; }
.devicemaps { display: flex; flex-wrap: wrap; gap: 2em; margin-bottom: 2em; }
.devicemap { flex: 1 1 28em; min-width: 0; }
.dm-title { font-weight: bold; margin: 0.6em 0 0.3em; overflow-wrap: anywhere; }
.dm-nodes { display: flex; flex-wrap: wrap; gap: 6px; }
.dm-node { border: 1px solid #ccc; padding: 3px; }
.dm-name { font-size: 0.7em; max-width: 12em; overflow-wrap: anywhere; }
.dm-cells { display: grid; gap: 2px; }
.cell { display: inline-block; width: 11px; height: 11px; border-radius: 2px; }
.legend { display: flex; flex-wrap: wrap; gap: 1em; align-items: center; }
.cell.free { background: #dcdcdc; }
.cell.allocated { background: #0072b2; }
.cell.partial { background: #56b4e9; }
.cell.blocked { background: #777777; }
.cell.tainted { background: #d55e00; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p>{{.Headline}}</p>
<ul>
{{- range .Facts}}
<li>{{.}}</li>
{{- end}}
</ul>
{{- if .Maps}}
<h2>Device map</h2>
<p>One cell per device, nodes grouped as in the utilization table: allocated, partly consumed (shares of consumable capacity, or counters drawn by sibling partitions), blocked (counters exhausted), tainted (NoSchedule or NoExecute) or free.</p>
<div class="legend">
{{- range .Legend}}
<span><span class="cell {{.State}}"></span> {{.Label}}</span>
{{- end}}
</div>
<div class="devicemaps" id="device-map">
{{- range .Maps}}
<div class="devicemap" id="{{.ID}}">
<h3>{{.Title}}</h3>
{{- if .Note}}
<p>{{.Note}}</p>
{{- end}}
{{- range .Groups}}
<div class="dm-title">{{.Title}}</div>
<div class="dm-nodes">
{{- range .Nodes}}
<div class="dm-node" title="{{.Title}}"><div class="dm-name">{{.Name}}</div><div class="dm-cells" style="grid-template-columns: repeat({{.Columns}}, 11px)">{{range .Cells}}<span class="cell {{.State}}" title="{{.Title}}"></span>{{end}}</div></div>
{{- end}}
</div>
{{- end}}
</div>
{{- end}}
</div>
{{- end}}
<div class="charts">
{{- range .Charts}}
<figure id="{{.ID}}">
<figcaption>{{.Title}}</figcaption>
{{if .SVG}}{{.SVG}}{{else}}<p>{{.Empty}}</p>{{end}}
</figure>
{{- end}}
</div>
{{- range .Tables}}
<h2>{{.Title}}</h2>
{{- if .Intro}}
<p>{{.Intro}}</p>
{{- end}}
{{- if .Rows}}
<table>
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Rows}}
<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
{{- else}}
<p>{{.Empty}}</p>
{{- end}}
{{- end}}
{{- if .Warnings}}
<h2>Warnings</h2>
<ul>
{{- range .Warnings}}
<li class="warning">{{.}}</li>
{{- end}}
</ul>
{{- end}}
</body>
</html>
`))

// WriteCapacityHTML writes one self-contained HTML page: the key numbers,
// four charts drawn with gonum/plot as inline SVG (utilization per node
// group, fragmentation per class, headroom per shape, prioritized-list
// outcomes) and every table of the text report.
func WriteCapacityHTML(w io.Writer, r *analysis.Report) error {
	page := htmlPage{Title: "drasim capacity report", Headline: headline(r), Warnings: r.Warnings}
	page.Maps, page.Legend = deviceMapViews(r)
	p := r.Fit.Pods
	page.Facts = []string{
		fmt.Sprintf("Fit: %d scheduled, %d pending, %d already bound", p.Scheduled, p.Pending, p.Bound),
		fmt.Sprintf("Devices allocated: %d of %d (%s)", r.Utilization.Total.Devices.Allocated, r.Utilization.Total.Devices.Total, pct(r.Utilization.Total.Devices.Share)),
		fmt.Sprintf("Fragmentation rate: %s of %d idle devices%s", pct(r.Fragmentation.Rate), r.Fragmentation.IdleDevices, unselectedAside(r.Fragmentation)),
		fmt.Sprintf("First-choice allocations: %s", pct(r.PrioritizedList.FirstChoiceShare)),
		fmt.Sprintf("Stranded: %d idle device(s); %s CPU and %s memory", r.Stranded.Devices, r.Stranded.CPU, r.Stranded.Memory),
	}
	if pre := r.Fit.Preemption; pre.Preempted > 0 {
		page.Facts = append(page.Facts, fmt.Sprintf("Preempted: %d pod(s) by %d pod(s) of higher priority", pre.Preempted, pre.Preemptors))
	}
	if pg := r.Fit.PodGroups; pg != nil {
		page.Facts = append(page.Facts, fmt.Sprintf("Pod groups: %d placed whole, %d not", pg.Placed, pg.NotPlaced))
	}

	charts := []struct {
		id, title, empty string
		draw             func(*analysis.Report) (*plot.Plot, vg.Length, bool, error)
	}{
		{ChartUtilization, "Utilization per node group", "No nodes.", utilizationPlot},
		{ChartFragmentation, "Fragmentation rate per DeviceClass", "No idle devices.", fragmentationPlot},
		{ChartHeadroom, "Headroom per shape", "No shapes in the mix.", headroomPlot},
		{ChartPrioritizedList, "Prioritized-list outcomes", "No request has firstAvailable alternatives.", prioritizedListPlot},
	}
	for _, c := range charts {
		pl, height, ok, err := c.draw(r)
		if err != nil {
			return fmt.Errorf("chart %s: %w", c.id, err)
		}
		ch := chart{ID: c.id, Title: c.title, Empty: c.empty}
		if ok {
			svg, err := renderSVG(pl, chartWidth(pl), height)
			if err != nil {
				return fmt.Errorf("chart %s: %w", c.id, err)
			}
			ch.SVG = svg
		}
		page.Charts = append(page.Charts, ch)
	}
	for i, res := range r.Resilience {
		pl, height, ok, err := resiliencePlot(res)
		if err != nil {
			return fmt.Errorf("chart %s-%d: %w", ChartResilience, i+1, err)
		}
		ch := chart{ID: fmt.Sprintf("%s-%d", ChartResilience, i+1), Title: "Pods stranded by the loss of one domain: " + analysis.ResilienceKey(res), Empty: "No domain's loss strands a pod."}
		if ok {
			if ch.SVG, err = renderSVG(pl, chartWidth(pl), height); err != nil {
				return fmt.Errorf("chart %s: %w", ch.ID, err)
			}
		}
		page.Charts = append(page.Charts, ch)
	}
	for _, s := range capacitySections(r) {
		page.Tables = append(page.Tables, htmlTable{Title: s.title, Intro: s.intro, Header: s.table.Header, Rows: s.table.Rows, Empty: s.empty})
	}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, page); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// renderSVG draws the plot and returns the <svg> element alone, without
// the XML declaration, which may only start a document.
func renderSVG(p *plot.Plot, width, height vg.Length) (template.HTML, error) {
	c := vgsvg.New(width, height)
	p.Draw(draw.New(c))
	return svgElement(c, p.Y.Tick.Label)
}

// svgElement returns the drawn canvas as its <svg> element, its texts
// fitted to the widths gonum laid them out with (fitTexts).
func svgElement(c *vgsvg.Canvas, base text.Style) (template.HTML, error) {
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", err
	}
	s := b.String()
	i := strings.Index(s, "<svg")
	if i < 0 {
		return "", fmt.Errorf("no <svg> element in the output of vgsvg")
	}
	// The SVG comes from gonum/plot, which escapes every text it draws.
	return template.HTML(fitTexts(strings.TrimSpace(s[i:]), base)), nil
}

// svgText matches one text element of vgsvg's output: its attributes, its
// font size and its (escaped) content.
var svgText = regexp.MustCompile(`<text ([^>]*font-size:([0-9.]+)px"?)>([^<]*)</text>`)

// fitTexts gives every text of a chart the width gonum laid it out with
// (textLength): gonum places each label from its left end with the
// metrics of Liberation Sans, and a browser without that font draws a
// wider one, which would run into the bars or off the chart. With
// textLength the browser fits the glyphs to the width the layout left.
func fitTexts(svg string, base text.Style) string {
	return svgText.ReplaceAllStringFunc(svg, func(m string) string {
		parts := svgText.FindStringSubmatch(m)
		size, err := strconv.ParseFloat(parts[2], 64)
		if err != nil {
			return m
		}
		sty := base
		sty.Font.Size = vg.Length(size)
		w := sty.Width(html.UnescapeString(parts[3]))
		if w <= 0 {
			return m
		}
		return fmt.Sprintf(`<text textLength="%.2f" lengthAdjust="spacingAndGlyphs" %s>%s</text>`, float64(w), parts[1], parts[3])
	})
}

// chartWidth leaves 4.5 inches of plot beside the widest label of the Y
// axis, and is at least 6 inches: a long group or shape name widens the
// chart rather than squeezing its bars (the page scales wide charts down).
func chartWidth(p *plot.Plot) vg.Length {
	return max(6*vg.Inch, widestYLabel(p)+4.5*vg.Inch)
}

func widestYLabel(p *plot.Plot) vg.Length {
	var widest vg.Length
	for _, t := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
		widest = max(widest, p.Y.Tick.Label.Width(t.Label))
	}
	return widest
}

// newPlot returns a plot with sans-serif text.
func newPlot(title string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	sans := func(f *text.Style) { f.Font.Variant = "Sans" }
	sans(&p.Title.TextStyle)
	sans(&p.X.Label.TextStyle)
	sans(&p.Y.Label.TextStyle)
	sans(&p.X.Tick.Label)
	sans(&p.Y.Tick.Label)
	sans(&p.Legend.TextStyle)
	// A top legend's first line would touch the chart's top edge, where a
	// browser font with a taller ascent than gonum's gets cut.
	p.Legend.YOffs = -vg.Points(6)
	return p
}

// barHeight sizes a horizontal bar chart to its number of bars.
func barHeight(bars int) vg.Length {
	return vg.Length(1.2+0.35*float64(bars)) * vg.Inch
}

// horizontalBars draws one bar per label, top to bottom in label order.
func horizontalBars(title, xLabel string, labels []string, values []float64, clr color.Color, xMax float64) (*plot.Plot, error) {
	p := newPlot(title)
	p.X.Label.Text = xLabel
	n := len(labels)
	// NominalY puts the first name at the bottom; reverse so the table's
	// order reads top down.
	names := make([]string, n)
	vals := make(plotter.Values, n)
	for i := range labels {
		names[n-1-i] = labels[i]
		vals[n-1-i] = values[i]
	}
	bars, err := plotter.NewBarChart(vals, vg.Points(14))
	if err != nil {
		return nil, err
	}
	bars.Horizontal = true
	bars.Color = clr
	bars.LineStyle.Width = 0
	p.Add(bars)
	p.NominalY(names...)
	p.X.Min = 0
	if xMax > 0 {
		p.X.Max = xMax
	}
	return p, nil
}

func utilizationPlot(r *analysis.Report) (*plot.Plot, vg.Length, bool, error) {
	groups := r.Utilization.Groups
	if len(groups) == 0 {
		return nil, 0, false, nil
	}
	// Horizontal bars: group names, however long, sit on the Y axis, which
	// gonum sizes to its widest label.
	p := newPlot("")
	p.X.Label.Text = "share in use (%)"
	// Room right of 100% for the legend.
	p.X.Min, p.X.Max = 0, 135
	p.X.Tick.Marker = plot.ConstantTicks(percentTicks())
	series := []struct {
		name  string
		value func(analysis.Usage) float64
	}{
		{"devices", func(u analysis.Usage) float64 { return u.Devices.Share }},
		{"CPU", func(u analysis.Usage) float64 { return u.CPU.Share }},
		{"memory", func(u analysis.Usage) float64 { return u.Memory.Share }},
	}
	width := vg.Points(9)
	n := len(groups)
	names := make([]string, n)
	for i, g := range groups {
		names[n-1-i] = g.Name
	}
	for si, s := range series {
		vals := make(plotter.Values, n)
		for i, g := range groups {
			vals[n-1-i] = s.value(g) * 100
		}
		bars, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return nil, 0, false, err
		}
		bars.Horizontal = true
		bars.Color = seriesColor(si)
		bars.LineStyle.Width = 0
		// The first series on top within each group.
		bars.Offset = vg.Length(1-si) * width
		p.Add(bars)
		p.Legend.Add(s.name, bars)
	}
	p.Legend.Top = true
	p.NominalY(names...)
	return p, vg.Length(1.2+0.45*float64(n))*vg.Inch + 0.6*vg.Inch, true, nil
}

func fragmentationPlot(r *analysis.Report) (*plot.Plot, vg.Length, bool, error) {
	var labels []string
	var values []float64
	for _, c := range r.Fragmentation.Classes {
		if c.IdleDevices == 0 {
			continue
		}
		labels = append(labels, c.Class)
		values = append(values, c.Rate*100)
	}
	if len(labels) == 0 {
		return nil, 0, false, nil
	}
	p, err := horizontalBars("", "fragmented idle devices (%)", labels, values, seriesColor(5), 100)
	return p, barHeight(len(labels)), err == nil, err
}

func headroomPlot(r *analysis.Report) (*plot.Plot, vg.Length, bool, error) {
	if len(r.Headroom) == 0 {
		return nil, 0, false, nil
	}
	labels := make([]string, len(r.Headroom))
	values := make([]float64, len(r.Headroom))
	for i, h := range r.Headroom {
		labels[i] = h.Shape
		if h.Capped {
			labels[i] += " (capped)"
		}
		values[i] = float64(h.Fits)
	}
	p, err := horizontalBars("", "more instances that fit", labels, values, seriesColor(2), 0)
	return p, barHeight(len(labels)), err == nil, err
}

func prioritizedListPlot(r *analysis.Report) (*plot.Plot, vg.Length, bool, error) {
	reqs := r.PrioritizedList.Requests
	if len(reqs) == 0 {
		return nil, 0, false, nil
	}
	maxAlts := 0
	for _, o := range reqs {
		maxAlts = max(maxAlts, len(o.Alternatives))
	}
	p := newPlot("")
	p.X.Label.Text = "claims"
	n := len(reqs)
	names := make([]string, n)
	for i, o := range reqs {
		names[n-1-i] = o.Workload + " " + o.Request
	}
	var below *plotter.BarChart
	add := func(name string, clr color.Color, value func(analysis.AlternativeOutcome) float64) error {
		vals := make(plotter.Values, n)
		for i, o := range reqs {
			vals[n-1-i] = value(o)
		}
		bars, err := plotter.NewBarChart(vals, vg.Points(14))
		if err != nil {
			return err
		}
		bars.Horizontal = true
		bars.Color = clr
		bars.LineStyle.Width = 0
		if below != nil {
			bars.StackOn(below)
		}
		below = bars
		p.Add(bars)
		p.Legend.Add(name, bars)
		return nil
	}
	for rank := 0; rank < maxAlts; rank++ {
		rank := rank
		err := add(ordinal(rank+1)+" choice", seriesColor(rank), func(o analysis.AlternativeOutcome) float64 {
			if rank < len(o.Allocated) {
				return float64(o.Allocated[rank])
			}
			return 0
		})
		if err != nil {
			return nil, 0, false, err
		}
	}
	if err := add("unallocated", unallocatedColor(), func(o analysis.AlternativeOutcome) float64 { return float64(o.Unallocated) }); err != nil {
		return nil, 0, false, err
	}
	p.Legend.Top = true
	p.NominalY(names...)
	// Room on the right for the legend.
	most := 0
	for _, o := range reqs {
		total := o.Unallocated
		for _, c := range o.Allocated {
			total += c
		}
		most = max(most, total)
	}
	p.X.Min, p.X.Max = 0, float64(most)*1.5
	return p, barHeight(n) + 0.8*vg.Inch, true, nil
}
