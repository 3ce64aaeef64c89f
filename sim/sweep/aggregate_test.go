package sweep

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestNewStat(t *testing.T) {
	// By hand: mean 2.5; deviations ±1.5, ±0.5 give a variance of
	// (2.25+0.25+0.25+2.25)/3 = 5/3, sd 1.29099; Student's t at 0.975 for
	// 3 degrees of freedom is 3.18245, so the CI half-width is
	// 3.18245 * 1.29099 / 2 = 2.05426.
	got := NewStat([]float64{4, 1, 3, 2})
	want := Stat{N: 4, Mean: 2.5, SD: 1.290994, Min: 1, Max: 4, CI95: 2.054260}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-6)); diff != "" {
		t.Errorf("stat of 1..4 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Stat{N: 1, Mean: 7, Min: 7, Max: 7}, NewStat([]float64{7})); diff != "" {
		t.Errorf("one value: no spread (-want +got):\n%s", diff)
	}
	if got := NewStat(nil); got != (Stat{}) {
		t.Errorf("no value: want the zero Stat, got %+v", got)
	}
}

func TestAggregate(t *testing.T) {
	h := Header{Name: "s", Runs: 7,
		Axes:    []HeaderAxis{{Name: "expander", Values: []string{"price", "random"}}, {Name: "load", Values: []string{"1", "2"}}},
		Seeds:   []int64{0, 1},
		Metrics: []HeaderMetric{{Name: "cost"}},
	}
	row := func(run int, exp, load string, cost float64, failed bool) Row {
		r := Row{Run: run, Point: []string{exp, load}, Metrics: []float64{cost}, Present: []bool{true}, Seconds: 0.5}
		if failed {
			r.Error, r.Present[0] = "boom", false
		}
		return r
	}
	rows := []Row{
		row(0, "price", "1", 2, false), row(1, "price", "1", 4, false),
		row(2, "price", "2", 10, false), row(3, "price", "2", 0, true),
		row(4, "random", "1", 6, false), row(5, "random", "1", 6, false),
		row(6, "random", "2", 20, false),
	}
	s := Aggregate(h, rows)
	if s.Rows != 7 || s.Failed != 1 || len(s.Points) != 4 {
		t.Fatalf("want 7 rows, 1 failed, 4 points; got %d, %d, %d", s.Rows, s.Failed, len(s.Points))
	}
	p := s.Points[1]
	if diff := cmp.Diff([]string{"price", "2"}, p.Values); diff != "" {
		t.Errorf("second point (-want +got):\n%s", diff)
	}
	if p.Runs != 2 || p.Failed != 1 || p.Stats[0].N != 1 || p.Stats[0].Mean != 10 || len(p.Errors) != 1 {
		t.Errorf("price/2: want 2 runs, 1 failed, cost 10 from the other; got %+v", p)
	}
	if got := s.Points[0].Stats[0]; got.Mean != 3 || got.N != 2 {
		t.Errorf("price/1: want mean 3 of 2 runs, got %+v", got)
	}
	// cost by expander: two series (load=1, load=2) of two values each.
	c := s.Charts[0]
	if c.Metric != "cost" || c.Axis != "expander" || len(c.Series) != 2 || c.Series[0].Label != "load=1" {
		t.Fatalf("first chart: want cost by expander with series load=1 and load=2, got %+v", c)
	}
	if got := c.Series[1].Stats[1].Mean; got != 20 {
		t.Errorf("cost at expander=random, load=2: want 20, got %v", got)
	}
	if got := c.Series[0].Stats[0].CI95; math.Abs(got-12.7062) > 1e-4 {
		// price/1 is 2 and 4: sd sqrt(2), t(0.975, 1) = 12.7062, half-width
		// 12.7062 * sqrt(2) / sqrt(2).
		t.Errorf("cost at expander=price, load=1: want a CI half-width of 12.7062, got %v", got)
	}
}
