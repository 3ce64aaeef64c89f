package policy

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/inventory"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/structured"
)

// PluginName is the score plugin's name in a KubeSchedulerConfiguration.
const PluginName = "DrasimPolicy"

// Name names a policy.
type Name string

// The policies. Kube is kube-scheduler v1.37.2's default profile, no
// DrasimPolicy at all; the others are the paper's.
const (
	Kube          Name = "kube"
	Random        Name = "random"
	DotProduct    Name = "dot-product"
	GPUClustering Name = "gpu-clustering"
	GPUPacking    Name = "gpu-packing"
	BestFit       Name = "best-fit"
	FGD           Name = "fgd"
)

// Names lists the policies of the DrasimPolicy plugin, in the paper's
// order.
func Names() []Name { return []Name{Random, DotProduct, GPUClustering, GPUPacking, BestFit, FGD} }

// ParseName accepts kube and the names of Names.
func ParseName(s string) (Name, error) {
	n := Name(s)
	if n == Kube || slices.Contains(Names(), n) {
		return n, nil
	}
	var all []string
	for _, p := range append([]Name{Kube}, Names()...) {
		all = append(all, string(p))
	}
	return "", fmt.Errorf("unknown policy %q (want one of %s)", s, strings.Join(all, ", "))
}

// Args configure DrasimPolicy (pluginConfig name DrasimPolicy).
type Args struct {
	// Policy is one of Names.
	Policy Name `json:"policy"`
	// Seed drives the random policy's choices of node and GPU.
	Seed int64 `json:"seed,omitempty"`
	// Drivers limits the devices counted as GPUs to these drivers (all
	// drivers when empty).
	Drivers []string `json:"drivers,omitempty"`
	// PopularityThreshold is the percentage of pods FGD's typical shapes
	// cover, in (0, 100] (0: 95, the paper's).
	PopularityThreshold int `json:"popularityThreshold,omitempty"`
	// Workload, set by a caller (not by a file), is the distribution FGD
	// measures fragmentation against; nil: the pods of the input (see
	// NewPlugin).
	Workload *Workload `json:"-"`
}

// Validate checks the args as a config file gives them.
func (a Args) Validate() error {
	var errs []error
	switch {
	case a.Policy == "":
		errs = append(errs, errors.New("policy: required (one of random, dot-product, gpu-clustering, gpu-packing, best-fit, fgd)"))
	case a.Policy == Kube:
		errs = append(errs, errors.New("policy: kube is the default profile, not a DrasimPolicy policy; leave DrasimPolicy out"))
	case !slices.Contains(Names(), a.Policy):
		_, err := ParseName(string(a.Policy))
		errs = append(errs, fmt.Errorf("policy: %w", err))
	}
	if a.PopularityThreshold < 0 || a.PopularityThreshold > 100 {
		errs = append(errs, fmt.Errorf("popularityThreshold: %d: not in valid range (0, 100]", a.PopularityThreshold))
	}
	for i, d := range a.Drivers {
		if d == "" {
			errs = append(errs, fmt.Errorf("drivers[%d]: empty driver name", i))
		}
	}
	return errors.Join(errs...)
}

// Plugin is DrasimPolicy: a score plugin running one policy, and the
// device preference the DRA plugin asks on the chosen node.
type Plugin struct {
	args     Args
	state    *dra.State
	shaper   *Shaper
	workload *Workload
	matcher  *inventory.Matcher

	mu sync.Mutex
	// nodes indexes the node-local slices; slicesSeen is the slice list
	// it was built from, rebuilt when the state's list changes.
	nodes      map[string]*nodeDevices
	slicesSeen []*resourceapi.ResourceSlice
	rng        *rand.Rand
	// frag memoizes node fragmentation by (access signature, CPU, GPUs).
	frag  map[string]float64
	sigs  map[string]uint32
	shape map[*v1.Pod]Shape
	// tagsOf caches each node's GPU pod kinds (tags) for the NodeInfo and
	// Generation they were counted on.
	tagsOf map[string]nodeTags
}

type nodeTags struct {
	ni   *framework.NodeInfo
	gen  int64
	tags map[Tag]int
}

var (
	_ framework.PreScorePlugin  = (*Plugin)(nil)
	_ framework.ScorePlugin     = (*Plugin)(nil)
	_ framework.ScoreNormalizer = (*Plugin)(nil)
	_ framework.LabelReader     = (*Plugin)(nil)
	_ dra.DeviceOrder           = (*Plugin)(nil)
)

// maxMemo bounds the fragmentation memo; it starts over when full.
const maxMemo = 1 << 20

// NewPlugin makes the plugin for a cluster. FGD's workload is args.Workload,
// or else computed from every pod of the cluster (bound and pending, in
// snapshot order), as the simulator computes it from the trace's pods.
func NewPlugin(args Args, c *cluster.Cluster) (*Plugin, error) {
	if err := args.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", PluginName, err)
	}
	p := &Plugin{
		args: args, state: c.DRA(),
		shaper:  NewShaper(c.Snapshot(), c.DRA().Gates()),
		matcher: inventory.NewMatcher(context.Background(), c.DRA().Gates(), c.DRA().Classes()),
		rng:     rand.New(rand.NewPCG(uint64(args.Seed), 0x9e3779b97f4a7c15)),
		frag:    map[string]float64{}, sigs: map[string]uint32{}, shape: map[*v1.Pod]Shape{},
	}
	p.workload = args.Workload
	if p.workload == nil && args.Policy == FGD {
		shapes := make([]Shape, 0, len(c.Pods()))
		for _, pod := range c.Pods() {
			shapes = append(shapes, p.shaper.Shape(pod))
		}
		w, err := NewWorkload(shapes, args.PopularityThreshold)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", PluginName, err)
		}
		p.workload = w
	}
	return p, nil
}

// Name implements framework.Plugin.
func (p *Plugin) Name() string { return PluginName }

// Policy is the policy the plugin runs.
func (p *Plugin) Policy() Name { return p.args.Policy }

// Workload is FGD's distribution of shapes (nil for other policies).
func (p *Plugin) Workload() *Workload { return p.workload }

// cycle is what PreScore learns for Score and for the device order.
type cycle struct {
	shape Shape
	// empty: the pod requests nothing at all (FGD scores every node 100).
	empty bool
	// pick is the random policy's node.
	pick  *framework.NodeInfo
	alloc structured.AllocatedState
}

func (p *Plugin) cycleOf(cs *framework.CycleState, pod *v1.Pod) *cycle {
	if c, ok := cs.Read(PluginName).(*cycle); ok {
		return c
	}
	return &cycle{shape: p.podShape(pod), empty: noRequests(pod), alloc: p.state.AllocatedState()}
}

// PreScore implements framework.PreScorePlugin: the pod's shape, and the
// random policy's node, drawn uniformly among the feasible ones.
func (p *Plugin) PreScore(_ context.Context, cs *framework.CycleState, pod *v1.Pod, nodes []*framework.NodeInfo) *framework.Status {
	c := &cycle{shape: p.podShape(pod), empty: noRequests(pod), alloc: p.state.AllocatedState()}
	if p.args.Policy == Random && len(nodes) > 0 {
		p.mu.Lock()
		c.pick = nodes[p.rng.IntN(len(nodes))]
		p.mu.Unlock()
	}
	cs.Write(PluginName, c)
	return nil
}

// NodeLabelKeys implements framework.LabelReader. Before scoring the
// plugin reads nothing the node classes do not hold; the random policy
// (one node of its own) and gpu-clustering (the kinds of pods on a node)
// then score every node on its own.
func (p *Plugin) NodeLabelKeys(cs *framework.CycleState, _ *v1.Pod) ([]string, bool) {
	if _, scoring := cs.Read(PluginName).(*cycle); scoring && (p.args.Policy == Random || p.args.Policy == GPUClustering) {
		return nil, false
	}
	return nil, true
}

// Score implements framework.ScorePlugin.
func (p *Plugin) Score(_ context.Context, cs *framework.CycleState, pod *v1.Pod, ni *framework.NodeInfo) (int64, *framework.Status) {
	c := p.cycleOf(cs, pod)
	if p.args.Policy == Random {
		if ni == c.pick {
			return maxScore, nil
		}
		return 0, nil
	}
	nd := p.devicesOf(ni.Node().Name)
	v := p.view(ni, nd, &c.alloc)
	sel := p.access(nd, c.shape)
	switch p.args.Policy {
	case DotProduct:
		return DotProductScore(v, c.shape), nil
	case BestFit:
		return BestFitScore(v, c.shape), nil
	case GPUPacking:
		return GPUPackingScore(v, c.shape, sel), nil
	case GPUClustering:
		if _, ok := TagOf(c.shape); !ok {
			return 0, nil // a pod without GPUs: the kinds do not matter
		}
		return GPUClusteringScore(v, c.shape, p.tags(ni)), nil
	case FGD:
		if c.empty {
			return maxScore, nil
		}
		s, _ := p.fgd(nd, v, c.shape, sel)
		return s, nil
	}
	return 0, framework.AsStatus(fmt.Errorf("%s: unknown policy %q", PluginName, p.args.Policy))
}

// NormalizeScore implements framework.ScoreNormalizer: best-fit's scores
// are spread over [0, 100]; the other policies' are kept.
func (p *Plugin) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *v1.Pod, scores []framework.NodeScore) *framework.Status {
	if p.args.Policy != BestFit {
		return nil
	}
	raw := make([]int64, len(scores))
	for i, s := range scores {
		raw[i] = s.Score
	}
	NormalizeMinMax(raw)
	for i := range scores {
		scores[i].Score = raw[i]
	}
	return nil
}

// OrderDevices implements dra.DeviceOrder: the node's slices with the
// devices of the GPUs the policy chooses first (FGD: the GPU its score
// chose; random: one drawn among those that hold the share; the others:
// best fit), nil to keep the allocator's own choice.
func (p *Plugin) OrderDevices(cs *framework.CycleState, pod *v1.Pod, ni *framework.NodeInfo, slices []*resourceapi.ResourceSlice) []*resourceapi.ResourceSlice {
	c := p.cycleOf(cs, pod)
	if c.shape.GPUs == 0 {
		return nil
	}
	nd := p.devicesOf(ni.Node().Name)
	if nd == nil {
		return nil
	}
	v := p.view(ni, nd, &c.alloc)
	sel := p.access(nd, c.shape)
	var chosen []int
	switch p.args.Policy {
	case FGD:
		_, chosen = p.fgd(nd, v, c.shape, sel)
	case Random:
		p.mu.Lock()
		chosen = RandomGPUs(v, c.shape, sel, p.rng.IntN)
		p.mu.Unlock()
	default:
		chosen = BestFitGPUs(v, c.shape, sel)
	}
	if len(chosen) == 0 {
		return nil
	}
	return nd.ordered(chosen, slices)
}

// ordered returns the slices with the chosen GPUs' devices first, in the
// order chosen, the other devices after them in their order.
func (n *nodeDevices) ordered(chosen []int, in []*resourceapi.ResourceSlice) []*resourceapi.ResourceSlice {
	first := map[int][]int{} // slice -> device indexes to put first
	for _, g := range chosen {
		for _, ref := range n.gpus[g].devs {
			first[ref.slice] = append(first[ref.slice], ref.dev)
		}
	}
	out := make([]*resourceapi.ResourceSlice, len(in))
	copy(out, in)
	for si, devs := range first {
		sl := n.slices[si]
		k := slices.Index(in, sl)
		if k < 0 {
			for j, o := range in {
				if o.Name == sl.Name {
					k = j
					break
				}
			}
		}
		if k < 0 {
			continue
		}
		src := in[k].Spec.Devices
		moved := make([]bool, len(src))
		devices := make([]resourceapi.Device, 0, len(src))
		for _, d := range devs {
			if d < len(src) && !moved[d] {
				moved[d] = true
				devices = append(devices, src[d])
			}
		}
		for d := range src {
			if !moved[d] {
				devices = append(devices, src[d])
			}
		}
		cp := *in[k]
		cp.Spec.Devices = devices
		out[k] = &cp
	}
	return out
}

// devicesOf returns the node's GPUs, re-indexing when the slices changed.
func (p *Plugin) devicesOf(node string) *nodeDevices {
	p.mu.Lock()
	defer p.mu.Unlock()
	all := p.state.Slices()
	if p.nodes == nil || len(all) != len(p.slicesSeen) || (len(all) > 0 && all[0] != p.slicesSeen[0]) || (len(all) > 0 && all[len(all)-1] != p.slicesSeen[len(all)-1]) {
		p.nodes = indexNodes(all, p.args.Drivers)
		p.slicesSeen = all
	}
	return p.nodes[node]
}

func (p *Plugin) view(ni *framework.NodeInfo, nd *nodeDevices, st *structured.AllocatedState) View {
	v := View{MilliCPUCapacity: ni.Allocatable.MilliCPU, MilliCPULeft: ni.Allocatable.MilliCPU - ni.Requested.MilliCPU}
	if nd != nil {
		v.Left = p.left(nd, st)
	}
	return v
}

// left returns what is left of the node's GPUs (nodeDevices.left), from
// the node's cache while its allocation class stands: a cycle reads every
// node, and one placement changes one node. The slice is shared: callers
// only read it.
func (p *Plugin) left(nd *nodeDevices, st *structured.AllocatedState) []int64 {
	static, dynamic, _, ok := p.state.NodeKey(nd.name)
	key := [2]uint64{static, dynamic}
	if ok {
		nd.mu.Lock()
		l, hit := nd.leftOf, nd.leftValid && nd.leftKey == key
		nd.mu.Unlock()
		if hit {
			return l
		}
	}
	l := nd.left(st, make([]int64, 0, len(nd.gpus)))
	if ok {
		nd.mu.Lock()
		nd.leftKey, nd.leftValid, nd.leftOf = key, true, l
		nd.mu.Unlock()
	}
	return l
}

// access says which of the node's GPUs the shape's request may use (nil:
// all of them, or the shape asks for none).
func (p *Plugin) access(nd *nodeDevices, s Shape) []bool {
	if nd == nil || s.GPUs == 0 {
		return nil
	}
	key := s.Class + "\x00" + s.Selectors
	nd.mu.Lock()
	defer nd.mu.Unlock()
	if a, ok := nd.access[key]; ok {
		return a
	}
	a := p.selects(nd, s)
	if nd.access == nil {
		nd.access = map[string][]bool{}
	}
	nd.access[key] = a
	return a
}

// selects evaluates the request on each GPU (any of its devices): nil when
// every GPU is selected.
func (p *Plugin) selects(nd *nodeDevices, s Shape) []bool {
	if s.Class == "" && s.Selectors == "" {
		return nil
	}
	var sels []resourceapi.DeviceSelector
	if s.Selectors != "" {
		for _, e := range strings.Split(s.Selectors, "\n") {
			sels = append(sels, resourceapi.DeviceSelector{CEL: &resourceapi.CELDeviceSelector{Expression: e}})
		}
	}
	out := make([]bool, len(nd.gpus))
	all := true
	for g := range nd.gpus {
		for _, ref := range nd.gpus[g].devs {
			if p.matcher.Selects(s.Class, "", sels, ref.inv) {
				out[g] = true
				break
			}
		}
		all = all && out[g]
	}
	if all {
		return nil
	}
	return out
}

// fgd is FGD's score and GPU choice, cached per node state.
func (p *Plugin) fgd(nd *nodeDevices, v View, s Shape, sel []bool) (int64, []int) {
	if nd == nil {
		return FGDScore(v, s, sel, p.fragFunc(nd))
	}
	return nd.fgdCached(v, s, func() (int64, []int) { return FGDScore(v, s, sel, p.fragFunc(nd)) })
}

// fragFunc returns the node's fragmentation under FGD's workload,
// memoized: nodes whose GPUs every typical shape may use alike share
// entries whatever the order of their GPUs.
func (p *Plugin) fragFunc(nd *nodeDevices) func(int64, []int64) float64 {
	if nd == nil {
		return func(int64, []int64) float64 { return 0 }
	}
	access, uniform, sig := p.typicalAccess(nd)
	return func(cpu int64, left []int64) float64 {
		key := make([]byte, 0, 12+8*len(left))
		key = binary.LittleEndian.AppendUint32(key, sig)
		key = binary.LittleEndian.AppendUint64(key, uint64(cpu))
		ls := left
		if uniform {
			ls = slices.Clone(left)
			slices.Sort(ls)
		}
		for _, l := range ls {
			key = binary.LittleEndian.AppendUint64(key, uint64(l))
		}
		p.mu.Lock()
		f, ok := p.frag[string(key)]
		p.mu.Unlock()
		if ok {
			return f
		}
		f = Frag(cpu, left, p.workload, access)
		p.mu.Lock()
		if len(p.frag) >= maxMemo {
			p.frag = map[string]float64{}
		}
		p.frag[string(key)] = f
		p.mu.Unlock()
		return f
	}
}

// typicalAccess is which GPUs each typical shape may use on the node,
// whether that is alike for every GPU, and an interned signature of it.
func (p *Plugin) typicalAccess(nd *nodeDevices) ([][]bool, bool, uint32) {
	nd.mu.Lock()
	done := nd.typicalDone
	nd.mu.Unlock()
	if !done {
		var rows [][]bool
		if p.workload != nil {
			for _, ws := range p.workload.Shapes {
				rows = append(rows, p.access(nd, ws.Shape))
			}
		}
		uniform := true
		var sig strings.Builder
		fmt.Fprintf(&sig, "%d:", len(nd.gpus))
		for _, r := range rows {
			switch {
			case r == nil:
				sig.WriteByte('a')
			case !slices.Contains(r, true):
				sig.WriteByte('n')
			default:
				uniform = false
				for _, b := range r {
					if b {
						sig.WriteByte('1')
					} else {
						sig.WriteByte('0')
					}
				}
			}
			sig.WriteByte(',')
		}
		p.mu.Lock()
		id, ok := p.sigs[sig.String()]
		if !ok {
			id = uint32(len(p.sigs))
			p.sigs[sig.String()] = id
		}
		p.mu.Unlock()
		nd.mu.Lock()
		nd.typical, nd.uniform, nd.typicalSigID, nd.typicalDone = rows, uniform, id, true
		nd.mu.Unlock()
	}
	nd.mu.Lock()
	defer nd.mu.Unlock()
	return nd.typical, nd.uniform, nd.typicalSigID
}

// podShape caches the shapes of the pods the plugin meets.
func (p *Plugin) podShape(pod *v1.Pod) Shape {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s, ok := p.shape[pod]; ok {
		return s
	}
	s := p.shaper.Shape(pod)
	if len(p.shape) >= maxMemo {
		p.shape = map[*v1.Pod]Shape{}
	}
	p.shape[pod] = s
	return s
}

// tags are the GPU kinds of the pods on the node.
//
// They are counted again only when the node's pods changed (its
// NodeInfo's Generation): a cycle reads every node's, and one placement
// changes one node's. The map is shared: callers only read it.
func (p *Plugin) tags(ni *framework.NodeInfo) map[Tag]int {
	name := ni.Node().Name
	p.mu.Lock()
	c, ok := p.tagsOf[name]
	p.mu.Unlock()
	if ok && c.ni == ni && c.gen == ni.Generation {
		return c.tags
	}
	out := map[Tag]int{}
	for _, pi := range ni.Pods {
		if t, ok := TagOf(p.podShape(pi.Pod)); ok {
			out[t]++
		}
	}
	p.mu.Lock()
	if p.tagsOf == nil {
		p.tagsOf = map[string]nodeTags{}
	}
	p.tagsOf[name] = nodeTags{ni: ni, gen: ni.Generation, tags: out}
	p.mu.Unlock()
	return out
}

// noRequests reports whether no container of the pod requests anything
// and it has no claims.
func noRequests(pod *v1.Pod) bool {
	if len(pod.Spec.ResourceClaims) > 0 {
		return false
	}
	for _, c := range pod.Spec.Containers {
		if len(c.Resources.Requests) > 0 {
			return false
		}
	}
	return true
}
