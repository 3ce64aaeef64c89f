package analysis

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/schedule"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// probeNamespace holds the probe pods that stand for no workload (the
// largest-request probes).
const probeNamespace = "drasim-probe"

// nodeClass is a set of nodes that the filters cannot tell apart for a
// probe: same labels (but the hostname), taints, allocatable and requested
// resources, devices in the same states. One representative answers for
// all of them.
type nodeClass struct {
	rep     string
	members []string // in cluster order
}

// prober asks the scheduler what fits, on copies of the run's cluster. The
// run's cluster itself is never changed.
type prober struct {
	ctx  context.Context
	base *cluster.Cluster
	opts Options
	inv  *devInventory
	// eval is a copy for dry cycles (Evaluate); probe claims are added to
	// it, nothing is ever reserved on it.
	eval *cluster.Cluster
	// evalEngine is the run's engine wired to eval; evalSched its dry
	// scheduler.
	evalEngine *sim.Engine
	evalSched  *schedule.Scheduler
	classes    []*nodeClass
	seq        int
	// addClaim adds a probe claim to eval's DRA state.
	addClaim func(*resourceapi.ResourceClaim)
	// among and sets serve the largest-request count (largest.go), made
	// on first use.
	among *dra.Among
	sets  map[counterSetKey]*counterSet
}

func newProber(ctx context.Context, base *cluster.Cluster, inv *devInventory, opts Options) (*prober, error) {
	return newProberOn(ctx, base, base.Clone(), inv, opts)
}

// newProberOn returns a prober whose dry cycles run on eval, a cluster in
// the state of base (base itself when the caller takes the probe claims
// away again, see Sampler).
func newProberOn(ctx context.Context, base, eval *cluster.Cluster, inv *devInventory, opts Options) (*prober, error) {
	p := &prober{ctx: ctx, base: base, opts: opts, inv: inv, eval: eval}
	p.addClaim = eval.DRA().AddClaim
	var err error
	if p.evalEngine, err = sim.NewEngine(eval, opts.Engine); err != nil {
		return nil, err
	}
	p.evalSched = p.schedulerOf(p.evalEngine, true)
	p.classes = nodeClasses(base, inv)
	return p, nil
}

// newProberWith returns a prober whose dry cycles run on c itself with
// evalSched, a scheduler of c made by an earlier prober (see Sampler).
func newProberWith(ctx context.Context, c *cluster.Cluster, evalSched *schedule.Scheduler, inv *devInventory, opts Options) *prober {
	p := &prober{ctx: ctx, base: c, opts: opts, inv: inv, eval: c, evalSched: evalSched}
	p.addClaim = c.DRA().AddClaim
	p.classes = nodeClasses(c, inv)
	return p
}

// scheduler returns a scheduler of the run's engine working on c.
func (p *prober) scheduler(c *cluster.Cluster, dry bool) (*schedule.Scheduler, error) {
	e, err := sim.NewEngine(c, p.opts.Engine)
	if err != nil {
		return nil, err
	}
	return p.schedulerOf(e, dry), nil
}

// schedulerOf returns a scheduler of the engine with the run's tie-break
// and parallelism. Dry cycles keep every node's status and filter every
// node.
func (p *prober) schedulerOf(e *sim.Engine, dry bool) *schedule.Scheduler {
	eo := p.opts.Engine
	return e.Scheduler(schedule.Options{TieBreak: eo.TieBreak, Seed: eo.Seed, Parallelism: eo.Parallelism, ScoreAllNodes: dry, KeepNodeStatuses: dry})
}

func (p *prober) nextName(prefix string) string {
	p.seq++
	return fmt.Sprintf("%s-%d", prefix, p.seq)
}

// feasible runs a dry cycle for the pod on candidates (every node when
// nil) and returns the nodes where it fits and the attempt.
func (p *prober) feasible(pod *v1.Pod, candidates []string) (map[string]bool, *schedule.Attempt, error) {
	if candidates != nil {
		if len(candidates) == 0 {
			return map[string]bool{}, nil, nil
		}
		pod = pod.DeepCopy()
		pinToNodes(pod, candidates)
	}
	a := p.evalSched.Evaluate(p.ctx, pod)
	// The probe pod is not tried again: the scheduler (kept from sample
	// to sample by a Sampler) must not keep it alive.
	p.evalSched.ForgetPod(pod)
	if a.Err != nil {
		return nil, nil, fmt.Errorf("probe pod %s/%s: %w", pod.Namespace, pod.Name, a.Err)
	}
	out := map[string]bool{}
	for _, n := range a.Nodes {
		if n.Status == nil {
			out[n.Node] = true
		}
	}
	return out, a, nil
}

// shapeFeasible returns the nodes where one more instance of the shape
// fits now. Shapes whose fit depends only on the node are probed on one
// node per node class; the others on every node.
func (p *prober) shapeFeasible(s *shape) (map[string]bool, *schedule.Attempt, error) {
	pod := s.instance(p.nextName("drasim-probe"), p.addClaim)
	if s.crossNode {
		return p.feasible(pod, nil)
	}
	reps := make([]string, len(p.classes))
	for i, c := range p.classes {
		reps[i] = c.rep
	}
	repFits, a, err := p.feasible(pod, reps)
	if err != nil {
		return nil, nil, err
	}
	out := map[string]bool{}
	for _, c := range p.classes {
		if repFits[c.rep] {
			for _, m := range c.members {
				out[m] = true
			}
		}
	}
	return out, a, nil
}

// message returns kube's message for a pod that fits nowhere, from a dry
// cycle on every node.
func (p *prober) message(s *shape) (string, error) {
	pod := s.instance(p.nextName("drasim-probe"), p.addClaim)
	_, a, err := p.feasible(pod, nil)
	if err != nil {
		return "", err
	}
	return a.Message, nil
}

// headroom places instances of the shape one after another on a copy.
// When an instance on one node cannot change what fits on another, it
// counts node class by node class (MethodPerNode) and stops at
// MaxHeadroom; otherwise it schedules them as kube-scheduler would, up to
// MaxSequential (MethodSequential).
func (p *prober) headroom(s *shape, feasible map[string]bool) (Headroom, error) {
	h := Headroom{Shape: s.Name}
	cp := p.base.Clone()
	if s.crossNode || !p.inv.nodeLocal {
		h.Method = MethodSequential
		sched, err := p.scheduler(cp, false)
		if err != nil {
			return h, err
		}
		limit := min(p.opts.MaxHeadroom, p.opts.MaxSequential)
		nodes := map[string]bool{}
		for h.Fits < limit {
			pod := s.instance(p.nextName("drasim-headroom"), cp.DRA().AddClaim)
			a := sched.SchedulePod(p.ctx, pod)
			if a.Err != nil {
				return h, fmt.Errorf("shape %s: %w", s.Name, a.Err)
			}
			if a.Node == "" {
				break
			}
			h.Fits++
			nodes[a.Node] = true
		}
		h.Capped = h.Fits >= limit
		h.Nodes = len(nodes)
		return h, nil
	}
	h.Method = MethodPerNode
	sched, err := p.scheduler(cp, false)
	if err != nil {
		return h, err
	}
	for _, c := range p.classes {
		if !feasible[c.rep] {
			continue
		}
		remaining := p.opts.MaxHeadroom - h.Fits
		// Enough on the representative to know whether the class reaches
		// the bound: every member takes as many.
		perNodeCap := (remaining + len(c.members) - 1) / len(c.members)
		n := 0
		for n < perNodeCap {
			pod := s.instance(p.nextName("drasim-headroom"), cp.DRA().AddClaim)
			pinToNodes(pod, []string{c.rep})
			a := sched.SchedulePod(p.ctx, pod)
			if a.Err != nil {
				return h, fmt.Errorf("shape %s on node %s: %w", s.Name, c.rep, a.Err)
			}
			if a.Node == "" {
				break
			}
			n++
		}
		if n == 0 {
			continue
		}
		h.Fits += n * len(c.members)
		h.Nodes += len(c.members)
		if h.Fits >= p.opts.MaxHeadroom {
			h.Fits, h.Capped = p.opts.MaxHeadroom, true
			break
		}
	}
	return h, nil
}

// largestProbe is a pod with one claim for count devices of the class, no
// CPU or memory requests and a toleration for every taint.
func (p *prober) largestProbe(class string, count int) *v1.Pod {
	name := p.nextName("drasim-largest")
	claim := largestClaim(name+"-devices", class, count)
	p.addClaim(claim)
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: probeNamespace, UID: types.UID("drasim-probe-" + probeNamespace + "-" + name)},
		Spec: v1.PodSpec{
			Containers:     []v1.Container{{Name: "probe", Image: "registry.k8s.io/pause:3.10", Resources: v1.ResourceRequirements{Claims: []v1.ResourceClaim{{Name: "devices"}}}}},
			Tolerations:    []v1.Toleration{{Operator: v1.TolerationOpExists}},
			ResourceClaims: []v1.PodResourceClaim{{Name: "devices", ResourceClaimName: &claim.Name}},
		},
	}
}

// largestClaim is the claim of a largest-request probe: one request for
// count devices of the class.
func largestClaim(name, class string, count int) *resourceapi.ResourceClaim {
	return &resourceapi.ResourceClaim{
		TypeMeta:   metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceClaim"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: probeNamespace, UID: types.UID("drasim-probe-claim-" + probeNamespace + "-" + name)},
		Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{{
			Name:    "devices",
			Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: class, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: int64(count)},
		}}}},
	}
}

// pinToNodes restricts the pod to the named nodes with required
// metadata.name matchFields terms, as the DaemonSet controller pins its
// pods; NodeAffinity's PreFilter then narrows the cycle to those nodes.
// A field requirement takes exactly one value, so there is one term per
// node, and existing required terms keep their meaning: each is ANDed with
// each name.
func pinToNodes(pod *v1.Pod, names []string) {
	if pod.Spec.Affinity == nil {
		pod.Spec.Affinity = &v1.Affinity{}
	}
	if pod.Spec.Affinity.NodeAffinity == nil {
		pod.Spec.Affinity.NodeAffinity = &v1.NodeAffinity{}
	}
	na := pod.Spec.Affinity.NodeAffinity
	base := []v1.NodeSelectorTerm{{}}
	if r := na.RequiredDuringSchedulingIgnoredDuringExecution; r != nil && len(r.NodeSelectorTerms) > 0 {
		base = r.NodeSelectorTerms
	}
	terms := make([]v1.NodeSelectorTerm, 0, len(base)*len(names))
	for _, t := range base {
		for _, name := range names {
			term := *t.DeepCopy()
			term.MatchFields = append(term.MatchFields, v1.NodeSelectorRequirement{Key: metav1.ObjectNameField, Operator: v1.NodeSelectorOpIn, Values: []string{name}})
			terms = append(terms, term)
		}
	}
	na.RequiredDuringSchedulingIgnoredDuringExecution = &v1.NodeSelector{NodeSelectorTerms: terms}
}

// nodeClasses groups nodes the filters cannot tell apart, by the
// scheduler's node equivalence (schedule.FilterClasses) over every label
// but the hostname. A node is alone in its class when what fits there
// can depend on more than the node: devices outside node-local slices,
// host ports in use, pods with required anti-affinity, shared
// (consumable-capacity) devices in use.
func nodeClasses(c *cluster.Cluster, inv *devInventory) []*nodeClass {
	keys := map[string]bool{}
	for _, ni := range c.Nodes() {
		for k := range ni.Node().Labels {
			if k != v1.LabelHostname {
				keys[k] = true
			}
		}
	}
	var ids []uint32
	ok := inv.nodeLocal
	if ok {
		ids, ok = schedule.FilterClasses(c, dra.New(c.DRA()), slices.Collect(maps.Keys(keys)))
	}
	byID := map[uint32]*nodeClass{}
	var classes []*nodeClass
	for i, ni := range c.Nodes() {
		node := ni.Node()
		shared := false
		for _, d := range inv.byNode[node.Name] {
			shared = shared || d.shared
		}
		var cl *nodeClass
		if ok && ni.UsedPorts.Len() == 0 && len(ni.PodsWithRequiredAntiAffinity) == 0 && !shared {
			if cl = byID[ids[i]]; cl == nil {
				cl = &nodeClass{rep: node.Name}
				byID[ids[i]] = cl
				classes = append(classes, cl)
			}
		} else {
			cl = &nodeClass{rep: node.Name}
			classes = append(classes, cl)
		}
		cl.members = append(cl.members, node.Name)
	}
	return classes
}
