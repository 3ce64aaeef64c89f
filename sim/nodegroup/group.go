package nodegroup

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/drasim/drasim/internal/kubenames"
	"github.com/drasim/drasim/sim/inventory"
	"github.com/drasim/drasim/sim/kube"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// DefaultProvisioningDelay is how long a new node takes to become Ready
// with its ResourceSlices published, when its NodeGroup does not say
// (spec.provisioningDelay).
const DefaultProvisioningDelay = 3 * time.Minute

// Group is a resolved NodeGroup: its bounds, the snapshot nodes that belong
// to it, and the sanitized template the scale-up plans with.
type Group struct {
	Name             string
	MinSize, MaxSize int
	// Nodes are the snapshot's nodes the group's selector selects, by name.
	Nodes        []string
	PricePerHour *float64
	// TemplateFrom is the node the template was built from: spec.templateFrom,
	// or a ready node of the group ("" for a given template).
	TemplateFrom string
	// Template is the template node the fit check, the estimate and the
	// expanders use, as cluster-autoscaler's template node info; its name
	// is the group's first free new-node name. As in CA, it is a copy of a
	// ready, schedulable node of the group when the group has one, else
	// spec.template or the spec.templateFrom node.
	Template *v1.Node
	// Slices are the template node's ResourceSlices.
	Slices []*resourceapi.ResourceSlice
	// ProvisioningDelay is the time from a scale-up to the new node being
	// Ready with its slices published (DefaultProvisioningDelay unless the
	// NodeGroup sets it); only timelines use it.
	ProvisioningDelay time.Duration

	// daemonPods are the pods every new node starts with, without a node:
	// cluster-autoscaler's template node info keeps DaemonSet and static
	// pods, and drops every other pod.
	daemonPods []*v1.Pod
	// oldName is the name the template's slices refer to, renamed in copies.
	oldName string
	// made is what the cloud provider makes new nodes from when the group
	// plans with one of its nodes: spec.template or spec.templateFrom
	// (nil: Template).
	made *nodeTemplate
	// next is the index of the next new node's name.
	next int
	// taken reports whether a node name is in use in the cluster.
	taken func(string) bool
}

// nodeTemplate is a template node with its slices and the pods each copy
// starts with.
type nodeTemplate struct {
	node       *v1.Node
	slices     []*resourceapi.ResourceSlice
	daemonPods []*v1.Pod
	oldName    string
}

// Size is the number of nodes the group has now.
func (g *Group) Size() int { return len(g.Nodes) }

// NextNames returns the names the next n new nodes of the group get,
// <group>-template-<i>, skipping names that are in use. It does not
// reserve them: estimates on forks ask for the same names that the nodes
// would get if the scale-up is applied.
func (g *Group) NextNames(n int) []string {
	out := make([]string, 0, n)
	for i := g.next; len(out) < n; i++ {
		name := fmt.Sprintf("%s-template-%d", g.Name, i)
		if g.taken != nil && g.taken(name) {
			continue
		}
		out = append(out, name)
	}
	return out
}

// reserve marks names handed out by NextNames as used.
func (g *Group) Reserve(names []string) {
	for _, name := range names {
		var i int
		if _, err := fmt.Sscanf(strings.TrimPrefix(name, g.Name+"-template-"), "%d", &i); err == nil && i >= g.next {
			g.next = i + 1
		}
	}
	g.Nodes = append(g.Nodes, names...)
}

// planned is the template the scale-up plans with.
func (g *Group) planned() *nodeTemplate {
	return &nodeTemplate{node: g.Template, slices: g.Slices, daemonPods: g.daemonPods, oldName: g.oldName}
}

// EstimateNode makes a node of the template the scale-up plans with, for
// the fit check and the estimate.
func (g *Group) EstimateNode(name string) (*v1.Node, []*resourceapi.ResourceSlice, []*v1.Pod) {
	return g.planned().copy(name)
}

// NewNode makes a node as the cloud provider makes one, for a scale-up
// that is applied.
func (g *Group) NewNode(name string) (*v1.Node, []*resourceapi.ResourceSlice, []*v1.Pod) {
	if g.made != nil {
		return g.made.copy(name)
	}
	return g.planned().copy(name)
}

// copy makes one node of the template named name, with its slices and
// daemon pods, the way cluster-autoscaler copies a template node info:
// node and slices get the new name, slices their own pool.
func (t *nodeTemplate) copy(name string) (*v1.Node, []*resourceapi.ResourceSlice, []*v1.Pod) {
	node := t.node.DeepCopy()
	node.Name = name
	node.UID = types.UID(kubenames.UID("node/" + name))
	node.Labels[v1.LabelHostname] = name
	slices := make([]*resourceapi.ResourceSlice, 0, len(t.slices))
	for _, sl := range t.slices {
		slices = append(slices, renameSlice(sl, t.oldName, name))
	}
	pods := make([]*v1.Pod, 0, len(t.daemonPods))
	for _, p := range t.daemonPods {
		pod := p.DeepCopy()
		owner := p.Name
		if ref := metav1.GetControllerOf(p); ref != nil {
			owner = ref.Name
		}
		pod.Name = owner + "-" + kubenames.Suffix(pod.Namespace+"/"+owner+"/"+name, 5)
		pod.UID = types.UID(kubenames.UID("pod/" + pod.Namespace + "/" + pod.Name))
		kube.PinToNode(pod, name)
		pods = append(pods, pod)
	}
	return node, slices, pods
}

// renameSlice copies a template slice for a node: nodeName is the node,
// and the slice and pool names have the old node name replaced (or get the
// new name as a prefix), so that every node publishes its own pool.
//
// The devices are the template's own list, not a copy: nothing writes a
// device list in place (device taint rules patch copies), and nodes that
// share a list share what the DRA plugin learns about it (which devices a
// claim's requests can select, sim/dra/prune.go) and the memory.
func renameSlice(sl *resourceapi.ResourceSlice, oldNode, NewNode string) *resourceapi.ResourceSlice {
	devices := sl.Spec.Devices
	cp := *sl
	cp.Spec.Devices = nil
	out := cp.DeepCopy()
	out.Spec.Devices = devices
	out.Name = renamed(sl.Name, oldNode, NewNode)
	out.UID = types.UID(kubenames.UID("resourceslice/" + out.Name))
	out.ResourceVersion = ""
	out.Spec.NodeName = &NewNode
	out.Spec.Pool.Name = renamed(sl.Spec.Pool.Name, oldNode, NewNode)
	return out
}

func renamed(s, oldNode, NewNode string) string {
	if oldNode != "" && strings.Contains(s, oldNode) {
		return strings.Replace(s, oldNode, NewNode, 1)
	}
	return NewNode + "-" + s
}

// ignoredTaints are the taints cluster-autoscaler strips from a template
// node (utils/taints SanitizeTaints): its own deletion markers and the
// node-condition taints that a fresh, ready node does not have.
var ignoredTaints = map[string]bool{
	"ToBeDeletedByClusterAutoscaler":            true,
	"DeletionCandidateOfClusterAutoscaler":      true,
	v1.TaintNodeNotReady:                        true,
	v1.TaintNodeUnreachable:                     true,
	v1.TaintNodeUnschedulable:                   true,
	v1.TaintNodeMemoryPressure:                  true,
	v1.TaintNodeDiskPressure:                    true,
	v1.TaintNodeNetworkUnavailable:              true,
	v1.TaintNodePIDPressure:                     true,
	v1.TaintNodeOutOfService:                    true,
	"node.cloudprovider.kubernetes.io/shutdown": true,
}

// ignoredTaintPrefixes are cluster-autoscaler's startup and status taint
// prefixes, also stripped from templates.
var ignoredTaintPrefixes = []string{
	"ignore-taint.cluster-autoscaler.kubernetes.io/",
	"startup-taint.cluster-autoscaler.kubernetes.io/",
	"status-taint.cluster-autoscaler.kubernetes.io/",
}

func sanitizeTaints(taints []v1.Taint) []v1.Taint {
	var out []v1.Taint
	for _, t := range taints {
		if ignoredTaints[t.Key] {
			continue
		}
		skip := false
		for _, p := range ignoredTaintPrefixes {
			if strings.HasPrefix(t.Key, p) {
				skip = true
			}
		}
		if !skip {
			out = append(out, t)
		}
	}
	return out
}

// Resolve checks the snapshot's NodeGroups and builds each group's
// template. Every problem is reported, as snapshot.Errors naming the file,
// the NodeGroup and the field; warnings are for things cluster-autoscaler
// tolerates (a group below its minimum size).
func Resolve(snap *snapshot.Snapshot) ([]*Group, []string, error) {
	r := &resolver{snap: snap, nodes: map[string]*v1.Node{}, owner: map[string]string{}, seen: map[string]bool{}}
	for _, n := range snap.Nodes {
		r.nodes[n.Name] = n
	}
	var groups []*Group
	for _, ng := range snap.NodeGroups {
		if g := r.resolve(ng); g != nil {
			groups = append(groups, g)
		}
	}
	if len(r.errs) > 0 {
		return nil, r.warnings, r.errs
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i].Name < groups[j].Name })
	return groups, r.warnings, nil
}

// resolver carries what Resolve learns across groups: the snapshot's
// nodes by name, which group owns which node, the names already used, and
// the problems found so far.
type resolver struct {
	snap     *snapshot.Snapshot
	nodes    map[string]*v1.Node
	owner    map[string]string
	seen     map[string]bool
	errs     snapshot.Errors
	warnings []string
}

// failFunc records a problem with one field of the NodeGroup at hand.
type failFunc func(field, format string, args ...any)

// resolve checks one NodeGroup and builds its group; it returns nil when
// the NodeGroup has errors (recorded in r.errs).
func (r *resolver) resolve(ng *snapshot.NodeGroup) *Group {
	ref := snapshot.Ref{Kind: "NodeGroup", Name: ng.Name}
	src, _ := r.snap.SourceOf(ref)
	fail := func(field, format string, args ...any) {
		r.errs = append(r.errs, &snapshot.Error{Source: src, Object: ref.String(), Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	before := len(r.errs)
	if ng.Name == "" {
		fail("metadata.name", "required")
		return nil
	}
	if r.seen[ng.Name] {
		fail("metadata.name", "another NodeGroup has the same name")
		return nil
	}
	r.seen[ng.Name] = true
	s := ng.Spec
	delay := checkSpec(s, fail)
	var sel labels.Selector
	if s.NodeSelector != nil {
		var err error
		if sel, err = metav1.LabelSelectorAsSelector(s.NodeSelector); err != nil {
			fail("spec.nodeSelector", "%v", err)
		}
	}
	taken := func(name string) bool { return r.nodes[name] != nil }
	g := &Group{Name: ng.Name, MinSize: int(s.MinSize), MaxSize: int(s.MaxSize), PricePerHour: s.PricePerHour, TemplateFrom: s.TemplateFrom, ProvisioningDelay: delay, next: 1, taken: taken}
	r.buildTemplate(g, ng, sel, fail)
	r.selectMembers(g, sel, fail)
	if len(g.Nodes) > g.MaxSize && s.MinSize <= s.MaxSize {
		fail("spec.maxSize", "the group already has %d node(s) (selected by spec.nodeSelector), more than maxSize %d", len(g.Nodes), g.MaxSize)
	}
	if len(r.errs) > before {
		return nil
	}
	if len(g.Nodes) < g.MinSize {
		r.warnings = append(r.warnings, fmt.Sprintf("%s: NodeGroup %q has %d node(s), fewer than minSize %d; like cluster-autoscaler (without --enforce-node-group-min-size), drasim scales it up only for pending pods", src, g.Name, len(g.Nodes), g.MinSize))
	}
	r.planWithExampleNode(g, ng, src)
	for _, t := range []*nodeTemplate{g.planned(), g.made} {
		if t != nil {
			t.node.Name = g.NextNames(1)[0]
			t.node.Labels[v1.LabelHostname] = t.node.Name
		}
	}
	return g
}

// checkSpec checks the sizes, price and delay of a NodeGroup's spec and
// returns the provisioning delay to use.
func checkSpec(s snapshot.NodeGroupSpec, fail failFunc) time.Duration {
	if s.MinSize < 0 {
		fail("spec.minSize", "must not be negative, got %d", s.MinSize)
	}
	if s.MaxSize < 0 {
		fail("spec.maxSize", "must not be negative, got %d", s.MaxSize)
	}
	if s.MinSize > s.MaxSize {
		fail("spec.minSize", "%d is larger than spec.maxSize %d", s.MinSize, s.MaxSize)
	}
	if s.PricePerHour != nil && *s.PricePerHour < 0 {
		fail("spec.pricePerHour", "must not be negative, got %g", *s.PricePerHour)
	}
	delay := DefaultProvisioningDelay
	if s.ProvisioningDelay != nil {
		if delay = s.ProvisioningDelay.Duration; delay < 0 {
			fail("spec.provisioningDelay", "must not be negative, got %s", delay)
		}
	}
	if (s.Template == nil) == (s.TemplateFrom == "") {
		fail("spec", "set exactly one of template and templateFrom")
	}
	return delay
}

// buildTemplate gives the group its template node and slices, copied from
// spec.templateFrom's node or taken from spec.template, and checks that
// new nodes made from it would belong to the group.
func (r *resolver) buildTemplate(g *Group, ng *snapshot.NodeGroup, sel labels.Selector, fail failFunc) {
	s := ng.Spec
	var tmplNode *v1.Node
	var tmplSlices []*resourceapi.ResourceSlice
	switch {
	case s.TemplateFrom != "" && s.Template == nil:
		src := r.nodes[s.TemplateFrom]
		if src == nil {
			fail("spec.templateFrom", "node %q is not in the snapshot", s.TemplateFrom)
			break
		}
		tmplNode = src
		tmplSlices = nodeSlices(r.snap, src.Name)
		g.oldName = src.Name
		g.daemonPods = staticAndOrphanDaemonPods(r.snap, src.Name)
	case s.Template != nil && s.TemplateFrom == "":
		tmplNode = &s.Template.Node
		g.oldName = tmplNode.Name
		tmplSlices = inlineTemplateSlices(s.Template, fail)
		if len(tmplNode.Status.Allocatable) == 0 && len(tmplNode.Status.Capacity) == 0 {
			fail("spec.template.node.status", "set allocatable (or capacity): cpu, memory and pods")
		}
	}
	if tmplNode == nil {
		return
	}
	g.Template = sanitizeNode(tmplNode, ng)
	g.Slices = tmplSlices
	g.daemonPods = append(daemonSetPods(r.snap, g.Template), g.daemonPods...)
	if sel != nil && !sel.Matches(labels.Set(g.Template.Labels)) {
		field := "spec.template.node.metadata.labels"
		if s.TemplateFrom != "" {
			field = "spec.templateFrom"
		}
		fail(field, "the template's labels do not match spec.nodeSelector %s: new nodes would not belong to the group", sel)
	}
}

// inlineTemplateSlices checks spec.template's ResourceSlices, which must be
// local to the template node, and fills in the defaults the API server
// and a driver would.
func inlineTemplateSlices(t *snapshot.NodeTemplate, fail failFunc) []*resourceapi.ResourceSlice {
	tmplNode := &t.Node
	var out []*resourceapi.ResourceSlice
	for i := range t.ResourceSlices {
		sl := t.ResourceSlices[i].DeepCopy()
		field := fmt.Sprintf("spec.template.resourceSlices[%d]", i)
		switch {
		case sl.Spec.NodeName != nil && *sl.Spec.NodeName != "" && *sl.Spec.NodeName != tmplNode.Name:
			fail(field+".spec.nodeName", "%q is not the template node's name %q", *sl.Spec.NodeName, tmplNode.Name)
		case sl.Spec.NodeSelector != nil || (sl.Spec.AllNodes != nil && *sl.Spec.AllNodes) || (sl.Spec.PerDeviceNodeSelection != nil && *sl.Spec.PerDeviceNodeSelection):
			fail(field+".spec", "a template's ResourceSlices must be node-local (spec.nodeName)")
		case sl.Spec.Driver == "":
			fail(field+".spec.driver", "required")
		}
		kube.DefaultResourceSlice(sl)
		if sl.Spec.Pool.Name == "" {
			sl.Spec.Pool.Name = tmplNode.Name
		}
		if sl.Spec.Pool.ResourceSliceCount == 0 {
			sl.Spec.Pool.ResourceSliceCount = 1
		}
		if sl.Name == "" {
			sl.Name = fmt.Sprintf("%s-%d", sl.Spec.Driver, i)
		}
		out = append(out, sl)
	}
	return out
}

// selectMembers lists the snapshot's nodes that the group's selector
// picks; a node may belong to one group only.
func (r *resolver) selectMembers(g *Group, sel labels.Selector, fail failFunc) {
	if sel != nil && !sel.Empty() {
		for _, n := range r.snap.Nodes {
			if sel.Matches(labels.Set(n.Labels)) {
				g.Nodes = append(g.Nodes, n.Name)
			}
		}
		sort.Strings(g.Nodes)
	}
	for _, n := range g.Nodes {
		if other, ok := r.owner[n]; ok {
			fail("spec.nodeSelector", "selects node %q, which NodeGroup %q selects too: a node belongs to one group", n, other)
			continue
		}
		r.owner[n] = g.Name
	}
}

// planWithExampleNode makes the group plan with one of its ready nodes, as
// cluster-autoscaler does, while new nodes are still made from the
// template; a warning says when the two differ.
func (r *resolver) planWithExampleNode(g *Group, ng *snapshot.NodeGroup, src snapshot.Source) {
	s := ng.Spec
	ex := exampleNode(g, r.nodes, s.TemplateFrom)
	if ex == nil || ex.Name == s.TemplateFrom {
		return
	}
	g.made = g.planned()
	g.Template = sanitizeNode(ex, ng)
	g.Slices = nodeSlices(r.snap, ex.Name)
	g.oldName = ex.Name
	g.daemonPods = append(daemonSetPods(r.snap, g.Template), staticAndOrphanDaemonPods(r.snap, ex.Name)...)
	g.TemplateFrom = ex.Name
	if differ := templatesDiffer(g.made, g.planned()); differ != "" {
		what := "spec.template"
		if s.TemplateFrom != "" {
			what = "the spec.templateFrom node " + s.TemplateFrom
		}
		r.warnings = append(r.warnings, fmt.Sprintf("%s: NodeGroup %q: as cluster-autoscaler, drasim plans with the group's ready node %s, which differs from %s (%s); new nodes are made from %s", src, g.Name, ex.Name, what, differ, what))
	}
}

// exampleNode is the node cluster-autoscaler builds a group's template
// from (MixedTemplateNodeInfoProvider): a ready, schedulable node of the
// group that is not being deleted; nil when the group has none, and CA
// takes the cloud provider's template (spec.template, or the
// spec.templateFrom node). CA takes the first such node it lists, in no
// fixed order; drasim takes the templateFrom node when it qualifies, else
// the first by name. A node without a Ready condition counts as ready, as
// everywhere in drasim.
func exampleNode(g *Group, nodes map[string]*v1.Node, templateFrom string) *v1.Node {
	candidates := g.Nodes
	if templateFrom != "" {
		candidates = append([]string{templateFrom}, candidates...)
	}
	for _, name := range candidates {
		if n := nodes[name]; n != nil && goodExample(n) {
			return n
		}
	}
	return nil
}

func goodExample(n *v1.Node) bool {
	if n.Spec.Unschedulable {
		return false
	}
	for _, t := range n.Spec.Taints {
		if t.Key == "ToBeDeletedByClusterAutoscaler" {
			return false
		}
	}
	for _, c := range n.Status.Conditions {
		if c.Type == v1.NodeReady {
			return c.Status == v1.ConditionTrue
		}
	}
	return true
}

// templatesDiffer says how two templates differ in what a scale-up counts
// (allocatable, taints, devices); "" when they do not.
func templatesDiffer(a, b *nodeTemplate) string {
	var out []string
	for _, r := range []v1.ResourceName{v1.ResourceCPU, v1.ResourceMemory, v1.ResourcePods} {
		qa, qb := a.node.Status.Allocatable[r], b.node.Status.Allocatable[r]
		if qa.Cmp(qb) != 0 {
			out = append(out, fmt.Sprintf("%s %s against %s", r, qb.String(), qa.String()))
		}
	}
	if len(a.node.Spec.Taints) != len(b.node.Spec.Taints) {
		out = append(out, fmt.Sprintf("%d taint(s) against %d", len(b.node.Spec.Taints), len(a.node.Spec.Taints)))
	}
	count := func(t *nodeTemplate) int {
		n := 0
		for _, sl := range t.slices {
			n += len(sl.Spec.Devices)
		}
		return n
	}
	if ca, cb := count(a), count(b); ca != cb {
		out = append(out, fmt.Sprintf("%d device(s) against %d", cb, ca))
	}
	return strings.Join(out, ", ")
}

// nodeSlices are the node-local ResourceSlices of a node, of its pools'
// newest generations: a template copies what the allocator reads, not the
// slices a driver left behind.
func nodeSlices(snap *snapshot.Snapshot, node string) []*resourceapi.ResourceSlice {
	var out []*resourceapi.ResourceSlice
	for _, sl := range inventory.Current(snap.ResourceSlices) {
		if sl.Spec.NodeName != nil && *sl.Spec.NodeName == node {
			out = append(out, sl)
		}
	}
	return out
}

// sanitizeNode does what cluster-autoscaler does to a node it copies for
// a template: a deep copy with no identity, no cordon and no condition
// taints, with the group's zone and labels applied.
func sanitizeNode(src *v1.Node, ng *snapshot.NodeGroup) *v1.Node {
	n := src.DeepCopy()
	n.ObjectMeta = metav1.ObjectMeta{Name: src.Name, Labels: map[string]string{}, Annotations: src.Annotations}
	for k, v := range src.Labels {
		n.Labels[k] = v
	}
	if ng.Spec.Zone != "" {
		n.Labels[v1.LabelTopologyZone] = ng.Spec.Zone
	}
	for k, v := range ng.Spec.Labels {
		n.Labels[k] = v
	}
	n.Spec.ProviderID = ""
	n.Spec.Unschedulable = false
	n.Spec.Taints = sanitizeTaints(n.Spec.Taints)
	if len(n.Status.Allocatable) == 0 {
		n.Status.Allocatable = n.Status.Capacity.DeepCopy()
	}
	if len(n.Status.Capacity) == 0 {
		n.Status.Capacity = n.Status.Allocatable.DeepCopy()
	}
	n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}
	return n
}

// daemonSetPods are the pods of every DaemonSet of the snapshot that would
// run on the node, as the DaemonSet controller would create them and the
// API server would admit them (priority from their PriorityClass).
func daemonSetPods(snap *snapshot.Snapshot, node *v1.Node) []*v1.Pod {
	admit := kube.PriorityAdmission(snap)
	var out []*v1.Pod
	for _, ds := range snap.DaemonSets {
		if !kube.DaemonShouldRun(ds, node) {
			continue
		}
		controller := true
		pod := &v1.Pod{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: *ds.Spec.Template.ObjectMeta.DeepCopy(),
			Spec:       *ds.Spec.Template.Spec.DeepCopy(),
		}
		pod.Name, pod.Namespace = ds.Name, ds.Namespace
		pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, Controller: &controller}}
		pod.Status = v1.PodStatus{Phase: v1.PodPending}
		kube.AddDaemonTolerations(pod)
		kube.DefaultPod(pod)
		admit(pod)
		out = append(out, pod)
	}
	return out
}

// staticAndOrphanDaemonPods are the pods on a template's source node that
// a copy of the node would run too: static (mirror) pods, and DaemonSet
// pods whose DaemonSet is not in the snapshot.
func staticAndOrphanDaemonPods(snap *snapshot.Snapshot, node string) []*v1.Pod {
	dsInSnap := map[string]bool{}
	for _, ds := range snap.DaemonSets {
		dsInSnap[ds.Namespace+"/"+ds.Name] = true
	}
	var out []*v1.Pod
	for _, p := range snap.Pods {
		if p.Spec.NodeName != node || p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed {
			continue
		}
		_, mirror := p.Annotations[v1.MirrorPodAnnotationKey]
		ref := metav1.GetControllerOf(p)
		orphanDS := ref != nil && ref.Kind == "DaemonSet" && !dsInSnap[p.Namespace+"/"+ref.Name]
		if !mirror && !orphanDS {
			continue
		}
		pod := p.DeepCopy()
		pod.Spec.NodeName = ""
		pod.Status = v1.PodStatus{Phase: v1.PodPending}
		pod.ResourceVersion = ""
		out = append(out, pod)
	}
	return out
}
