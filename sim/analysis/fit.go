package analysis

import (
	"fmt"
	"sort"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/result"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
)

func (c *PodCounts) add(phase string) {
	switch phase {
	case result.PhaseBound:
		c.Bound++
	case result.PhaseScheduled:
		c.Scheduled++
	case result.PhaseUnschedulable:
		c.Pending++
	case result.PhaseGated:
		c.Gated++
	case result.PhaseSkipped:
		c.Skipped++
	case result.PhasePreempted:
		c.Preempted++
	}
}

// preemptionOf counts the victims by priority class and the classes of
// the pods that preempted them.
func preemptionOf(res *result.Result) Preemption {
	p := Preemption{Classes: []PreemptedClass{}}
	className := func(pod *result.Pod) string {
		if pod.PriorityClass != "" {
			return pod.PriorityClass
		}
		return fmt.Sprintf("priority %d", pod.Priority)
	}
	byKey := map[string]*result.Pod{}
	// A gang preempts as a whole: its class is its pods'.
	byGroup := map[string]*result.Pod{}
	for i := range res.Pods {
		if p := &res.Pods[i]; p.PodGroup != "" && byGroup[p.Namespace+"/"+p.PodGroup] == nil {
			byGroup[p.Namespace+"/"+p.PodGroup] = p
		}
	}
	for i := range res.Pods {
		byKey[res.Pods[i].Key()] = &res.Pods[i]
	}
	index := map[string]int{}
	by := map[string]map[string]bool{}
	for i := range res.Pods {
		pod := &res.Pods[i]
		if pod.Preemption != nil {
			p.Preemptors++
		}
		class := className(pod)
		ci, ok := index[class]
		if !ok && pod.Phase == result.PhasePreempted {
			ci = len(p.Classes)
			index[class] = ci
			p.Classes = append(p.Classes, PreemptedClass{Class: class, Priority: pod.Priority, By: []string{}})
			by[class] = map[string]bool{}
			ok = true
		}
		if !ok {
			continue
		}
		if pod.Phase != result.PhasePreempted {
			continue
		}
		p.Preempted++
		p.Classes[ci].Preempted++
		if pod.PreemptedBy != nil {
			if pod.PreemptedBy.PDBViolation {
				p.PDBViolations++
			}
			preemptors := byKey
			if pod.PreemptedBy.PodGroup {
				preemptors = byGroup
			}
			if pre := preemptors[pod.PreemptedBy.Pod]; pre != nil {
				by[class][className(pre)] = true
			}
		}
	}
	// Pods of each losing class that ran or were placed (the victims
	// included), for scale.
	for i := range res.Pods {
		pod := &res.Pods[i]
		switch pod.Phase {
		case result.PhaseBound, result.PhaseScheduled, result.PhasePreempted:
			if ci, ok := index[className(pod)]; ok {
				p.Classes[ci].Pods++
			}
		}
	}
	for i := range p.Classes {
		c := &p.Classes[i]
		for name := range by[c.Class] {
			c.By = append(c.By, name)
		}
		sort.Strings(c.By)
	}
	sort.Slice(p.Classes, func(i, j int) bool {
		a, b := p.Classes[i], p.Classes[j]
		if a.Priority != b.Priority {
			return a.Priority > b.Priority
		}
		return a.Class < b.Class
	})
	return p
}

// podGroupsOf counts the result's pod groups; nil when there are none.
func podGroupsOf(res *result.Result) *PodGroupFit {
	if len(res.PodGroups) == 0 {
		return nil
	}
	f := &PodGroupFit{Groups: res.PodGroups}
	for i := range res.PodGroups {
		g := &res.PodGroups[i]
		switch {
		case g.Partial:
			f.Partial++
			f.NotPlaced++
		case g.NotPlaced():
			f.NotPlaced++
		default:
			f.Placed++
		}
	}
	return f
}

// fitOf counts the replay's pods by namespace and workload and groups the
// pending pods' rejections.
func fitOf(res *result.Result, wl *workloads) Fit {
	f := Fit{Namespaces: []NamespaceFit{}, Workloads: []WorkloadFit{}, PendingReasons: []PendingReason{}, Preemption: preemptionOf(res), PodGroups: podGroupsOf(res)}
	nsIndex := map[string]int{}
	type wlKey struct{ ns, workload string }
	wlIndex := map[wlKey]int{}
	type reasonKey struct{ plugin, reason string }
	reasonIndex := map[reasonKey]int{}
	for i := range res.Pods {
		p := &res.Pods[i]
		f.Pods.add(p.Phase)
		ni, ok := nsIndex[p.Namespace]
		if !ok {
			ni = len(f.Namespaces)
			nsIndex[p.Namespace] = ni
			f.Namespaces = append(f.Namespaces, NamespaceFit{Namespace: p.Namespace})
		}
		f.Namespaces[ni].add(p.Phase)
		k := wlKey{p.Namespace, wl.ofResult(p)}
		wi, ok := wlIndex[k]
		if !ok {
			wi = len(f.Workloads)
			wlIndex[k] = wi
			f.Workloads = append(f.Workloads, WorkloadFit{Namespace: k.ns, Workload: k.workload})
		}
		f.Workloads[wi].add(p.Phase)
		if p.Phase != result.PhaseUnschedulable {
			continue
		}
		seen := map[reasonKey]bool{}
		for _, r := range p.Reasons {
			rk := reasonKey{r.Plugin, r.Reason}
			ri, ok := reasonIndex[rk]
			if !ok {
				ri = len(f.PendingReasons)
				reasonIndex[rk] = ri
				f.PendingReasons = append(f.PendingReasons, PendingReason{Plugin: r.Plugin, Reason: r.Reason})
			}
			if !seen[rk] {
				seen[rk] = true
				f.PendingReasons[ri].Pods++
			}
			f.PendingReasons[ri].Nodes += r.Nodes
		}
	}
	sort.Slice(f.Namespaces, func(i, j int) bool { return f.Namespaces[i].Namespace < f.Namespaces[j].Namespace })
	sort.Slice(f.Workloads, func(i, j int) bool {
		a, b := f.Workloads[i], f.Workloads[j]
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Workload < b.Workload
	})
	sort.Slice(f.PendingReasons, func(i, j int) bool {
		a, b := f.PendingReasons[i], f.PendingReasons[j]
		if a.Pods != b.Pods {
			return a.Pods > b.Pods
		}
		if a.Nodes != b.Nodes {
			return a.Nodes > b.Nodes
		}
		if a.Plugin != b.Plugin {
			return a.Plugin < b.Plugin
		}
		return a.Reason < b.Reason
	})
	return f
}

// podRows lists every pod of the result, in the result's order.
func podRows(res *result.Result, wl *workloads) []Pod {
	out := make([]Pod, 0, len(res.Pods))
	for i := range res.Pods {
		p := &res.Pods[i]
		row := Pod{Namespace: p.Namespace, Name: p.Name, Workload: wl.ofResult(p), Phase: p.Phase, Node: p.Node}
		for _, c := range p.Claims {
			row.Devices += len(c.Devices)
		}
		if p.Phase == result.PhaseUnschedulable {
			best := -1
			for j, r := range p.Reasons {
				if best < 0 || r.Nodes > p.Reasons[best].Nodes {
					best = j
				}
			}
			if best >= 0 {
				row.Reason = p.Reasons[best].Plugin + ": " + p.Reasons[best].Reason
			}
		}
		out = append(out, row)
	}
	return out
}

// prioritizedListOf counts, for every request with firstAvailable
// alternatives, which alternative each claim got. A claim shared by
// several pods counts once, for the first of them.
func prioritizedListOf(run *sim.Run, wl *workloads) PrioritizedList {
	pl := PrioritizedList{Requests: []AlternativeOutcome{}}
	type outcomeKey struct{ ns, workload, template, request string }
	index := map[outcomeKey]int{}
	seen := map[string]bool{}
	for i := range run.Result.Pods {
		p := &run.Result.Pods[i]
		for _, rc := range p.Claims {
			if rc.PodClaimName == "" || seen[p.Namespace+"/"+rc.Name] {
				continue
			}
			seen[p.Namespace+"/"+rc.Name] = true
			claim, err := run.Cluster.DRA().Claim(p.Namespace, rc.Name)
			if err != nil {
				continue
			}
			template := rc.Template
			if template == "" {
				template = "claim/" + rc.Name
			}
			for _, req := range claim.Spec.Devices.Requests {
				if len(req.FirstAvailable) == 0 {
					continue
				}
				k := outcomeKey{p.Namespace, wl.ofResult(p), template, req.Name}
				oi, ok := index[k]
				if !ok {
					oi = len(pl.Requests)
					index[k] = oi
					o := AlternativeOutcome{Namespace: k.ns, Workload: k.workload, Template: k.template, Request: k.request, Alternatives: []string{}, Allocated: make([]int, len(req.FirstAvailable))}
					for _, sub := range req.FirstAvailable {
						o.Alternatives = append(o.Alternatives, sub.Name)
					}
					pl.Requests = append(pl.Requests, o)
				}
				o := &pl.Requests[oi]
				rank := 0
				for _, d := range rc.Devices {
					if d.AlternativeRank > 0 && resourceclaim.BaseRequestRef(d.Request) == req.Name {
						rank = d.AlternativeRank
						break
					}
				}
				switch {
				case rank > 0 && rank <= len(o.Allocated):
					o.Allocated[rank-1]++
				case claim.Status.Allocation == nil:
					o.Unallocated++
				}
			}
		}
	}
	sort.Slice(pl.Requests, func(i, j int) bool {
		a, b := pl.Requests[i], pl.Requests[j]
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		if a.Workload != b.Workload {
			return a.Workload < b.Workload
		}
		if a.Template != b.Template {
			return a.Template < b.Template
		}
		return a.Request < b.Request
	})
	for i := range pl.Requests {
		o := &pl.Requests[i]
		allocated := 0
		for _, n := range o.Allocated {
			allocated += n
		}
		o.FirstChoiceShare = firstChoiceShare(o.Allocated[0], allocated)
		pl.Allocated += allocated
		pl.FirstChoice += o.Allocated[0]
	}
	pl.FirstChoiceShare = firstChoiceShare(pl.FirstChoice, pl.Allocated)
	return pl
}

// firstChoiceShare is first/allocated, and 1 when nothing was allocated:
// no claim was turned down to a lesser choice.
func firstChoiceShare(first, allocated int) float64 {
	if allocated == 0 {
		return 1
	}
	return round4(float64(first) / float64(allocated))
}
