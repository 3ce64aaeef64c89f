package analysis

import (
	"fmt"
	"sort"

	"github.com/drasim/drasim/sim/dra"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/structured"
)

// largest finds, for a class, the most devices one claim can get on one
// schedulable node: the largest k for which the allocator allocates a
// claim for k devices of the class (allocationMode ExactCount) there.
//
// A dry cycle of a probe pod asking for one device (no CPU or memory,
// tolerating every taint) on the node classes with an idle device of the
// class finds the nodes where the pod's other filters pass and something
// of the class is free. For each of them largestOn finds k without
// asking the allocator to prove that k+1 do not fit, which on
// partitionable devices means trying every combination of partitions
// (docs/metrics.md, "Largest request per DeviceClass").
func (p *prober) largest(class string) (LargestRequest, error) {
	lr := LargestRequest{Class: class}
	avail := p.idleOfClass(class)
	for _, n := range avail {
		lr.Available += n
	}
	var candidates []string
	for _, c := range p.classes {
		if avail[c.rep] >= 1 {
			candidates = append(candidates, c.rep)
		}
	}
	if len(candidates) == 0 {
		return lr, nil
	}
	fits, _, err := p.feasible(p.largestProbe(class, 1), candidates)
	if err != nil {
		return lr, fmt.Errorf("largest request of class %s: %w", class, err)
	}
	perRep := map[string]int{}
	type unsure struct{ found, most int }
	var inexact []unsure
	for _, c := range p.classes {
		if !fits[c.rep] {
			continue
		}
		most := min(avail[c.rep], resourceapi.AllocationResultsMaxSize)
		n, exact, err := p.largestOn(class, c.rep, most)
		if err != nil {
			return lr, fmt.Errorf("largest request of class %s on node %s: %w", class, c.rep, err)
		}
		perRep[c.rep] = n
		lr.Devices = max(lr.Devices, n)
		if !exact {
			inexact = append(inexact, unsure{n, most})
		}
	}
	for _, u := range inexact {
		// A node whose count is only a lower bound leaves the answer open
		// if it might take more than the largest count found.
		if u.most > lr.Devices {
			lr.AtLeast = true
		}
	}
	if lr.Devices == 0 {
		return lr, nil
	}
	var nodes []string
	for _, c := range p.classes {
		if perRep[c.rep] >= lr.Devices {
			for _, m := range c.members {
				if !p.base.Node(m).Node().Spec.Unschedulable {
					nodes = append(nodes, m)
				}
			}
		}
	}
	sort.Strings(nodes)
	lr.Node = nodes[0]
	return lr, nil
}

// largestOn finds the most devices of the class one claim gets on the node
// (most at most: the node's idle devices of the class, and the allocator's
// limit of devices per claim), knowing that one fits.
//
// It counts the most idle devices of the class that fit together under
// the node's shared counters (maxPacking) and has the allocator confirm
// that a claim gets exactly those when they are the only free devices
// (dra.Among): a yes is a yes on the whole node. The count is then the
// answer when the allocator cannot use more than the counted devices: it
// reached most, or every device of the class is attached to one node and
// none on this node is a shared device in use (which the allocator may
// share further, outside the counters). When the allocator
// refuses the counted devices, some idle device is not the allocator's to
// give (a device taint, binding conditions, a feature gate): it keeps the
// devices the allocator gives one at a time and counts again.
//
// Where the count cannot be confirmed, the allocator's own search decides
// as before (a binary search over the count) when no device of the class
// consumes shared counters, which keeps it quick; otherwise largestOn
// returns the most it confirmed with exact false.
func (p *prober) largestOn(class, rep string, most int) (n int, exact bool, err error) {
	lower := 1
	if most <= lower {
		return lower, true, nil
	}
	node := p.base.Node(rep).Node()
	var devs []*device
	upper := !p.reachable(class)
	for _, d := range p.inv.byNode[rep] {
		if !d.classes[class] {
			continue
		}
		switch {
		case d.state == stateIdle:
			devs = append(devs, d)
		case d.state == stateAllocated && d.shared:
			upper = false
		}
	}
	sets := p.counterSets()
	pk := maxPacking(devs, sets, most)
	ok, known, err := p.confirm(node, class, pk)
	if err != nil {
		return 0, false, err
	}
	if known && !ok {
		// Some idle device is not the allocator's to give.
		if devs, err = p.eligible(node, class, devs); err != nil {
			return 0, false, err
		}
		pk = maxPacking(devs, sets, most)
		if ok, _, err = p.confirm(node, class, pk); err != nil {
			return 0, false, err
		}
	}
	if ok {
		lower = max(lower, len(pk.chosen))
		if lower == most || (pk.exact && upper) {
			return lower, true, nil
		}
	}
	if p.consumesCounters(class) {
		return lower, false, nil
	}
	lo, hi := lower, most
	for lo < hi {
		mid := (lo + hi + 1) / 2
		fits, _, err := p.feasible(p.largestProbe(class, mid), []string{rep})
		if err != nil {
			return 0, false, err
		}
		if fits[rep] {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo, true, nil
}

// confirm asks the allocator whether one claim gets the devices pk chose
// when they are the node's only free devices; known is false when there
// is nothing to ask (no count, or none chosen) or Among cannot answer.
func (p *prober) confirm(node *v1.Node, class string, pk packing) (ok, known bool, err error) {
	if !pk.modelled || len(pk.chosen) == 0 {
		return false, false, nil
	}
	return p.allocatesAmong(node, class, pk.chosen)
}

// eligible keeps the devices the allocator gives one at a time.
func (p *prober) eligible(node *v1.Node, class string, devs []*device) ([]*device, error) {
	var out []*device
	for _, d := range devs {
		ok, _, err := p.allocatesAmong(node, class, []*device{d})
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, d)
		}
	}
	return out, nil
}

// allocatesAmong asks the allocator whether one claim for the devices gets
// them on the node when they are its only free devices.
func (p *prober) allocatesAmong(node *v1.Node, class string, devs []*device) (ok, known bool, err error) {
	if p.among == nil {
		p.among = dra.NewAmong(p.eval.DRA())
	}
	keep := make(map[structured.DeviceID]bool, len(devs))
	for _, d := range devs {
		keep[structured.MakeDeviceID(d.key.Driver, d.key.Pool, d.key.Device)] = true
	}
	claim := largestClaim(p.nextName("drasim-largest")+"-devices", class, len(devs))
	return p.among.Allocates(p.ctx, node, []*resourceapi.ResourceClaim{claim}, func(id structured.DeviceID) bool { return keep[id] })
}

// counterSets indexes the inventory's counter sets by key.
func (p *prober) counterSets() map[counterSetKey]*counterSet {
	if p.sets == nil {
		p.sets = make(map[counterSetKey]*counterSet, len(p.inv.counterSets))
		for _, cs := range p.inv.counterSets {
			p.sets[cs.key] = cs
		}
	}
	return p.sets
}

// reachable reports whether some device of the class is not attached to
// one node (nodes reach it by selector, or all nodes do): the node's own
// devices are then not all the allocator can give it.
func (p *prober) reachable(class string) bool {
	for _, d := range p.inv.devices {
		if d.classes[class] && d.node == "" {
			return true
		}
	}
	return false
}

// consumesCounters reports whether some device of the class consumes
// shared counters.
func (p *prober) consumesCounters(class string) bool {
	for _, d := range p.inv.devices {
		if d.classes[class] && len(d.dev.ConsumesCounters) > 0 {
			return true
		}
	}
	return false
}

// idleOfClass counts each schedulable node's idle devices of the class.
func (p *prober) idleOfClass(class string) map[string]int {
	avail := map[string]int{}
	for _, ni := range p.base.Nodes() {
		node := ni.Node()
		if node.Spec.Unschedulable {
			continue
		}
		n := 0
		for _, d := range p.inv.byNode[node.Name] {
			if d.state == stateIdle && d.classes[class] {
				n++
			}
		}
		avail[node.Name] = n
	}
	return avail
}
