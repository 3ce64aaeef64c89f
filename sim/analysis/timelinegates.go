package analysis

import (
	"errors"
	"fmt"
	"time"
)

// TimelineMeasures is what gates on a timeline read of it; sim/timeline
// provides them.
type TimelineMeasures interface {
	// Wait returns the nearest-rank percentile p of the waiting time of the
	// placed pods (of the workload and priority, when set), whether any
	// placed pod matched, and whether the timeline has the workload and
	// priority at all.
	Wait(p float64, workload string, priority *int32) (wait time.Duration, placed, known bool)
	// Cost returns the cost (of the group, when set) and whether the group
	// exists.
	Cost(group string) (float64, bool)
	// NeverPlaced counts the pods never placed (of the workload, when
	// set) and says whether the workload exists.
	NeverPlaced(workload string) (int, bool)
	// FirstChoiceShare is the share of prioritized-list requests that got
	// their first alternative (1 without any such request).
	FirstChoiceShare() float64
}

// EvaluateTimelineGates checks the gates against a timeline. Gates on
// capacity reports (pending pods, headroom, fragmentation, utilization)
// and ones that name a workload or group the timeline does not have are
// input errors, returned together; minFirstChoiceShare applies to both,
// over all workloads. A maxWait gate whose pods were none placed has
// nothing to measure and fails.
func EvaluateTimelineGates(g *Gates, m TimelineMeasures) ([]GateResult, error) {
	out := make([]GateResult, 0, len(g.Gates))
	var errs []error
	for i, gate := range g.Gates {
		r, err := evaluateTimelineGate(gate, m)
		if err != nil {
			errs = append(errs, &GatesError{File: g.File, Gate: gate.Name, Index: i, Msg: err.Error()})
			continue
		}
		r.Name = gate.Name
		out = append(out, r)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

func evaluateTimelineGate(gate Gate, m TimelineMeasures) (GateResult, error) {
	switch {
	case gate.MaxWait != nil:
		a := gate.MaxWait
		w, placed, known := m.Wait(a.Percentile, a.Workload, a.Priority)
		target := "all pods"
		switch {
		case a.Workload != "" && a.Priority != nil:
			target = fmt.Sprintf("workload %s, priority %d", a.Workload, *a.Priority)
		case a.Workload != "":
			target = "workload " + a.Workload
		case a.Priority != nil:
			target = fmt.Sprintf("priority %d", *a.Priority)
		}
		if !known {
			field, what := "workload", fmt.Sprintf("workload %q", a.Workload)
			if a.Priority != nil {
				field, what = "priority", target
			}
			return GateResult{}, fmt.Errorf("%s.%s: no %s in the timeline", GateMaxWait, field, what)
		}
		var measured *float64
		if placed {
			s := w.Seconds()
			measured = &s
		}
		return verdictOf(GateMaxWait, target, measured, "<=", a.Max.Seconds(), UnitSeconds, fmt.Sprintf("p%g wait", a.Percentile), "no placed pod"), nil
	case gate.MaxCost != nil:
		a := gate.MaxCost
		c, found := m.Cost(a.Group)
		if !found {
			return GateResult{}, fmt.Errorf("%s.group: no node group %q in the timeline", GateMaxCost, a.Group)
		}
		target := "all groups"
		if a.Group != "" {
			target = "group " + a.Group
		}
		return verdictOf(GateMaxCost, target, &c, "<=", *a.Max, UnitCost, "cost", ""), nil
	case gate.MaxNeverPlaced != nil:
		a := gate.MaxNeverPlaced
		n, found := m.NeverPlaced(a.Workload)
		if !found {
			return GateResult{}, fmt.Errorf("%s.workload: no workload %q in the timeline", GateMaxNeverPlaced, a.Workload)
		}
		target := "all pods"
		if a.Workload != "" {
			target = "workload " + a.Workload
		}
		return atMost(GateMaxNeverPlaced, target, float64(n), float64(*a.Max), "pods never placed"), nil
	case gate.MinFirstChoiceShare != nil && gate.MinFirstChoiceShare.Workload == "":
		return atLeast(GateMinFirstChoiceShare, "all workloads", m.FirstChoiceShare(), *gate.MinFirstChoiceShare.Min, "first-choice share"), nil
	}
	return GateResult{}, fmt.Errorf("%s is a gate on capacity reports (drasim check without --timeline); timelines take %s, %s, %s and %s without a workload",
		gate.types()[0], GateMaxWait, GateMaxCost, GateMaxNeverPlaced, GateMinFirstChoiceShare)
}
