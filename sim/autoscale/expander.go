package autoscale

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/drasim/drasim/sim/nodegroup"
	v1 "k8s.io/api/core/v1"
)

// candidate is one option with what the expanders need beyond the report
// row: the group (template, price) and the pods of the estimate.
type candidate struct {
	opt   *Option
	group *nodegroup.Group
	pods  []*v1.Pod
}

// env is what an expander may read of the cluster.
type env struct {
	// nodes is the cluster's node count (the price expander's preferred
	// node size grows with it).
	nodes int
	// loop is the scale-up loop (1-based).
	loop int
}

// expander keeps the best of the options it is given, as CA's
// expander.Filter does (BestOptions), and says why. It may keep none.
type expander interface {
	name() string
	best(cands []*candidate, e env) ([]*candidate, string)
}

var (
	_ expander = (*randomExpander)(nil)
	_ expander = mostPods{}
	_ expander = leastNodes{}
	_ expander = leastWasteExpander{}
	_ expander = leastWasteDRA{}
	_ expander = priceExpander{}
	_ expander = (*priorityExpander)(nil)
	_ expander = firstAvailable{}
)

// chain is CA's chain strategy: every expander filters the options the
// previous one kept; as soon as one option is left it wins; random breaks
// the ties that remain.
type chain struct {
	filters []expander
	// fallback breaks the ties the filters leave: random, or what
	// Options.tieBreak says.
	fallback expander
}

func newChain(opts Options) (*chain, error) {
	var rng expander = &randomExpander{rng: rand.New(rand.NewPCG(uint64(opts.Sim.Seed), 0x6361))}
	if opts.tieBreak != nil {
		rng = opts.tieBreak
	}
	ch := &chain{fallback: rng}
	for _, name := range opts.Expanders {
		var e expander
		switch name {
		case ExpanderRandom:
			e = rng
		case ExpanderMostPods:
			e = mostPods{}
		case ExpanderLeastNodes:
			e = leastNodes{}
		case ExpanderLeastWaste:
			e = leastWasteExpander{}
		case ExpanderLeastWasteDRA:
			e = leastWasteDRA{}
		case ExpanderPrice:
			e = priceExpander{}
		case ExpanderPriority:
			if opts.Priorities == nil {
				return nil, fmt.Errorf("the priority expander needs a priority configuration")
			}
			e = &priorityExpander{cfg: opts.Priorities}
		case ExpanderFirstAvailable:
			e = firstAvailable{}
		default:
			return nil, fmt.Errorf("unknown expander %q", name)
		}
		ch.filters = append(ch.filters, e)
	}
	return ch, nil
}

// choose runs the chain. It returns nil when an expander kept nothing.
func (ch *chain) choose(cands []*candidate, e env) (*candidate, *Decision) {
	d := &Decision{}
	opts := cands
	// Like CA, the first expander runs even for a single option: the
	// price expander drops an option it cannot price.
	for _, f := range ch.filters {
		kept, why := f.best(opts, e)
		d.Steps = append(d.Steps, ExpanderStep{Expander: f.name(), Kept: groupNames(kept), Why: why})
		if len(kept) == 0 {
			return nil, d
		}
		opts = kept
		if len(opts) == 1 {
			d.Chosen, d.By = opts[0].group.Name, f.name()
			return opts[0], d
		}
	}
	kept, why := ch.fallback.best(opts, e)
	d.Steps = append(d.Steps, ExpanderStep{Expander: ExpanderRandom + " (tie-break)", Kept: groupNames(kept), Why: why})
	d.Chosen, d.By = kept[0].group.Name, ExpanderRandom
	return kept[0], d
}

func groupNames(cands []*candidate) []string {
	out := make([]string, len(cands))
	for i, c := range cands {
		out[i] = c.group.Name
	}
	return out
}

// pickBy keeps the candidates with the best value; better reports whether
// a beats b. Equal values tie, as in CA (exact comparison).
func pickBy(cands []*candidate, value func(*candidate) float64, better func(a, b float64) bool) []*candidate {
	var kept []*candidate
	var best float64
	for _, c := range cands {
		v := value(c)
		switch {
		case kept == nil || better(v, best):
			kept, best = []*candidate{c}, v
		case v == best:
			kept = append(kept, c)
		}
	}
	return kept
}

func lower(a, b float64) bool  { return a < b }
func higher(a, b float64) bool { return a > b }

// describe lists "group value" for every candidate, best first.
func describe(cands []*candidate, value func(*candidate) string) string {
	parts := make([]string, len(cands))
	for i, c := range cands {
		parts[i] = c.group.Name + " " + value(c)
	}
	return strings.Join(parts, ", ")
}

// randomExpander picks one option at random from a seeded source.
type randomExpander struct{ rng *rand.Rand }

func (r *randomExpander) name() string { return ExpanderRandom }
func (r *randomExpander) best(cands []*candidate, _ env) ([]*candidate, string) {
	if len(cands) == 0 {
		return nil, "no option"
	}
	c := cands[r.rng.IntN(len(cands))]
	return []*candidate{c}, fmt.Sprintf("picked %s at random among %d (seeded)", c.group.Name, len(cands))
}

// mostPods keeps the options that help the most pods.
type mostPods struct{}

func (mostPods) name() string { return ExpanderMostPods }
func (mostPods) best(cands []*candidate, _ env) ([]*candidate, string) {
	kept := pickBy(cands, func(c *candidate) float64 { return float64(c.opt.Pods) }, higher)
	return kept, "pods helped: " + describe(cands, func(c *candidate) string { return fmt.Sprint(c.opt.Pods) })
}

// leastNodes keeps the options that add the fewest nodes.
type leastNodes struct{}

func (leastNodes) name() string { return ExpanderLeastNodes }
func (leastNodes) best(cands []*candidate, _ env) ([]*candidate, string) {
	kept := pickBy(cands, func(c *candidate) float64 { return float64(c.opt.Nodes) }, lower)
	return kept, "nodes: " + describe(cands, func(c *candidate) string { return fmt.Sprint(c.opt.Nodes) })
}

// leastWasteExpander is CA's least-waste: the lowest sum of the wasted
// CPU and memory fractions.
type leastWasteExpander struct{}

func (leastWasteExpander) name() string { return ExpanderLeastWaste }
func (leastWasteExpander) best(cands []*candidate, _ env) ([]*candidate, string) {
	v := func(c *candidate) float64 { return c.opt.CPUWaste + c.opt.MemoryWaste }
	kept := pickBy(cands, v, lower)
	return kept, "wasted cpu+memory: " + describe(cands, func(c *candidate) string {
		return fmt.Sprintf("%.3f (cpu %.3f + memory %.3f)", v(c), c.opt.CPUWaste, c.opt.MemoryWaste)
	})
}

// leastWasteDRA adds the weighted idle share of devices and counters to
// CA's least-waste score.
type leastWasteDRA struct{}

func (leastWasteDRA) name() string { return ExpanderLeastWasteDRA }
func (leastWasteDRA) best(cands []*candidate, _ env) ([]*candidate, string) {
	v := func(c *candidate) float64 { return c.opt.CPUWaste + c.opt.MemoryWaste + c.opt.DeviceWaste }
	kept := pickBy(cands, v, lower)
	return kept, "wasted cpu+memory+devices: " + describe(cands, func(c *candidate) string {
		return fmt.Sprintf("%.3f (devices %.3f)", v(c), c.opt.DeviceWaste)
	})
}

// firstAvailable keeps the options whose pods get the best prioritized-
// list alternatives: the highest mean DynamicResources score over the pods
// with firstAvailable requests (options without such pods score 0).
type firstAvailable struct{}

func (firstAvailable) name() string { return ExpanderFirstAvailable }
func (firstAvailable) best(cands []*candidate, _ env) ([]*candidate, string) {
	v := func(c *candidate) float64 {
		if c.opt.PrioritizedListPods == 0 {
			return 0
		}
		return float64(c.opt.PrioritizedListScore) / float64(c.opt.PrioritizedListPods)
	}
	kept := pickBy(cands, v, higher)
	return kept, "mean prioritized-list score per pod: " + describe(cands, func(c *candidate) string { return fmt.Sprintf("%.2f", v(c)) })
}

// priorityExpander is CA's priority expander: the options whose group
// matches the highest priority; when no group matches, every option stays.
// CA's search starts at priority -1, so -1 is the lowest priority that
// can win (over groups the configuration does not name, which never win
// otherwise); -2 and below count as no match.
type priorityExpander struct{ cfg *Priorities }

// lowestPriority is the lowest priority CA's priority expander keeps.
const lowestPriority = -1

func (p *priorityExpander) name() string { return ExpanderPriority }
func (p *priorityExpander) best(cands []*candidate, _ env) ([]*candidate, string) {
	var matched []*candidate
	for _, c := range cands {
		if prio, ok := p.cfg.Of(c.group.Name); ok && prio >= lowestPriority {
			c.opt.Priority = &prio
			matched = append(matched, c)
		}
	}
	if len(matched) == 0 {
		return cands, "no group matches the priorities: no option filtered"
	}
	kept := pickBy(matched, func(c *candidate) float64 { return float64(*c.opt.Priority) }, higher)
	why := "priority: " + describe(matched, func(c *candidate) string { return fmt.Sprint(*c.opt.Priority) })
	if len(matched) < len(cands) {
		var names []string
		for _, c := range cands {
			if c.opt.Priority == nil {
				names = append(names, c.group.Name)
			}
		}
		why += "; not in the configuration: " + strings.Join(names, ", ")
	}
	return kept, why
}

// Price expander constants, from cluster-autoscaler's expander/price.
const (
	// Pod prices: CA's GCE list prices per hour (cloudprovider/gce
	// GcePriceModel), for a CPU core and a GiB of memory.
	cpuPricePerHour         = 0.033174
	memoryPricePerHourPerGb = 0.004446
	// gpuUnfitnessOverride makes nodes with nvidia.com/gpu allocatable
	// unattractive for pods that do not need them.
	gpuUnfitnessOverride = 1000.0
	// stabilizationCPU and stabilizationMemory are CA's
	// priceStabilizationPod: 0.5 CPU, 500 MiB.
	stabilizationMilliCPU = 500
	stabilizationMemory   = 500 * 1024 * 1024
)

// priceExpander is CA's price expander: per option,
//
//	(unfitness-1)*(1-tanh((nodes-1)/15))+1  times
//	(nodes*nodePrice + stabilization) / (podsPrice + stabilization)
//
// lowest wins. Unfitness compares the template's CPU capacity with the
// preferred node size, which doubles as the cluster triples (1 CPU up to 2
// nodes, 2 up to 6, 4 up to 20, 8 up to 60, 16 up to 200, then 32); for a
// template with nvidia.com/gpu allocatable the suppressed unfitness is
// 1000. Pods cost CPU and memory at GCE's list prices.
// Options of groups without pricePerHour are dropped, as CA drops options
// it cannot price.
type priceExpander struct{}

func (priceExpander) name() string { return ExpanderPrice }
func (priceExpander) best(cands []*candidate, e env) ([]*candidate, string) {
	preferred := preferredNodeMilliCPU(e.nodes)
	stab := podPrice(stabilizationMilliCPU, stabilizationMemory)
	var priced []*candidate
	var unpriced []string
	for _, c := range cands {
		if c.group.PricePerHour == nil {
			unpriced = append(unpriced, c.group.Name)
			continue
		}
		total := *c.group.PricePerHour * float64(c.opt.Nodes)
		pods := 0.0
		for _, p := range c.pods {
			cpu, mem := podRequests(p)
			pods += podPrice(cpu, mem)
		}
		sub := (total + stab) / (pods + stab)
		suppressed := (nodeUnfitness(preferred, c.group.Template)-1)*(1-math.Tanh(float64(c.opt.Nodes-1)/15)) + 1
		if nodeHasGPU(c.group.Template) {
			suppressed = gpuUnfitnessOverride
		}
		score := suppressed * sub
		c.opt.PriceScore = &score
		priced = append(priced, c)
	}
	kept := pickBy(priced, func(c *candidate) float64 { return *c.opt.PriceScore }, lower)
	why := fmt.Sprintf("score (lower wins; preferred node %d CPU): ", preferred/1000) +
		describe(priced, func(c *candidate) string { return fmt.Sprintf("%.4f", *c.opt.PriceScore) })
	if len(unpriced) > 0 {
		sort.Strings(unpriced)
		why += "; no pricePerHour: " + strings.Join(unpriced, ", ")
	}
	return kept, why
}

func podPrice(milliCPU, memBytes int64) float64 {
	return float64(milliCPU)/1000*cpuPricePerHour + float64(memBytes)/(1024*1024*1024)*memoryPricePerHourPerGb
}

// preferredNodeMilliCPU is CA's SimplePreferredNodeProvider: the node
// size doubles every time the cluster triples, up to 32 CPU.
func preferredNodeMilliCPU(nodes int) int64 {
	switch {
	case nodes <= 2:
		return 1000
	case nodes <= 6:
		return 2000
	case nodes <= 20:
		return 4000
	case nodes <= 60:
		return 8000
	case nodes <= 200:
		return 16000
	}
	return 32000
}

// nodeUnfitness is CA's SimpleNodeUnfitness: how far the node's CPU
// capacity is from the preferred node's, as a ratio >= 1.
func nodeUnfitness(preferredMilliCPU int64, node *v1.Node) float64 {
	cpu := node.Status.Capacity.Cpu().MilliValue()
	if cpu <= 0 {
		return math.Inf(1)
	}
	p, c := float64(preferredMilliCPU), float64(cpu)
	return math.Max(p/c, c/p)
}

// nodeHasGPU is CA's gpu.NodeHasGpu without a cloud provider's GPU label:
// nvidia.com/gpu allocatable. GPUs published through DRA do not count.
func nodeHasGPU(node *v1.Node) bool {
	q, ok := node.Status.Allocatable["nvidia.com/gpu"]
	return ok && !q.IsZero()
}
