package sweep

import (
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// SummaryKind is the kind of an aggregated sweep (drasim sweep report -o json).
const SummaryKind = "SweepSummary"

// MaxSeries bounds the lines of one chart: with more combinations of the
// other axes than this, a chart shows each value of its axis over all of
// them.
const MaxSeries = 6

// Stat is one metric over the successful runs of a group (a point's
// seeds, or every run with one value of an axis).
type Stat struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	// SD is the sample standard deviation (n-1 in the denominator), 0 for
	// one run.
	SD  float64 `json:"sd"`
	Min float64 `json:"min"`
	Max float64 `json:"max"`
	// CI95 is the half-width of the mean's 95% confidence interval:
	// Student's t quantile for n-1 degrees of freedom times SD/sqrt(n);
	// 0 for one run.
	CI95 float64 `json:"ci95"`
}

// NewStat summarizes values (gonum/stat).
func NewStat(values []float64) Stat {
	n := len(values)
	if n == 0 {
		return Stat{}
	}
	s := Stat{N: n, Min: floats.Min(values), Max: floats.Max(values)}
	if n == 1 {
		s.Mean = values[0]
		return s
	}
	s.Mean, s.SD = stat.MeanStdDev(values, nil)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
	s.CI95 = t * s.SD / math.Sqrt(float64(n))
	return s
}

// Summary is a sweep's rows aggregated over seeds: one entry per point,
// and the data of one chart per metric and axis.
type Summary struct {
	APIVersion string         `json:"apiVersion"`
	Kind       string         `json:"kind"`
	Name       string         `json:"name"`
	Command    string         `json:"command"`
	Axes       []HeaderAxis   `json:"axes"`
	Seeds      []int64        `json:"seeds"`
	Metrics    []HeaderMetric `json:"metrics"`
	// Runs is the plan's number of runs; Rows those with a row, Failed
	// those whose row has an error.
	Runs   int            `json:"runs"`
	Rows   int            `json:"rows"`
	Failed int            `json:"failed"`
	Points []PointSummary `json:"points"`
	Charts []Chart        `json:"charts"`
}

// PointSummary is one point over its seeds.
type PointSummary struct {
	// Values are the point's axis values, in axis order.
	Values []string `json:"values"`
	Runs   int      `json:"runs"`
	Failed int      `json:"failed"`
	// Stats holds one entry per metric.
	Stats []Stat `json:"stats"`
	// Seconds is the run time of the point's runs (N 0 without timing).
	Seconds Stat `json:"seconds"`
	// Errors are the point's distinct errors, in run order.
	Errors []string `json:"errors,omitempty"`
}

// Chart is one metric against one axis: a line per combination of the
// other axes' values (or, with more than MaxSeries, one over all of them),
// a point per value of the axis.
type Chart struct {
	Metric string   `json:"metric"`
	Axis   string   `json:"axis"`
	Series []Series `json:"series"`
}

// Series is one line of a chart: Stats[i] is at the axis' i-th value.
type Series struct {
	Label string `json:"label"`
	Stats []Stat `json:"stats"`
}

// Aggregate summarizes rows (in run order) of the sweep h describes. Rows
// with an error count as failed and add nothing to the statistics.
func Aggregate(h Header, rows []Row) *Summary {
	s := &Summary{APIVersion: APIVersion, Kind: SummaryKind, Name: h.Name, Command: h.Command, Axes: h.Axes, Seeds: h.Seeds, Metrics: h.Metrics, Runs: h.Runs, Rows: len(rows)}
	byPoint := map[string]int{}
	var pointRows [][]Row
	for _, r := range rows {
		if r.Failed() {
			s.Failed++
		}
		key := pointKey(r.Point)
		i, ok := byPoint[key]
		if !ok {
			i = len(s.Points)
			byPoint[key] = i
			s.Points = append(s.Points, PointSummary{Values: r.Point})
			pointRows = append(pointRows, nil)
		}
		pointRows[i] = append(pointRows[i], r)
	}
	for i := range s.Points {
		p := &s.Points[i]
		rs := pointRows[i]
		p.Runs = len(rs)
		seen := map[string]bool{}
		var secs []float64
		for _, r := range rs {
			if r.Seconds >= 0 {
				secs = append(secs, r.Seconds)
			}
			if r.Failed() {
				p.Failed++
				if !seen[r.Error] {
					seen[r.Error] = true
					p.Errors = append(p.Errors, r.Error)
				}
			}
		}
		p.Seconds = NewStat(secs)
		p.Stats = make([]Stat, len(h.Metrics))
		for m := range h.Metrics {
			p.Stats[m] = NewStat(metricValues(rs, m))
		}
	}
	// Points in axis-value order (the plan's order for a cross product).
	order := make([]int, len(s.Points))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return lessPoint(h.Axes, s.Points[order[a]].Values, s.Points[order[b]].Values) })
	sorted := make([]PointSummary, len(order))
	for i, j := range order {
		sorted[i] = s.Points[j]
	}
	s.Points = sorted
	for m := range h.Metrics {
		for a := range h.Axes {
			s.Charts = append(s.Charts, chartOf(h, rows, m, a))
		}
	}
	if s.Points == nil {
		s.Points = []PointSummary{}
	}
	if s.Charts == nil {
		s.Charts = []Chart{}
	}
	return s
}

// metricValues are metric m of the successful rows.
func metricValues(rows []Row, m int) []float64 {
	var out []float64
	for _, r := range rows {
		if !r.Failed() && r.Present[m] {
			out = append(out, r.Metrics[m])
		}
	}
	return out
}

// lessPoint orders points by the position of their values in the axes.
func lessPoint(axes []HeaderAxis, a, b []string) bool {
	for i, ax := range axes {
		ia, ib := indexOf(ax.Values, a[i]), indexOf(ax.Values, b[i])
		if ia != ib {
			return ia < ib
		}
	}
	return false
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return len(list)
}

// chartOf builds the chart of metric m against axis a.
func chartOf(h Header, rows []Row, m, a int) Chart {
	axis := h.Axes[a]
	c := Chart{Metric: h.Metrics[m].Name, Axis: axis.Name}
	// The other axes' combinations, in axis-value order.
	others := func(point []string) []string {
		out := make([]string, 0, len(point)-1)
		for i, v := range point {
			if i != a {
				out = append(out, v)
			}
		}
		return out
	}
	var otherAxes []HeaderAxis
	for i, ax := range h.Axes {
		if i != a {
			otherAxes = append(otherAxes, ax)
		}
	}
	combos := map[string][]string{}
	for _, r := range rows {
		o := others(r.Point)
		combos[pointKey(o)] = o
	}
	keys := make([]string, 0, len(combos))
	for k := range combos {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return lessPoint(otherAxes, combos[keys[i]], combos[keys[j]]) })
	marginal := len(keys) > MaxSeries
	if marginal {
		keys = []string{""}
	}
	for _, k := range keys {
		label := ""
		if !marginal {
			parts := make([]string, len(otherAxes))
			for i, ax := range otherAxes {
				parts[i] = ax.Name + "=" + ShownValue(combos[k][i])
			}
			label = strings.Join(parts, ", ")
		} else {
			label = "all other settings"
		}
		ser := Series{Label: label, Stats: make([]Stat, len(axis.Values))}
		for vi, v := range axis.Values {
			var sel []Row
			for _, r := range rows {
				if r.Point[a] == v && (marginal || pointKey(others(r.Point)) == k) {
					sel = append(sel, r)
				}
			}
			ser.Stats[vi] = NewStat(metricValues(sel, m))
		}
		c.Series = append(c.Series, ser)
	}
	return c
}

// ShownValue is how reports show an axis value: the empty value, which
// leaves the flag out, is the command's default.
func ShownValue(v string) string {
	if v == "" {
		return "(default)"
	}
	return v
}
