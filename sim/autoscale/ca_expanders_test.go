package autoscale

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drasim/drasim/internal/caoracle"
	"github.com/drasim/drasim/internal/golden"
	"github.com/drasim/drasim/sim"
)

// ownExpandersGolden compares drasim's own expanders with
// cluster-autoscaler's least-waste on every recorded case
// (docs/autoscaler.md quotes it).
const ownExpandersGolden = "testdata/ca/own-expanders.md"

// TestOwnExpandersAgainstCA runs least-waste-dra and first-available (with
// least-waste after it) on every case of the CA oracle next to least-waste
// (which TestCAOracle holds to the recorded CA; here it follows CA's
// recorded tie-breaks too) and
// writes what each adds and what it costs as a markdown table, a golden
// file (-update rewrites it).
func TestOwnExpandersAgainstCA(t *testing.T) {
	cases, err := caoracle.ReadCases(filepath.Join(caDir, "cases.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	fmt.Fprintln(&b, "| case | expander | scale-up | nodes | cost/h | pending | idle device units (estimates) | first choice |")
	fmt.Fprintln(&b, "| --- | --- | --- | --- | --- | --- | --- | --- |")
	differ := 0
	for _, c := range cases {
		rec, err := caoracle.ReadRecording(caoracle.Path(caDir, c.Name))
		if err != nil {
			t.Fatal(err)
		}
		var ca *caoracle.Outcome
		for _, r := range rec.Runs {
			if r.Expander == ExpanderLeastWaste {
				ca = &r.Variants[0]
			}
		}
		if ca == nil {
			t.Fatalf("case %s: no least-waste recording", c.Name)
		}
		prio := casePriorities(t, c)
		var rows []ownRow
		// first-available scores only pods with prioritized lists and ties
		// everywhere else: least-waste breaks its ties, so that the row shows
		// what first-available itself changes.
		for _, chain := range [][]string{{ExpanderLeastWaste}, {ExpanderLeastWasteDRA}, {ExpanderFirstAvailable, ExpanderLeastWaste}} {
			e := strings.Join(chain, ",")
			opts := Options{
				Expanders: chain, Priorities: prio,
				MaxNodesTotal: c.MaxNodesTotal, MaxNodesPerScaleUp: c.MaxNodesPerScaleUp, MaxLoops: c.Loops(),
				Sim: sim.Options{Seed: caoracle.DefaultSeed},
			}
			if e == ExpanderLeastWaste {
				// as the recorded CA broke least-waste's ties
				f := &followCA{}
				for _, l := range ca.Loops {
					f.picks = append(f.picks, l.Chosen)
				}
				opts.tieBreak = f
			}
			out, err := Run(context.Background(), loadScenario(t, c.Scenario), opts)
			if err != nil {
				t.Fatalf("case %s, %s: %v", c.Name, e, err)
			}
			rows = append(rows, ownRowOf(e, out.Plan))
		}
		for i, r := range rows {
			name, mark := "", ""
			if i == 0 {
				name = c.Name
			}
			if i > 0 && r.scaleUp != rows[0].scaleUp {
				mark = " **≠**"
				differ++
			}
			fmt.Fprintf(&b, "| %s | %s | %s%s | %d | %s | %d | %s | %s |\n", name, r.expander, r.scaleUp, mark, r.nodes, r.cost, r.pending, r.idle, r.first)
		}
	}
	fmt.Fprintf(&b, "\n%d of %d runs of drasim's own expanders grow other groups than CA's least-waste (**≠**).\n", differ, 2*len(cases))
	golden.Check(t, ownExpandersGolden, b.Bytes())
}

type ownRow struct {
	expander, scaleUp, cost, idle, first string
	nodes, pending                       int
}

func ownRowOf(expander string, p *Plan) ownRow {
	c := NewComparison()
	c.Add(p)
	e := c.Entries[0]
	r := ownRow{expander: expander, scaleUp: e.ScaleUp, nodes: e.NodesAdded, pending: e.Pending, cost: fmt.Sprintf("%.2f", e.CostPerHour), idle: "-", first: "-"}
	if r.scaleUp == "" {
		r.scaleUp = "none"
	}
	if e.UnpricedNodes > 0 {
		r.cost += fmt.Sprintf(" (+%d unpriced)", e.UnpricedNodes)
	}
	var units int
	var idle float64
	for _, l := range p.Loops {
		if l.Decision == nil {
			continue
		}
		for _, o := range l.Options {
			if o.Group == l.Decision.Chosen {
				units += o.Devices
				idle += o.IdleDevices
			}
		}
	}
	if units > 0 {
		r.idle = fmt.Sprintf("%g of %d", math.Round(idle*100)/100, units)
	}
	if e.FirstChoiceShare != nil {
		r.first = fmt.Sprintf("%d of %d", e.FirstChoice, e.PrioritizedList)
	}
	return r
}
