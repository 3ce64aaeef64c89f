package fill

import "github.com/drasim/drasim/sim/sweep"

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
