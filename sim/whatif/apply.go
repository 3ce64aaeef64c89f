package whatif

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/drasim/drasim/internal/kubenames"
	"github.com/drasim/drasim/sim/result"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// Applied is a snapshot with edits applied, and what each edit changed.
type Applied struct {
	// Snapshot is the edited copy; Original the input, unchanged.
	Snapshot *snapshot.Snapshot
	Original *snapshot.Snapshot
	// Edits echo the edits in order. Resolve fills in where moved pods went.
	Edits []result.Edit
}

// Apply applies the edits in order to a copy of s. Problems with an edit
// (a node, group or workload the snapshot does not have) are *Error values
// naming the edit and its field, all returned together.
func Apply(s *snapshot.Snapshot, edits []Edit) (*Applied, error) {
	e := newEditor(s)
	var errs []error
	for i := range edits {
		ed := &edits[i]
		if verrs := ed.Validate(); len(verrs) > 0 {
			errs = append(errs, verrs...)
			continue
		}
		e.out = &result.Edit{Index: i + 1, Source: sourceName(ed), Type: ed.Type()}
		if err := e.apply(ed); err != nil {
			errs = append(errs, err)
			continue
		}
		if len(e.bare) > 0 {
			e.warnf("%d pod(s) without a controller (%s): kube would not recreate them, drasim queues them again", len(e.bare), listSome(e.bare, 3))
			e.bare = nil
		}
		e.compact()
		e.applied = append(e.applied, *e.out)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &Applied{Snapshot: e.s, Original: s, Edits: e.applied}, nil
}

// listSome names the first n items and counts the rest.
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

func sourceName(ed *Edit) string {
	if ed.Index >= 0 {
		return fmt.Sprintf("%s edits[%d]", ed.Source, ed.Index)
	}
	return ed.Source
}

// Resolve records, for every pod an edit moved or added, its outcome in
// the replay that followed, and puts the edits into the result.
func (a *Applied) Resolve(r *result.Result) {
	byKey := make(map[string]*result.Pod, len(r.Pods))
	for i := range r.Pods {
		byKey[r.Pods[i].Key()] = &r.Pods[i]
	}
	resolve := func(list []result.MovedPod) {
		for i := range list {
			m := &list[i]
			if p := byKey[m.Pod]; p != nil {
				m.Phase, m.Node = p.Phase, p.Node
			} else {
				m.Phase, m.Node = PhaseRemoved, ""
			}
		}
	}
	out := make([]result.Edit, len(a.Edits))
	for i, ed := range a.Edits {
		ed.Evicted = slices.Clone(ed.Evicted)
		ed.Added = slices.Clone(ed.Added)
		resolve(ed.Evicted)
		resolve(ed.Added)
		out[i] = ed
	}
	r.Edits = out
}

// PhaseRemoved is the outcome of a moved pod that a later edit deleted.
const PhaseRemoved = "Removed"

// editor applies edits to a working copy of a snapshot. Lists are copied
// up front (pointers only); an object is deep-copied the first time an
// edit changes it (owned).
type editor struct {
	s     *snapshot.Snapshot
	owned map[any]bool
	// replacedAt is the creation time of replacement pods: after every
	// pod of the snapshot, since the controllers create them now.
	replacedAt metav1.Time
	rules      int
	out        *result.Edit
	applied    []result.Edit
	// Objects to drop at the end of the current edit.
	deadPods, deadClaims, deadNodes map[string]bool
	deadSlices                      map[*resourceapi.ResourceSlice]bool
	budgets                         *budgets
	// claimIdx indexes s.ResourceClaims by namespace/name (nil: build).
	claimIdx map[string]int
	// bare are the pods without a controller the current edit queued.
	bare []string
}

func newEditor(s *snapshot.Snapshot) *editor {
	cp := s.Copy()
	if cp.Sources == nil {
		cp.Sources = map[snapshot.Ref]snapshot.Source{}
	}
	if cp.Generated == nil {
		cp.Generated = map[snapshot.Ref]bool{}
	}
	e := &editor{s: cp, owned: map[any]bool{}}
	var latest time.Time
	for _, p := range s.Pods {
		if t := p.CreationTimestamp.Time; t.After(latest) {
			latest = t
		}
	}
	e.replacedAt = metav1.NewTime(latest.Add(time.Second))
	e.resetDead()
	return e
}

func (e *editor) resetDead() {
	e.deadPods, e.deadClaims, e.deadNodes = map[string]bool{}, map[string]bool{}, map[string]bool{}
	e.deadSlices = map[*resourceapi.ResourceSlice]bool{}
}

// own returns a copy of *p that the editor may change, stored back in *p.
func own[T interface{ DeepCopy() T }](e *editor, p *T) T {
	if !e.owned[any(*p)] {
		*p = (*p).DeepCopy()
		e.owned[any(*p)] = true
	}
	return *p
}

// compact drops what the current edit deleted.
func (e *editor) compact() {
	if len(e.deadPods) > 0 {
		e.s.Pods = slices.DeleteFunc(e.s.Pods, func(p *v1.Pod) bool { return e.deadPods[key(p.Namespace, p.Name)] })
	}
	if len(e.deadClaims) > 0 {
		e.s.ResourceClaims = slices.DeleteFunc(e.s.ResourceClaims, func(c *resourceapi.ResourceClaim) bool { return e.deadClaims[key(c.Namespace, c.Name)] })
		e.claimIdx = nil
	}
	if len(e.deadNodes) > 0 {
		e.s.Nodes = slices.DeleteFunc(e.s.Nodes, func(n *v1.Node) bool { return e.deadNodes[n.Name] })
	}
	if len(e.deadSlices) > 0 {
		e.s.ResourceSlices = slices.DeleteFunc(e.s.ResourceSlices, func(sl *resourceapi.ResourceSlice) bool { return e.deadSlices[sl] })
	}
	e.resetDead()
}

func key(namespace, name string) string { return namespace + "/" + name }

func (e *editor) apply(ed *Edit) error {
	switch {
	case ed.Drain != nil:
		return e.drain(ed)
	case ed.Cordon != nil:
		return e.eachNode(ed, ed.Cordon, "cordon", e.cordon)
	case ed.RemoveNodes != nil:
		return e.eachNode(ed, ed.RemoveNodes, "remove", e.removeNode)
	case ed.AddNodes != nil:
		return e.addNodes(ed)
	case ed.TaintDevices != nil:
		return e.taintDevices(ed)
	case ed.RemoveDriver != nil:
		return e.removeDriver(ed)
	case ed.Scale != nil:
		return e.scale(ed)
	case ed.SetRequests != nil:
		return e.setRequests(ed)
	case ed.SetPriority != nil:
		return e.setPriority(ed)
	}
	return ed.errorf("", "no edit")
}

// selectNodes returns the indexes (in s.Nodes) of the nodes an edit names
// or selects, in name order.
func (e *editor) selectNodes(ed *Edit, n *Nodes) ([]int, error) {
	byName := make(map[string]int, len(e.s.Nodes))
	for i, node := range e.s.Nodes {
		byName[node.Name] = i
	}
	picked := map[int]bool{}
	var errs []error
	for j, name := range n.Names {
		i, ok := byName[name]
		if !ok {
			errs = append(errs, ed.errorf(fmt.Sprintf("nodes[%d]", j), "node %q is not in the snapshot", name))
			continue
		}
		picked[i] = true
	}
	if n.Selector != nil {
		sel, err := metav1.LabelSelectorAsSelector(n.Selector)
		if err != nil {
			return nil, ed.errorf("selector", "%v", err)
		}
		for i, node := range e.s.Nodes {
			if sel.Matches(labels.Set(node.Labels)) {
				picked[i] = true
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	out := slices.Collect(maps.Keys(picked))
	sort.Slice(out, func(a, b int) bool { return e.s.Nodes[out[a]].Name < e.s.Nodes[out[b]].Name })
	for _, i := range out {
		e.out.Nodes = append(e.out.Nodes, e.s.Nodes[i].Name)
	}
	if len(out) == 0 {
		e.warnf("the selector %s selects no node", metav1.FormatLabelSelector(n.Selector))
	}
	return out, nil
}

func describeNodes(n *Nodes, picked []int) string {
	var parts []string
	if len(n.Names) > 0 {
		parts = append(parts, strings.Join(n.Names, ", "))
	}
	if n.Selector != nil {
		parts = append(parts, "nodes with "+metav1.FormatLabelSelector(n.Selector))
	}
	return fmt.Sprintf("%s (%d node(s))", strings.Join(parts, " and "), len(picked))
}

func (e *editor) warnf(format string, args ...any) {
	e.out.Warnings = append(e.out.Warnings, fmt.Sprintf(format, args...))
}

// cordon marks a node unschedulable, with the taint the node lifecycle
// controller adds to an unschedulable node.
func (e *editor) cordon(i int) {
	n := own(e, &e.s.Nodes[i])
	n.Spec.Unschedulable = true
	for _, t := range n.Spec.Taints {
		if t.Key == v1.TaintNodeUnschedulable {
			return
		}
	}
	n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: v1.TaintNodeUnschedulable, Effect: v1.TaintEffectNoSchedule})
}

// podsOn returns the indexes of the pods bound to a node (terminated pods
// excluded: they hold nothing).
func (e *editor) podsOn(node string) []int {
	var out []int
	for i, p := range e.s.Pods {
		if p.Spec.NodeName == node && !terminated(p) {
			out = append(out, i)
		}
	}
	return out
}

func terminated(p *v1.Pod) bool {
	return p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed
}

// stays reports the pods a drain leaves on the node: DaemonSet pods
// (kubectl drain --ignore-daemonsets) and static pods.
func stays(p *v1.Pod) bool {
	if _, mirror := p.Annotations[v1.MirrorPodAnnotationKey]; mirror {
		return true
	}
	ref := metav1.GetControllerOf(p)
	return ref != nil && ref.Kind == "DaemonSet"
}

func (e *editor) drain(ed *Edit) error {
	nodes, err := e.selectNodes(ed, &ed.Drain.Nodes)
	if err != nil {
		return err
	}
	e.out.Description = "drain " + describeNodes(&ed.Drain.Nodes, nodes)
	if ed.Drain.DisableEviction {
		e.out.Description += ", deleting pods without the eviction API"
	}
	for _, i := range nodes {
		e.cordon(i)
	}
	for _, i := range nodes {
		name := e.s.Nodes[i].Name
		for _, pi := range e.podsOn(name) {
			p := e.s.Pods[pi]
			if stays(p) {
				continue
			}
			if !ed.Drain.DisableEviction {
				if b := e.budgetsFor().evict(p); b != nil {
					b.Node = name
					e.out.Blocked = append(e.out.Blocked, *b)
					continue
				}
			}
			e.requeue(pi)
		}
	}
	if len(e.out.Blocked) > 0 {
		e.warnf("%d eviction(s) refused by PodDisruptionBudgets: the pods stay on their cordoned nodes (kubectl drain would retry until the budget allows them)", len(e.out.Blocked))
	}
	return nil
}

// eachNode applies do to every node the edit selects.
func (e *editor) eachNode(ed *Edit, n *Nodes, verb string, do func(i int)) error {
	nodes, err := e.selectNodes(ed, n)
	if err != nil {
		return err
	}
	e.out.Description = verb + " " + describeNodes(n, nodes)
	for _, i := range nodes {
		do(i)
	}
	return nil
}

// removeNode deletes a node, its node-local slices and the pods that go
// with it (DaemonSet and static pods, daemon pods pinned to it), and
// queues its other pods again.
func (e *editor) removeNode(i int) {
	name := e.s.Nodes[i].Name
	e.deadNodes[name] = true
	for _, sl := range e.s.ResourceSlices {
		if sl.Spec.NodeName != nil && *sl.Spec.NodeName == name {
			e.deadSlices[sl] = true
			e.out.Devices += len(sl.Spec.Devices)
		}
	}
	for pi, p := range e.s.Pods {
		switch {
		case terminated(p):
		case p.Spec.NodeName == name && stays(p):
			e.deletePod(pi)
		case p.Spec.NodeName == name:
			e.requeue(pi)
		case p.Spec.NodeName == "" && pinnedTo(p) == name:
			e.deletePod(pi)
		}
	}
}

// pinnedTo returns the node a pending daemon pod is pinned to by the
// DaemonSet controller's metadata.name node affinity, or "".
func pinnedTo(p *v1.Pod) string {
	if ref := metav1.GetControllerOf(p); ref == nil || ref.Kind != "DaemonSet" {
		return ""
	}
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, f := range t.MatchFields {
			if f.Key == metav1.ObjectNameField && len(f.Values) == 1 {
				return f.Values[0]
			}
		}
	}
	return ""
}

// podUID is the pod's UID as the replay sees it (derived when the dump has
// none, as cluster.Build derives it).
func podUID(p *v1.Pod) types.UID {
	if p.UID != "" {
		return p.UID
	}
	return types.UID(kubenames.UID("pod/" + p.Namespace + "/" + p.Name))
}

// requeue turns a bound pod into its replacement: a new pending pod of
// the same name, created now, whose generated claims are new and whose
// shared claims no longer count it as a user.
func (e *editor) requeue(i int) {
	from := e.s.Pods[i].Spec.NodeName
	e.releaseClaims(e.s.Pods[i])
	p := own(e, &e.s.Pods[i])
	k := key(p.Namespace, p.Name)
	if metav1.GetControllerOf(p) == nil {
		e.bare = append(e.bare, k)
	}
	p.UID = podUID(p)
	p.Spec.NodeName = ""
	p.Status = v1.PodStatus{Phase: v1.PodPending}
	p.CreationTimestamp = e.replacedAt
	p.ResourceVersion = ""
	p.DeletionTimestamp = nil
	e.out.Evicted = append(e.out.Evicted, result.MovedPod{Pod: k, From: from})
}

// deletePod deletes a pod for good, with its generated claims.
func (e *editor) deletePod(i int) {
	p := e.s.Pods[i]
	e.releaseClaims(p)
	k := key(p.Namespace, p.Name)
	e.deadPods[k] = true
	e.out.Removed = append(e.out.Removed, k)
}

// releaseClaims does what the resource-claim controller does when a pod
// goes away: claims generated for it are deleted, shared claims no longer
// list it in reservedFor and are deallocated when nobody uses them.
func (e *editor) releaseClaims(p *v1.Pod) {
	for _, pc := range p.Spec.ResourceClaims {
		if pc.ResourceClaimTemplateName != nil {
			for _, st := range p.Status.ResourceClaimStatuses {
				if st.Name == pc.Name && st.ResourceClaimName != nil {
					e.deadClaims[key(p.Namespace, *st.ResourceClaimName)] = true
				}
			}
			continue
		}
		if pc.ResourceClaimName != nil {
			e.unreserve(p, *pc.ResourceClaimName)
		}
	}
	if st := p.Status.ExtendedResourceClaimStatus; st != nil {
		e.deadClaims[key(p.Namespace, st.ResourceClaimName)] = true
	}
}

func (e *editor) claimIndex(namespace, name string) int {
	if e.claimIdx == nil {
		e.claimIdx = make(map[string]int, len(e.s.ResourceClaims))
		for i, c := range e.s.ResourceClaims {
			e.claimIdx[key(c.Namespace, c.Name)] = i
		}
	}
	if i, ok := e.claimIdx[key(namespace, name)]; ok {
		return i
	}
	return -1
}

func (e *editor) unreserve(p *v1.Pod, claimName string) {
	i := e.claimIndex(p.Namespace, claimName)
	if i < 0 {
		return
	}
	uid := podUID(p)
	c := e.s.ResourceClaims[i]
	if !slices.ContainsFunc(c.Status.ReservedFor, func(r resourceapi.ResourceClaimConsumerReference) bool { return r.UID == uid }) {
		return
	}
	c = own(e, &e.s.ResourceClaims[i])
	c.Status.ReservedFor = slices.DeleteFunc(c.Status.ReservedFor, func(r resourceapi.ResourceClaimConsumerReference) bool { return r.UID == uid })
	// The controller deallocates a claim when its last user goes, when it
	// was allocated by the scheduler (the finalizer says so).
	if len(c.Status.ReservedFor) == 0 && slices.Contains(c.Finalizers, resourceapi.Finalizer) {
		c.Status.Allocation = nil
		c.Finalizers = slices.DeleteFunc(c.Finalizers, func(f string) bool { return f == resourceapi.Finalizer })
		c.Status.ReservedFor = nil
	}
}

// addSource records where an object the edit made comes from.
func (e *editor) addSource(ref snapshot.Ref, generated bool) {
	e.s.Sources[ref] = snapshot.Source{File: e.out.Source, Item: -1}
	if generated {
		e.s.Generated[ref] = true
	}
}
