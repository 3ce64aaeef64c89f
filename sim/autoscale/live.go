package autoscale

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/inventory"
	"github.com/drasim/drasim/sim/nodegroup"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// Autoscaler is cluster-autoscaler's main loop (StaticAutoscaler.RunOnce)
// for a cluster that lives in time, run by its caller (sim/timeline) every
// scan interval. A loop reads the cluster as it stands and decides; the
// caller carries the decisions out in time: new nodes become Ready after
// their group's provisioning delay, deleted nodes' pods are evicted. What
// the loop tries on the way (pods packed on existing and upcoming nodes,
// drain simulations) is taken back before RunOnce returns.
type Autoscaler struct {
	ctx    context.Context
	c      *cluster.Cluster
	groups []*nodegroup.Group
	byNode map[string]*nodegroup.Group
	opts   Options
	sd     ScaleDownOptions
	scaler *scaler
	// fos packs pending pods (filter-out-schedulable); drain places the
	// pods of nodes whose removal is simulated. Each keeps its own hints,
	// as CA's processors do; they share the first-fit start.
	fos     *placer
	planner *planner
	// destinations is scaleDown's map of the nodes pods may move to, kept
	// for its room.
	destinations map[string]bool

	lastScaleUp, lastDelete time.Time
	loops                   int
	// provreqs are the ProvisioningRequests created so far
	// (provreq_live.go), lives their records; book places the pods of
	// the booked requests, prov those of the request a loop provisions,
	// each with its own hints, as CA's processor and orchestrator have
	// their own HintingSimulator.
	provreqs   []*liveProvReq
	lives      []*ProvReqLife
	book, prov *placer
	// templateFit caches whether a pod shape passes the filters on an
	// empty template node of a group (see groupsThatMayHelp).
	templateFit map[fitKey]bool
}

type fitKey struct{ group, shape string }

// LoopInput is what the caller knows at a loop that the cluster does not
// hold: the pods the scheduler marked unschedulable and the nodes being
// provisioned.
type LoopInput struct {
	Now time.Time
	// Unschedulable are the pods with PodScheduled=False (reason
	// Unschedulable), in any order.
	Unschedulable []*v1.Pod
	// Upcoming are, per group, the nodes a scale-up asked for that are not
	// Ready yet.
	Upcoming map[string][]string
}

// LoopResult is what one loop decided.
type LoopResult struct {
	// ScaleUp is the scale-up decided (nil: none); its nodes are reserved
	// in the group (nodegroup.Group.Size counts them) and the caller makes them
	// Ready later (nodegroup.Group.NewNode).
	ScaleUp *ScaleUpDecision `json:"scaleUp,omitempty"`
	// NoScaleUp says why no scale-up happened when pods were unschedulable.
	NoScaleUp string `json:"noScaleUp,omitempty"`
	// Deletions are the nodes to delete now.
	Deletions []Deletion `json:"deletions,omitempty"`
	// Unneeded counts the nodes found unneeded; ScaleDownCooldown is set
	// when no node could be deleted because of the delays after a
	// scale-up or a deletion.
	Unneeded          int  `json:"unneeded"`
	ScaleDownCooldown bool `json:"scaleDownCooldown,omitempty"`
	// Unremovable are the scale-down candidates kept, with why, in node
	// order.
	Unremovable []UnremovableNode `json:"unremovable,omitempty"`
}

// ScaleUpDecision is one scale-up: the group, its new nodes and the loop's
// options and expander decision.
type ScaleUpDecision struct {
	Group string   `json:"group"`
	Nodes []string `json:"nodes"`
	Loop  Loop     `json:"loop"`
}

// UnremovableNode is a scale-down candidate kept, with why.
type UnremovableNode struct {
	Node   string            `json:"node"`
	Reason UnremovableReason `json:"reason"`
}

// NewAutoscaler returns the loop for the cluster c (which it reads and, for
// the length of a loop, changes and restores) with the resolved groups
// (Resolve). controllerExists tells the drain rules whether a pod's
// controller exists (nil: every controller does). draPlugin, when set, is
// the scheduler's DynamicResources plugin on c: the loop's predicate
// checks share its cached allocator answers.
func NewAutoscaler(ctx context.Context, c *cluster.Cluster, groups []*nodegroup.Group, opts Options, sd ScaleDownOptions, controllerExists func(kind, namespace, name string) bool, draPlugin *dra.Plugin) (*Autoscaler, error) {
	opts = opts.withDefaults()
	if err := opts.check(); err != nil {
		return nil, err
	}
	if err := sd.check(); err != nil {
		return nil, err
	}
	if len(groups) == 0 {
		return nil, ErrNoNodeGroups
	}
	ch, err := newChain(opts)
	if err != nil {
		return nil, err
	}
	var eng *sim.Engine
	if draPlugin == nil {
		eng, err = sim.NewEngine(c, opts.Sim)
	} else {
		eng, err = sim.NewEngineOn(c, opts.Sim, draPlugin)
	}
	if err != nil {
		return nil, err
	}
	k := newChecker(eng)
	gates := opts.Sim.Gates
	if gates == nil {
		gates = feature.Defaults()
	}
	so := opts.Sim.ScheduleOptions()
	so.Progress, so.Resume = nil, nil
	eval := eng.Scheduler(so)
	order := &lastIndex{last: -1}
	a := &Autoscaler{
		ctx: ctx, c: c, groups: groups, byNode: map[string]*nodegroup.Group{}, opts: opts, sd: sd, templateFit: map[fitKey]bool{},
		fos: newPlacer(k, eval, order),
		scaler: &scaler{ctx: ctx, opts: opts, groups: groups, cur: c, draPlugin: k.dra, chain: ch,
			matcher: inventory.NewMatcher(ctx, gates, c.Snapshot().DeviceClasses), excluded: map[types.UID]string{}},
	}
	rules := drainRules{
		skipSystemPods: sd.SkipNodesWithSystemPods, skipLocalStorage: sd.SkipNodesWithLocalStorage,
		skipCustomControllerPods: sd.SkipNodesWithCustomControllerPods, bspDisruptionTimeout: sd.BlockingSystemPodDisruptionTimeout,
		controllerExists: controllerExists,
	}
	a.planner = newPlanner(sd, rules, newPlacer(k, eval, order))
	a.book, a.prov = newPlacer(k, eval, order), newPlacer(k, eval, order)
	for _, c := range opts.Sim.Plugins.PodTopologySpread.DefaultConstraints {
		a.planner.hardSpread = a.planner.hardSpread || c.WhenUnsatisfiable == v1.DoNotSchedule
	}
	// The reference engine takes no shortcut: every removal simulated.
	a.planner.noMemo = opts.Sim.Reference
	for _, g := range groups {
		for _, n := range g.Nodes {
			a.byNode[n] = g
		}
	}
	// CapacityBuffers' virtual pods join every loop's unschedulable pods
	// (buffer.go); ProvisioningRequests are not read by the timeline.
	a.scaler.work = c.Snapshot()
	if err := a.scaler.initBuffers(); err != nil {
		return nil, err
	}
	return a, nil
}

// Groups returns the node groups, sorted by name.
func (a *Autoscaler) Groups() []*nodegroup.Group { return a.groups }

// SelectorWarnings name the DeviceClass and request selectors that did
// not compile or failed on a device while the autoscaler weighed devices.
func (a *Autoscaler) SelectorWarnings() []string { return celWarnings(a.scaler.matcher) }

// GroupOf returns the group a node belongs to, or nil.
func (a *Autoscaler) GroupOf(node string) *nodegroup.Group { return a.byNode[node] }

// NodeDeleted tells the autoscaler that a node is gone: its group
// shrinks.
func (a *Autoscaler) NodeDeleted(name string) {
	if g := a.byNode[name]; g != nil {
		g.Nodes = slices.DeleteFunc(g.Nodes, func(n string) bool { return n == name })
		delete(a.byNode, name)
	}
	delete(a.planner.unneeded, name)
	delete(a.planner.memo, name)
}

// RunOnce runs one loop at in.Now: the unschedulable pods that fit on
// existing or upcoming nodes are set aside, the rest may trigger a
// scale-up of one group (the expander chain decides), and the scale-down
// planner looks for unneeded nodes and picks the ones to delete.
func (a *Autoscaler) RunOnce(in LoopInput) (*LoopResult, error) {
	a.loops++
	c := a.c
	provReqs := a.hasProvReqs()
	if provReqs {
		a.refreshProvReqs(in.Now)
	}
	c.Fork()
	defer c.Revert()
	res := &LoopResult{}

	upcoming := a.addUpcoming(in.Upcoming)

	// CA's pod list processors: expendable pods out, pods that fit
	// somewhere packed (and left there for the rest of the loop),
	// DaemonSet pods out.
	cutoff := *a.opts.ExpendablePodsPriorityCutoff
	var candidates []*v1.Pod
	for _, p := range in.Unschedulable {
		if corev1helpers.PodPriority(p) >= cutoff {
			candidates = append(candidates, p)
		}
	}
	for _, b := range a.scaler.buffers {
		candidates = append(candidates, b.pods...)
	}
	sort.SliceStable(candidates, func(i, k int) bool {
		return corev1helpers.PodPriority(candidates[i]) > corev1helpers.PodPriority(candidates[k])
	})
	packed, err := a.fos.trySchedule(a.ctx, candidates, false, nil)
	if err != nil {
		return nil, fmt.Errorf("filter-out-schedulable: %w", err)
	}
	a.fos.dropOldHints()
	fits := map[*v1.Pod]bool{}
	for _, pl := range packed {
		fits[pl.pod] = true
	}
	var help []*v1.Pod
	for _, p := range candidates {
		if !fits[p] && !isDaemonSetPod(p) && in.Now.Sub(p.CreationTimestamp.Time) > 0 {
			help = append(help, p)
		}
	}
	var request *liveProvReq
	if provReqs {
		if help, request, err = a.provReqPods(help, in.Now); err != nil {
			return nil, err
		}
	}

	scaleDownForbidden := false
	ready := len(c.Nodes()) - len(upcoming)
	switch {
	case len(help) == 0:
		if len(in.Unschedulable) > 0 {
			res.NoScaleUp = "the unschedulable pods fit on existing or upcoming nodes"
		}
	case a.opts.MaxNodesTotal > 0 && ready >= a.opts.MaxNodesTotal:
		res.NoScaleUp = fmt.Sprintf("max-nodes-total reached (%d/%d)", ready, a.opts.MaxNodesTotal)
	case allPodsAreNew(help, in.Now):
		res.NoScaleUp = "the unschedulable pods are less than 2s old: waiting one loop for more"
		scaleDownForbidden = true
	default:
		d, why, err := a.orchestrate(help, request, in.Now)
		if err != nil {
			return nil, err
		}
		res.ScaleUp, res.NoScaleUp = d, why
		if d != nil {
			a.lastScaleUp = in.Now
		}
	}

	if !a.sd.Enabled {
		return res, nil
	}
	if err := a.scaleDown(in.Now, upcoming, scaleDownForbidden, res); err != nil {
		return nil, err
	}
	return res, nil
}

// addUpcoming puts the upcoming nodes into the loop's picture as template
// nodes, so that pods that will fit there trigger no second scale-up;
// they are neither scale-down candidates nor destinations.
func (a *Autoscaler) addUpcoming(names map[string][]string) map[string]bool {
	upcoming := map[string]bool{}
	for _, g := range a.groups {
		for _, name := range names[g.Name] {
			addTemplateNode(a.c, name, g.NewNode)
			upcoming[name] = true
		}
	}
	return upcoming
}

// provReqPods runs the ProvisioningRequest processors, which come after
// the default ones: pods consuming a request never trigger a scale-up
// (ProvisioningRequestPodsFilter), the next request's pods join (the
// injector; filterOutYoungPods applies to them too), booked capacity
// takes its place in the loop's picture.
func (a *Autoscaler) provReqPods(help []*v1.Pod, now time.Time) ([]*v1.Pod, *liveProvReq, error) {
	help = slices.DeleteFunc(help, func(p *v1.Pod) bool {
		_, consumes := p.Annotations[snapshot.ProvisioningRequestPodAnnotation]
		return consumes
	})
	request := a.nextProvReq(now)
	if request != nil {
		for _, p := range request.pods {
			if now.Sub(p.CreationTimestamp.Time) > 0 {
				help = append(help, p)
			}
		}
	}
	if err := a.bookCapacity(now); err != nil {
		return nil, nil, fmt.Errorf("booking capacity for ProvisioningRequests: %w", err)
	}
	return help, request, nil
}

// orchestrate is the scale-up orchestrator: with ProvisioningRequests,
// CA's WrapperOrchestrator, which takes a request's pods and the other
// pods in turns when both wait.
func (a *Autoscaler) orchestrate(help []*v1.Pod, request *liveProvReq, now time.Time) (*ScaleUpDecision, string, error) {
	if !a.hasProvReqs() {
		return a.scaleUp(help)
	}
	prPods, regular := splitProvReqPods(help)
	s := a.scaler
	if len(prPods) == 0 {
		s.prMode = false
	} else if len(regular) == 0 {
		s.prMode = true
	}
	mode := s.prMode
	s.prMode = !s.prMode
	if mode && request != nil {
		return a.provision(request, prPods, now)
	}
	return a.scaleUp(regular)
}

// allPodsAreNew is CA's check that the oldest unschedulable pod is less
// than 2s old (30s for pods asking for nvidia.com/gpu).
func allPodsAreNew(pods []*v1.Pod, now time.Time) bool {
	oldest, oldestGPU := time.Time{}, time.Time{}
	for _, p := range pods {
		t := p.CreationTimestamp.Time
		if oldest.IsZero() || t.Before(oldest) {
			oldest = t
		}
		if requestsGPU(p) && (oldestGPU.IsZero() || t.Before(oldestGPU)) {
			oldestGPU = t
		}
	}
	if oldest.Add(2 * time.Second).After(now) {
		return true
	}
	return !oldestGPU.IsZero() && oldestGPU.Add(30*time.Second).After(now)
}

func requestsGPU(p *v1.Pod) bool {
	for _, c := range p.Spec.Containers {
		if q, ok := c.Resources.Requests[gpuResource]; ok && !q.IsZero() {
			return true
		}
	}
	return false
}

// scaleUp runs the scale-up orchestrator on the pods to help: each group's
// option (fit check on its template, binpacking estimate), then the
// expander chain. The chosen group's new nodes are reserved.
func (a *Autoscaler) scaleUp(help []*v1.Pod) (*ScaleUpDecision, string, error) {
	s := a.scaler
	s.pending = s.stillPending(help)
	groups, err := a.groupsThatMayHelp(s.pending)
	if err != nil {
		return nil, "", err
	}
	if len(groups) == 0 {
		return nil, "no node group can help the unschedulable pods", nil
	}
	s.groups = groups
	p, err := s.evaluate()
	s.groups = a.groups
	if err != nil {
		return nil, "", err
	}
	if len(p.cands) == 0 {
		return nil, "no node group can help the unschedulable pods", nil
	}
	return a.applyChoice(p.cands, p, len(s.pending))
}

// applyChoice runs the expander chain on the options and reserves the
// chosen group's new nodes.
func (a *Autoscaler) applyChoice(cands []*candidate, p *pass, pending int) (*ScaleUpDecision, string, error) {
	s := a.scaler
	lp := Loop{Index: a.loops, PendingPods: pending, Skipped: p.skipped}
	for _, c := range cands {
		lp.Options = append(lp.Options, *c.opt)
	}
	chosen, decision := s.chain.choose(cands, env{nodes: len(a.c.Nodes())})
	lp.Decision = decision
	for i, c := range cands {
		lp.Options[i] = *c.opt
	}
	if chosen == nil {
		return nil, fmt.Sprintf("the expanders (%s) kept no option", strings.Join(a.opts.Expanders, ",")), nil
	}
	g := chosen.group
	names := g.NextNames(chosen.opt.Nodes)
	g.Reserve(names)
	for _, n := range names {
		a.byNode[n] = g
	}
	lp.Added = names
	lp.Triggered = chosen.opt.PodKeys
	return &ScaleUpDecision{Group: g.Name, Nodes: names, Loop: lp}, "", nil
}

// groupsThatMayHelp leaves out of a scale-up's evaluation the groups with
// room whose empty template node no pending pod passes the filters on:
// their evaluation (a fork of the cluster each) could only end in "no
// pending pod fits its template". Whether a pod shape fits a template is
// cached while it cannot depend on the rest of the cluster: the pod has no
// required (anti-)affinity or hard topology spread, no pod in the cluster
// has required anti-affinity, and every ResourceSlice is node-local.
func (a *Autoscaler) groupsThatMayHelp(pods []*v1.Pod) ([]*nodegroup.Group, error) {
	if a.opts.Sim.Reference {
		return a.groups, nil // the reference engine evaluates every group
	}
	cacheable := len(a.c.HavePodsWithRequiredAntiAffinityList()) == 0
	for _, sl := range a.c.DRA().Slices() {
		if sl.Spec.NodeName == nil {
			cacheable = false
			break
		}
	}
	var out []*nodegroup.Group
	for _, g := range a.groups {
		if g.Size() >= g.MaxSize {
			out = append(out, g) // evaluate reports the limit, at no cost
			continue
		}
		for _, p := range pods {
			if _, excluded := a.scaler.excluded[p.UID]; excluded {
				continue
			}
			if !cacheable || a.crossNode(p) {
				out = append(out, g)
				break
			}
			k := fitKey{g.Name, a.fos.key(p)}
			fits, ok := a.templateFit[k]
			if !ok {
				var err error
				if fits, err = a.fitsTemplate(g, p); err != nil {
					return nil, fmt.Errorf("node group %s: %w", g.Name, err)
				}
				if len(a.templateFit) > 1<<16 {
					a.templateFit = map[fitKey]bool{}
				}
				a.templateFit[k] = fits
			}
			if fits {
				out = append(out, g)
				break
			}
		}
	}
	return out, nil
}

// crossNode reports whether what fits on a node for the pod can depend on
// the other nodes' pods.
func (a *Autoscaler) crossNode(pod *v1.Pod) bool {
	if af := pod.Spec.Affinity; af != nil {
		if af.PodAffinity != nil && len(af.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
			return true
		}
		if af.PodAntiAffinity != nil && len(af.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
			return true
		}
	}
	constraints := pod.Spec.TopologySpreadConstraints
	if len(constraints) == 0 {
		constraints = a.opts.Sim.Plugins.PodTopologySpread.DefaultConstraints
	}
	for _, c := range constraints {
		if c.WhenUnsatisfiable == v1.DoNotSchedule {
			return true
		}
	}
	return false
}

// fitsTemplate is evaluateGroup's fit check on the live cluster: the
// group's next node, empty but for its daemon pods, is added for the
// question and taken away again.
func (a *Autoscaler) fitsTemplate(g *nodegroup.Group, pod *v1.Pod) (bool, error) {
	a.c.Fork()
	defer a.c.Revert()
	name := g.NextNames(1)[0]
	addTemplateNode(a.c, name, g.NewNode)
	k := a.fos.k
	cy, err := k.preFilter(a.ctx, pod)
	if err != nil {
		return false, err
	}
	st, err := k.filter(a.ctx, cy, pod, name)
	return err == nil && st == nil, err
}

// scaleDown is StaticAutoscaler.scaleDown: the planner's update on the
// registered nodes of groups above their minimum size, then, out of
// cooldown, the deletions.
func (a *Autoscaler) scaleDown(now time.Time, upcoming map[string]bool, forbidden bool, res *LoopResult) error {
	// Sized once: grown entry by entry in every loop, these were a tenth
	// of a timeline's garbage.
	n := len(a.c.Nodes())
	candidates := make([]*framework.NodeInfo, 0, n)
	// The destinations' map is kept from loop to loop (the planner only
	// reads it and takes the nodes it finds unneeded out).
	if a.destinations == nil {
		a.destinations = make(map[string]bool, n)
	}
	destinations := a.destinations
	clear(destinations)
	order := make([]string, 0, n)
	for _, ni := range a.c.Nodes() {
		name := ni.Node().Name
		if upcoming[name] {
			continue
		}
		destinations[name] = true
		order = append(order, name)
		if g := a.byNode[name]; g != nil && g.Size() > g.MinSize {
			candidates = append(candidates, ni)
		}
	}
	a.planner.sortCandidates(candidates, now, a.c.Edits())
	if err := a.planner.update(a.ctx, a.c, now, candidates, destinations); err != nil {
		return err
	}
	res.Unneeded = len(a.planner.unneeded)
	cooldown := forbidden ||
		a.lastScaleUp.Add(a.sd.DelayAfterAdd).After(now) ||
		a.lastDelete.Add(a.sd.DelayAfterDelete).After(now)
	if cooldown {
		res.ScaleDownCooldown = true
	} else if len(candidates) > 0 {
		res.Deletions = a.planner.nodesToDelete(now, order, a.GroupOf)
		if len(res.Deletions) > 0 {
			a.lastDelete = now
		}
	}
	if len(a.planner.reasons) > 0 {
		res.Unremovable = make([]UnremovableNode, 0, len(a.planner.reasons))
	}
	for _, name := range order {
		if r, ok := a.planner.reasons[name]; ok {
			res.Unremovable = append(res.Unremovable, UnremovableNode{Node: name, Reason: r})
		}
	}
	return nil
}

// InfoOf describes the group and its template as a plan does.
func InfoOf(g *nodegroup.Group) GroupInfo { return groupInfo(g) }
