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
	s := w.s
	state, pod, candidates, classes := in.state, in.pod, in.candidates, in.classes
	n, want, start := len(candidates), in.want, in.start
	f := &filterResult{classes: classes}
	s.markCycle++
	if len(s.direct) < n {
		s.direct = make([]uint64, n)
	}
	diagnoser := s.diagnoser()
	// The cycle's working arrays are the scheduler's, reused from cycle
	// to cycle; nothing keeps them past the cycle.
	b := &s.buf
	// The feasible nodes' indexes are written in place (no more than
	// want are ever found), and handed to f with the nodes at the end.
	feasible, feasibleIdx := framework.Resize(&b.feasible, min(want, n)), framework.Resize(&b.feasibleIdx, min(want, n))
	found := 0
	f.diagnosed = b.diagnosed[:0]
	processed := 0
	slots := s.slots(classes)
	reps := b.reps[:0]           // candidate index of each slot's representative
	repStatus := b.repStatus[:0] // each slot's status
	nodes := b.slotNodes[:0]     // how many nodes each slot gave its outcome
	// What the walk needs of each distinct rejection, without reading
	// the status for every node it gives.
	type rejection struct{ potential, diagnosed bool }
	var rejectedInfo []rejection
	rejectedSlot := b.rejectedSlot
	if rejectedSlot == nil {
		rejectedSlot = map[*framework.Status]int32{}
		b.rejectedSlot = rejectedSlot
	}
	clear(rejectedSlot)
	walkClasses, entry, cycle := slots.classes, slots.entry, slots.cycle
	// special says whether a node with outcome out needs more than its
	// count: a failure, or a rejection that lists the node.
	special := func(out int32) bool {
		if out == outcomeFailed || out >= 0 && s.opts.KeepNodeStatuses {
			return true
		}
		if out < 0 {
			return false
		}
		r := rejectedInfo[out]
		return r.potential || r.diagnosed && len(f.diagnosed) < MaxDiagnosedNodes
	}
	defer func() {
		// The pointers are written once the walk is over, out of its
		// loop (each is a write barrier check).
		for j, i := range feasibleIdx[:found] {
			feasible[j] = candidates[i]
		}
		f.feasible, f.feasibleIdx, f.processed = feasible[:found], feasibleIdx[:found], processed
		f.rejectedNodes = make([]int, len(f.rejected))
		for k, c := range nodes {
			if o := entry[walkClasses[reps[k]]].out; o >= 0 {
				f.rejectedNodes[o] += int(c)
			}
		}
		b.reps, b.repStatus, b.slotNodes = reps, repStatus, nodes
		b.diagnosed = f.diagnosed
	}()
	// Batches of new classes grow from a few per worker (s.batches). One
	// worker gains nothing from a batch: it filters each new class as the
	// walk meets it, without looking ahead (the look-ahead goes over the
	// nodes the walk then hands out, most of them on a large cluster).
	chunk, maxChunk := s.batches()
	for i := start; processed < n && found < want; {
		// Most nodes are of classes met earlier in the cycle whose
		// nodes need only be counted: handOut takes them in one tight
		// loop, and stops at any other.
		left := n - processed
		i, left, found = handOut(walkClasses, entry, cycle, i, n, left, found, want, feasibleIdx, nodes)
		if processed = n - left; processed == n || found == want {
			break
		}
		e := &entry[walkClasses[i]]
		if e.stamp != cycle {
			// A class not met yet in this cycle: look ahead for up to
			// chunk new classes, giving each a slot, then filter the
			// new classes' representatives in parallel. Every class met
			// has its outcome in its entry from then on: on a large
			// cluster most of a cycle's nodes go that way.
			first := len(reps)
			reps = slots.visit(i, n, n-processed, chunk, want-found, reps)
			chunk = min(2*chunk, maxChunk)
			for range len(reps) - first {
				repStatus = append(repStatus, nil)
				nodes = append(nodes, 0)
			}
			if s.opts.Parallelism <= 1 || len(reps)-first == 1 {
				// One at a time, without the workers' closure (made
				// for every new class, and the lists it shares moved to
				// the heap: docs/performance.md).
				for k := first; k < len(reps); k++ {
					repStatus[k] = s.filterNode(ctx, state, pod, candidates[reps[k]])
				}
			} else {
				rs, rp := repStatus[first:], reps[first:]
				s.parallel(len(rp), func(k int) {
					rs[k] = s.filterNode(ctx, state, pod, candidates[rp[k]])
				})
			}
			for k := first; k < len(reps); k++ {
				st := repStatus[k]
				out := outcomeFeasible
				switch {
				case st.IsSuccess():
				case st.Code() == framework.Error:
					out = outcomeFailed
				default:
					// Plugins may return one status value for many nodes.
					r, seen := rejectedSlot[st]
					if !seen {
						r = int32(len(f.rejected))
						rejectedSlot[st] = r
						f.rejected = append(f.rejected, st)
						rejectedInfo = append(rejectedInfo, rejection{potential: st.Code() == framework.Unschedulable, diagnosed: diagnoser != "" && st.Plugin() == diagnoser})
					}
					out = r
				}
				re := &entry[walkClasses[reps[k]]]
				re.out, re.special = out, special(out)
				if out == outcomeFeasible {
					re.feasible = 1
				}
				s.direct[reps[k]] = s.markCycle
			}
			continue // handOut takes the node, or it is special
		}
		// A node that needs more than being counted.
		nodes[e.slot]++
		switch o := e.out; o {
		case outcomeFeasible:
			feasibleIdx[found] = i
			found++
		case outcomeFailed:
			// The failed node is not counted as processed: kube keeps
			// no status for it.
			return f, failedAt(repStatus[e.slot], candidates[i])
		default:
			r := rejectedInfo[o]
			if r.potential {
				f.potential = append(f.potential, candidates[i])
			}
			if r.diagnosed && len(f.diagnosed) < MaxDiagnosedNodes {
				f.diagnosed = append(f.diagnosed, candidates[i])
				if len(f.diagnosed) == MaxDiagnosedNodes {
					// The list is full: its rejections need no more
					// than their counts from now on.
					for _, rep := range reps {
						re := &entry[walkClasses[rep]]
						re.special = special(re.out)
					}
				}
			}
			if s.opts.KeepNodeStatuses {
				f.rejectedList = append(f.rejectedList, NodeResult{Node: candidates[i].Node().Name, Status: f.rejected[o]})
			}
		}
		processed++
		if i++; i == n {
			i = 0
		}
	}
	return f, nil
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
