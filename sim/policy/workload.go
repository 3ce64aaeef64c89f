package policy

import (
	"fmt"
	"slices"
)

// DefaultPopularityThreshold is the share of pods, in percent, that FGD's
// typical shapes cover (the simulator's podPopularityThreshold in the
// paper's experiments).
const DefaultPopularityThreshold = 95

// Weighted is a shape and its share of the workload (0 to 1).
type Weighted struct {
	Shape Shape
	Freq  float64
}

// Workload is the distribution of request shapes FGD measures
// fragmentation against: the paper's "typical pods".
type Workload struct {
	// Shapes are the most popular shapes, most popular first, whose
	// frequencies sum to 1.
	Shapes []Weighted
	// Pods is the number of pods the distribution was computed from.
	Pods int
}

// NewWorkload computes the typical shapes as the simulator's
// GetTypicalPods does (CPU-only pods included, no extra weight for GPUs,
// popularity step 1): count the pods of each shape, sort by count (ties by
// CPU, then milli-GPU, then number of GPUs), take the most popular shapes
// until they cover threshold percent of the pods (0: 95), and renormalize
// their frequencies to sum to 1.
func NewWorkload(shapes []Shape, threshold int) (*Workload, error) {
	if threshold == 0 {
		threshold = DefaultPopularityThreshold
	}
	if threshold < 0 || threshold > 100 {
		return nil, fmt.Errorf("popularityThreshold: %d: not in valid range (0, 100]", threshold)
	}
	counts := map[Shape]int{}
	for _, s := range shapes {
		counts[s]++
	}
	w := &Workload{Pods: len(shapes)}
	if len(shapes) == 0 {
		return w, nil
	}
	for s, n := range counts {
		w.Shapes = append(w.Shapes, Weighted{Shape: s, Freq: float64(n)})
	}
	slices.SortFunc(w.Shapes, func(a, b Weighted) int {
		if a.Freq != b.Freq {
			if a.Freq > b.Freq {
				return -1
			}
			return 1
		}
		// The simulator sorts by (count, shape) and reverses: among equal
		// counts the larger shape comes first.
		return -compareShapes(a.Shape, b.Shape)
	})
	total := float64(len(shapes))
	want := float64(threshold) * total / 100
	var cum float64
	k := 0
	for k < len(w.Shapes) && cum < want {
		cum += w.Shapes[k].Freq
		k++
	}
	w.Shapes = w.Shapes[:k]
	for i := range w.Shapes {
		w.Shapes[i].Freq /= cum
	}
	return w, nil
}
