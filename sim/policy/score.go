package policy

import (
	"math"
	"slices"
)

// The simulator's normalization constants (open-gpu-share's MaxSpecCpu and
// MaxSpecGpu): the largest node of the Alibaba trace, 128 CPUs and 8 GPUs.
const (
	maxSpecMilliCPU = 128_000
	maxSpecMilliGPU = 8 * Milli
	maxScore        = 100
)

// View is one node as the policies see it: CPU left and capacity, and what
// is left of each GPU (in milli, in the allocator's device order).
type View struct {
	MilliCPULeft, MilliCPUCapacity int64
	Left                           []int64
}

// TotalLeft sums what is left of the node's GPUs.
func (v View) TotalLeft() int64 {
	var t int64
	for _, l := range v.Left {
		t += l
	}
	return t
}

func (v View) fullyFree() int64 {
	var n int64
	for _, l := range v.Left {
		if l == Milli {
			n++
		}
	}
	return n
}

// selected reports whether GPU g may serve the request (sel nil: every GPU).
func selected(sel []bool, g int) bool { return sel == nil || sel[g] }

func clampScore(s int64) int64 { return min(max(s, 0), maxScore) }

// DotProductScore is the simulator's DotProductScore with the paper's
// settings (dimExtMethod merge, normMethod max): the node's free vector
// (CPU left / 128 CPUs, GPU left / 8 GPUs) dotted with the pod's request
// vector on the same scales, halved, and scored 100·(1 − product): the
// node whose free resources align least with the request scores highest.
// A node without the CPU scores 0.
func DotProductScore(v View, s Shape) int64 {
	if v.MilliCPULeft < s.MilliCPU {
		return 0
	}
	dot := float64(v.MilliCPULeft)/maxSpecMilliCPU*float64(s.MilliCPU)/maxSpecMilliCPU +
		float64(v.TotalLeft())/maxSpecMilliGPU*float64(s.TotalMilliGPU())/maxSpecMilliGPU
	return clampScore(int64(maxScore * (1 - dot/2)))
}

// BestFitScore is the simulator's BestFitScore before normalization:
// 100·(1 − ½(CPU left after / 128 CPUs) − ½(GPU left after / 8 GPUs)),
// the tightest fit scoring highest. A node that cannot hold the request
// scores 0 (the simulator fails the pod's cycle there instead).
func BestFitScore(v View, s Shape) int64 {
	cpu, gpu := v.MilliCPULeft-s.MilliCPU, v.TotalLeft()-s.TotalMilliGPU()
	if cpu < 0 || gpu < 0 {
		return 0
	}
	score := float64(cpu)/maxSpecMilliCPU*0.5 + float64(gpu)/maxSpecMilliGPU*0.5
	return clampScore(int64((1 - score) * maxScore))
}

// NormalizeMinMax maps scores linearly onto [0, 100], lowest to 0 and
// highest to 100, all to 0 when they are equal (the simulator's
// NormalizeScore, which BestFitScore uses).
func NormalizeMinMax(scores []int64) {
	if len(scores) == 0 {
		return
	}
	lo, hi := slices.Min(scores), slices.Max(scores)
	for i, s := range scores {
		if hi == lo {
			scores[i] = 0
		} else {
			scores[i] = (s - lo) * maxScore / (hi - lo)
		}
	}
}

// GPUPackingScore is the simulator's GpuPackingScore: a pod without GPUs
// scores 0; on a node whose GPUs are all free, 33 − free GPUs (at least
// the number of free GPUs); when the pod must take fully free GPUs of a
// used node, 50 − how many (at least 33); when it fits on GPUs already
// shared, 100 − (their free percent summed)/10 (at least 50). GPUs are
// taken least free first.
func GPUPackingScore(v View, s Shape, sel []bool) int64 {
	if s.GPUs == 0 || s.MilliGPU <= 0 {
		return 0
	}
	free := v.fullyFree()
	if free == int64(len(v.Left)) {
		return clampScore(max(maxScore/3-free, free))
	}
	want := s.GPUs
	var fullToUse, freePercent int64
	for _, g := range ascending(v.Left) {
		if want == 0 {
			break
		}
		if !selected(sel, g) || v.Left[g] < s.MilliGPU {
			continue
		}
		want--
		if v.Left[g] == Milli {
			fullToUse++
		}
		freePercent += v.Left[g] * 100 / Milli
	}
	switch {
	case want != 0:
		return 0 // the simulator fails the pod's cycle here
	case fullToUse > 0:
		return clampScore(max(maxScore/2-fullToUse, maxScore/3))
	}
	return clampScore(max(maxScore-freePercent/10, maxScore/2))
}

// Tag is a pod's GPU kind for gpu-clustering: no GPU, a share of one, or
// a number of whole GPUs.
type Tag struct {
	GPUs  int64
	Share bool
}

// TagOf is the shape's tag; ok is false for a pod without GPUs.
func TagOf(s Shape) (Tag, bool) {
	if s.GPUs == 0 {
		return Tag{}, false
	}
	return Tag{GPUs: s.GPUs, Share: s.MilliGPU < Milli}, true
}

// GPUClusteringScore is the simulator's GpuClusteringScore: it puts pods
// of one GPU kind together. With b = 25·(8 GPUs − GPU left)/8 GPUs: 75 + b
// on a node whose GPU pods are all of the pod's kind, 50 + b when they
// include others, 25 + b on a node without GPU pods, b on a node with GPU
// pods of other kinds only; 0 for a pod without GPUs. tags are the kinds
// of the node's GPU pods.
func GPUClusteringScore(v View, s Shape, tags map[Tag]int) int64 {
	tag, ok := TagOf(s)
	if !ok {
		return 0
	}
	base := maxScore / 4 * (maxSpecMilliGPU - v.TotalLeft()) / maxSpecMilliGPU
	switch {
	case tags[tag] > 0 && len(tags) == 1:
		base += maxScore * 3 / 4
	case tags[tag] > 0:
		base += maxScore * 2 / 4
	case len(tags) == 0:
		base += maxScore / 4
	}
	return clampScore(base)
}

// ascending lists GPU indexes least free first, index order among equals
// (the simulator's SortedMilliGpuLeftIndexList).
func ascending(left []int64) []int {
	idx := make([]int, len(left))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case left[a] < left[b]:
			return -1
		case left[a] > left[b]:
			return 1
		}
		return 0
	})
	return idx
}

// BestFitGPUs is the simulator's "best" GPU choice: for a share, the
// least free GPU that holds it (the first among equals); for whole GPUs,
// the first fully free ones in device order. nil when none fits.
func BestFitGPUs(v View, s Shape, sel []bool) []int {
	if s.GPUs == 0 {
		return nil
	}
	if s.Share() {
		best := -1
		for g, l := range v.Left {
			if selected(sel, g) && l >= s.MilliGPU && (best < 0 || l < v.Left[best]) {
				best = g
			}
		}
		if best < 0 {
			return nil
		}
		return []int{best}
	}
	return exclusiveGPUs(v, s, sel)
}

// exclusiveGPUs is the simulator's AllocateExclusiveGpuId: the first
// fully free GPUs, in device order, for the pod's demand.
func exclusiveGPUs(v View, s Shape, sel []bool) []int {
	var out []int
	want := s.TotalMilliGPU()
	for g, l := range v.Left {
		if want <= 0 {
			break
		}
		if selected(sel, g) && l == Milli {
			out = append(out, g)
			want -= Milli
		}
	}
	if want > 0 {
		return nil
	}
	return out
}

// RandomGPUs is the simulator's "random" GPU choice: a share goes to a
// GPU drawn uniformly among those that hold it (reservoir sampling in
// device order, intn(n) drawing from [0, n)); whole GPUs are the first
// fully free ones.
func RandomGPUs(v View, s Shape, sel []bool, intn func(int) int) []int {
	if s.GPUs == 0 {
		return nil
	}
	if !s.Share() {
		return exclusiveGPUs(v, s, sel)
	}
	chosen, n := -1, 0
	for g, l := range v.Left {
		if selected(sel, g) && l >= s.MilliGPU {
			n++
			if intn(n) == 0 {
				chosen = g
			}
		}
	}
	if chosen < 0 {
		return nil
	}
	return []int{chosen}
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
