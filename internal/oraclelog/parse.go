package oraclelog

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// podGroupCandidate is the name kube's pod group preemption gives its one
// candidate, the whole cluster; it logs it where a pod's preemption logs
// the node.
const podGroupCandidate = "cluster"

// ParseSchedulerLog reduces a kube-scheduler -v=10 log to its cycles.
func ParseSchedulerLog(r io.Reader) (plugins []string, cycles []Cycle, err error) {
	p := &parser{
		pluginCol:    map[string]int{},
		latest:       map[string]*attempt{},
		lastCycle:    map[string]*attempt{},
		binding:      map[string]*attempt{},
		objNominated: map[string]string{},
		patched:      map[string]*string{},
		lastPatch:    map[string]string{},
		claimPods:    map[string][]string{},
		deleted:      map[string]bool{},
		rerunLatest:  map[string]*attempt{},
		lastGroup:    map[string]*attempt{},
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		l, ok := ParseLine(sc.Text())
		if !ok {
			continue
		}
		if err := p.line(l); err != nil {
			return nil, nil, fmt.Errorf("line %d: %w", line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	cycles = make([]Cycle, 0, len(p.cycles))
	for _, a := range p.cycles {
		c, err := p.finish(a)
		if err != nil {
			return nil, nil, err
		}
		cycles = append(cycles, c)
	}
	return p.plugins, cycles, nil
}

// attempt is a cycle while the log is read: a pod's scheduling attempt
// (a cycle of its own or a pod group cycle's member) or a pod group
// cycle. Scores wait until every plugin's column is known.
type attempt struct {
	Cycle
	members []*attempt
	rerun   []*attempt
	scores  []score
}

type score struct {
	node, plugin string
	v            int64
}

type parser struct {
	plugins   []string
	pluginCol map[string]int
	cycles    []*attempt
	// latest is each pod's latest attempt; lastCycle its latest cycle of
	// its own (where preemption is recorded).
	latest, lastCycle map[string]*attempt
	// group is the pod group cycle under way.
	group *attempt
	// binding are the pods whose binding is under way: their cycle chose
	// a node (a pod group's once the gang was placed) and the outcome is
	// still to come.
	binding map[string]*attempt
	// pending are the changes seen since the last cycle began.
	pending []Event
	// objNominated is each pod object's nominated node as the check
	// following the log sets it; patched the nominated node of a status
	// patch the informer has not delivered yet, lastPatch that of the
	// latest patch.
	objNominated map[string]string
	patched      map[string]*string
	lastPatch    map[string]string
	// claimPods are the pods whose PreFilter listed each claim; deleted
	// the pods that are gone.
	claimPods map[string][]string
	deleted   map[string]bool
	// rerunLatest is each pod's attempt in the open pod group cycle's
	// PodGroupPostFilter rerun; lastGroup each pod group's latest cycle
	// (where its preemption is recorded).
	rerunLatest map[string]*attempt
	lastGroup   map[string]*attempt
}

// inPostFilter reports whether a line comes from PodGroupPostFilter
// (DefaultPreemption reruns the pod group algorithm there; its lines
// carry the plugin's logger name).
func inPostFilter(l Line) bool {
	return strings.HasPrefix(l.KV["logger"], "PodGroupPostFilter")
}

// latestFor is the attempt a per-pod line belongs to: the rerun's when
// it comes from PodGroupPostFilter.
func (p *parser) latestFor(l Line) *attempt {
	if inPostFilter(l) {
		return p.rerunLatest[l.KV["pod"]]
	}
	return p.latest[l.KV["pod"]]
}

// line hands one log line to the step of the scheduler it records; lines
// of no interest are skipped.
func (p *parser) line(l Line) error {
	switch l.Msg {
	case "Attempting to schedule pod", "Attempting to schedule pod group", "Attempting to schedule a pod belonging to a pod group", "OpportunisticBatch provided node hint", "OpportunisticBatch set cycle state":
		return p.cycleLine(l)
	case "Plugin scored node for pod", "Calculated node's final score for pod":
		return p.scoreLine(l)
	case "Successfully bound pod to node", "Unable to schedule pod; no fit; waiting", "Unable to schedule pod belonging to a pod group; waiting", "Error scheduling pod; retrying":
		return p.outcomeLine(l)
	case "Updating pod condition and nominated node name", "Update event for unscheduled pod":
		return p.nominationLine(l)
	case "Successfully scheduled a pod group", "Unable to schedule a pod group", "Pod group is waiting for preemption", "Error scheduling pod group":
		return p.groupLine(l)
	case "Start the preemption asynchronously", "Preemptor Pod preempted victim Pod", "Victim Pod is already being deleted, skipping the API call for it":
		return p.preemptionLine(l)
	case "pod resource claims", "Delete event for scheduled pod", "Observed device deallocation":
		return p.lifecycleLine(l)
	}
	return nil
}

// cycleLine follows the start of a scheduling cycle, a pod's own or a
// pod group's, and the node hints of the opportunistic batch.
func (p *parser) cycleLine(l Line) error {
	pod := l.KV["pod"]
	switch l.Msg {
	case "Attempting to schedule pod":
		a := p.newCycle(Cycle{Pod: pod})
		p.latest[pod], p.lastCycle[pod] = a, a
	case "Attempting to schedule pod group":
		p.group = p.newCycle(Cycle{Group: l.KV["podGroup"]})
		p.lastGroup[p.group.Group] = p.group
		clear(p.rerunLatest)
	case "Attempting to schedule a pod belonging to a pod group":
		if p.group == nil || p.group.Group != l.KV["podGroup"] {
			return fmt.Errorf("pod %s: an attempt in pod group %s outside of that group's cycle", pod, l.KV["podGroup"])
		}
		m := &attempt{Cycle: Cycle{Pod: pod, Outcome: Unknown}}
		if inPostFilter(l) {
			p.group.rerun = append(p.group.rerun, m)
			p.rerunLatest[pod] = m
			return nil
		}
		p.group.members = append(p.group.members, m)
		p.latest[pod] = m
	case "OpportunisticBatch provided node hint":
		if a := p.latestFor(l); a != nil {
			a.Hinted = true
		}
	case "OpportunisticBatch set cycle state":
		a := p.latestFor(l)
		if a == nil {
			return nil
		}
		a.Chosen = l.KV["chosenNode"]
		if inPostFilter(l) {
			return nil
		}
		if p.group == nil || !p.isMember(pod) {
			// A pod's own cycle: what follows is its binding.
			p.binding[pod] = a
		}
	}
	return nil
}

// scoreLine records the per-plugin and final node scores of the latest
// attempt.
func (p *parser) scoreLine(l Line) error {
	pod := l.KV["pod"]
	switch l.Msg {
	case "Plugin scored node for pod":
		a := p.latestFor(l)
		if a == nil {
			return nil
		}
		v, err := strconv.ParseInt(l.KV["score"], 10, 64)
		if err != nil {
			return fmt.Errorf("pod %s: score %q: %w", pod, l.KV["score"], err)
		}
		plugin := l.KV["plugin"]
		if _, ok := p.pluginCol[plugin]; !ok {
			p.pluginCol[plugin] = len(p.plugins)
			p.plugins = append(p.plugins, plugin)
		}
		a.scores = append(a.scores, score{l.KV["node"], plugin, v})
	case "Calculated node's final score for pod":
		a := p.latestFor(l)
		if a == nil {
			return nil
		}
		v, err := strconv.ParseInt(l.KV["score"], 10, 64)
		if err != nil {
			return fmt.Errorf("pod %s: final score %q: %w", pod, l.KV["score"], err)
		}
		a.Order = append(a.Order, l.KV["node"])
		a.Totals = append(a.Totals, v)
	}
	return nil
}

// outcomeLine records how a pod's attempt ended: bound, unschedulable,
// or failed (in scheduling or in binding).
func (p *parser) outcomeLine(l Line) error {
	pod := l.KV["pod"]
	switch l.Msg {
	case "Successfully bound pod to node":
		a := p.binding[pod]
		if a == nil {
			a = p.latest[pod]
		}
		if a == nil {
			return nil
		}
		delete(p.binding, pod)
		a.Outcome, a.Node = Bound, l.KV["node"]
		a.Evaluated, _ = strconv.Atoi(l.KV["evaluatedNodes"])
		a.Feasible, _ = strconv.Atoi(l.KV["feasibleNodes"])
	case "Unable to schedule pod; no fit; waiting", "Unable to schedule pod belonging to a pod group; waiting":
		p.failed(pod, l, Unschedulable)
	case "Error scheduling pod; retrying":
		if a := p.binding[pod]; a != nil {
			delete(p.binding, pod)
			a.Outcome, a.Message = BindingFailed, l.KV["err"]
			// The object kube queues again is the informer's copy, with
			// the nominated node the binding cycle wrote as an
			// expectation (NominatedNodeNameForExpectation).
			p.pending = append(p.pending, Event{Kind: EventBindingFailed, Pod: pod, Node: p.lastPatch[pod], Message: l.KV["err"]})
			p.objNominated[pod] = p.lastPatch[pod]
			return nil
		}
		p.failed(pod, l, Error)
	}
	return nil
}

// nominationLine follows the nominated node name kube writes and the
// informer's copy of it coming back.
func (p *parser) nominationLine(l Line) error {
	pod := l.KV["pod"]
	switch l.Msg {
	case "Updating pod condition and nominated node name":
		node, ok := l.KV["nominatedNodeName"]
		if !ok {
			return nil
		}
		p.patched[pod], p.lastPatch[pod] = &node, node
		if p.binding[pod] != nil {
			return nil // a pod about to bind: kube's expectation, not a nomination
		}
		if a := p.latest[pod]; a != nil && (a.Outcome == Unschedulable || a.Outcome == Error) {
			a.Nominated = &node
			p.objNominated[pod] = node
		}
	case "Update event for unscheduled pod":
		node := p.patched[pod]
		if node == nil {
			return nil
		}
		delete(p.patched, pod)
		if p.objNominated[pod] != *node {
			p.objNominated[pod] = *node
			p.pending = append(p.pending, Event{Kind: EventNominatedSeen, Pod: pod, Node: *node})
		}
	}
	return nil
}

// groupLine closes a pod group's cycle.
func (p *parser) groupLine(l Line) error {
	switch l.Msg {
	case "Successfully scheduled a pod group":
		if g := p.closeGroup(l, Bound); g != nil {
			for _, m := range g.members {
				if m.Chosen != "" && m.Outcome == Unknown {
					p.binding[m.Pod] = m
				}
			}
		}
	case "Unable to schedule a pod group", "Pod group is waiting for preemption":
		p.closeGroup(l, Unschedulable)
	case "Error scheduling pod group":
		p.closeGroup(l, Error)
	}
	return nil
}

// preemptionLine records a preemption and its victims.
func (p *parser) preemptionLine(l Line) error {
	switch l.Msg {
	case "Start the preemption asynchronously":
		pre := p.preemption(l.KV["preemptor"], l.KV["node"])
		if pre == nil {
			return nil
		}
		p.pending = append(p.pending, Event{Kind: EventPreempting, Pod: l.KV["preemptor"], Node: l.KV["node"]})
	case "Preemptor Pod preempted victim Pod":
		if pre := p.preemption(l.KV["preemptor"], l.KV["node"]); pre != nil {
			pre.Victims = append(pre.Victims, l.KV["victim"])
		}
		p.pending = append(p.pending, Event{Kind: EventTerminating, Pod: l.KV["victim"], Preemptor: l.KV["preemptor"], Node: l.KV["node"]})
	case "Victim Pod is already being deleted, skipping the API call for it":
		if pre := p.preemption(l.KV["preemptor"], l.KV["node"]); pre != nil {
			pre.Victims = append(pre.Victims, l.KV["victim"])
		}
	}
	return nil
}

// lifecycleLine follows which pods own which claims, and the deletions
// and device deallocations that free room for pending pods.
func (p *parser) lifecycleLine(l Line) error {
	pod := l.KV["pod"]
	switch l.Msg {
	case "pod resource claims":
		for _, claim := range parseList(l.KV["resourceclaims"]) {
			if !slices.Contains(p.claimPods[claim], pod) {
				p.claimPods[claim] = append(p.claimPods[claim], pod)
			}
		}
	case "Delete event for scheduled pod":
		p.deleted[pod] = true
		p.pending = append(p.pending, Event{Kind: EventDeleted, Pod: pod})
	case "Observed device deallocation":
		claim := l.KV["claim"]
		if n := len(p.pending); n > 0 && p.pending[n-1].Kind == EventDeallocated && p.pending[n-1].Claim == claim {
			return nil // one line per device
		}
		ev := Event{Kind: EventDeallocated, Claim: claim}
		for _, owner := range p.claimPods[claim] {
			if p.deleted[owner] {
				ev.Pod = owner
			}
		}
		p.pending = append(p.pending, ev)
	}
	return nil
}

// parseList reads a klog list of quoted strings: ["a","b"].
func parseList(s string) []string {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	var out []string
	for _, item := range strings.Split(s, ",") {
		if v, err := strconv.Unquote(item); err == nil {
			out = append(out, v)
		}
	}
	return out
}

// newCycle starts a cycle; the changes seen since the last one precede it.
func (p *parser) newCycle(c Cycle) *attempt {
	c.Outcome, c.Before = Unknown, p.pending
	p.pending = nil
	a := &attempt{Cycle: c}
	p.cycles = append(p.cycles, a)
	return a
}

// isMember reports whether the pod is one of the open pod group cycle's.
func (p *parser) isMember(pod string) bool {
	for _, m := range p.group.members {
		if m.Pod == pod {
			return true
		}
	}
	return false
}

// failed records a pod's failure: a member of the pod group cycle under
// way (one it did not reach gets its place after those it tried), or the
// pod's own cycle.
func (p *parser) failed(pod string, l Line, outcome Outcome) {
	a := p.latest[pod]
	if g := p.group; g != nil && g.Group == l.KV["podGroup"] {
		a = nil
		for _, m := range g.members {
			if m.Pod == pod {
				a = m
			}
		}
		if a == nil {
			a = &attempt{Cycle: Cycle{Pod: pod, Unreached: true}}
			g.members = append(g.members, a)
			p.latest[pod] = a
		}
	}
	if a == nil {
		return
	}
	a.Outcome, a.Message = outcome, l.KV["err"]
}

func (p *parser) closeGroup(l Line, outcome Outcome) *attempt {
	g := p.group
	if g == nil || g.Group != l.KV["podGroup"] {
		return nil
	}
	p.group = nil
	g.Outcome, g.Message = outcome, l.KV["err"]
	return g
}

// preemption is the preemption record of the preemptor's latest cycle:
// a pod's, or, for the pod group preemption (kube's candidate is named
// "cluster"), a pod group's.
func (p *parser) preemption(preemptor, node string) *Preemption {
	a := p.lastCycle[preemptor]
	if g := p.lastGroup[preemptor]; g != nil && node == podGroupCandidate {
		a = g
	}
	if a == nil {
		return nil
	}
	if a.Preemption == nil {
		a.Preemption = &Preemption{Node: node}
	}
	return a.Preemption
}

// finish turns an attempt into its Cycle: scores become a matrix over
// (Order, plugins), members are finished in turn.
func (p *parser) finish(a *attempt) (Cycle, error) {
	c := a.Cycle
	if c.Preemption != nil {
		sort.Strings(c.Preemption.Victims)
	}
	for _, m := range a.rerun {
		mc, err := p.finish(m)
		if err != nil {
			return Cycle{}, err
		}
		c.Rerun = append(c.Rerun, mc)
	}
	for _, m := range a.members {
		mc, err := p.finish(m)
		if err != nil {
			return Cycle{}, err
		}
		c.Members = append(c.Members, mc)
	}
	if len(c.Order) == 0 {
		return c, nil
	}
	row := map[string]int{}
	for j, n := range c.Order {
		row[n] = j
	}
	c.Scores = make([][]int64, len(c.Order))
	for j := range c.Scores {
		c.Scores[j] = make([]int64, len(p.plugins))
	}
	for _, s := range a.scores {
		j, ok := row[s.node]
		if !ok {
			return Cycle{}, fmt.Errorf("pod %s: plugin %s scored node %s, which has no final score", c.Pod, s.plugin, s.node)
		}
		c.Scores[j][p.pluginCol[s.plugin]] = s.v
	}
	return c, nil
}
