package timeline

import (
	"slices"
	"sort"
	"time"

	"github.com/drasim/drasim/sim/analysis"
)

// Measures returns what gates read of the timeline
// (analysis.EvaluateTimelineGates).
func (r *Result) Measures() analysis.TimelineMeasures { return measures{r} }

type measures struct{ r *Result }

var _ analysis.TimelineMeasures = measures{}

// placed reports whether the pod was bound at some time.
func placed(p *PodRecord) bool {
	return p.Bound != nil || p.Finished != nil || p.Evictions > 0 || p.Preemptions > 0
}

// waited reports whether the pod arrived pending and was placed: its wait
// counts in the waiting times.
func waited(p *PodRecord) bool { return placed(p) && (p.Attempts > 0 || p.Arrival > 0) }

func (m measures) Wait(p float64, workload string, priority *int32) (wait time.Duration, placed, known bool) {
	var waits []Seconds
	for i := range m.r.Pods {
		rec := &m.r.Pods[i]
		if !waited(rec) || (workload != "" && rec.Workload != workload) || (priority != nil && rec.Priority != *priority) {
			continue
		}
		waits = append(waits, rec.Wait)
	}
	sort.Slice(waits, func(i, j int) bool { return waits[i] < waits[j] })
	return percentile(waits, p).Duration(), len(waits) > 0, m.known(workload, priority)
}

// known reports whether the timeline followed pods of the workload and of
// the priority (each when set).
func (m measures) known(workload string, priority *int32) bool {
	if workload != "" && !slices.ContainsFunc(m.r.Summary.ByWorkload, func(w WaitRow) bool { return w.Workload == workload }) {
		return false
	}
	return priority == nil || slices.ContainsFunc(m.r.Summary.ByPriority, func(w WaitRow) bool { return w.Priority != nil && *w.Priority == *priority })
}

func (m measures) Cost(group string) (float64, bool) {
	if group == "" {
		return m.r.Summary.Cost, true
	}
	for _, g := range m.r.Summary.Groups {
		if g.Group == group {
			return g.Cost, true
		}
	}
	return 0, false
}

func (m measures) NeverPlaced(workload string) (int, bool) {
	if workload == "" {
		return m.r.Summary.NeverPlaced, true
	}
	for _, w := range m.r.Summary.ByWorkload {
		if w.Workload == workload {
			return w.NeverPlaced, true
		}
	}
	return 0, false
}

func (m measures) FirstChoiceShare() float64 {
	if s := m.r.Summary.FirstChoiceShare; s != nil {
		return *s
	}
	return 1
}
