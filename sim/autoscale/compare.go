package autoscale

import (
	"fmt"
	"strings"

	"github.com/drasim/drasim/sim/result"
)

// ComparisonKind is the kind of a serialized comparison.
const ComparisonKind = "ScaleUpComparison"

// Comparison puts the plans of several expander chains for the same input
// side by side.
type Comparison struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Entries    []ComparisonEntry `json:"entries"`
}

// ComparisonEntry sums up one plan.
type ComparisonEntry struct {
	// Expanders is the chain, comma-separated.
	Expanders     string  `json:"expanders"`
	NodesAdded    int     `json:"nodesAdded"`
	CostPerHour   float64 `json:"costPerHour"`
	UnpricedNodes int     `json:"unpricedNodes,omitempty"`
	// ScaleUp is "group+N" per group that grows.
	ScaleUp string `json:"scaleUp"`
	Loops   int    `json:"loops"`
	// Scheduled counts the pods the replays placed (before and after the
	// scale-up); Pending the pods still pending.
	Scheduled int `json:"scheduled"`
	Pending   int `json:"pending"`
	// FirstChoiceShare is the share of allocated prioritized-list
	// requests that got their first alternative (nil: none allocated).
	FirstChoiceShare *float64   `json:"firstChoiceShare,omitempty"`
	FirstChoice      int        `json:"firstChoice"`
	PrioritizedList  int        `json:"prioritizedList"`
	Stop             StopReason `json:"stop"`
	// FragmentationAfter is the fragmentation rate of the idle devices
	// after the scale-up (docs/metrics.md), for the snapshot's own mix;
	// IdleDevicesAfter is how many devices it is over.
	FragmentationAfter *float64 `json:"fragmentationAfter,omitempty"`
	IdleDevicesAfter   int      `json:"idleDevicesAfter"`
}

// SetFragmentation records the fragmentation after the last added plan.
func (c *Comparison) SetFragmentation(rate float64, idle int) {
	if len(c.Entries) == 0 {
		return
	}
	e := &c.Entries[len(c.Entries)-1]
	e.FragmentationAfter, e.IdleDevicesAfter = &rate, idle
}

// NewComparison returns an empty comparison.
func NewComparison() *Comparison {
	return &Comparison{APIVersion: APIVersion, Kind: ComparisonKind, Entries: []ComparisonEntry{}}
}

// Add sums up a plan as one entry.
func (c *Comparison) Add(p *Plan) {
	e := ComparisonEntry{
		Expanders: strings.Join(p.Inputs.Expanders, ","), NodesAdded: p.NodesAdded, CostPerHour: p.CostPerHour,
		UnpricedNodes: p.UnpricedNodes, Loops: len(p.Loops), Stop: p.Stop.Reason,
	}
	var parts []string
	for _, su := range p.ScaleUp {
		parts = append(parts, fmt.Sprintf("%s+%d", su.Group, su.To-su.From))
	}
	e.ScaleUp = strings.Join(parts, ", ")
	if p.Result != nil {
		e.Scheduled = p.Result.Summary.Scheduled
		e.Pending = p.Result.Summary.Unschedulable
		e.FirstChoice, e.PrioritizedList = FirstChoice(p.Result)
		if e.PrioritizedList > 0 {
			share := float64(e.FirstChoice) / float64(e.PrioritizedList)
			e.FirstChoiceShare = &share
		}
	}
	c.Entries = append(c.Entries, e)
}

// FirstChoice counts the allocated requests with firstAvailable
// alternatives over every pod with a node, and those that got their first.
func FirstChoice(r *result.Result) (first, total int) {
	for _, p := range r.Pods {
		if p.Node == "" {
			continue
		}
		for _, c := range p.Claims {
			rank := map[string]int{}
			var order []string
			for _, d := range c.Devices {
				if d.AlternativeRank == 0 {
					continue
				}
				base, _, _ := strings.Cut(d.Request, "/")
				if _, seen := rank[base]; !seen {
					order = append(order, base)
				}
				rank[base] = d.AlternativeRank
			}
			for _, base := range order {
				total++
				if rank[base] == 1 {
					first++
				}
			}
		}
	}
	return first, total
}
