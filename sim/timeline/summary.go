package timeline

import (
	"math"
	"sort"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/schedule"
)

// Summary sums a timeline up.
type Summary struct {
	// Pods counts the pods followed (arrivals and the snapshot's pods);
	// Placed those bound at least once; Finished, Running, Pending (and
	// Preempted, below) their phase at the end; NeverPlaced the pods that waited to the
	// end without ever being bound.
	Pods        int `json:"pods"`
	Placed      int `json:"placed"`
	Finished    int `json:"finished"`
	Running     int `json:"running"`
	Pending     int `json:"pending"`
	NeverPlaced int `json:"neverPlaced"`
	Evictions   int `json:"evictions"`
	// Preemptions counts the pods preemption deleted (Preempted: those no
	// controller made again).
	Preemptions int `json:"preemptions"`
	Preempted   int `json:"preempted"`
	// Cycles counts scheduling cycles.
	Cycles int `json:"cycles"`
	// Wait is the waiting time of the pods that arrived pending and were
	// placed; ByWorkload and ByPriority split it.
	Wait       WaitStats `json:"wait"`
	ByWorkload []WaitRow `json:"byWorkload"`
	ByPriority []WaitRow `json:"byPriority"`
	// Groups are the node-hours and cost per node group.
	Groups     []GroupSummary `json:"groups"`
	NodeHours  float64        `json:"nodeHours"`
	Cost       float64        `json:"cost"`
	ScaleUps   int            `json:"scaleUps"`
	NodesAdded int            `json:"nodesAdded"`
	ScaleDowns int            `json:"scaleDowns"`
	// Alternatives counts the prioritized-list requests of placed pods by
	// the alternative they got (first, second, ...); FirstChoiceShare is
	// the first's share (nil without such requests).
	Alternatives     []int    `json:"alternatives"`
	FirstChoiceShare *float64 `json:"firstChoiceShare,omitempty"`
}

// WaitStats are percentiles of waiting times, nearest rank; nil (null in
// JSON) without a placed pod: a wait that never ended is not 0s.
type WaitStats struct {
	Pods int      `json:"pods"`
	P50  *Seconds `json:"p50"`
	P95  *Seconds `json:"p95"`
	P99  *Seconds `json:"p99"`
	Max  *Seconds `json:"max"`
	Mean *Seconds `json:"mean"`
}

// WaitRow is the wait of one workload or priority.
type WaitRow struct {
	Workload    string `json:"workload,omitempty"`
	Priority    *int32 `json:"priority,omitempty"`
	WaitStats   `json:",inline"`
	NeverPlaced int `json:"neverPlaced"`
}

// GroupSummary is what one node group cost.
type GroupSummary struct {
	Group      string  `json:"group"`
	NodeHours  float64 `json:"nodeHours"`
	Cost       float64 `json:"cost"`
	ScaleUps   int     `json:"scaleUps"`
	NodesAdded int     `json:"nodesAdded"`
	ScaleDowns int     `json:"scaleDowns"`
	MaxNodes   int     `json:"maxNodes"`
}

func roundCost(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// percentile is the nearest-rank percentile of sorted values.
func percentile(sorted []Seconds, p float64) Seconds {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func waitStats(waits []Seconds) WaitStats {
	sort.Slice(waits, func(i, j int) bool { return waits[i] < waits[j] })
	st := WaitStats{Pods: len(waits)}
	if len(waits) == 0 {
		return st
	}
	total := 0.0
	for _, w := range waits {
		total += float64(w)
	}
	p50, p95, p99 := percentile(waits, 50), percentile(waits, 95), percentile(waits, 99)
	largest, mean := waits[len(waits)-1], Seconds(math.Round(total/float64(len(waits))*1000)/1000)
	st.P50, st.P95, st.P99, st.Max, st.Mean = &p50, &p95, &p99, &largest, &mean
	return st
}

// finish closes the run at its end: pods still pending wait until then,
// billing stops, the summary is made.
func (e *engine) finish() *Result {
	if m := e.opts.Memo; m != nil {
		m.Hits, m.Misses = e.r.MemoStats()
	}
	for _, ps := range e.pods {
		if ps.rec != nil && ps.pod.Spec.NodeName == "" {
			ps.rec.Wait += secondsOf(e.now - ps.pendingSince)
		}
	}
	for _, name := range sortedKeys(e.billed) {
		e.stopBilling(name)
	}
	r := e.res
	// Selectors that failed on devices met during the run (new nodes,
	// samples): the allocator would fail claims there, so they are named.
	r.Warnings = append(r.Warnings, e.sampler.SelectorWarnings()...)
	if e.as != nil {
		r.Warnings = append(r.Warnings, e.as.SelectorWarnings()...)
	}
	r.Inputs = e.inputs()
	r.ProvisioningRequests = e.provReqRecords()
	for _, rec := range e.records {
		r.Pods = append(r.Pods, *rec)
	}
	r.Summary = e.summarize()
	return r
}

func (e *engine) inputs() Inputs {
	o := e.opts
	in := Inputs{
		Name: o.Name, Files: e.in.Files, KubernetesVersion: o.Sim.Release().String(), TieBreak: tieBreak(o.Sim.TieBreak), Seed: o.Sim.Seed, Start: o.Start,
		End: secondsOf(e.now), Resolution: secondsOf(o.Resolution), FragmentationEvery: secondsOf(o.FragmentationEvery),
		Arrivals: len(e.in.Arrivals), Nodes: len(e.in.Snapshot.Nodes), ScoringStrategy: scoringStrategy(o.Sim),
	}
	if o := e.c.NodeOrder(); o != cluster.NodeOrderName {
		in.NodeOrder = string(o)
	}
	if e.as != nil {
		a := &AutoscalerInputs{Expanders: o.Autoscale.Expanders, ScanInterval: secondsOf(o.ScanInterval),
			MaxNodesTotal: o.Autoscale.MaxNodesTotal, MaxNodesPerScaleUp: o.Autoscale.MaxNodesPerScaleUp}
		if len(a.Expanders) == 0 {
			a.Expanders = []string{"random"}
		}
		if a.MaxNodesPerScaleUp == 0 {
			a.MaxNodesPerScaleUp = 1000
		}
		if sd := o.ScaleDown; sd.Enabled {
			a.ScaleDown = &ScaleDownInputs{UnneededTime: secondsOf(sd.UnneededTime), UtilizationThreshold: sd.UtilizationThreshold,
				DelayAfterAdd: secondsOf(sd.DelayAfterAdd), DelayAfterDelete: secondsOf(sd.DelayAfterDelete),
				MaxParallelism: sd.MaxParallelism, MaxDrainParallelism: sd.MaxDrainParallelism}
		}
		a.Groups = append(a.Groups, e.initialGroups...)
		in.Autoscaler = a
	}
	return in
}

func scoringStrategy(o sim.Options) string {
	if s := o.Plugins.NodeResourcesFit.ScoringStrategy; s != nil && s.Type != "" {
		return string(s.Type)
	}
	return "LeastAllocated"
}

func (e *engine) summarize() Summary {
	s := Summary{Cycles: e.cycles, Alternatives: append([]int{}, e.alternates...), ScaleUps: len(e.res.ScaleUps), ScaleDowns: len(e.res.ScaleDowns)}
	var all []Seconds
	byWorkload := map[string][]Seconds{}
	byPrio := map[int32][]Seconds{}
	neverW := map[string]int{}
	neverP := map[int32]int{}
	workloads := map[string]bool{}
	prios := map[int32]bool{}
	for _, rec := range e.res.Pods {
		s.Pods++
		s.Evictions += rec.Evictions
		s.Preemptions += rec.Preemptions
		switch rec.Phase {
		case PhasePreempted:
			s.Preempted++
		case PhaseFinished:
			s.Finished++
		case PhaseRunning:
			s.Running++
		case PhasePending:
			s.Pending++
		}
		if placed(&rec) {
			s.Placed++
		} else {
			workloads[rec.Workload], prios[rec.Priority] = true, true
			s.NeverPlaced++
			neverW[rec.Workload]++
			neverP[rec.Priority]++
			continue
		}
		if !waited(&rec) {
			continue // running at the start: no wait to speak of
		}
		workloads[rec.Workload], prios[rec.Priority] = true, true
		all = append(all, rec.Wait)
		byWorkload[rec.Workload] = append(byWorkload[rec.Workload], rec.Wait)
		byPrio[rec.Priority] = append(byPrio[rec.Priority], rec.Wait)
	}
	s.Wait = waitStats(all)
	s.ByWorkload, s.ByPriority = []WaitRow{}, []WaitRow{}
	for _, w := range sortedKeys(workloads) {
		s.ByWorkload = append(s.ByWorkload, WaitRow{Workload: w, WaitStats: waitStats(byWorkload[w]), NeverPlaced: neverW[w]})
	}
	var plist []int32
	for p := range prios {
		plist = append(plist, p)
	}
	sort.Slice(plist, func(i, j int) bool { return plist[i] > plist[j] })
	for _, p := range plist {
		p := p
		s.ByPriority = append(s.ByPriority, WaitRow{Priority: &p, WaitStats: waitStats(byPrio[p]), NeverPlaced: neverP[p]})
	}
	e.summarizeGroups(&s)
	s.NodeHours, s.Cost = roundCost(s.NodeHours), roundCost(s.Cost)
	total := 0
	for _, n := range s.Alternatives {
		total += n
	}
	if total > 0 {
		share := math.Round(float64(s.Alternatives[0])/float64(total)*1e4) / 1e4
		s.FirstChoiceShare = &share
	}
	return s
}

// summarizeGroups fills the node groups of the summary: hours and cost
// from billing, scale actions from the records, the largest size from the
// series, and the totals over the groups.
func (e *engine) summarizeGroups(s *Summary) {
	groups := map[string]*GroupSummary{}
	get := func(name string) *GroupSummary {
		if groups[name] == nil {
			groups[name] = &GroupSummary{Group: name}
		}
		return groups[name]
	}
	for name, h := range e.nodeHours {
		g := get(name)
		g.NodeHours = roundCost(h)
		g.Cost = roundCost(e.groupCost[name])
	}
	for _, su := range e.res.ScaleUps {
		g := get(su.Group)
		g.ScaleUps++
		g.NodesAdded += len(su.Nodes)
		s.NodesAdded += len(su.Nodes)
	}
	for _, sd := range e.res.ScaleDowns {
		get(sd.Group).ScaleDowns++
	}
	for _, smp := range e.res.Series {
		for _, gc := range smp.Nodes {
			g := get(gc.Group)
			g.MaxNodes = max(g.MaxNodes, gc.Nodes)
		}
	}
	s.Groups = []GroupSummary{}
	for _, name := range sortedKeys(groups) {
		g := groups[name]
		s.Groups = append(s.Groups, *g)
		s.NodeHours += g.NodeHours
		s.Cost += g.Cost
	}
}

// tieBreak names the scheduler's tie-break as drasim simulate's result
// does.
func tieBreak(t schedule.TieBreak) string {
	if t == schedule.TieBreakRandom || t == schedule.TieBreakName {
		return string(t)
	}
	return string(schedule.TieBreakKube)
}
