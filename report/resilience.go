package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/drasim/drasim/sim/analysis"
	"github.com/drasim/drasim/sim/whatif"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// ChartResilience prefixes the IDs of the failure-domain charts in the
// HTML report (one per analysis: chart-resilience-1, -2, ...).
const ChartResilience = "chart-resilience"

// maxDomainRows bounds the worst-domains table and chart; every domain is
// in the JSON report.
const maxDomainRows = 15

// WriteResilienceTable writes the failure-domain analyses as tables, the
// worst domains first (drasim check prints them under the verdicts).
func WriteResilienceTable(w io.Writer, list []*whatif.Resilience) error {
	for _, s := range resilienceSections(list) {
		fmt.Fprintf(w, "\n%s\n%s\n", strings.ToUpper(s.title), s.intro)
		if err := s.table.Write(w); err != nil {
			return err
		}
	}
	return nil
}

// resilienceSections is one section per failure-domain analysis: the
// worst domains first.
func resilienceSections(list []*whatif.Resilience) []section {
	var out []section
	for _, r := range list {
		t := Table{Header: []string{"Domain", "Nodes", "Pods queued", "Stranded", "Max priority", "By priority", "Devices asked for"}}
		for i, l := range r.Losses {
			if i == maxDomainRows {
				break
			}
			maxPrio := "-"
			if l.Stranded > 0 {
				maxPrio = fmt.Sprint(l.MaxPriority)
			}
			t.Append(l.Domain, fmt.Sprint(l.Nodes), fmt.Sprint(l.Pods), fmt.Sprint(l.Stranded), maxPrio, prioritiesCell(l.Priorities), devicesAskedCell(l.MissingDevices))
		}
		intro := fmt.Sprintf("Each %s removed in turn, its pods replayed on the rest of the cluster: %d of %d domain(s) strand pods.", domainNoun(r), r.Stranding, r.Domains)
		if r.Spares > 0 {
			intro += fmt.Sprintf(" %d spare node(s) of %s added first.", r.Spares, r.SpareGroup)
		}
		if len(r.Losses) > maxDomainRows {
			intro += fmt.Sprintf(" The %d worst shown; all in -o json.", maxDomainRows)
		}
		out = append(out, section{title: "Failure domains: " + analysis.ResilienceKey(r), intro: intro, table: t, empty: "No domain."})
	}
	return out
}

func domainNoun(r *whatif.Resilience) string {
	if r.Domain == whatif.DomainNode {
		return "node"
	}
	return "value of " + r.Domain
}

func prioritiesCell(list []whatif.PriorityCount) string {
	if len(list) == 0 {
		return "-"
	}
	parts := make([]string, len(list))
	for i, p := range list {
		parts[i] = fmt.Sprintf("%d: %d", p.Priority, p.Pods)
	}
	return strings.Join(parts, ", ")
}

func devicesAskedCell(list []whatif.DeviceCount) string {
	if len(list) == 0 {
		return "-"
	}
	parts := make([]string, len(list))
	for i, d := range list {
		parts[i] = fmt.Sprintf("%d %s", d.Devices, d.Class)
	}
	return strings.Join(parts, ", ")
}

// resiliencePlot draws the stranded pods of the worst domains.
func resiliencePlot(r *whatif.Resilience) (*plot.Plot, vg.Length, bool, error) {
	var labels []string
	var values []float64
	for i, l := range r.Losses {
		if i == maxDomainRows || l.Stranded == 0 {
			break
		}
		labels = append(labels, l.Domain)
		values = append(values, float64(l.Stranded))
	}
	if len(labels) == 0 {
		return nil, 0, false, nil
	}
	p, err := horizontalBars("", "pods stranded when the domain is lost", labels, values, seriesColor(5), 0)
	return p, barHeight(len(labels)), err == nil, err
}
