package autoscale

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/inventory"
	"github.com/drasim/drasim/sim/nodegroup"
	"github.com/drasim/drasim/sim/result"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// ErrNoNodeGroups is returned when the snapshot has no NodeGroup.
var ErrNoNodeGroups = errors.New("no NodeGroup in the snapshot: add drasim.io/v1alpha1 NodeGroup objects (see docs/autoscaler.md)")

// Outcome is a finished scale-up simulation: the plan, and the cluster
// after it (with the new nodes and their slices in its snapshot, so that
// Cluster.WriteSnapshot writes them).
type Outcome struct {
	Plan    *Plan
	Cluster *cluster.Cluster
}

// Run replays the snapshot, then runs cluster-autoscaler's scale-up loop
// on what stayed pending, and returns the plan. The snapshot is not
// changed. Errors are broken input (invalid NodeGroups, an unknown
// expander) or a failure of the scheduler; pods that no group helps are
// part of the plan, not errors.
func Run(ctx context.Context, snap *snapshot.Snapshot, opts Options) (*Outcome, error) {
	s, err := newScaler(ctx, snap, opts)
	if err != nil {
		return nil, err
	}
	initial := map[string]int{}
	for _, g := range s.groups {
		initial[g.Name] = g.Size()
	}
	if err := s.loop(); err != nil {
		return nil, err
	}
	for _, g := range s.groups {
		added := g.Size() - initial[g.Name]
		if added == 0 {
			continue
		}
		su := GroupScaleUp{Group: g.Name, From: initial[g.Name], To: g.Size(), Max: g.MaxSize, Nodes: g.Nodes[initial[g.Name]:]}
		s.plan.NodesAdded += added
		if g.PricePerHour != nil {
			cost := roundCost(*g.PricePerHour * float64(added))
			su.CostPerHour = &cost
			s.plan.CostPerHour = roundCost(s.plan.CostPerHour + cost)
		} else {
			s.plan.UnpricedNodes += added
		}
		s.plan.ScaleUp = append(s.plan.ScaleUp, su)
	}
	s.finishProvReqs()
	if err := s.finishBuffers(); err != nil {
		return nil, err
	}
	s.final.Recount()
	s.describeScaledCluster()
	s.plan.Result = s.final
	s.warnGangs()
	s.plan.Warnings = append(s.plan.Warnings, celWarnings(s.matcher)...)
	if n := s.cur.Forks(); n > 0 {
		return nil, fmt.Errorf("internal error: %d what-if fork(s) of the cluster left open", n)
	}
	return &Outcome{Plan: s.plan, Cluster: s.cur}, nil
}

// newScaler checks the options and the NodeGroups and runs the replay the
// scale-up starts from.
func newScaler(ctx context.Context, snap *snapshot.Snapshot, opts Options) (*scaler, error) {
	return newScalerOf(ctx, snap, opts, true)
}

// newScalerWithoutGroups is newScaler for a snapshot that may have no
// NodeGroup (Assess still answers what fits the cluster as it stands).
func newScalerWithoutGroups(ctx context.Context, snap *snapshot.Snapshot, opts Options) (*scaler, error) {
	return newScalerOf(ctx, snap, opts, false)
}

func newScalerOf(ctx context.Context, snap *snapshot.Snapshot, opts Options, requireGroups bool) (*scaler, error) {
	opts = opts.withDefaults()
	if err := opts.check(); err != nil {
		return nil, err
	}
	ch, err := newChain(opts)
	if err != nil {
		return nil, err
	}
	work := snap.Copy()
	groups, warnings, err := nodegroup.Resolve(work)
	if err != nil {
		return nil, err
	}
	if len(groups) == 0 && requireGroups {
		return nil, ErrNoNodeGroups
	}
	run, err := sim.Simulate(ctx, work, opts.Sim)
	if err != nil {
		return nil, err
	}
	gates := opts.Sim.Gates
	if gates == nil {
		gates = feature.Defaults()
	}
	s := &scaler{
		ctx: ctx, opts: opts, groups: groups, work: work, cur: run.Cluster, draPlugin: run.DRA, chain: ch,
		matcher:  inventory.NewMatcher(ctx, gates, work.DeviceClasses),
		final:    run.Result,
		excluded: map[types.UID]string{},
	}
	s.plan = &Plan{APIVersion: APIVersion, Kind: Kind, Warnings: warnings, Loops: []Loop{}, ScaleUp: []GroupScaleUp{}, Pending: []PendingPod{}}
	s.plan.Inputs = Inputs{
		Expanders: opts.Expanders, MaxNodesTotal: opts.MaxNodesTotal, MaxNodesPerScaleUp: opts.MaxNodesPerScaleUp,
		MaxLoops: opts.MaxLoops, Seed: opts.Sim.Seed, DeviceClassWeights: opts.DeviceClassWeights, Nodes: len(s.cur.Nodes()),
	}
	for _, g := range groups {
		s.plan.Groups = append(s.plan.Groups, groupInfo(g))
	}
	s.plan.Warnings = append(s.plan.Warnings, s.matcherWarnings()...)
	s.pending = s.stillPending(s.cur.Queue())
	s.plan.Inputs.PendingPods = len(s.pending)
	if err := s.initProvReqs(); err != nil {
		return nil, err
	}
	if err := s.initBuffers(); err != nil {
		return nil, err
	}
	return s, nil
}

// scaler is one run of the scale-up loop.
type scaler struct {
	ctx       context.Context
	opts      Options
	groups    []*nodegroup.Group
	work      *snapshot.Snapshot
	cur       *cluster.Cluster
	draPlugin *dra.Plugin
	chain     *chain
	matcher   *inventory.Matcher
	final     *result.Result
	plan      *Plan
	// pending are the pods still without a node, in queue order.
	pending []*v1.Pod
	// excluded are pending pods that never trigger a scale-up, with why.
	excluded map[types.UID]string
	// provreqs and buffers are the ProvisioningRequests and
	// CapacityBuffers (provreq.go, buffer.go); virtual are the buffers'
	// pods that do not fit the cluster's free capacity this loop; prMode
	// is CA's WrapperOrchestrator turn; scaleUps counts the loops that
	// added nodes.
	provreqs []*provReq
	buffers  []*buffer
	virtual  []*v1.Pod
	prMode   bool
	scaleUps int
	// keys caches the pending pods' equivalence keys: a timeline's loop
	// groups the same waiting pods every scan interval, and a key is a
	// JSON encoding and a hash of the whole spec.
	keys map[*v1.Pod]string
}

// equivalenceKey is the pod's equivalenceKey, kept while the pod waits.
// A pod without a node is not edited in place (a pod made again is a new
// object), so its key stands until it is placed; keys are only kept and
// used for pods without a node.
func (s *scaler) equivalenceKey(pod *v1.Pod) string {
	if pod.Spec.NodeName != "" {
		return equivalenceKey(pod)
	}
	k, ok := s.keys[pod]
	if !ok {
		if s.keys == nil || len(s.keys) > 1<<16 {
			s.keys = map[*v1.Pod]string{}
		}
		k = equivalenceKey(pod)
		s.keys[pod] = k
	}
	return k
}

func (s *scaler) matcherWarnings() []string {
	var out []string
	names := make([]string, 0, len(s.opts.DeviceClassWeights))
	for c := range s.opts.DeviceClassWeights {
		names = append(names, c)
	}
	sort.Strings(names)
	for _, c := range names {
		if s.matcher.Class(c) == nil {
			out = append(out, fmt.Sprintf("device class weight for %s: no such DeviceClass in the snapshot", c))
		}
	}
	return out
}

// celWarnings are the selectors that failed while the scale-up weighed
// and counted devices: a device such a selector meets counts as not
// selected, as the allocator would fail the claim.
func celWarnings(m *inventory.Matcher) []string {
	var out []string
	for _, err := range m.Errors() {
		if err.Compile() {
			out = append(out, fmt.Sprintf("%v; it selects no device", err))
		} else {
			out = append(out, fmt.Sprintf("%v; such devices count as not selected", err))
		}
	}
	return out
}

func groupInfo(g *nodegroup.Group) GroupInfo {
	devices := 0
	templateDevices(g, func(inventory.Device) { devices++ })
	alloc := g.Template.Status.Allocatable
	return GroupInfo{
		Name: g.Name, MinSize: g.MinSize, MaxSize: g.MaxSize, Size: g.Size(), PricePerHour: g.PricePerHour, TemplateFrom: g.TemplateFrom,
		CPU: alloc.Cpu().String(), Memory: alloc.Memory().String(), Devices: devices,
	}
}

// stillPending returns the pods of list without a node; it records the
// ones that never trigger a scale-up (CA's pod list processors drop
// DaemonSet pods and expendable pods).
func (s *scaler) stillPending(list []*v1.Pod) []*v1.Pod {
	var out []*v1.Pod
	for _, p := range list {
		if p.Spec.NodeName != "" {
			continue
		}
		out = append(out, p)
		if _, done := s.excluded[p.UID]; done {
			continue
		}
		if name := p.Annotations[snapshot.ProvisioningRequestPodAnnotation]; name != "" && len(s.work.ProvisioningRequests) > 0 {
			s.excluded[p.UID] = fmt.Sprintf("consumes ProvisioningRequest %s/%s: cluster-autoscaler does not scale up for it (the request does)", p.Namespace, name)
			continue
		}
		if ref := metav1.GetControllerOf(p); ref != nil && ref.Kind == "DaemonSet" {
			s.excluded[p.UID] = "DaemonSet pod: it runs on the node it is made for; cluster-autoscaler does not scale up for it"
			continue
		}
		if prio := corev1helpers.PodPriority(p); prio < *s.opts.ExpendablePodsPriorityCutoff {
			s.excluded[p.UID] = fmt.Sprintf("expendable: priority %d is below the cutoff %d; cluster-autoscaler does not scale up for it", prio, *s.opts.ExpendablePodsPriorityCutoff)
		}
	}
	return out
}

// loop runs scale-up loops until nothing pending can be helped.
func (s *scaler) loop() error {
	var last *pass
	for index := 1; ; index++ {
		if s.hasVirtual() {
			if _, err := s.refreshBuffers(); err != nil {
				return err
			}
			if index > s.opts.MaxLoops && s.nextProvReq(index) != nil {
				s.plan.Stop = Stop{Reason: StopMaxLoops, Message: fmt.Sprintf("--max-loops %d reached", s.opts.MaxLoops)}
				break
			}
			handled, err := s.provReqTurn(index, s.hasRegular())
			if err != nil {
				return err
			}
			if handled {
				last = nil
				continue
			}
		}
		if len(s.pending) == 0 && len(s.virtual) == 0 {
			s.plan.Stop = Stop{Reason: StopNoPending, Message: "no pod is pending"}
			return nil
		}
		p, err := s.evaluate()
		if err != nil {
			return err
		}
		last = p
		if len(p.cands) == 0 {
			if s.hasVirtual() && s.nextProvReq(index+1) != nil {
				continue // the next loop is a ProvisioningRequest's
			}
			s.plan.Stop = Stop{Reason: StopNoOption, Message: "no node group can help the pods that are still pending"}
			break
		}
		if index > s.opts.MaxLoops {
			s.plan.Stop = Stop{Reason: StopMaxLoops, Message: fmt.Sprintf("--max-loops %d reached", s.opts.MaxLoops)}
			break
		}
		lp := Loop{Index: index, PendingPods: len(s.pending), Skipped: p.skipped}
		for _, c := range p.cands {
			lp.Options = append(lp.Options, *c.opt)
		}
		tieLoop := index
		if s.hasVirtual() {
			tieLoop = s.scaleUps + 1
		}
		chosen, decision := s.chain.choose(p.cands, env{nodes: len(s.cur.Nodes()), loop: tieLoop})
		lp.Decision = decision
		for i, c := range p.cands {
			lp.Options[i] = *c.opt // the chain adds price scores and priorities
		}
		if chosen == nil {
			s.plan.Loops = append(s.plan.Loops, lp)
			s.plan.Stop = Stop{Reason: StopNoExpanderChoice, Message: fmt.Sprintf("the expanders (%s) kept no option", strings.Join(s.opts.Expanders, ","))}
			break
		}
		lp.Triggered = chosen.opt.PodKeys
		waiting := len(s.virtual)
		placed, err := s.apply(chosen, &lp)
		if err != nil {
			return err
		}
		s.scaleUps++
		s.countBufferNodes(chosen, len(lp.Added))
		if placed == 0 && waiting > 0 {
			// Buffer pods are never placed: the loop helped them when
			// fewer of them wait now.
			if _, err := s.refreshBuffers(); err != nil {
				return err
			}
			if len(s.virtual) < waiting {
				placed = waiting - len(s.virtual)
			}
		}
		lp.Placed = placed
		lp.StillPending = len(s.pending)
		s.plan.Loops = append(s.plan.Loops, lp)
		last = nil
		if placed == 0 {
			s.plan.Stop = Stop{Reason: StopNoProgress, Message: fmt.Sprintf("the %d node(s) added for group %s in loop %d placed no pending pod", len(lp.Added), chosen.group.Name, index)}
			break
		}
	}
	if len(s.pending) > 0 && last == nil {
		p, err := s.evaluate()
		if err != nil {
			return err
		}
		last = p
	}
	s.reportPending(last)
	return nil
}

// pass is one evaluation of every group against the pending pods.
type pass struct {
	cands   []*candidate
	skipped []SkippedGroup
	eqs     []*podGroup
	// verdicts[eq] holds one verdict per group that was tried.
	verdicts map[*podGroup][]verdict
}

// evaluate asks every group what it could do for the pending pods, each
// on its own fork: the fit check on one template node, then the estimate.
func (s *scaler) evaluate() (*pass, error) {
	var considered []*v1.Pod
	for _, p := range s.pending {
		if _, ex := s.excluded[p.UID]; !ex {
			considered = append(considered, p)
		}
	}
	considered = append(considered, s.virtual...)
	p := &pass{eqs: equivalenceGroups(considered, s.equivalenceKey), verdicts: map[*podGroup][]verdict{}}
	if len(p.eqs) == 0 {
		return p, nil
	}
	clusterNodes := len(s.cur.Nodes())
	for _, g := range s.groups {
		room := g.MaxSize - g.Size()
		limit := min(s.opts.MaxNodesPerScaleUp, room)
		if s.opts.MaxNodesTotal > 0 {
			limit = min(limit, s.opts.MaxNodesTotal-clusterNodes)
		}
		skip := ""
		switch {
		case room <= 0:
			skip = fmt.Sprintf("max node group size reached (%d/%d)", g.Size(), g.MaxSize)
		case limit <= 0:
			skip = fmt.Sprintf("max-nodes-total reached (%d/%d)", clusterNodes, s.opts.MaxNodesTotal)
		}
		if skip != "" {
			p.skipped = append(p.skipped, SkippedGroup{Group: g.Name, Reason: skip})
			for _, eq := range p.eqs {
				p.verdicts[eq] = append(p.verdicts[eq], verdict{group: g.Name, reason: skip})
			}
			continue
		}
		c, err := s.evaluateGroup(g, p, limit)
		if err != nil {
			return nil, fmt.Errorf("node group %s: %w", g.Name, err)
		}
		if c != nil {
			p.cands = append(p.cands, c)
		}
	}
	return p, nil
}

// evaluateGroup weighs one group: the fit check on its first new node,
// then the binpacking estimate. Both run on the cluster itself, in a
// fork reverted before it returns (CA's snapshot Fork and Revert):
// a copy of the whole cluster per group and scale-up cost more than the
// estimate itself.
func (s *scaler) evaluateGroup(g *nodegroup.Group, p *pass, limit int) (*candidate, error) {
	s.cur.Fork()
	defer s.cur.Revert()
	e, err := sim.NewEngineOn(s.cur, s.opts.Sim, s.draPlugin)
	if err != nil {
		return nil, err
	}
	k := newChecker(e)
	first := g.NextNames(1)[0]
	k.addNode(g, first)
	var fit []*podGroup
	eqOf := map[types.UID]*podGroup{}
	for _, eq := range p.eqs {
		rep := eq.exemplar()
		cy, err := k.preFilter(s.ctx, rep)
		if err != nil {
			return nil, err
		}
		st, err := k.filter(s.ctx, cy, rep, first)
		if err != nil {
			return nil, err
		}
		if st != nil {
			p.verdicts[eq] = append(p.verdicts[eq], templateVerdict(s.ctx, k, s.matcher, g, rep, cy, st, first))
			continue
		}
		for _, pod := range eq.pods {
			eqOf[pod.UID] = eq
		}
		fit = append(fit, &podGroup{owner: eq.owner, pods: slices.Clone(eq.pods)})
	}
	if len(fit) == 0 {
		p.skipped = append(p.skipped, SkippedGroup{Group: g.Name, Reason: "no pending pod fits its template"})
		return nil, nil
	}
	est, err := s.binpackGangAware(k, g, fit, limit)
	if err != nil {
		return nil, err
	}
	inEstimate := map[*podGroup]bool{}
	for _, pod := range est.pods {
		inEstimate[eqOf[pod.UID]] = true
	}
	for _, fitted := range fit {
		eq := eqOf[fitted.pods[0].UID]
		v := verdict{group: g.Name, fits: inEstimate[eq], reason: fmt.Sprintf("fits: the estimate adds %d node(s)", len(est.nodes))}
		if !v.fits {
			v.reason = "fits its template, but not in the estimate"
			if s.opts.GangAwareScaleUp && gangOf(s.cur, eq.exemplar()) != "" {
				v.reason += " (--gang-aware-scale-up: its gang's minCount does not fit the nodes the group may add)"
			}
			if est.limited {
				v.reason += fmt.Sprintf(" (limited to %d node(s))", limit)
			}
		}
		p.verdicts[eq] = append(p.verdicts[eq], v)
	}
	if len(est.nodes) == 0 {
		p.skipped = append(p.skipped, SkippedGroup{Group: g.Name, Reason: "the estimate placed no pod"})
		return nil, nil
	}
	opt := &Option{Group: g.Name, Nodes: len(est.nodes), Pods: len(est.pods), Limited: est.limited}
	for _, pod := range est.pods {
		opt.PodKeys = append(opt.PodKeys, pod.Namespace+"/"+pod.Name)
	}
	opt.CPUWaste, opt.MemoryWaste = leastWaste(g.Template, opt.Nodes, est.pods)
	opt.DeviceWaste, opt.Devices, opt.IdleDevices = deviceWaste(s.cur, s.matcher, s.opts.DeviceClassWeights, est.nodes)
	opt.PrioritizedListScore, opt.PrioritizedListPods = prioritizedListScore(k, est.pods)
	if g.PricePerHour != nil {
		cost := roundCost(*g.PricePerHour * float64(opt.Nodes))
		opt.CostPerHour = &cost
	}
	return &candidate{opt: opt, group: g, pods: est.pods}, nil
}

// apply adds the chosen option's nodes to the cluster and replays the
// pending pods (the new nodes' daemon pods first, as they arrive with the
// node). It returns how many pending pods got a node.
func (s *scaler) apply(c *candidate, lp *Loop) (int, error) {
	g := c.group
	names := g.NextNames(c.opt.Nodes)
	var daemons []*v1.Pod
	for _, name := range names {
		node, slices, pods := g.NewNode(name)
		s.cur.AddNode(node, slices)
		s.work.Nodes = append(s.work.Nodes, node.DeepCopy())
		s.work.ResourceSlices = append(s.work.ResourceSlices, slices...)
		for _, p := range pods {
			s.cur.AddPending(p)
			daemons = append(daemons, p)
		}
	}
	g.Reserve(names)
	lp.Added = names
	queue := append(append([]*v1.Pod(nil), daemons...), s.pending...)
	s.cur.SetQueue(queue)
	e, err := sim.NewEngineOn(s.cur, s.opts.Sim, s.draPlugin)
	if err != nil {
		return 0, err
	}
	so := s.opts.Sim.ScheduleOptions()
	so.Progress = nil
	res, err := e.Replay(s.ctx, so)
	if err != nil {
		return 0, err
	}
	merge(s.final, res)
	placed := 0
	for _, p := range s.pending {
		if p.Spec.NodeName != "" {
			placed++
		}
	}
	// A daemon pod that does not fit its new node stays pending too.
	s.pending = s.stillPending(queue)
	return placed, nil
}

// merge folds a loop's replay into the overall result: the pods it
// decided replace their earlier outcome (new daemon pods are added), its
// events follow the earlier ones, and its node usage, which covers every
// node, replaces the earlier one.
func merge(into, loop *result.Result) {
	index := map[string]int{}
	for i, p := range into.Pods {
		index[p.Key()] = i
	}
	for _, p := range loop.Pods {
		if p.Phase != result.PhaseScheduled && p.Phase != result.PhaseUnschedulable {
			continue
		}
		if i, ok := index[p.Key()]; ok {
			into.Pods[i] = p
			continue
		}
		index[p.Key()] = len(into.Pods)
		into.Pods = append(into.Pods, p)
	}
	for _, e := range loop.Events {
		e.Seq = len(into.Events) + 1
		into.Events = append(into.Events, e)
	}
	into.Nodes = loop.Nodes
	// A loop's replay sees every pod group (its counts cover the bound
	// pods too) and tried each gang left, so its verdicts are the latest.
	if len(loop.PodGroups) > 0 {
		into.PodGroups = loop.PodGroups
	}
}

// warnGangs says where cluster-autoscaler falls short for gangs: it does
// not know pod groups (its snapshot answers no PodGroup, "until PodGroups
// are integrated with cluster autoscaler"), so it scales for each pending
// pod on its own, and a gang that needs minCount pods placed at once can
// stay pending on the nodes it added.
func (s *scaler) warnGangs() {
	if !s.cur.GangsEnabled() || s.plan.NodesAdded == 0 {
		return
	}
	var gangs []string
	for _, g := range s.final.PodGroups {
		if g.NotPlaced() && g.Pending > 0 {
			gangs = append(gangs, g.Namespace+"/"+g.Name)
		}
	}
	if len(gangs) > 0 {
		s.plan.Warnings = append(s.plan.Warnings, fmt.Sprintf("pod group(s) %s still pending after the scale-up: cluster-autoscaler does not know pod groups, it adds nodes for each pending pod on its own, not for a gang's minCount at once", strings.Join(gangs, ", ")))
	}
}

// describeScaledCluster makes the result's inputs those of the cluster
// after the scale-up, which its pods and messages ("0/6 nodes are
// available") are about: its nodes and devices, and every pod a replay
// decided (the pending pods and the daemon pods of new nodes).
func (s *scaler) describeScaledCluster() {
	in := &s.final.Inputs
	in.Nodes = len(s.cur.Nodes())
	in.Pods = len(s.cur.Pods())
	in.Devices = 0
	for _, sl := range s.cur.DRA().Slices() {
		in.Devices += len(sl.Spec.Devices)
	}
	in.PendingPods = s.final.Summary.Scheduled + s.final.Summary.Unschedulable
}

// roundCost drops float noise (3 x 0.40 = 1.2000000000000002) from costs.
func roundCost(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// reportPending says, for every pod still pending, why no group helps it.
func (s *scaler) reportPending(last *pass) {
	byPod := map[types.UID]*podGroup{}
	if last != nil {
		for _, eq := range last.eqs {
			for _, p := range eq.pods {
				byPod[p.UID] = eq
			}
		}
	}
	for _, pod := range s.pending {
		pp := PendingPod{Pod: pod.Namespace + "/" + pod.Name, Owner: ownerOf(pod)}
		if why, ok := s.excluded[pod.UID]; ok {
			pp.Reason = why
			s.plan.Pending = append(s.plan.Pending, pp)
			continue
		}
		eq := byPod[pod.UID]
		var vs []verdict
		if eq != nil {
			vs = last.verdicts[eq]
		}
		pp.NeverFits = len(vs) > 0
		var fits []string
		for _, v := range vs {
			pp.Groups = append(pp.Groups, GroupReason{Group: v.group, Plugin: v.plugin, Reason: v.reason})
			if !v.template {
				pp.NeverFits = false
			}
			if v.fits {
				fits = append(fits, v.group)
			}
		}
		switch {
		case len(fits) > 0:
			pp.Reason = fmt.Sprintf("group(s) %v could add nodes for it, but the scale-up stopped: %s", fits, s.plan.Stop.Message)
		case pp.NeverFits:
			pp.Reason = "no group's template fits: " + summarize(vs)
		default:
			pp.Reason = summarize(vs)
		}
		s.plan.Pending = append(s.plan.Pending, pp)
	}
}

// hasRegular reports whether pods other than ProvisioningRequests' wait
// for a scale-up this loop (pending pods that may trigger one, and buffer
// pods the cluster has no room for).
func (s *scaler) hasRegular() bool {
	if len(s.virtual) > 0 {
		return true
	}
	for _, p := range s.pending {
		if _, ex := s.excluded[p.UID]; !ex {
			return true
		}
	}
	return false
}
