package report

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/drasim/drasim/internal/golden"
	"github.com/drasim/drasim/sim/autoscale"
	"github.com/drasim/drasim/sim/load"
)

const scaleUpGoldenDir = "testdata/autoscale"

// scaleUpInputs are scenarios of scenarios/autoscale with the expander
// chain their golden files were recorded with.
var scaleUpInputs = []struct {
	name, scenario string
	expanders      []string
	priorities     bool
}{
	{name: "first-available", scenario: "first-available.yaml", expanders: []string{autoscale.ExpanderFirstAvailable}},
	{name: "match-attribute", scenario: "match-attribute.yaml", expanders: []string{autoscale.ExpanderRandom}},
	{name: "loops", scenario: "loops.yaml", expanders: []string{autoscale.ExpanderPriority, autoscale.ExpanderLeastWaste}, priorities: true},
}

func scaleUpPlan(t *testing.T, scenario string, expanders []string, priorities bool) *autoscale.Plan {
	t.Helper()
	dir := "../scenarios/autoscale"
	res, err := load.Load([]string{filepath.Join(dir, scenario)}, load.Options{})
	if err != nil {
		t.Fatalf("loading %s: want no error, got:\n%v", scenario, err)
	}
	opts := autoscale.Options{Expanders: expanders}
	if priorities {
		data, err := os.ReadFile(filepath.Join(dir, "config/priority-expander.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if opts.Priorities, err = autoscale.ParsePriorities(data); err != nil {
			t.Fatalf("priorities: want no error, got: %v", err)
		}
	}
	out, err := autoscale.Run(context.Background(), res.Snapshot, opts)
	if err != nil {
		t.Fatalf("autoscale.Run(%s): want no error, got: %v", scenario, err)
	}
	return out.Plan
}

func checkScaleUpGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	golden.Check(t, path, got)
}

func TestScaleUpRenderers(t *testing.T) {
	renderers := []struct {
		ext   string
		write func(io.Writer, *autoscale.Plan) error
	}{
		{"txt", WriteScaleUpTable},
		{"md", WriteScaleUpMarkdown},
		{"simulate.txt", WriteSimulateScaleUpTable},
	}
	for _, in := range scaleUpInputs {
		plan := scaleUpPlan(t, in.scenario, in.expanders, in.priorities)
		for _, r := range renderers {
			t.Run(in.name+"."+r.ext, func(t *testing.T) {
				var buf bytes.Buffer
				if err := r.write(&buf, plan); err != nil {
					t.Fatalf("render: want no error, got: %v", err)
				}
				checkScaleUpGolden(t, filepath.Join(scaleUpGoldenDir, in.name+".golden."+r.ext), buf.Bytes())
			})
		}
	}
}

func TestScaleUpComparison(t *testing.T) {
	cmp := autoscale.NewComparison()
	for _, e := range [][]string{{autoscale.ExpanderPrice}, {autoscale.ExpanderLeastWasteDRA}, {autoscale.ExpanderFirstAvailable}, {autoscale.ExpanderMostPods, autoscale.ExpanderLeastNodes}} {
		cmp.Add(scaleUpPlan(t, "first-available.yaml", e, false))
	}
	for _, r := range []struct {
		ext   string
		write func(io.Writer, *autoscale.Comparison) error
	}{{"txt", WriteScaleUpComparisonTable}, {"md", WriteScaleUpComparisonMarkdown}} {
		t.Run(r.ext, func(t *testing.T) {
			var buf bytes.Buffer
			if err := r.write(&buf, cmp); err != nil {
				t.Fatalf("render: want no error, got: %v", err)
			}
			checkScaleUpGolden(t, filepath.Join(scaleUpGoldenDir, "compare-first-available.golden."+r.ext), buf.Bytes())
		})
	}
}
