package dra

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/drasim/drasim/sim/framework"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	"k8s.io/dynamic-resource-allocation/structured"
)

// Name is the plugin's name in kube-scheduler's profile.
const Name = "DynamicResources"

// Reasons, as kube-scheduler v1.37 words them.
const (
	ReasonCannotAllocate      = "cannot allocate all claims"
	ReasonClaimNotOnNode      = "resourceclaim not available on the node"
	ReasonClaimInUse          = "resourceclaim in use"
	ReasonCannotFitExtended   = "cannot fit resource"
	ReasonExtendedClaimFailed = "cannot schedule extended resource claim"
)

// Plugin is the DynamicResources plugin: PreFilter collects the pod's claims
// and sets up the allocator, Filter asks it for each node, Score ranks nodes
// by the prioritized-list alternatives they can satisfy, and Reserve records
// the chosen node's allocation in the claims.
type Plugin struct {
	postFilterReasons bool
	olderWording      bool
	state             *State
	celCache          *cel.Cache
	// reference asks the allocator on every node, without the node
	// equivalence shortcut: the plain loop, for comparison.
	reference bool

	mu sync.Mutex
	// answers are the allocator's answers by claims content, then by node
	// class; answerCount counts them all (maxAnswers bounds it).
	answers     map[uint64]*answerSet
	answerCount int
	// staticFails holds the claims that found no allocation on a node
	// with none of its devices allocated, by the node's static class:
	// they find none on any node of that class (see allocate).
	staticFails map[staticKey]*classAnswer

	// keys are the scheduler's node class keys (classes.go).
	keys nodeKeys

	// prune holds which devices the allocator may skip (prune.go).
	prune pruneState

	// order, when set, steers the devices Reserve allocates (see
	// SetDeviceOrder); nodes finds the chosen node for it.
	order DeviceOrder
	nodes framework.NodeLister

	// lastCycle is the latest PreFilter's data: how many nodes the
	// previous cycle recorded an allocation for sizes the next cycle's
	// map, which would otherwise grow three or four times in every cycle
	// (docs/performance.md).
	lastCycle *cycleData
}

// allocationsHint is the number of nodes the previous cycle recorded an
// allocation for.
func (p *Plugin) allocationsHint() int {
	p.mu.Lock()
	d := p.lastCycle
	p.mu.Unlock()
	if d == nil {
		return 0
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.nodeAllocations)
}

// Options tune the plugin.
type Options struct {
	// Reference disables every shortcut: each node is asked on its own.
	Reference bool
	// PostFilterReasons gives kube-scheduler's reasons before 1.37 when
	// PostFilter frees no claim (PostFilterReason).
	PostFilterReasons bool
	// OlderErrorWording words the allocator's errors as the allocator of
	// kube-scheduler before 1.37 does (olderWording).
	OlderErrorWording bool
}

var (
	_ framework.PreFilterPlugin = (*Plugin)(nil)
	_ framework.FilterPlugin    = (*Plugin)(nil)
	_ framework.ScorePlugin     = (*Plugin)(nil)
	_ framework.ScoreNormalizer = (*Plugin)(nil)
	_ framework.ReservePlugin   = (*Plugin)(nil)
)

// New returns the plugin working on state. One CEL cache serves the whole
// run, as one serves kube-scheduler's whole life.
func New(state *State, opts ...Options) *Plugin {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	return &Plugin{
		reference:         o.Reference,
		postFilterReasons: o.PostFilterReasons,
		olderWording:      o.OlderErrorWording,
		answers:           map[uint64]*answerSet{},
		staticFails:       map[staticKey]*classAnswer{},
		state:             state,
		// kube-scheduler keeps the 10 most recent expressions.
		celCache: cel.NewCache(10, state.gates.CELFeatures()),
	}
}

// Name implements framework.Plugin.
func (p *Plugin) Name() string { return Name }

// DeviceOrder chooses among the devices the allocator could give a pod on
// the node it was scheduled to: OrderDevices returns the node's slices
// with the devices it prefers first (copies; nil keeps the allocator's own
// choice). The allocator searches devices in slice order and takes the
// first that fit, so asking it again with that order makes it take the
// preferred devices when they fit, and its own next choice when they do
// not: the result is always one the allocator itself found.
type DeviceOrder interface {
	OrderDevices(cs *framework.CycleState, pod *v1.Pod, ni *framework.NodeInfo, slices []*resourceapi.ResourceSlice) []*resourceapi.ResourceSlice
}

// SetDeviceOrder makes Reserve ask the allocator again on the chosen node
// with the devices in o's order (scoring policies that choose GPUs inside
// a node, sim/policy). Only nodes whose slices are all local to them are
// steered; nodes finds the chosen node's NodeInfo. Without it (kube's
// profile) Reserve keeps the allocation Filter found, as kube does.
func (p *Plugin) SetDeviceOrder(o DeviceOrder, nodes framework.NodeLister) {
	p.order, p.nodes = o, nodes
}

// steer asks the allocator again for the pod's claims on the node, with
// the devices in the order's preference; nil when there is no order, the
// node's devices are not its own, or the allocator finds nothing there.
func (p *Plugin) steer(ctx context.Context, cs *framework.CycleState, d *cycleData, pod *v1.Pod, nodeName string) []resourceapi.AllocationResult {
	if p.order == nil || !p.state.equivalence {
		return nil
	}
	claims := d.allPending()
	if claims == nil {
		return nil
	}
	ni := p.nodes.Get(nodeName)
	if ni == nil {
		return nil
	}
	slices := p.order.OrderDevices(cs, pod, ni, p.state.nodeSlices[nodeName])
	if slices == nil {
		return nil
	}
	alloc, err := structured.NewAllocator(ctx, p.state.features, p.state.AllocatedState(), p.state, slices, p.celCache)
	if err != nil {
		return nil
	}
	res, err := alloc.Allocate(ctx, ni.Node(), claims)
	if err != nil || len(res) != len(claims) {
		return nil
	}
	return res
}

// cycleData is what PreFilter learns about one pod, for Filter, Score and
// Reserve.
type cycleData struct {
	// claims are the pod's claims in pod.spec.resourceClaims order, then the
	// in-memory extended-resource claim, if any.
	claims []*resourceapi.ResourceClaim
	// availableOnNodes is set for claims that are already allocated.
	availableOnNodes []*nodeaffinity.NodeSelector
	extendedClaim    *resourceapi.ResourceClaim
	extendedRequests map[v1.ResourceName]int64
	userClaims       int
	// needsAllocation is set when some claim is not allocated yet.
	needsAllocation bool
	// answers are the cached allocator answers for these claims.
	answers *answerSet
	// allocState is the allocated devices as PreFilter saw them; every
	// allocator of this cycle starts from it.
	allocState structured.AllocatedState
	// shared is the one allocator over all slices, made on first use when
	// nodes cannot be asked with their own slices only.
	sharedOnce sync.Once
	shared     structured.Allocator
	sharedErr  error

	mu              sync.Mutex
	nodeAllocations map[string]allocationRef
	// claimsHash identifies the content of the claims to allocate.
	claimsHash uint64
	// scores caches the prioritized-list score of shared answers when
	// the answer cannot keep it (see Score); made on first use.
	scores map[*classAnswer]int64
	// diagnosed caches Diagnose's findings per class of nodes; it is
	// only used after filtering, from one goroutine.
	diagnosed map[classKey][]Finding
	// unavailable marks the allocated claims (by index) whose allocation
	// some node did not match, for PostFilter.
	unavailable []bool
	// What Reserve did, for Unreserve: the claims it allocated, and the
	// extended-resource claim it made in place of the stand-in at
	// extendedIndex.
	allocatedHere []*resourceapi.ResourceClaim
	madeExtended  *resourceapi.ResourceClaim
	standIn       *resourceapi.ResourceClaim
	extendedIndex int
}

func (d *cycleData) markUnavailable(i int) {
	d.mu.Lock()
	if d.unavailable == nil {
		d.unavailable = make([]bool, len(d.claims))
	}
	d.unavailable[i] = true
	d.mu.Unlock()
}

type nodeAllocation struct {
	results       []resourceapi.AllocationResult // one per claim to allocate, in claims order
	extendedClaim *resourceapi.ResourceClaim     // the node's variant of the extended-resource claim
	mappings      []v1.ContainerExtendedResourceRequest
	// answer, when set, holds the results as computed on an equivalent
	// node; they are translated for this node only when needed.
	answer *classAnswer
}

// allocationRef is a node's entry in the cycle's allocations: most nodes
// take an equivalent node's answer, and an entry of two pointers keeps the
// per-cycle map small.
type allocationRef struct {
	answer *classAnswer
	own    *nodeAllocation // when answer is nil
}

func (r allocationRef) get() nodeAllocation {
	if r.own != nil {
		return *r.own
	}
	return nodeAllocation{answer: r.answer}
}

// resultsOn returns the allocation results for the node.
func (p *Plugin) resultsOn(a nodeAllocation, node string) []resourceapi.AllocationResult {
	if a.answer != nil {
		return p.state.translate(a.answer.results, a.answer.node, node)
	}
	return a.results
}

// allocatorFor returns an allocator that answers for the node: one over the
// node's own slices when every slice is local to one node (cheap, and the
// allocator would look at no other slice), else the cycle's allocator over
// all slices.
//
// It also returns the claims to ask it for: when it prunes, without the
// alternatives that can select no device of the node (impossibleLeftOut).
func (p *Plugin) allocatorFor(ctx context.Context, d *cycleData, node string, class classKey, claims []*resourceapi.ResourceClaim, prune bool) (structured.Allocator, []*resourceapi.ResourceClaim, error) {
	if !p.reference && p.state.equivalence {
		slices := p.state.nodeSlices[node]
		if prune {
			var possible uint64
			var known bool
			if slices, possible, known = p.prunedSlices(ctx, d, class, claims, slices); known {
				claims = impossibleLeftOut(claims, possible)
			}
		}
		alloc, err := structured.NewAllocator(ctx, p.state.features, d.allocState, p.state, slices, p.celCache)
		return alloc, claims, err
	}
	d.sharedOnce.Do(func() {
		d.shared, d.sharedErr = structured.NewAllocator(ctx, p.state.features, d.allocState, p.state, p.state.slices, p.celCache)
	})
	return d.shared, claims, d.sharedErr
}

func (d *cycleData) toAllocate() []int {
	var idx []int
	for i, c := range d.claims {
		if c.Status.Allocation == nil {
			idx = append(idx, i)
		}
	}
	return idx
}

// allPending returns the pod's claims when every one of them needs
// allocation and none is the extended-resource claim (the common case,
// where Filter needs no list of its own for every node), else nil.
func (d *cycleData) allPending() []*resourceapi.ResourceClaim {
	if d.extendedClaim != nil {
		return nil
	}
	for _, c := range d.claims {
		if c.Status.Allocation != nil {
			return nil
		}
	}
	return d.claims
}

func readCycle(cs *framework.CycleState) *cycleData {
	d, _ := cs.Read(Name).(*cycleData)
	return d
}

// PodClaims returns the pod's ResourceClaims in spec order, resolving
// template claims through pod.status.resourceClaimStatuses as kube does.
func (p *Plugin) PodClaims(pod *v1.Pod) ([]*resourceapi.ResourceClaim, error) {
	return p.state.PodClaims(pod)
}

// PreFilter implements framework.PreFilterPlugin.
func (p *Plugin) PreFilter(ctx context.Context, cs *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	claims, err := p.PodClaims(pod)
	if err != nil {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, err.Error())
	}
	d := &cycleData{claims: claims, userClaims: len(claims)}
	if ext := p.extendedRequests(pod); len(ext) > 0 {
		d.extendedRequests = ext
		d.extendedClaim = p.findExtendedClaim(pod)
		if d.extendedClaim == nil {
			d.extendedClaim = newExtendedClaim(pod)
		}
		d.claims = append(d.claims, d.extendedClaim)
	}
	if len(d.claims) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	d.availableOnNodes = make([]*nodeaffinity.NodeSelector, len(d.claims))
	numToAllocate := 0
	for i, claim := range d.claims {
		if claim.Status.Allocation != nil && !resourceclaim.CanBeReserved(claim) && !resourceclaim.IsReservedForPod(pod, claim, false) {
			return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonClaimInUse)
		}
		if claim.Status.Allocation != nil {
			if ns := claim.Status.Allocation.NodeSelector; ns != nil {
				sel, err := nodeaffinity.NewNodeSelector(ns)
				if err != nil {
					return nil, framework.AsStatus(fmt.Errorf("claim %s: allocation node selector: %w", claim.Name, err))
				}
				d.availableOnNodes[i] = sel
			}
			continue
		}
		numToAllocate++
		if claim == d.extendedClaim {
			continue
		}
		for _, req := range claim.Spec.Devices.Requests {
			switch {
			case req.Exactly != nil:
				if st := p.checkClass(req.Exactly.DeviceClassName, req.Name); st != nil {
					return nil, st
				}
			case len(req.FirstAvailable) > 0:
				if !p.state.gates["DRAPrioritizedList"] {
					return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable,
						fmt.Sprintf("resource claim %s/%s, request %s: has subrequests, but the DRAPrioritizedList feature is disabled", claim.Namespace, claim.Name, req.Name))
				}
				for _, sub := range req.FirstAvailable {
					if st := p.checkClass(sub.DeviceClassName, req.Name+"/"+sub.Name); st != nil {
						return nil, st
					}
				}
			default:
				return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable,
					fmt.Sprintf("resource claim %s/%s, request %s: unknown request type", claim.Namespace, claim.Name, req.Name))
			}
		}
	}
	if numToAllocate > 0 {
		d.claimsHash = claimsHash(d.claims)
		d.answers = p.answerSetFor(d.claimsHash)
		d.needsAllocation = true
		d.allocState = p.state.AllocatedState()
		d.nodeAllocations = make(map[string]allocationRef, p.allocationsHint())
		p.mu.Lock()
		p.lastCycle = d
		p.mu.Unlock()
	}
	cs.Write(Name, d)
	return nil, nil
}

func (p *Plugin) checkClass(className, requestName string) *framework.Status {
	if className == "" {
		return framework.AsStatus(fmt.Errorf("request %s: unsupported request type", requestName))
	}
	if _, err := p.state.Get(className); err != nil {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("request %s: device class %s does not exist", requestName, className))
	}
	return nil
}

// Filter implements framework.FilterPlugin.
func (p *Plugin) Filter(ctx context.Context, cs *framework.CycleState, pod *v1.Pod, ni *framework.NodeInfo) *framework.Status {
	d := readCycle(cs)
	if d == nil {
		return nil
	}
	node := ni.Node()
	nodeExtClaim, mappings, st := p.filterExtended(d, pod, ni)
	if st != nil {
		return st
	}
	if nodeExtClaim == nil && d.userClaims == 0 {
		return nil
	}
	// An allocated claim pins the pod to its allocation's nodes; kube still
	// runs the allocator for the other claims first, so its message wins.
	unavailable := false
	for i, sel := range d.availableOnNodes {
		if sel != nil && !sel.Match(node) {
			unavailable = true
			d.markUnavailable(i)
		}
	}
	var results []resourceapi.AllocationResult
	var answer *classAnswer
	if d.needsAllocation {
		toAllocate := d.allPending()
		if toAllocate == nil {
			for _, i := range d.toAllocate() {
				c := d.claims[i]
				if c == d.extendedClaim {
					if nodeExtClaim == nil {
						continue // satisfied by the node's own extended resources
					}
					c = nodeExtClaim
				}
				toAllocate = append(toAllocate, c)
			}
		}
		res, ans, st := p.allocate(ctx, d, ni, toAllocate, nodeExtClaim == nil)
		if st != nil {
			return st
		}
		results, answer = res, ans
	}
	if unavailable {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonClaimNotOnNode)
	}
	if d.needsAllocation {
		d.mu.Lock()
		ref := allocationRef{answer: answer}
		if answer == nil {
			ref.own = &nodeAllocation{results: results, extendedClaim: nodeExtClaim, mappings: mappings}
		}
		d.nodeAllocations[node.Name] = ref
		d.mu.Unlock()
	}
	return nil
}

// allocate asks the allocator for the claims on the node, or reuses the
// answer for an equivalent node (see equivalence.go). A reused answer comes
// back untranslated, as the answer itself.
func (p *Plugin) allocate(ctx context.Context, d *cycleData, ni *framework.NodeInfo, claims []*resourceapi.ResourceClaim, cacheable bool) ([]resourceapi.AllocationResult, *classAnswer, *framework.Status) {
	node := ni.Node()
	var key classKey
	if cacheable && !p.reference {
		key, cacheable = p.nodeClassOf(ni)
	} else {
		cacheable = false
	}
	akey := answerKey{claims: d.claimsHash, class: key}
	if cacheable {
		p.mu.Lock()
		a, hit := d.answers.byClass[key]
		if !hit && key.dynamic != 0 {
			var e *classAnswer
			if e, hit = p.staticFails[staticKeyOf(akey)]; hit {
				a = answerOf(e)
			}
		}
		p.mu.Unlock()
		if hit {
			if a.failed != nil {
				return nil, nil, a.failed
			}
			return nil, a.answer, nil
		}
	}
	// Pruning needs the claims' hash to name them: only the claims of a
	// cacheable call have it.
	alloc, asked, err := p.allocatorFor(ctx, d, node.Name, key, claims, cacheable)
	if err != nil {
		return nil, nil, framework.AsStatus(err)
	}
	res, err := alloc.Allocate(ctx, node, asked)
	var st *framework.Status
	switch {
	case errors.Is(err, structured.ErrFailedAllocationOnNode):
		st = framework.NewStatus(framework.UnschedulableAndUnresolvable, err.Error())
	case err != nil:
		if p.olderWording {
			err = olderWording(err)
		}
		return nil, nil, framework.AsStatus(err) // broken input: never cached
	case len(res) != len(claims):
		st = framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonCannotAllocate)
	}
	if cacheable {
		e := &classAnswer{node: node.Name}
		if st != nil {
			// Every node of the class gets this one status (with the
			// plugin named, so that nothing writes to it again), not a
			// copy per node and cycle.
			e.failed, e.status = true, framework.NewStatus(st.Code(), st.Reasons()...).WithPlugin(Name)
		} else {
			e.results = res
		}
		p.mu.Lock()
		if _, raced := d.answers.byClass[key]; !raced {
			d.answers.byClass[key] = answerOf(e)
			p.answerCount++
		}
		if e.failed && key.dynamic == 0 {
			if len(p.staticFails) >= maxAnswers {
				p.staticFails = map[staticKey]*classAnswer{}
			}
			p.staticFails[staticKeyOf(akey)] = e
		}
		p.mu.Unlock()
	}
	return res, nil, st
}

// answerSet holds the allocator's answers for claims of one content, by
// node class. A cycle looks its claims' set up once (PreFilter) and every
// node's answer in it: one map of the size of the node classes rather
// than of every answer kept, and the outcome in the entry itself, so that
// the look-ups of a cycle over thousands of nodes stay in the processor's
// caches (docs/performance.md).
type answerSet struct {
	byClass map[classKey]answerEntry
}

// answerEntry is one cached answer: failed is its status when the
// allocator found no allocation, else answer holds the results.
type answerEntry struct {
	failed *framework.Status
	answer *classAnswer
}

func answerOf(e *classAnswer) answerEntry {
	if e.failed {
		return answerEntry{failed: e.status, answer: e}
	}
	return answerEntry{answer: e}
}

// answerSetFor returns the answers for claims of this content, starting
// the cache over once it holds maxAnswers (rather than grow without
// bound; a cycle that holds a set from before keeps adding to it, which
// only that cycle reads).
func (p *Plugin) answerSetFor(claims uint64) *answerSet {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.answerCount >= maxAnswers {
		p.answers, p.answerCount = map[uint64]*answerSet{}, 0
	}
	set := p.answers[claims]
	if set == nil {
		set = &answerSet{byClass: map[classKey]answerEntry{}}
		p.answers[claims] = set
	}
	return set
}

// answerKey identifies an allocator answer: which claims (by content) on
// which class of nodes. Answers stay valid across pods because a node's
// class changes whenever its allocation does.
type answerKey struct {
	claims uint64
	class  classKey
}

// staticKey identifies claims (by content) on the nodes of one static
// class, whatever their devices' allocation state.
//
// The allocator's "no allocation" on a node with none of its devices
// allocated (dynamic hash zero) holds for every allocation state of the
// same pools: every check of its search (device in use, selectors,
// remaining consumable capacity, shared counters, constraints among the
// devices of the path) passes in a fuller state only if it passes with
// nothing allocated, and the search is exhaustive up to the limit on
// devices per claim, which counts devices, not which ones. So a search
// that found nothing with nothing allocated finds nothing with more.
// Nor can it err instead: it evaluates selectors only on devices not in
// use, at points of the search the emptier search reached too, and its
// set-up (the devices of requests for "All", static capacity only) does
// not read the allocation state. Its status is the same as well: the
// allocator's failures name no device ("cannot allocate all claims",
// or the node's invalid pools, which are part of the static class).
type staticKey struct {
	claims uint64
	static uint64
	pools  int
}

func staticKeyOf(k answerKey) staticKey {
	return staticKey{claims: k.claims, static: k.class.static, pools: k.class.pools}
}

// maxAnswers bounds the answer cache.
const maxAnswers = 200_000

// classAnswer is the allocator's answer for one class of equivalent nodes,
// as computed on node.
type classAnswer struct {
	node    string
	results []resourceapi.AllocationResult
	failed  bool
	status  *framework.Status // when failed
	// score is the prioritized-list score of results, once scored is set
	// (see Score).
	score  atomic.Int64
	scored atomic.Bool
}

// Score implements framework.ScorePlugin: for every request with
// firstAvailable, 8 minus the index of the subrequest the allocator chose.
func (p *Plugin) Score(_ context.Context, cs *framework.CycleState, _ *v1.Pod, ni *framework.NodeInfo) (int64, *framework.Status) {
	if !p.state.gates["DRAPrioritizedList"] {
		return 0, nil
	}
	d := readCycle(cs)
	if d == nil || len(d.claims) == 0 {
		return 0, nil
	}
	d.mu.Lock()
	ref, found := d.nodeAllocations[ni.Node().Name]
	d.mu.Unlock()
	alloc := ref.get()
	if !found {
		return 0, nil
	}
	// Pool names do not matter to the score: compute it once per answer.
	// When every claim of the pod is one the answer allocated, the score
	// depends on nothing else (the answer is for these claims' content),
	// and the answer keeps it for every later pod of the same shape.
	shared := alloc.answer != nil && d.allPending() != nil
	if shared && alloc.answer.scored.Load() {
		return alloc.answer.score.Load(), nil
	}
	if alloc.answer != nil && !shared {
		d.mu.Lock()
		score, done := d.scores[alloc.answer]
		d.mu.Unlock()
		if done {
			return score, nil
		}
	}
	score, err := prioritizedListScore(d, alloc)
	if err != nil {
		return 0, framework.AsStatus(err)
	}
	switch {
	case shared:
		alloc.answer.score.Store(score)
		alloc.answer.scored.Store(true)
	case alloc.answer != nil:
		d.mu.Lock()
		if d.scores == nil {
			d.scores = map[*classAnswer]int64{}
		}
		d.scores[alloc.answer] = score
		d.mu.Unlock()
	}
	return score, nil
}

func prioritizedListScore(d *cycleData, alloc nodeAllocation) (int64, error) {
	results := alloc.results
	if alloc.answer != nil {
		results = alloc.answer.results
	}
	var score int64
	next := 0
	for _, claim := range d.claims {
		var allocation *resourceapi.AllocationResult
		if claim.Status.Allocation != nil {
			allocation = claim.Status.Allocation
		} else {
			if claim == d.extendedClaim && alloc.extendedClaim == nil {
				continue
			}
			if next >= len(results) {
				return 0, fmt.Errorf("number of allocations %d is smaller than number of claims needing allocation", len(results))
			}
			allocation = &results[next]
			next++
		}
		chosen := sets.New[string]()
		for _, r := range allocation.Devices.Results {
			if resourceclaim.IsSubRequestRef(r.Request) {
				chosen.Insert(r.Request)
			}
		}
		for _, req := range claim.Spec.Devices.Requests {
			for i, sub := range req.FirstAvailable {
				if chosen.Has(resourceclaim.CreateSubRequestRef(req.Name, sub.Name)) {
					score += int64(resourceapi.FirstAvailableDeviceRequestMaxSize - i)
				}
			}
		}
	}
	return score, nil
}

// NormalizeScore implements framework.ScoreNormalizer: score*100/max.
func (p *Plugin) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *v1.Pod, scores []framework.NodeScore) *framework.Status {
	var highest int64
	for _, s := range scores {
		highest = max(highest, s.Score)
	}
	if highest == 0 {
		return nil
	}
	for i := range scores {
		scores[i].Score = framework.MaxNodeScore * scores[i].Score / highest
	}
	return nil
}

// Reserve implements framework.ReservePlugin: the allocation found for the
// chosen node is written into the claims (status.allocation, finalizer) and
// every claim of the pod is reserved for it, which is what PreBind persists
// in a real cluster.
func (p *Plugin) Reserve(ctx context.Context, cs *framework.CycleState, pod *v1.Pod, nodeName string) *framework.Status {
	d := readCycle(cs)
	if d == nil {
		return nil
	}
	alloc := d.nodeAllocations[nodeName].get()
	results := p.resultsOn(alloc, nodeName)
	if p.order != nil && d.needsAllocation {
		if steered := p.steer(ctx, cs, d, pod, nodeName); steered != nil {
			results = steered
		}
	}
	next := 0
	for _, i := range d.toAllocate() {
		claim := d.claims[i]
		if claim == d.extendedClaim {
			if alloc.extendedClaim == nil {
				continue
			}
			d.standIn, d.extendedIndex = claim, i
			claim = p.materializeExtendedClaim(pod, alloc.extendedClaim)
			d.claims[i] = claim
			d.madeExtended = claim
			setExtendedStatus(pod, claim.Name, alloc.mappings)
		}
		if next >= len(results) {
			return framework.AsStatus(fmt.Errorf("internal error: no allocation for claim %s on node %s", claim.Name, nodeName))
		}
		if err := p.state.Allocate(claim, &results[next]); err != nil {
			return framework.AsStatus(err)
		}
		d.allocatedHere = append(d.allocatedHere, claim)
		next++
	}
	for _, claim := range d.claims {
		if claim == d.extendedClaim && claim.Name == specialClaimName {
			continue
		}
		p.state.Reserve(claim, pod)
	}
	return nil
}

// Unreserve implements framework.ReservePlugin: it undoes what Reserve
// did for the pod, as kube's Unreserve drops the pod's reservations and
// the allocations still in flight. drasim binds in the same step as it
// reserves; only a pod group cycle that fails takes its pods back.
func (p *Plugin) Unreserve(_ context.Context, cs *framework.CycleState, pod *v1.Pod, _ string) {
	d := readCycle(cs)
	if d == nil {
		return
	}
	for _, claim := range d.claims {
		p.state.unreserve(claim, pod)
	}
	for i := len(d.allocatedHere) - 1; i >= 0; i-- {
		p.state.undoAllocate(d.allocatedHere[i])
	}
	d.allocatedHere = nil
	if d.madeExtended != nil {
		p.state.DeleteClaim(d.madeExtended.Namespace, d.madeExtended.Name)
		d.claims[d.extendedIndex] = d.standIn
		pod.Status.ExtendedResourceClaimStatus = nil
		d.madeExtended, d.standIn = nil, nil
	}
}

// ChosenAllocation returns the allocation Filter found for a node, for
// explanations: one result per claim that needed allocation.
func (p *Plugin) ChosenAllocation(cs *framework.CycleState, nodeName string) []resourceapi.AllocationResult {
	d := readCycle(cs)
	if d == nil {
		return nil
	}
	d.mu.Lock()
	alloc := d.nodeAllocations[nodeName].get()
	d.mu.Unlock()
	return p.resultsOn(alloc, nodeName)
}

// sortedResourceNames returns the keys of m in order.
func sortedResourceNames(m map[v1.ResourceName]int64) []v1.ResourceName {
	out := make([]v1.ResourceName, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// State returns the DRA state the plugin works on.
func (p *Plugin) State() *State { return p.state }
