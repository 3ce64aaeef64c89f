package autoscale

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/nodegroup"
	v1 "k8s.io/api/core/v1"
)

// Cluster-autoscaler 1.36's scale-down (core/scaledown): every loop the
// planner finds the nodes that are unneeded — utilization at or below the
// threshold and every pod movable elsewhere by a drain simulation — and
// remembers since when; nodes unneeded for long enough are deleted, empty
// ones before drained ones, within the deletion budgets. docs/autoscaler.md
// lists each rule and where drasim differs.

// ScaleDownOptions are CA's scale-down flags, with CA's defaults from
// DefaultScaleDownOptions.
type ScaleDownOptions struct {
	// Enabled is --scale-down-enabled.
	Enabled bool
	// UnneededTime is --scale-down-unneeded-time: how long a node must be
	// unneeded before it is deleted.
	UnneededTime time.Duration
	// UtilizationThreshold is --scale-down-utilization-threshold;
	// GPUUtilizationThreshold applies to GPU nodes (nvidia.com/gpu).
	UtilizationThreshold    float64
	GPUUtilizationThreshold float64
	// DelayAfterAdd, DelayAfterDelete and DelayAfterFailure are
	// --scale-down-delay-after-*: no deletion so long after a scale-up, a
	// deletion or a failed deletion.
	DelayAfterAdd, DelayAfterDelete, DelayAfterFailure time.Duration
	// UnremovableRecheck is --unremovable-node-recheck-timeout: a node found
	// unremovable is not looked at again for so long.
	UnremovableRecheck time.Duration
	// MaxParallelism and MaxDrainParallelism are --max-scale-down-parallelism
	// and --max-drain-parallelism: nodes deleted at once, and of them nodes
	// that need a drain.
	MaxParallelism, MaxDrainParallelism int
	// IgnoreDaemonSetsUtilization is --ignore-daemonsets-utilization.
	IgnoreDaemonSetsUtilization bool
	// SkipNodesWithSystemPods, SkipNodesWithLocalStorage and
	// SkipNodesWithCustomControllerPods are CA's --skip-nodes-with-* flags.
	SkipNodesWithSystemPods, SkipNodesWithLocalStorage, SkipNodesWithCustomControllerPods bool
	// BlockingSystemPodDisruptionTimeout is
	// --blocking-system-pod-distruption-timeout.
	BlockingSystemPodDisruptionTimeout time.Duration
}

// DefaultScaleDownOptions are CA 1.36's defaults.
func DefaultScaleDownOptions() ScaleDownOptions {
	return ScaleDownOptions{
		Enabled:                            true,
		UnneededTime:                       10 * time.Minute,
		UtilizationThreshold:               0.5,
		GPUUtilizationThreshold:            0.5,
		DelayAfterAdd:                      10 * time.Minute,
		DelayAfterFailure:                  3 * time.Minute,
		UnremovableRecheck:                 5 * time.Minute,
		MaxParallelism:                     10,
		MaxDrainParallelism:                1,
		SkipNodesWithSystemPods:            true,
		SkipNodesWithLocalStorage:          true,
		SkipNodesWithCustomControllerPods:  true,
		BlockingSystemPodDisruptionTimeout: time.Hour,
	}
}

func (o ScaleDownOptions) check() error {
	switch {
	case o.UnneededTime < 0 || o.DelayAfterAdd < 0 || o.DelayAfterDelete < 0 || o.DelayAfterFailure < 0 || o.UnremovableRecheck < 0:
		return fmt.Errorf("scale-down durations must not be negative")
	case o.UtilizationThreshold < 0 || o.UtilizationThreshold > 1 || o.GPUUtilizationThreshold < 0 || o.GPUUtilizationThreshold > 1:
		return fmt.Errorf("scale-down utilization thresholds must be between 0 and 1")
	case o.MaxParallelism < 1 || o.MaxDrainParallelism < 0:
		return fmt.Errorf("max scale-down parallelism must be at least 1 and max drain parallelism at least 0")
	}
	return nil
}

// UnremovableReason is why a scale-down candidate is kept (CA's
// simulator.UnremovableReason, by name).
type UnremovableReason string

// Unremovable reasons drasim can meet.
const (
	ReasonScaleDownDisabledAnnotation UnremovableReason = "ScaleDownDisabledAnnotation"
	ReasonNotUnderutilized            UnremovableReason = "NotUnderutilized"
	ReasonRecentlyUnremovable         UnremovableReason = "RecentlyUnremovable"
	ReasonBlockedByPod                UnremovableReason = "BlockedByPod"
	ReasonNoPlaceToMovePods           UnremovableReason = "NoPlaceToMovePods"
	ReasonNotUnneededLongEnough       UnremovableReason = "NotUnneededLongEnough"
	ReasonNodeGroupMinSizeReached     UnremovableReason = "NodeGroupMinSizeReached"
	ReasonBlockedByOnCompletionPod    UnremovableReason = "BlockedByOnCompletionPod"
	ReasonNotUnneededOtherReason      UnremovableReason = "NotUnneededOtherReason"
)

// unneededNode is a node found removable, with since when.
type unneededNode struct {
	since    time.Time
	toMove   []*v1.Pod
	daemons  []*v1.Pod
	complete []*v1.Pod
}

// planner is CA's scale-down planner (core/scaledown/planner).
type planner struct {
	opts  ScaleDownOptions
	rules drainRules
	place *placer
	// unneeded are the nodes found removable in the last loop, by name.
	unneeded map[string]*unneededNode
	// unremovable holds, per node found unremovable in a drain simulation,
	// when it may be looked at again.
	unremovable map[string]time.Time
	// latest is the last update; minInterval the shortest interval seen
	// between updates (CA's loop interval estimate).
	latest      time.Time
	minInterval time.Duration
	// utilCache keeps each node's utilization with its state, by the
	// node's place in the node list (see utilization).
	utilCache []cachedUtil
	// emptiness keeps each candidate's emptiness (sortCandidates) by its
	// place in the node list (see emptinessOf) while it has the same name
	// and pods, when no rule read the clock for them.
	emptiness []cachedEmptiness
	// ranks are sortCandidates' buckets, kept for their room.
	ranks [6][]*framework.NodeInfo
	// reasons are the last loop's unremovable nodes with why.
	reasons map[string]UnremovableReason
	// memo holds each node's last successful removal simulation (see
	// replay); memoOK is whether the cluster allows it this loop.
	memo   map[string]*simMemo
	memoOK bool
	// deferred are this loop's replayed simulations not carried out on
	// the cluster yet, in order; shadow holds the state each of their
	// destinations has with them (see replay).
	deferred []deferredReplay
	shadow   map[string]nodeState
	// hardSpread: the profile's default topology spread constraints
	// filter (a pod without its own is then cross-node).
	hardSpread bool
	// noMemo switches the memo off (the reference engine).
	noMemo bool
}

// emptiness is a candidate's emptiness for CA's candidate order.
type emptiness struct{ empty, onCompletion bool }

// cachedEmptiness is a node's emptiness with the node's name and pods and
// the cluster's in-place edits it was found with (ok: a verdict is kept).
type cachedEmptiness struct {
	ok    bool
	name  string
	pods  []*framework.PodInfo
	edits uint64
	emptiness
}

type cachedUtil struct {
	state nodeState
	util  Utilization
}

func newPlanner(opts ScaleDownOptions, rules drainRules, place *placer) *planner {
	min := opts.UnneededTime
	if min == 0 {
		min = time.Nanosecond
	}
	return &planner{opts: opts, rules: rules, place: place, unneeded: map[string]*unneededNode{}, unremovable: map[string]time.Time{}, minInterval: min,
		memo: map[string]*simMemo{}}
}

// update is the planner's UpdateClusterState: the candidates (in CA's
// order) are checked for eligibility and their removal simulated, each
// successful simulation kept (committed into the cluster's open fork) for
// the next ones, as CA persists successful simulations in its forked
// snapshot. destinations are the nodes pods may move to.
func (p *planner) update(ctx context.Context, c *cluster.Cluster, now time.Time, candidates []*framework.NodeInfo, destinations map[string]bool) error {
	if !p.latest.IsZero() {
		if d := now.Sub(p.latest); d < p.minInterval {
			p.minInterval = d
		}
	}
	p.latest = now
	// Kept from loop to loop: nearly every candidate gets a reason, and
	// growing a new map entry by entry in every loop is garbage
	// (docs/performance.md). Nothing holds the map after the loop.
	if p.reasons == nil {
		p.reasons = make(map[string]UnremovableReason, len(candidates))
	} else {
		clear(p.reasons)
	}
	// Replays still deferred at the end are dropped: nothing after the
	// planner reads the cluster before the loop takes its changes back.
	p.deferred, p.shadow = nil, map[string]nodeState{}
	defer func() { p.deferred, p.shadow = nil, nil }()
	p.memoOK = !p.noMemo && memoizable(c)
	for name, ttl := range p.unremovable {
		if !ttl.After(now) || c.Node(name) == nil {
			delete(p.unremovable, name)
		}
	}
	var eligible []*framework.NodeInfo
	for _, ni := range candidates {
		name := ni.Node().Name
		if _, recent := p.unremovable[name]; recent {
			p.reasons[name] = ReasonRecentlyUnremovable
			continue
		}
		if r := p.ineligible(ni, c); r != "" {
			p.reasons[name] = r
			continue
		}
		eligible = append(eligible, ni)
	}
	recheck := now.Add(p.opts.UnremovableRecheck)
	removable := map[string]*unneededNode{}
	var order []string
	limit := p.unneededLimit()
	for i, ni := range eligible {
		if len(order) >= limit {
			for _, rest := range eligible[i:] {
				p.reasons[rest.Node().Name] = ReasonNotUnneededOtherReason
			}
			break
		}
		name := ni.Node().Name
		u, reason, err := p.simulateRemoval(ctx, ni, now, destinations)
		if err != nil {
			return fmt.Errorf("scale-down simulation of node %s: %w", name, err)
		}
		if u == nil {
			p.reasons[name] = reason
			p.unremovable[name] = recheck
			continue
		}
		delete(destinations, name)
		removable[name] = u
		order = append(order, name)
	}
	// Nodes keep the time they were first found unneeded, as long as
	// they are found unneeded in every loop.
	for _, name := range order {
		if old, ok := p.unneeded[name]; ok {
			removable[name].since = old.since
		} else {
			removable[name].since = now
		}
	}
	p.unneeded = removable
	p.place.dropOldHints()
	return nil
}

// ineligible is CA's eligibility check: the scale-down-disabled
// annotation, then utilization against the threshold.
func (p *planner) ineligible(ni *framework.NodeInfo, c *cluster.Cluster) UnremovableReason {
	node := ni.Node()
	if node.Annotations[annotationScaleDownDisabled] == "true" {
		return ReasonScaleDownDisabledAnnotation
	}
	u := p.utilization(ni, c)
	threshold := p.opts.UtilizationThreshold
	if u.GPU {
		threshold = p.opts.GPUUtilizationThreshold
	}
	if u.Value > threshold {
		return ReasonNotUnderutilized
	}
	return ""
}

// utilization is the node's utilization, kept by the node's place in the
// node list while the node is in the same state (as emptinessOf keeps
// emptiness: every candidate is asked in every loop).
func (p *planner) utilization(ni *framework.NodeInfo, c *cluster.Cluster) Utilization {
	st := stateOf(ni, c)
	cu := slotOf(&p.utilCache, ni)
	if st.valid && cu.state == st {
		return cu.util
	}
	u := nodeUtilization(ni, c.DRA(), p.opts.IgnoreDaemonSetsUtilization)
	*cu = cachedUtil{state: st, util: u}
	return u
}

// unneededLimit is CA's unneededNodesLimit: looking for more unneeded
// nodes than can be deleted before they are found again is wasted.
func (p *planner) unneededLimit() int {
	n := p.opts.MaxParallelism
	limit := len(p.unneeded) + 2*n
	u := p.opts.UnneededTime
	if u < p.minInterval {
		u = p.minInterval
	}
	upper := n*int(u/p.minInterval) + n
	return min(limit, upper)
}

// simulateRemoval is CA's SimulateNodeRemoval: the pods to move (the
// drainability rules), then each placed first-fit on another destination
// node while the node itself is tainted ToBeDeletedByClusterAutoscaler.
// The simulation runs on a fork of the cluster, committed when every pod
// found a place and reverted otherwise.
func (p *planner) simulateRemoval(ctx context.Context, ni *framework.NodeInfo, now time.Time, destinations map[string]bool) (*unneededNode, UnremovableReason, error) {
	name := ni.Node().Name
	if _, ok := p.shadow[name]; ok {
		// Deferred replays moved pods here: this node's pods and state
		// are read next.
		if err := p.carryOut(); err != nil {
			return nil, "", err
		}
	}
	move := p.rules.podsToMoveFrom(ni, now)
	if move.blocking != nil {
		return nil, ReasonBlockedByPod, nil
	}
	c := p.place.k.c
	memoOK := p.memoOK && movable(move.pods, p.hardSpread)
	st := stateOf(ni, c)
	if m := p.memo[name]; memoOK && m != nil && st.valid && m.state == st && slices.Equal(m.pods, move.pods) && slices.Equal(m.daemons, move.daemonSet) {
		if p.replay(m, now, destinations) {
			u := *m.result
			return &u, "", nil
		}
	}
	// A simulation reads the whole cluster: the deferred replays first.
	if err := p.carryOut(); err != nil {
		return nil, "", err
	}
	last := p.memo[name]
	delete(p.memo, name)
	var u *unneededNode
	var reason UnremovableReason
	err := cluster.WithForkedCluster(c, func() (bool, error) {
		pods := append(append([]*v1.Pod(nil), move.pods...), move.daemonSet...)
		for _, pod := range pods {
			if err := c.Unschedule(pod); err != nil {
				return false, err
			}
		}
		c.SetNode(name, taintedForDeletion(ni.Node(), now))
		acceptable := func(n string) bool { return n != name && destinations[n] }
		before, after := map[*v1.Pod]nodeState{}, map[*v1.Pod]nodeState{}
		if memoOK {
			p.place.beforeBind = func(pod *v1.Pod, node string) { before[pod] = stateOf(c.Node(node), c) }
			p.place.afterBind = func(pod *v1.Pod, node string) { after[pod] = stateOf(c.Node(node), c) }
			p.place.recall = func(pod *v1.Pod, node string) (*framework.PodInfo, []cluster.PlacedClaim, bool) {
				return p.recall(last, pod, node)
			}
		}
		placed, err := p.place.trySchedule(ctx, move.pods, true, acceptable)
		p.place.beforeBind, p.place.afterBind, p.place.recall = nil, nil, nil
		if err != nil {
			return false, err
		}
		if len(placed) < len(move.pods) {
			reason = ReasonNoPlaceToMovePods
			return false, nil
		}
		u = &unneededNode{toMove: move.pods, daemons: move.daemonSet, complete: move.onCompletion}
		if memoOK && st.valid {
			m := &simMemo{state: st, pods: move.pods, daemons: move.daemonSet, result: u, edits: c.Edits()}
			for _, pl := range placed {
				pi, claims := c.Placed(pl.pod)
				m.places = append(m.places, memoPlace{pod: pl.pod, node: pl.node, before: before[pl.pod], after: after[pl.pod], pi: pi, claims: claims})
			}
			p.memo[name] = m
		}
		return true, nil
	})
	if err != nil || u == nil {
		return nil, reason, err
	}
	r := *u
	return &r, "", nil
}

// simMemo is a node's last successful removal simulation: the node's
// state and pods then, and where each pod went, with the state its new
// node had just before. A later loop that finds the node and each
// destination, in turn, in the same state, and each pod's hint still on
// its destination, would run the same filters on the same inputs (CA
// tries a pod's hint first): it makes the same placements (replay)
// without a scheduling cycle.
type simMemo struct {
	state   nodeState
	pods    []*v1.Pod
	daemons []*v1.Pod
	places  []memoPlace
	result  *unneededNode
	// edits are the cluster's in-place edits then (see recall).
	edits uint64
}

type memoPlace struct {
	pod  *v1.Pod
	node string
	// before and after are the destination's state just before and
	// after the placement.
	before, after nodeState
	pi            *framework.PodInfo
	claims        []cluster.PlacedClaim
}

// recall is the memo's rule for one pod (placer.recall): when the node's
// simulation cannot be replayed whole (a destination or the node itself
// changed) and tries a pod's hint, and the hint is the node the pod went
// to in the node's last successful simulation (last), that node is in the
// state it had just before, the pod's claims are free again as they were
// then, and no object was edited in place since, the filters would read
// the same inputs and the binding make the same claims' statuses: the
// placement is made again without a scheduling cycle. Only for the pods
// of a simulation the memo could hold (movable pods, memoizable cluster).
func (p *planner) recall(last *simMemo, pod *v1.Pod, node string) (*framework.PodInfo, []cluster.PlacedClaim, bool) {
	c := p.place.k.c
	if last == nil || last.edits != c.Edits() {
		return nil, nil, false
	}
	for i := range last.places {
		pl := &last.places[i]
		if pl.pod != pod {
			continue
		}
		if pl.node != node {
			return nil, nil, false
		}
		if st := stateOf(c.Node(node), c); !st.valid || st != pl.before || !c.Fresh(pod, pl.claims) {
			return nil, nil, false
		}
		return pl.pi, pl.claims, true
	}
	return nil, nil, false
}

// deferredReplay is a replayed simulation the cluster has not seen yet.
type deferredReplay struct {
	memo *simMemo
	now  time.Time
}

// replay makes a memo's placements again when every destination is still
// acceptable and in the state it had; otherwise it changes nothing and
// reports false. The placements are deferred: the next simulations that
// replay too read only the destinations' states, which the shadow keeps
// (a placement leaves its destination in the memo's after state, as the
// same placement on the same state did), and the loop usually ends
// without anything reading the cluster again, so most replays never
// touch it. carryOut makes them before anything reads the cluster.
func (p *planner) replay(m *simMemo, now time.Time, destinations map[string]bool) bool {
	c := p.place.k.c
	name := m.state.node.Name
	shadow := map[string]nodeState{}
	for _, pl := range m.places {
		// CA tries the pod's hint first: the memo holds only while the
		// hint is still the node the pod went to (another simulation may
		// have moved the pod since).
		if hint, ok := p.place.hint(pl.pod); !ok || hint != pl.node {
			return false
		}
		dst := c.Node(pl.node)
		if pl.node == name || !destinations[pl.node] || dst == nil {
			return false
		}
		st, ok := shadow[pl.node]
		if !ok {
			if st, ok = p.shadow[pl.node]; !ok {
				st = stateOf(dst, c)
			}
		}
		if !st.valid || st != pl.before {
			return false
		}
		shadow[pl.node] = pl.after
		p.place.current[pl.pod.UID] = pl.node
	}
	maps.Copy(p.shadow, shadow)
	p.deferred = append(p.deferred, deferredReplay{memo: m, now: now})
	return true
}

// carryOut makes the deferred replays' changes on the cluster, each on a
// fork committed into the cluster's open fork, in their order: the pods
// off their nodes, the nodes tainted, the pods on their destinations.
func (p *planner) carryOut() error {
	c := p.place.k.c
	for _, d := range p.deferred {
		m := d.memo
		err := cluster.WithForkedCluster(c, func() (bool, error) {
			for _, pod := range append(append([]*v1.Pod(nil), m.pods...), m.daemons...) {
				if err := c.Unschedule(pod); err != nil {
					return false, err
				}
			}
			c.SetNode(m.state.node.Name, taintedForDeletion(m.state.node, d.now))
			for _, pl := range m.places {
				if err := c.Place(pl.pod, pl.node, pl.pi, pl.claims); err != nil {
					return false, err
				}
			}
			return true, nil
		})
		if err != nil {
			return err
		}
	}
	p.deferred = p.deferred[:0]
	clear(p.shadow)
	return nil
}

// nodeState is what the filters of a pod without cross-node constraints
// read of a node, as comparable values: the node object (labels, taints,
// allocatable), the resources its pods request and how many they are,
// its host ports in use, and its devices' allocation class.
type nodeState struct {
	node              *v1.Node
	cpu, mem, storage int64
	scalars           string
	pods, ports       int
	static, dynamic   uint64
	poolCount         int
	valid             bool
}

func stateOf(ni *framework.NodeInfo, c *cluster.Cluster) nodeState {
	r := ni.Requested
	st := nodeState{node: ni.Node(), cpu: r.MilliCPU, mem: r.Memory, storage: r.EphemeralStorage, pods: len(ni.Pods)}
	if len(ni.UsedPorts) > 0 {
		st.ports = ni.UsedPorts.Len() // ranging over an empty map costs
	}
	if len(r.ScalarResources) > 0 {
		names := make([]string, 0, len(r.ScalarResources))
		for n := range r.ScalarResources {
			names = append(names, string(n))
		}
		sort.Strings(names)
		var b strings.Builder
		for _, n := range names {
			fmt.Fprintf(&b, "%s=%d;", n, r.ScalarResources[v1.ResourceName(n)])
		}
		st.scalars = b.String()
	}
	st.static, st.dynamic, st.poolCount, st.valid = c.DRA().NodeKey(ni.Node().Name)
	return st
}

// memoizable reports whether removal simulations may be replayed this
// loop: a pod's fit on a node must depend on that node alone, so no pod
// anywhere may have required anti-affinity (every slice being node-local
// is nodeState.valid).
func memoizable(c *cluster.Cluster) bool {
	return len(c.HavePodsWithRequiredAntiAffinityList()) == 0
}

// movable reports whether where the pods fit depends on one node at a
// time: no (anti-)affinity, no hard topology spread (their own, or the
// profile's defaults), no host ports.
func movable(pods []*v1.Pod, hardSpreadByDefault bool) bool {
	for _, pod := range pods {
		if a := pod.Spec.Affinity; a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil) {
			return false
		}
		if len(pod.Spec.TopologySpreadConstraints) == 0 && hardSpreadByDefault {
			return false
		}
		for _, tsc := range pod.Spec.TopologySpreadConstraints {
			if tsc.WhenUnsatisfiable == v1.DoNotSchedule {
				return false
			}
		}
		if len(framework.HostPorts(pod)) > 0 {
			return false
		}
	}
	return true
}

// toBeDeletedTaint is the taint CA puts on a node it deletes.
const toBeDeletedTaint = "ToBeDeletedByClusterAutoscaler"

// taintedForDeletion is CA's tainted ghost of a node being removed. It is
// a shallow copy with a taint list of its own: the ghost lives for one
// drain simulation, in which nothing changes a node object, and copying
// the node's status and labels for each simulation cost more than the
// simulation's bookkeeping.
func taintedForDeletion(node *v1.Node, now time.Time) *v1.Node {
	n := *node
	n.Spec.Taints = append(node.Spec.Taints[:len(node.Spec.Taints):len(node.Spec.Taints)],
		v1.Taint{Key: toBeDeletedTaint, Value: strconv.FormatInt(now.Unix(), 10), Effect: v1.TaintEffectNoSchedule})
	return &n
}

// Deletion is a node the scale-down deletes, with the pods to evict.
type Deletion struct {
	Node  string `json:"node"`
	Group string `json:"group"`
	// Evict are the pods moved elsewhere (empty for an empty node); the
	// node's DaemonSet pods go with it.
	Evict []*v1.Pod `json:"-"`
	// UnneededFor is how long the node was unneeded.
	UnneededFor time.Duration `json:"unneededFor"`
	// Drain is set when pods had to be moved.
	Drain bool `json:"drain"`
}

// nodesToDelete is CA's NodesToDelete and the actuator's budgets: nodes
// unneeded for long enough whose group stays at or above its minimum,
// empty ones first, cropped to --max-scale-down-parallelism nodes of which
// at most --max-drain-parallelism need a drain. CA walks the unneeded nodes
// in map order; drasim walks them in node order.
func (p *planner) nodesToDelete(now time.Time, nodeOrder []string, groupOf func(string) *nodegroup.Group) []Deletion {
	sizes := map[*nodegroup.Group]int{}
	var empty, drain []Deletion
	for _, name := range nodeOrder {
		u := p.unneeded[name]
		if u == nil {
			continue
		}
		g := groupOf(name)
		if g == nil {
			continue
		}
		if _, ok := sizes[g]; !ok {
			sizes[g] = g.Size()
		}
		switch {
		case p.opts.UnneededTime > 0 && !u.since.Add(p.opts.UnneededTime).Before(now):
			p.reasons[name] = ReasonNotUnneededLongEnough
			continue
		case sizes[g] <= g.MinSize:
			p.reasons[name] = ReasonNodeGroupMinSizeReached
			continue
		case len(u.complete) > 0:
			p.reasons[name] = ReasonBlockedByOnCompletionPod
			continue
		}
		sizes[g]--
		d := Deletion{Node: name, Group: g.Name, UnneededFor: now.Sub(u.since), Evict: u.toMove, Drain: len(u.toMove) > 0}
		if d.Drain {
			drain = append(drain, d)
		} else {
			empty = append(empty, d)
		}
	}
	budget := p.opts.MaxParallelism
	out := cropByGroup(empty, budget)
	budget -= len(out)
	return append(out, cropByGroup(drain, min(budget, p.opts.MaxDrainParallelism))...)
}

// cropByGroup is the actuator's cropIndividualNodes: nodes taken group by
// group (groups in order of their first node) until the budget is spent.
func cropByGroup(list []Deletion, budget int) []Deletion {
	var groups []string
	byGroup := map[string][]Deletion{}
	for _, d := range list {
		if _, ok := byGroup[d.Group]; !ok {
			groups = append(groups, d.Group)
		}
		byGroup[d.Group] = append(byGroup[d.Group], d)
	}
	var out []Deletion
	for _, g := range groups {
		if budget < 1 {
			break
		}
		nodes := byGroup[g]
		if len(nodes) > budget {
			nodes = nodes[:budget]
		}
		out = append(out, nodes...)
		budget -= len(nodes)
	}
	return out
}

// sortCandidates is CA's candidate order (its EmptySorting, then
// PreviousCandidates comparers): empty nodes first, and among them those
// without on-completion pods; then nodes unneeded in the previous loop;
// else as listed. CA's emptiness check asks no listers, so a missing
// controller does not make a node non-empty there. CA sorts unstably;
// drasim keeps the listed order among equals.
func (p *planner) sortCandidates(nodes []*framework.NodeInfo, now time.Time, edits uint64) {
	rules := p.rules
	rules.controllerExists = nil
	// The order is a stable sort by rank: empty without on-completion
	// pods, empty with them, then not empty; within each, nodes unneeded
	// in the previous loop first. Nodes are put in their rank's bucket
	// in the listed order.
	buckets := &p.ranks
	for i := range buckets {
		buckets[i] = buckets[i][:0]
	}
	for _, ni := range nodes {
		e := p.emptinessOf(ni, rules, now, edits)
		rank := 4
		if e.empty {
			rank = 0
			if e.onCompletion {
				rank = 2
			}
		}
		if _, ok := p.unneeded[ni.Node().Name]; !ok {
			rank++
		}
		buckets[rank] = append(buckets[rank], ni)
	}
	i := 0
	for _, b := range buckets {
		i += copy(nodes[i:], b)
	}
}

// emptinessOf is podsToMoveFrom's verdict on the node for the candidate
// order, without its lists: the pods to move and the on-completion pods
// before the first blocking pod. It is kept by the node's place in the
// node list, with its name: a map by name cost more than the verdicts
// themselves, there being every candidate in every loop; the cluster
// renews every NodeInfo when a node goes, as the loop's upcoming nodes do
// in every loop, so the NodeInfo itself would not do.
func (p *planner) emptinessOf(ni *framework.NodeInfo, rules drainRules, now time.Time, edits uint64) emptiness {
	name := ni.Node().Name
	c := slotOf(&p.emptiness, ni)
	if c.ok && c.name == name && c.edits == edits && slices.Equal(c.pods, ni.Pods) {
		return c.emptiness
	}
	var e emptiness
	e.empty = true
	timeless := true
	for _, pi := range ni.Pods {
		outcome, _, clock := rules.drainableAt(pi.Pod, now)
		timeless = timeless && !clock
		if outcome == drainBlock {
			e.empty = false
			break
		}
		if outcome == drainWait {
			e.onCompletion = true
		} else if (outcome == drainUndefined || outcome == drainOK) && !isDaemonSetPod(pi.Pod) {
			e.empty = false
		}
	}
	if timeless {
		// The verdict holds while the node has the same pods (the
		// drain simulations take them off and put them back every
		// loop, so the NodeInfo's Generation would not do) and no pod
		// is edited in place (the cluster's edits).
		*c = cachedEmptiness{ok: true, name: name, pods: append(c.pods[:0], ni.Pods...), edits: edits, emptiness: e}
	} else {
		c.ok = false
	}
	return e
}

// slotOf is the node's entry in a cache kept by place in the node list,
// grown to hold it (an index out of any sane range shares slot 0; the
// entries are checked against the node anyway).
func slotOf[T any](cache *[]T, ni *framework.NodeInfo) *T {
	i := ni.Index
	if i < 0 || i > 1<<20 {
		i = 0
	}
	if i >= len(*cache) {
		*cache = append(*cache, make([]T, i+1-len(*cache))...)
	}
	return &(*cache)[i]
}
