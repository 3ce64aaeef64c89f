package fill

import (
	"fmt"
	"math/rand"
	"slices"
	"sort"

	v1 "k8s.io/api/core/v1"
)

// typicalPopularity is the share of the workload's pods the typical
// shapes cover (the paper's podPopularityThreshold, 95%).
const typicalPopularity = 0.95

// shape is a typical shape and the counted devices it may take.
type shape struct {
	Shape
	req     request
	selects []bool
}

// typicalShapes is the paper's typical pod mix (GetTypicalPods with
// isInvolvedCpuPods, podPopularityThreshold 95, podIncreaseStep 1): the
// workload's request shapes by decreasing count (ties by key), the most
// frequent ones until they cover 95% of the pods, weights renormalized to
// sum to 1. It is taken from the workload before inflation.
func typicalShapes(pods []*v1.Pod, reqs []request) []shape {
	type entry struct {
		req   request
		key   string
		count int
	}
	byKey := map[string]*entry{}
	var order []*entry
	for i := range pods {
		k := reqs[i].shapeKey()
		e := byKey[k]
		if e == nil {
			e = &entry{req: reqs[i], key: k}
			byKey[k] = e
			order = append(order, e)
		}
		e.count++
	}
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].count != order[j].count {
			return order[i].count > order[j].count
		}
		return order[i].key < order[j].key
	})
	total := float64(len(pods))
	var cum float64
	n := 0
	for n < len(order) && cum < typicalPopularity*total {
		cum += float64(order[n].count)
		n++
	}
	out := make([]shape, n)
	for i := range n {
		e := order[i]
		out[i] = shape{Shape: Shape{Key: e.key, MilliCPU: e.req.milliCPU, Devices: e.req.devices(), MilliDevice: e.req.milliDevice(),
			Weight: float64(e.count) / cum}, req: e.req}
	}
	return out
}

// inflate makes the sequence of submissions as the paper's simulator
// does with --shuffle-pod=true and workload tuning: Go's math/rand seeded
// with the seed draws one Int (a debug log's), shuffles the pods sorted
// by name, then either removes random pods while the request exceeds
// the target, or appends copies of random pods (of the name-sorted
// workload, named NAME-tuned-I) until the next copy's per-device share
// would cross it. With OrderTrace the pods keep their order and only the
// inflation draws. It returns the source after the draws, which the
// simulator goes on drawing from (nodeRanks).
func inflate(pods []*v1.Pod, reqs []request, opts Options, capacity int64) ([]submission, *rand.Rand) {
	base := make([]int, len(pods))
	for i := range base {
		base[i] = i
	}
	byName := append([]int(nil), base...)
	sort.SliceStable(byName, func(i, j int) bool { return pods[byName[i]].Name < pods[byName[j]].Name })
	r := rand.New(rand.NewSource(opts.seed))
	_ = r.Int()
	seq := base
	if opts.Order == OrderShuffle {
		seq = append([]int(nil), byName...)
		r.Shuffle(len(seq), func(i, j int) { seq[i], seq[j] = seq[j], seq[i] })
	}
	var total int64
	for _, i := range seq {
		total += reqs[i].total()
	}
	target := opts.Target * float64(capacity)
	out := make([]submission, 0, len(seq))
	switch {
	case float64(total) > target:
		for float64(total) > target && len(seq) > 0 {
			k := r.Intn(len(seq))
			total -= reqs[seq[k]].total()
			seq = append(seq[:k], seq[k+1:]...)
		}
		for _, i := range seq {
			out = append(out, submission{index: i, name: pods[i].Name})
		}
	default:
		for _, i := range seq {
			out = append(out, submission{index: i, name: pods[i].Name})
		}
		if float64(total) == target {
			break
		}
		for n := 0; ; n++ {
			i := byName[r.Intn(len(byName))]
			// The paper's check adds the per-device share, not the total.
			if float64(total+reqs[i].milliDevice()) > target {
				break
			}
			total += reqs[i].total()
			out = append(out, submission{index: i, name: fmt.Sprintf("%s-tuned-%d", pods[i].Name, n)})
		}
	}
	return out, r
}

// informerDraws are the draws of the simulator's shared source between
// the inflation and the nodes' permutation: the scheduler's informers
// start (pods, nodes, CSI nodes, persistent volumes and claims, storage
// classes, services, replication controllers, replica sets, stateful
// sets), and each reflector, once listed, draws its watch timeout with
// rand.Float64 (client-go's reflector), before the simulator creates
// the nodes.
const informerDraws = 10

// nodeRanks is the order the paper's simulator breaks ties in. It
// creates the nodes sorted by name, each renamed "%04d-NAME" with its
// index in rand.Perm of the shared source (after the inflation and the
// informers' draws), and its patched selectHost gives a tie to the
// smallest name: the node of lowest permuted index. r is the source
// inflate returned; names are the cluster's nodes.
func nodeRanks(r *rand.Rand, names []string) map[string]int {
	for range informerDraws {
		_ = r.Float64()
	}
	sorted := slices.Clone(names)
	slices.Sort(sorted)
	perm := r.Perm(len(sorted))
	ranks := make(map[string]int, len(sorted))
	for i, name := range sorted {
		ranks[name] = perm[i]
	}
	return ranks
}
