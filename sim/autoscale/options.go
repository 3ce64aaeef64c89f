package autoscale

import (
	"fmt"
	"strings"
	"time"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/nodegroup"
)

// Defaults, as cluster-autoscaler 1.36 sets them where it has the setting.
const (
	DefaultMaxNodesPerScaleUp = 1000
	DefaultMaxLoops           = 10
	// DefaultExpendablePodsPriorityCutoff is CA's
	// --expendable-pods-priority-cutoff: pods below it never trigger a
	// scale-up.
	DefaultExpendablePodsPriorityCutoff = -10
	// DefaultProvisioningDelay is how long a new node takes to become
	// Ready with its ResourceSlices published, when its NodeGroup does
	// not say (spec.provisioningDelay).
	DefaultProvisioningDelay = nodegroup.DefaultProvisioningDelay
)

// Expander names: cluster-autoscaler's, then drasim's own.
const (
	ExpanderRandom     = "random"
	ExpanderMostPods   = "most-pods"
	ExpanderLeastNodes = "least-nodes"
	ExpanderLeastWaste = "least-waste"
	ExpanderPrice      = "price"
	ExpanderPriority   = "priority"
	// ExpanderLeastWasteDRA is least-waste with the idle share of devices
	// and shared counters added, weighted per DeviceClass.
	ExpanderLeastWasteDRA = "least-waste-dra"
	// ExpanderFirstAvailable prefers the option where the pods get their
	// higher-ranked prioritized-list alternatives.
	ExpanderFirstAvailable = "first-available"
)

// ExpanderNames lists every expander drasim knows, CA's first.
func ExpanderNames() []string {
	return []string{ExpanderRandom, ExpanderMostPods, ExpanderLeastNodes, ExpanderLeastWaste, ExpanderPrice, ExpanderPriority, ExpanderLeastWasteDRA, ExpanderFirstAvailable}
}

// Options configure a scale-up simulation.
type Options struct {
	// Sim configures every replay (gates, plugins, seed, parallelism).
	Sim sim.Options
	// Expanders is the chain, as CA's --expander: each keeps the best of
	// the options it gets, the next breaks the ties, random ends it.
	// Default: random.
	Expanders []string
	// Priorities configure the priority expander.
	Priorities *Priorities
	// MaxNodesTotal bounds the cluster's node count (0: no bound).
	MaxNodesTotal int
	// MaxNodesPerScaleUp bounds one loop's estimate (default 1000).
	MaxNodesPerScaleUp int
	// MaxLoops bounds the scale-ups (default 10).
	MaxLoops int
	// DeviceClassWeights weight the idle devices of a class in
	// least-waste-dra (default 1 per class).
	DeviceClassWeights map[string]float64
	// ExpendablePodsPriorityCutoff: pods with a lower priority never
	// trigger a scale-up (nil: -10, CA's default).
	ExpendablePodsPriorityCutoff *int32
	// GangAwareScaleUp is drasim's research option: a gang counts in an
	// estimate only with minCount of its pods placed (see gang.go).
	// cluster-autoscaler scales up for a gang's pods one by one.
	GangAwareScaleUp bool
	// ProvReqClaims says what virtual pods (ProvisioningRequests',
	// CapacityBuffers') get for their ResourceClaimTemplates:
	// ClaimsUpstream (default, what CA does: nothing) or ClaimsCorrect.
	ProvReqClaims string
	// LoopInterval is the time between two loops, for the requests'
	// timeouts and backoffs (default 2m).
	LoopInterval time.Duration

	// tieBreak, when set, stands in for the random expander, in the chain
	// and as its tie-break: the fidelity test makes drasim pick what the
	// recorded cluster-autoscaler picked at random.
	tieBreak expander
}

func (o Options) withDefaults() Options {
	if len(o.Expanders) == 0 {
		o.Expanders = []string{ExpanderRandom}
	}
	if o.MaxNodesPerScaleUp <= 0 {
		o.MaxNodesPerScaleUp = DefaultMaxNodesPerScaleUp
	}
	if o.MaxLoops <= 0 {
		o.MaxLoops = DefaultMaxLoops
	}
	if o.ProvReqClaims == "" {
		o.ProvReqClaims = ClaimsUpstream
	}
	if o.LoopInterval <= 0 {
		o.LoopInterval = DefaultLoopInterval
	}
	if o.ExpendablePodsPriorityCutoff == nil {
		cutoff := int32(DefaultExpendablePodsPriorityCutoff)
		o.ExpendablePodsPriorityCutoff = &cutoff
	}
	return o
}

// ParseExpanders splits a comma-separated chain and checks every name.
func ParseExpanders(s string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		name := strings.TrimSpace(part)
		if name == "" {
			continue
		}
		if !knownExpander(name) {
			return nil, fmt.Errorf("unknown expander %q: use one of %s", name, strings.Join(ExpanderNames(), ", "))
		}
		if seen[name] {
			return nil, fmt.Errorf("expander %q is given twice", name)
		}
		seen[name] = true
		out = append(out, name)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no expander given: use one of %s", strings.Join(ExpanderNames(), ", "))
	}
	return out, nil
}

func knownExpander(name string) bool {
	for _, n := range ExpanderNames() {
		if n == name {
			return true
		}
	}
	return false
}

func (o Options) check() error {
	for _, e := range o.Expanders {
		if !knownExpander(e) {
			return fmt.Errorf("unknown expander %q: use one of %s", e, strings.Join(ExpanderNames(), ", "))
		}
		if e == ExpanderPriority && o.Priorities == nil {
			return fmt.Errorf("the priority expander needs a priority configuration (--expander-priority-config)")
		}
	}
	for class, w := range o.DeviceClassWeights {
		if w < 0 {
			return fmt.Errorf("device class weight for %s: must not be negative, got %g", class, w)
		}
	}
	if o.ProvReqClaims != ClaimsUpstream && o.ProvReqClaims != ClaimsCorrect {
		return fmt.Errorf("provisioning request claims %q: use %s or %s", o.ProvReqClaims, ClaimsUpstream, ClaimsCorrect)
	}
	if o.MaxNodesTotal < 0 {
		return fmt.Errorf("max nodes total must not be negative, got %d", o.MaxNodesTotal)
	}
	return nil
}
