package policy

// Fragmentation, as the paper defines it (§3, and the simulator's
// NodeGpuShareFragAmount): the GPU capacity left on a node that a pod of
// the workload, drawn from its distribution of shapes, could not use,
// weighted by the shapes' frequencies.
//
// For each typical shape of frequency f, with T the milli-GPUs left on
// the node:
//   - a shape without GPUs counts all of T (GPUs are of no use to it);
//   - so does a shape none of the node's GPUs may serve (a GPU model it
//     does not accept: the simulator's "no access");
//   - a shape that fits (enough GPUs with its share left among those it
//     may use, and the CPU) counts the GPUs it could not use: those with
//     less than its share left, and those it may not use;
//   - a shape that does not fit counts all of T.
//
// access[k][g] says whether typical shape k may use GPU g (a nil row: it
// may use every GPU).
func Frag(milliCPULeft int64, left []int64, w *Workload, access [][]bool) float64 {
	var total int64
	for _, l := range left {
		total += l
	}
	if total == 0 || w == nil {
		return 0
	}
	var frag float64
	for k, ws := range w.Shapes {
		s := ws.Shape
		var row []bool
		if access != nil {
			row = access[k]
		}
		if s.GPUs == 0 || s.MilliGPU == 0 {
			frag += ws.Freq * float64(total)
			continue
		}
		anyAccess, fits := false, int64(0)
		var unusable int64
		for g, l := range left {
			if !selected(row, g) {
				unusable += l
				continue
			}
			anyAccess = true
			if l >= s.MilliGPU {
				fits++
			} else {
				unusable += l
			}
		}
		if anyAccess && fits >= s.GPUs && milliCPULeft >= s.MilliCPU {
			frag += ws.Freq * float64(unusable)
		} else {
			frag += ws.Freq * float64(total)
		}
	}
	return frag
}

// FGDScore is the paper's Fragmentation Gradient Descent score: the
// node's fragmentation before the pod minus after it, in GPUs, through a
// sigmoid onto [0, 100] (a node whose fragmentation the pod does not
// change scores 50). A share of one GPU is tried on every GPU that holds
// it, and the best is both the node's score and the GPU the pod gets (the
// first among equals); whole GPUs come off the least free GPUs that hold
// them (the fully free ones, first in device order). frag computes a
// node's fragmentation from its CPU and GPUs left.
func FGDScore(v View, s Shape, sel []bool, frag func(cpu int64, left []int64) float64) (int64, []int) {
	before := frag(v.MilliCPULeft, v.Left)
	score := func(after float64) int64 {
		return int64(sigmoid((before-after)/Milli) * maxScore)
	}
	if s.Share() {
		best, bestScore := -1, int64(0)
		next := make([]int64, len(v.Left))
		for g, l := range v.Left {
			if !selected(sel, g) || l < s.MilliGPU {
				continue
			}
			copy(next, v.Left)
			next[g] -= s.MilliGPU
			sc := score(frag(v.MilliCPULeft-s.MilliCPU, next))
			if best < 0 || sc > bestScore {
				best, bestScore = g, sc
			}
		}
		if best < 0 {
			return 0, nil
		}
		return bestScore, []int{best}
	}
	next := append([]int64(nil), v.Left...)
	cpu := v.MilliCPULeft
	if cpu >= s.MilliCPU {
		cpu -= s.MilliCPU
		want := s.GPUs
		for _, g := range ascending(v.Left) {
			if want == 0 {
				break
			}
			if selected(sel, g) && v.Left[g] >= s.MilliGPU {
				next[g] -= s.MilliGPU
				want--
			}
		}
		if want > 0 { // the simulator's Sub fails and leaves the node as it was
			next, cpu = v.Left, v.MilliCPULeft
		}
	}
	return score(frag(cpu, next)), exclusiveGPUs(v, s, sel)
}
