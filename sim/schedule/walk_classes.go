package schedule

import (
	"context"

	"github.com/drasim/drasim/sim/framework"
)

// classWalk filters the first node of each class met, in parallel, and
// gives the other nodes of the class its status, in walk order.
type classWalk struct {
	s *Scheduler
}

func (w *classWalk) walk(ctx context.Context, in *walkInput) (*filterResult, error) {
	p := w.s.newClassPass(in)
	defer p.finish()
	n, want := len(in.candidates), in.want
	// Batches of new classes grow from a few per worker (s.batches). One
	// worker gains nothing from a batch: it filters each new class as the
	// walk meets it, without looking ahead (the look-ahead goes over the
	// nodes the walk then hands out, most of them on a large cluster).
	chunk, maxChunk := w.s.batches()
	for i := in.start; p.processed < n && p.found < want; {
		// Most nodes are of classes met earlier in the cycle whose
		// nodes need only be counted: handOut takes them in one tight
		// loop, and stops at any other.
		left := n - p.processed
		i, left, p.found = handOut(p.classes, p.entry, p.cycle, i, n, left, p.found, want, p.feasibleIdx, p.nodes)
		if p.processed = n - left; p.processed == n || p.found == want {
			break
		}
		e := &p.entry[p.classes[i]]
		if e.stamp != p.cycle {
			// A class not met yet in this cycle: look ahead for up to
			// chunk new classes, giving each a slot, then filter the
			// new classes' representatives in parallel. Every class met
			// has its outcome in its entry from then on: on a large
			// cluster most of a cycle's nodes go that way.
			p.filterNew(ctx, i, chunk)
			chunk = min(2*chunk, maxChunk)
			continue // handOut takes the node, or it is special
		}
		if err := p.takeSpecial(i, e); err != nil {
			return p.f, err
		}
		p.processed++
		if i++; i == n {
			i = 0
		}
	}
	return p.f, nil
}

// classPass is one class walk's state.
type classPass struct {
	s  *Scheduler
	in *walkInput
	f  *filterResult
	// diagnoser names the NodeDiagnoser.
	diagnoser string
	// The feasible nodes' indexes are written in place (no more than
	// want are ever found), and handed to f with the nodes at the end.
	feasible    []*framework.NodeInfo
	feasibleIdx []int
	found       int
	processed   int
	// The slot table's arrays.
	classes []uint32
	entry   []slotEntry
	cycle   uint32
	slots   *slotTable
	// reps: candidate index of each slot's representative, repStatus
	// each slot's status, nodes how many nodes each slot gave its
	// outcome.
	reps      []int
	repStatus []*framework.Status
	nodes     []int32
	// rejectedInfo is what the walk needs of each distinct rejection,
	// without reading the status for every node it gives; rejectedSlot
	// indexes them by status.
	rejectedInfo []rejectionInfo
	rejectedSlot map[*framework.Status]int32
}

type rejectionInfo struct{ potential, diagnosed bool }

// newClassPass readies a walk; the cycle's working arrays are the
// scheduler's, reused from cycle to cycle, and nothing keeps them past
// the cycle.
func (s *Scheduler) newClassPass(in *walkInput) *classPass {
	n := len(in.candidates)
	s.markCycle++
	if len(s.direct) < n {
		s.direct = make([]uint64, n)
	}
	b := &s.buf
	p := &classPass{s: s, in: in, f: &filterResult{classes: in.classes, diagnosed: b.diagnosed[:0]}, diagnoser: s.diagnoser(),
		feasible: framework.Resize(&b.feasible, min(in.want, n)), feasibleIdx: framework.Resize(&b.feasibleIdx, min(in.want, n)),
		reps: b.reps[:0], repStatus: b.repStatus[:0], nodes: b.slotNodes[:0]}
	if b.rejectedSlot == nil {
		b.rejectedSlot = map[*framework.Status]int32{}
	}
	p.rejectedSlot = b.rejectedSlot
	clear(p.rejectedSlot)
	p.slots = s.slots(in.classes)
	p.classes, p.entry, p.cycle = p.slots.classes, p.slots.entry, p.slots.cycle
	return p
}

// finish hands the outcome to f and the arrays back to the scheduler.
func (p *classPass) finish() {
	f, b := p.f, &p.s.buf
	// The pointers are written once the walk is over, out of its loop
	// (each is a write barrier check).
	for j, i := range p.feasibleIdx[:p.found] {
		p.feasible[j] = p.in.candidates[i]
	}
	f.feasible, f.feasibleIdx, f.processed = p.feasible[:p.found], p.feasibleIdx[:p.found], p.processed
	f.rejectedNodes = make([]int, len(f.rejected))
	for k, c := range p.nodes {
		if o := p.entry[p.classes[p.reps[k]]].out; o >= 0 {
			f.rejectedNodes[o] += int(c)
		}
	}
	b.reps, b.repStatus, b.slotNodes = p.reps, p.repStatus, p.nodes
	b.diagnosed = f.diagnosed
}

// special says whether a node with outcome out needs more than its
// count: a failure, or a rejection that lists the node.
func (p *classPass) special(out int32) bool {
	if out == outcomeFailed || out >= 0 && p.s.opts.KeepNodeStatuses {
		return true
	}
	if out < 0 {
		return false
	}
	r := p.rejectedInfo[out]
	return r.potential || r.diagnosed && len(p.f.diagnosed) < MaxDiagnosedNodes
}

// filterNew gives slots to up to chunk new classes from node i on and
// filters their representatives, in parallel.
func (p *classPass) filterNew(ctx context.Context, i, chunk int) {
	s, in, n := p.s, p.in, len(p.in.candidates)
	first := len(p.reps)
	p.reps = p.slots.visit(i, n, n-p.processed, chunk, in.want-p.found, p.reps)
	for range len(p.reps) - first {
		p.repStatus = append(p.repStatus, nil)
		p.nodes = append(p.nodes, 0)
	}
	if s.opts.Parallelism <= 1 || len(p.reps)-first == 1 {
		// One at a time, without the workers' closure (made for every
		// new class, and the lists it shares moved to the heap:
		// docs/performance.md).
		for k := first; k < len(p.reps); k++ {
			p.repStatus[k] = s.filterNode(ctx, in.state, in.pod, in.candidates[p.reps[k]])
		}
	} else {
		rs, rp := p.repStatus[first:], p.reps[first:]
		s.parallel(len(rp), func(k int) {
			rs[k] = s.filterNode(ctx, in.state, in.pod, in.candidates[rp[k]])
		})
	}
	for k := first; k < len(p.reps); k++ {
		out := p.outcome(p.repStatus[k])
		re := &p.entry[p.classes[p.reps[k]]]
		re.out, re.special = out, p.special(out)
		if out == outcomeFeasible {
			re.feasible = 1
		}
		s.direct[p.reps[k]] = s.markCycle
	}
}

// outcome is a slot's outcome for its status: feasible, failed, or the
// index of its rejection.
func (p *classPass) outcome(st *framework.Status) int32 {
	switch {
	case st.IsSuccess():
		return outcomeFeasible
	case st.Code() == framework.Error:
		return outcomeFailed
	}
	// Plugins may return one status value for many nodes.
	r, seen := p.rejectedSlot[st]
	if !seen {
		r = int32(len(p.f.rejected))
		p.rejectedSlot[st] = r
		p.f.rejected = append(p.f.rejected, st)
		p.rejectedInfo = append(p.rejectedInfo, rejectionInfo{potential: st.Code() == framework.Unschedulable,
			diagnosed: p.diagnoser != "" && st.Plugin() == p.diagnoser})
	}
	return r
}

// takeSpecial gives node i, whose class entry is e, a node that needs
// more than being counted, its outcome.
func (p *classPass) takeSpecial(i int, e *slotEntry) error {
	f, ni := p.f, p.in.candidates[i]
	p.nodes[e.slot]++
	switch o := e.out; o {
	case outcomeFeasible:
		p.feasibleIdx[p.found] = i
		p.found++
	case outcomeFailed:
		// The failed node is not counted as processed: kube keeps no
		// status for it.
		return failedAt(p.repStatus[e.slot], ni)
	default:
		r := p.rejectedInfo[o]
		if r.potential {
			f.potential = append(f.potential, ni)
		}
		if r.diagnosed && len(f.diagnosed) < MaxDiagnosedNodes {
			f.diagnosed = append(f.diagnosed, ni)
			if len(f.diagnosed) == MaxDiagnosedNodes {
				// The list is full: its rejections need no more than
				// their counts from now on.
				for _, rep := range p.reps {
					re := &p.entry[p.classes[rep]]
					re.special = p.special(re.out)
				}
			}
		}
		if p.s.opts.KeepNodeStatuses {
			f.rejectedList = append(f.rejectedList, NodeResult{Node: ni.Node().Name, Status: f.rejected[o]})
		}
	}
	return nil
}

// handOut gives the nodes from i on their classes' outcomes, in walk
// order, while their classes were met and filtered in this cycle and
// need nothing but counting (not special), for at most left nodes and
// until found reaches want. It returns where it stopped, how many nodes
// are left and how many feasible nodes are found. Feasible and rejected
// nodes follow each other in no pattern, so it takes no branch on the
// outcome: every node is written as the next feasible one and counted as
// found only if it is feasible, and counted for its slot, whose rejection
// counts its nodes at the end. This is the loop over every node a cycle
// visits.
func handOut(classes []uint32, entry []slotEntry, cycle uint32, i, n, left, found, want int, feasibleIdx []int, nodes []int32) (int, int, int) {
	for ; left > 0 && found < want; left-- {
		e := &entry[classes[i]]
		if e.stamp != cycle || e.special {
			break
		}
		feasibleIdx[found] = i
		found += int(e.feasible)
		nodes[e.slot]++
		if i++; i == n {
			i = 0
		}
	}
	return i, left, found
}

// Filter outcomes of a class slot besides an index into the rejections.
const (
	outcomeFeasible int32 = -1
	outcomeFailed   int32 = -2
	// outcomePending is a class met whose representative is not
	// filtered yet.
	outcomePending int32 = -3
)

// cycleBuffers are working arrays reused from cycle to cycle.
type cycleBuffers struct {
	feasible    []*framework.NodeInfo
	feasibleIdx []int
	reps        []int
	repStatus   []*framework.Status
	slotNodes   []int32
	firsts      []int
	scoreSlot   []int32
	scoreReps   []*framework.NodeInfo
	// diagnosed backs filterResult.diagnosed, which the cycle reads
	// before the next one.
	diagnosed []*framework.NodeInfo
	// rejectedSlot indexes the cycle's distinct rejection statuses.
	rejectedSlot map[*framework.Status]int32
	// score is RunScore's working arrays.
	score framework.ScoreBuffers
}

// slotTable maps the nodes of one cycle to dense class slots, in the
// order the classes are met.
type slotTable struct {
	classes []uint32
	// per class id: the cycle it was last met in, its slot then and the
	// slot's filter outcome, side by side (one memory access per node).
	entry []slotEntry
	cycle uint32
	next  int32
}

type slotEntry struct {
	stamp uint32
	slot  int32
	// The slot's filter outcome; feasible is 1 when it is
	// outcomeFeasible, special when a node of it needs more than being
	// counted (see filter).
	out      int32
	feasible uint16
	special  bool
}

// slots readies the table for a cycle over the classes.
func (s *Scheduler) slots(classes []uint32) *slotTable {
	t := &s.slotTab
	t.classes = classes
	t.next = 0
	m := s.classifier.numClasses()
	if len(classes) > 0 && classes[len(classes)-1] >= uint32(m) {
		// Ids the classifier did not give (tests set the classes):
		// up to the last node's.
		m = int(classes[len(classes)-1]) + 1
	}
	if len(t.entry) < m {
		t.entry = append(t.entry, make([]slotEntry, m-len(t.entry))...)
	}
	if t.cycle++; t.cycle == 0 {
		// The stamps wrapped around: forget them all.
		clear(t.entry)
		t.cycle = 1
	}
	return t
}

// classSlot returns class c's slot in this cycle, giving it the next one
// (isNew, its outcome pending) when the class has none yet. Small enough
// to be inlined in assignAll's loop. Every node reads the table, even
// when its class is the one of the node before it: the table is small
// and in cache, and a test against the last class, true or false in no
// pattern, costs more in mispredicted branches than the read
// (docs/performance.md).
func (t *slotTable) classSlot(c uint32) (slot int32, isNew bool) {
	e := &t.entry[c]
	if e.stamp == t.cycle {
		return e.slot, false
	}
	*e = slotEntry{stamp: t.cycle, slot: t.next, out: outcomePending}
	t.next++
	return e.slot, true
}

// visit gives slots to at most count nodes' classes from node i on,
// wrapping around at n, and stops after the node that brings the
// limit-th new slot, or after the need-th node of a class known to be
// feasible (from earlier batches): the filter pass stops there at the
// latest, and looking further would filter classes for nothing. It
// appends each new slot's first node to reps and returns them. This is
// the look-ahead of the filter walk; the walk itself then reads each
// node's outcome from the table.
func (t *slotTable) visit(i, n, count, limit, need int, reps []int) []int {
	newSlots, feasible := 0, 0
	for count > 0 && newSlots < limit && feasible < need {
		var known int
		i, known, feasible = t.countKnown(i, n, count, feasible, need)
		if count -= known; count == 0 || feasible >= need {
			break
		}
		t.entry[t.classes[i]] = slotEntry{stamp: t.cycle, slot: t.next, out: outcomePending}
		t.next++
		reps = append(reps, i)
		newSlots++
		count--
		if i++; i == n {
			i = 0
		}
	}
	return reps
}

// countKnown goes over at most count nodes from i on while their classes
// have slots in this cycle and feasible, which it adds the nodes of known
// feasible classes to, is below need. It returns where it stopped, the
// nodes it went over and feasible. No branch on the outcome (see
// handOut); a new slot's feasible is 0.
func (t *slotTable) countKnown(i, n, count, feasible, need int) (int, int, int) {
	classes, entry, cycle := t.classes, t.entry, t.cycle
	k := 0
	for ; k < count && feasible < need; k++ {
		e := &entry[classes[i]]
		if e.stamp != cycle {
			break
		}
		feasible += int(e.feasible)
		if i++; i == n {
			i = 0
		}
	}
	return i, k, feasible
}

// assignAll gives slots to the nodes idx (with classes), writing node
// idx[j]'s slot to slot[j], and appends to first each j whose node is the
// first of a new slot.
func (t *slotTable) assignAll(idx []int, slot []int32, first []int) []int {
	classes := t.classes
	for j, i := range idx {
		s, isNew := t.classSlot(classes[i])
		if isNew {
			first = append(first, j)
		}
		slot[j] = s
	}
	return first
}
