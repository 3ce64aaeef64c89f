package fill

import (
	"fmt"

	"github.com/drasim/drasim/sim/sweep"
)

// MeanCurve is a policy's curve over several seeds: at each percent of
// arrived capacity, the mean and the half-width of its 95% confidence
// interval (Student's t, as a sweep's statistics).
type MeanCurve struct {
	Policy string      `json:"policy"`
	Runs   int         `json:"runs"`
	Points []MeanPoint `json:"points"`
}

// MeanPoint is one percent of a MeanCurve; N counts the seeds with a
// point there.
type MeanPoint struct {
	Arrived           int     `json:"arrived"`
	N                 int     `json:"n"`
	Allocation        float64 `json:"allocation"`
	AllocationCI95    float64 `json:"allocationCI95"`
	Fragmentation     float64 `json:"fragmentation"`
	FragmentationCI95 float64 `json:"fragmentationCI95"`
}

// means averages the curves of each policy over the seeds.
func means(curves []Curve, policies []string) []MeanCurve {
	var out []MeanCurve
	for _, p := range policies {
		alloc, frag := map[int][]float64{}, map[int][]float64{}
		last, runs := -1, 0
		for _, c := range curves {
			if c.Policy != p {
				continue
			}
			runs++
			for _, pt := range c.Points {
				alloc[pt.Arrived] = append(alloc[pt.Arrived], pt.Allocation)
				frag[pt.Arrived] = append(frag[pt.Arrived], pt.Fragmentation)
				last = max(last, pt.Arrived)
			}
		}
		m := MeanCurve{Policy: p, Runs: runs}
		for k := 0; k <= last; k++ {
			if len(alloc[k]) == 0 {
				continue
			}
			a, f := sweep.NewStat(alloc[k]), sweep.NewStat(frag[k])
			m.Points = append(m.Points, MeanPoint{Arrived: k, N: a.N, Allocation: round(a.Mean, 3), AllocationCI95: round(a.CI95, 3),
				Fragmentation: round(f.Mean, 3), FragmentationCI95: round(f.CI95, 3)})
		}
		out = append(out, m)
	}
	return out
}

// Merge joins results of the same experiment run apart (policies or seeds
// in separate processes): their curves in order, the seeds of all, and
// the means again over every curve of a policy. The results must agree
// on the target, the order and the cluster's capacity.
func Merge(results ...*Result) (*Result, error) {
	if len(results) == 0 {
		return nil, fmt.Errorf("no results to merge")
	}
	first := results[0]
	out := *first
	out.Curves, out.Seeds, out.Means = nil, nil, nil
	seeds := map[int64]bool{}
	var policies []string
	seen := map[string]bool{}
	for i, r := range results {
		if r.Kind != Kind || r.Target != first.Target || r.Order != first.Order || r.Devices != first.Devices || r.Nodes != first.Nodes || r.WorkloadPods != first.WorkloadPods {
			return nil, fmt.Errorf("result %d (%s, target %v, order %s, %d devices, %d workload pods) is not the experiment of result 0 (%s, target %v, order %s, %d devices, %d workload pods)",
				i, r.Kind, r.Target, r.Order, r.Devices, r.WorkloadPods, first.Kind, first.Target, first.Order, first.Devices, first.WorkloadPods)
		}
		for _, c := range r.Curves {
			out.Curves = append(out.Curves, c)
			if !seeds[c.Seed] {
				seeds[c.Seed] = true
				out.Seeds = append(out.Seeds, c.Seed)
			}
			if !seen[c.Policy] {
				seen[c.Policy] = true
				policies = append(policies, c.Policy)
			}
		}
	}
	if len(out.Seeds) > 1 {
		out.Means = means(out.Curves, policies)
	}
	return &out, nil
}
