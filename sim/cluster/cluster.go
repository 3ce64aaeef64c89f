package cluster

import (
	"fmt"
	"sort"

	"github.com/drasim/drasim/internal/kubenames"
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/utils/ptr"
)

// Cluster is the mutable state of one replay. Build copies every object it
// may change, so the snapshot stays as loaded. Its fields are its own:
// callers read them through the accessors below and change the cluster
// through its methods, which keep Version (and the caches that rely on
// it) right. The objects it hands out (node views, pods, claims) are
// shared, not copies: a change to one of them goes through a method too
// (NodeInfo's own, which the cluster observes, EditPod, UseDisruption,
// the DRA state's).
type Cluster struct {
	snapshot *snapshot.Snapshot
	// nodes in kube-scheduler's snapshot order (see orderNodes).
	nodes  []*framework.NodeInfo
	byName map[string]*framework.NodeInfo
	dra    *dra.State
	// pods holds every pod drasim tracks, in snapshot order (copies).
	pods []*v1.Pod
	// queue is the pending pods in scheduling order.
	queue []*v1.Pod
	// gated and skipped are pending pods drasim does not attempt.
	gated, skipped []*v1.Pod
	// bound are the pods already running when the replay starts.
	bound      []*v1.Pod
	namespaces map[string]*v1.Namespace
	// pdbs are the PodDisruptionBudgets (copies: preemption changes their
	// status as the disruption controller would).
	pdbs     []*policyv1.PodDisruptionBudget
	warnings []string
	// podOrder is each pod's position in the snapshot (the tie-break),
	// and for a pod added later, its place after every pod before it:
	// nextOrder counts up and never reuses a position, even when pods are
	// removed (a reused one made two pods tie, and the pods the autoscaler
	// loop sorts by order came out in map order).
	podOrder  map[types.UID]int
	nextOrder int
	// affinity caches the NodeLister's affinity lists (not copied by Clone).
	affinity affinityLists
	// changes logs which nodes changed (see NodeChanges).
	changes changeLog
	// podGroups are the pod groups (copies: the scheduler sets their
	// PodGroupInitiallyScheduled condition), with GenericWorkload on.
	podGroups    []*schedulingv1beta1.PodGroup
	groupByKey   map[string]*schedulingv1beta1.PodGroup
	groupMembers map[string][]*v1.Pod
	gangs        bool
	// templates are the snapshot's claim templates by namespace/name,
	// for pods added later (AddPod); gone marks pods RemovePod dropped
	// until the lists are compacted (lifecycle.go).
	templates map[string]*resourceapi.ResourceClaimTemplate
	gone      map[*v1.Pod]bool
	// edits counts the changes that the change log and the DRA state do
	// not see (see Version).
	edits uint64
	// inPlace counts the in-place edits (EditPod, UseDisruption).
	inPlace uint64
	// nodeOrder and joins say in which order the scheduler met the nodes
	// (nodeorder.go).
	nodeOrder NodeOrder
	joins     joinOrder
	// forks are the open what-if layers, innermost last: each is the
	// undo steps of the changes made while it is open (whatif.go).
	forks [][]func()
}

// Snapshot is the snapshot the cluster was built from, as loaded (shared
// read-only).
func (c *Cluster) Snapshot() *snapshot.Snapshot { return c.snapshot }

// Nodes are the node views in kube-scheduler's snapshot order (see
// orderNodes); List is the same list.
func (c *Cluster) Nodes() []*framework.NodeInfo { return c.nodes }

// DRA is the cluster's DRA state: claims, slices, allocations. Its own
// methods change it, and Version counts their changes.
func (c *Cluster) DRA() *dra.State { return c.dra }

// Pods are every pod the cluster tracks, in snapshot order, pods added
// later after them. After RemovePod the list may still hold removed pods
// until it is compacted: LivePods returns only the live ones.
func (c *Cluster) Pods() []*v1.Pod { return c.pods }

// Queue are the pending pods in scheduling order (see SetQueue).
func (c *Cluster) Queue() []*v1.Pod { return c.queue }

// SetQueue makes pods the queue, in their order (e.g. an autoscaler's
// new nodes' daemon pods before the pods still pending). The cluster
// keeps the slice. Pods not in the cluster yet are added with AddPending.
func (c *Cluster) SetQueue(pods []*v1.Pod) {
	c.edits++
	c.queue = pods
}

// Gated are the pending pods with scheduling gates, which drasim does
// not attempt.
func (c *Cluster) Gated() []*v1.Pod { return c.gated }

// Skipped are the pending pods for another scheduler, which drasim does
// not attempt.
func (c *Cluster) Skipped() []*v1.Pod { return c.skipped }

// Bound are the pods that were running when the replay started.
func (c *Cluster) Bound() []*v1.Pod { return c.bound }

// Namespaces are the snapshot's namespaces by name.
func (c *Cluster) Namespaces() map[string]*v1.Namespace { return c.namespaces }

// PDBs are the PodDisruptionBudgets (the cluster's copies; see
// UseDisruption).
func (c *Cluster) PDBs() []*policyv1.PodDisruptionBudget { return c.pdbs }

// Warnings are what building the cluster found worth saying (a pod bound
// to a node the snapshot lacks, pod groups with the gate off).
func (c *Cluster) Warnings() []string { return c.warnings }

// PodGroups are the pod groups (the cluster's copies), with the
// GenericWorkload gate on.
func (c *Cluster) PodGroups() []*schedulingv1beta1.PodGroup { return c.podGroups }

// Version counts the changes of the cluster so far: every change of a
// node (its pods, its object), of the node list, of the pod lists, of a
// claim, an allocation or a slice, and every in-place edit made through
// EditPod or UseDisruption. Two equal versions mean that nothing a scheduling
// cycle reads in the cluster changed in between (the scheduler's memo of
// failed cycles relies on it). It never decreases.
func (c *Cluster) Version() uint64 {
	return c.edits + c.changes.base + uint64(len(c.changes.entries)) + c.dra.Mutations()
}

// Edits counts the in-place edits of the cluster's objects (EditPod,
// UseDisruption): caches of what the objects themselves say (not their
// placement, which the NodeInfos' Generation follows) hold while it
// stands.
func (c *Cluster) Edits() uint64 { return c.inPlace }

// edited records an in-place edit of something a scheduling cycle may
// read: see Version and Edits.
func (c *Cluster) edited() { c.edits++; c.inPlace++ }

// EditPod runs edit on a pod of the cluster, an edit in place that no
// other method makes (e.g. a preemption victim's deletion timestamp),
// and records it: see Version.
func (c *Cluster) EditPod(pod *v1.Pod, edit func(*v1.Pod)) {
	edit(pod)
	c.edited()
}

// UseDisruption does what the disruption controller does when a pod the
// budget covers is gone: one disruption less allowed (never below zero).
// pdb must be one of the cluster's PDBs.
func (c *Cluster) UseDisruption(pdb *policyv1.PodDisruptionBudget) {
	if pdb.Status.DisruptionsAllowed > 0 {
		pdb.Status.DisruptionsAllowed--
		c.edited()
	}
}

// changeLog records the index of every node that changes, in order;
// entries[k] has the sequence number base+k.
type changeLog struct {
	base    uint64
	entries []int32
}

// maxChangeLog bounds the log; when it is full it starts over and readers
// further behind look at every node.
const maxChangeLog = 1 << 20

// nodeChanged is every NodeInfo's observer: it logs the change and drops
// the affinity lists when the node's membership in them changed.
func (c *Cluster) nodeChanged(ni *framework.NodeInfo) {
	if a := &c.affinity; a.valid && (ni.Index >= len(a.listed) || a.listed[ni.Index] != affinityBits(ni)) {
		a.valid = false
	}
	l := &c.changes
	if len(l.entries) >= maxChangeLog {
		l.base += uint64(len(l.entries))
		l.entries = l.entries[:0]
	}
	l.entries = append(l.entries, int32(ni.Index))
}

// adopt makes ni the node at the end of the node list and observes it.
func (c *Cluster) adopt(ni *framework.NodeInfo) {
	c.edits++
	ni.Index = len(c.nodes)
	ni.SetObserver(c.nodeChanged)
	c.nodes = append(c.nodes, ni)
	c.byName[ni.Node().Name] = ni
}

// NodeChanges returns the indexes (in c.Nodes) of the nodes that changed
// since position pos, a position an earlier call returned, and the
// position to ask from next. ok is false when the log no longer reaches
// back to pos (or pos is 0, "never asked"): the caller must then look at
// every node. Caches kept across scheduling cycles use it to refresh only
// what a placement changed.
func (c *Cluster) NodeChanges(pos uint64) (changed []int32, next uint64, ok bool) {
	l := &c.changes
	next = l.base + uint64(len(l.entries)) + 1 // positions start at 1
	if pos == 0 || pos-1 < l.base {
		return nil, next, false
	}
	return l.entries[pos-1-l.base:], next, true
}

// Build makes the replay state from a snapshot, its nodes in the order a
// scheduler that starts now lists them (NodeOrderName).
func Build(s *snapshot.Snapshot, gates feature.Gates) *Cluster {
	return BuildOrdered(s, gates, NodeOrderName)
}

// BuildOrdered is Build with the nodes in the given order (see NodeOrder).
func BuildOrdered(s *snapshot.Snapshot, gates feature.Gates, order NodeOrder) *Cluster {
	c := &Cluster{snapshot: s, byName: map[string]*framework.NodeInfo{}, namespaces: map[string]*v1.Namespace{}, podOrder: map[types.UID]int{}, nodeOrder: order}
	c.startJoins(s.Nodes)
	for _, ns := range s.Namespaces {
		c.namespaces[ns.Name] = ns
	}
	for _, pdb := range s.PodDisruptionBudgets {
		c.pdbs = append(c.pdbs, pdb.DeepCopy())
	}
	for _, n := range c.orderNodes(s.Nodes) {
		// Node objects are shared with the snapshot: nothing changes a
		// node in place (NodeInfo.Clone shares them as well).
		c.adopt(framework.NewNodeInfo(n))
	}
	framework.SetImageStates(c.nodes)

	var made []*resourceapi.ResourceClaim // from templates, owned by the cluster
	templates := map[string]*resourceapi.ResourceClaimTemplate{}
	for _, t := range s.ResourceClaimTemplates {
		templates[t.Namespace+"/"+t.Name] = t
	}
	c.nextOrder = len(s.Pods)
	for i, orig := range s.Pods {
		pod := orig.DeepCopy()
		if pod.UID == "" {
			pod.UID = types.UID(kubenames.UID("pod/" + pod.Namespace + "/" + pod.Name))
		}
		c.podOrder[pod.UID] = i
		if pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed || pod.DeletionTimestamp != nil {
			continue // the scheduler's cache ignores terminated pods
		}
		c.pods = append(c.pods, pod)
		made = append(made, c.claimsFromTemplates(pod, templates)...)
	}
	c.buildPodGroups(gates[GenericWorkloadGate])
	// NewState copies the snapshot's claims; the claims made here are the
	// cluster's own already and need no second copy.
	c.dra = dra.NewState(gates, s.DeviceClasses, s.ResourceSlices, s.DeviceTaintRules, s.ResourceClaims)
	for _, claim := range made {
		c.dra.AddClaim(claim)
	}

	for _, pod := range c.pods {
		switch {
		case pod.Spec.NodeName != "":
			ni := c.byName[pod.Spec.NodeName]
			if ni == nil {
				c.warnings = append(c.warnings, fmt.Sprintf("Pod %q is bound to node %q, which is not in the snapshot; its usage is ignored", pod.Namespace+"/"+pod.Name, pod.Spec.NodeName))
				continue
			}
			ni.AddPod(pod)
			c.bound = append(c.bound, pod)
		case pod.Spec.SchedulerName != "" && pod.Spec.SchedulerName != v1.DefaultSchedulerName:
			c.skipped = append(c.skipped, pod)
		case len(pod.Spec.SchedulingGates) > 0:
			c.gated = append(c.gated, pod)
		default:
			c.queue = append(c.queue, pod)
		}
	}
	c.sortQueue()
	return c
}

// Node returns a node's view, or nil.
func (c *Cluster) Node(name string) *framework.NodeInfo { return c.byName[name] }

// Order returns a pod's position in the snapshot.
func (c *Cluster) Order(pod *v1.Pod) int { return c.podOrder[pod.UID] }

// setOrder places a pod added after the snapshot after every pod so far.
func (c *Cluster) setOrder(pod *v1.Pod) {
	c.podOrder[pod.UID] = c.nextOrder
	c.nextOrder++
}

// sortQueue orders pending pods as kube-scheduler's PrioritySort does:
// higher priority first, then earlier creation; the snapshot order breaks
// the remaining ties (kube uses the time each pod entered the queue).
func (c *Cluster) sortQueue() {
	sort.SliceStable(c.queue, func(i, j int) bool {
		a, b := c.queue[i], c.queue[j]
		pa, pb := corev1helpers.PodPriority(a), corev1helpers.PodPriority(b)
		if pa != pb {
			return pa > pb
		}
		ta, tb := a.CreationTimestamp, b.CreationTimestamp
		if !ta.Equal(&tb) {
			return ta.Before(&tb)
		}
		return c.podOrder[a.UID] < c.podOrder[b.UID]
	})
}

// claimsFromTemplates does the resource-claim controller's work for one pod:
// a claim per resourceClaimTemplateName entry that has no claim yet, named
// <pod>-<claim>-<suffix>, owned by the pod, recorded in the pod's status.
func (c *Cluster) claimsFromTemplates(pod *v1.Pod, templates map[string]*resourceapi.ResourceClaimTemplate) []*resourceapi.ResourceClaim {
	var out []*resourceapi.ResourceClaim
	for _, pc := range pod.Spec.ResourceClaims {
		if pc.ResourceClaimTemplateName == nil {
			continue
		}
		if hasClaimStatus(pod, pc.Name) {
			continue // made earlier, by the real controller; the dump holds it
		}
		tmpl := templates[pod.Namespace+"/"+*pc.ResourceClaimTemplateName]
		if tmpl == nil {
			continue // the scheduler reports the pod as waiting for its claim
		}
		name := kubenames.GenerateName(pod.Name+"-"+pc.Name+"-", pod.Namespace+"/"+pod.Name+"/"+pc.Name, 63)
		claim := &resourceapi.ResourceClaim{
			TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceClaim"},
			ObjectMeta: metav1.ObjectMeta{
				Name:         name,
				Namespace:    pod.Namespace,
				GenerateName: pod.Name + "-" + pc.Name + "-",
				UID:          types.UID(kubenames.UID("claim/" + pod.Namespace + "/" + name)),
				Labels:       copyMap(tmpl.Spec.ObjectMeta.Labels),
				Annotations:  copyMap(tmpl.Spec.ObjectMeta.Annotations),
				OwnerReferences: []metav1.OwnerReference{{
					APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID,
					Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
				}},
			},
			Spec: *tmpl.Spec.Spec.DeepCopy(),
		}
		if claim.Annotations == nil {
			claim.Annotations = map[string]string{}
		}
		claim.Annotations["resource.kubernetes.io/pod-claim-name"] = pc.Name
		pod.Status.ResourceClaimStatuses = append(pod.Status.ResourceClaimStatuses, v1.PodResourceClaimStatus{Name: pc.Name, ResourceClaimName: &claim.Name})
		out = append(out, claim)
	}
	return out
}

func hasClaimStatus(pod *v1.Pod, name string) bool {
	for _, st := range pod.Status.ResourceClaimStatuses {
		if st.Name == name {
			return true
		}
	}
	return false
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// zoneKey mirrors kube's utilnode.GetZoneKey: region and zone labels.
func zoneKey(n *v1.Node) string {
	zone, region := n.Labels[v1.LabelTopologyZone], n.Labels[v1.LabelTopologyRegion]
	if zone == "" {
		zone = n.Labels[v1.LabelFailureDomainBetaZone]
	}
	if region == "" {
		region = n.Labels[v1.LabelFailureDomainBetaRegion]
	}
	if zone == "" && region == "" {
		return ""
	}
	return region + ":\x00:" + zone
}

// List implements framework.NodeLister.
func (c *Cluster) List() []*framework.NodeInfo { return c.nodes }

// Get implements framework.NodeLister.
func (c *Cluster) Get(name string) *framework.NodeInfo { return c.byName[name] }

// HavePodsWithAffinityList implements framework.NodeLister.
func (c *Cluster) HavePodsWithAffinityList() []*framework.NodeInfo {
	c.refreshAffinityLists()
	return c.affinity.withAffinity
}

// HavePodsWithRequiredAntiAffinityList implements framework.NodeLister.
func (c *Cluster) HavePodsWithRequiredAntiAffinityList() []*framework.NodeInfo {
	c.refreshAffinityLists()
	return c.affinity.withAnti
}

// affinityLists caches the nodes holding pods with inter-pod affinity:
// InterPodAffinity asks for them in every cycle, and they only change when
// a node gains its first or loses its last such pod (nodeChanged), or a
// node is added.
type affinityLists struct {
	valid bool
	nodes int
	// listed holds each node's membership: bit 0 in withAffinity, bit 1
	// in withAnti.
	listed                 []uint8
	withAffinity, withAnti []*framework.NodeInfo
}

// affinityBits is a node's membership in the affinity lists.
func affinityBits(n *framework.NodeInfo) uint8 {
	var b uint8
	if len(n.PodsWithAffinity) > 0 {
		b |= 1
	}
	if len(n.PodsWithRequiredAntiAffinity) > 0 {
		b |= 2
	}
	return b
}

func (c *Cluster) refreshAffinityLists() {
	a := &c.affinity
	if a.valid && a.nodes == len(c.nodes) {
		return
	}
	a.withAffinity, a.withAnti = nil, nil
	a.listed = make([]uint8, len(c.nodes))
	for i, n := range c.nodes {
		b := affinityBits(n)
		a.listed[i] = b
		if b&1 != 0 {
			a.withAffinity = append(a.withAffinity, n)
		}
		if b&2 != 0 {
			a.withAnti = append(a.withAnti, n)
		}
	}
	a.valid, a.nodes = true, len(c.nodes)
}

var _ framework.NodeLister = (*Cluster)(nil)

// AddNode adds a node (and its ResourceSlices) to the cluster, e.g. a node
// a scale-up would create. It keeps kube's node order. An open fork
// records it, and Revert deletes the node again.
func (c *Cluster) AddNode(node *v1.Node, slices []*resourceapi.ResourceSlice) {
	c.joined(node.Name)
	c.adopt(framework.NewNodeInfo(node))
	c.dra.AddSlices(slices, c.snapshot.DeviceTaintRules)
	if len(c.forks) > 0 {
		name := node.Name
		c.record(func() { _, _, _ = c.RemoveNode(name) })
	}
}

// AddPending queues a pod for scheduling (e.g. a probe pod) at the end of
// the queue.
func (c *Cluster) AddPending(pod *v1.Pod) {
	c.edits++
	if pod.UID == "" {
		pod.UID = types.UID(kubenames.UID("pod/" + pod.Namespace + "/" + pod.Name))
	}
	c.setOrder(pod)
	c.pods = append(c.pods, pod)
	c.queue = append(c.queue, pod)
	if name := PodGroupName(pod); name != "" && c.groupMembers != nil {
		k := groupKey(pod.Namespace, name)
		c.groupMembers[k] = append(c.groupMembers[k], pod)
	}
}

// ClaimChange is a claim as it was and as it is after a change; New is nil
// when the claim was deleted.
type ClaimChange struct {
	Old, New *resourceapi.ResourceClaim
}

// DeletePod removes a pod from the cluster as if it were deleted and gone
// (a preemption victim, a finished pod): it leaves its node and the
// cluster's lists. Its claims stay as they are until ReleaseClaims.
func (c *Cluster) DeletePod(pod *v1.Pod) {
	c.edits++
	if ni := c.byName[pod.Spec.NodeName]; ni != nil && pod.Spec.NodeName != "" {
		_ = ni.RemovePod(pod) // a pod the node does not hold has nothing to free
	}
	c.pods = removePod(c.pods, pod)
	c.bound = removePod(c.bound, pod)
	c.forgetGroupMember(pod)
}

// ReleaseClaims does what the controllers do once a pod is gone: the
// resource-claim controller takes it off its claims' reservedFor and
// deallocates the claims no other pod uses (those it allocated, with its
// finalizer), and the garbage collector deletes the claims generated for
// the pod. It returns the claim changes, in the order they happen.
func (c *Cluster) ReleaseClaims(pod *v1.Pod, claims []*resourceapi.ResourceClaim) []ClaimChange {
	var changes []ClaimChange
	var generated []*resourceapi.ResourceClaim
	for _, claim := range claims {
		if old := c.dra.Release(claim, pod); old != nil {
			changes = append(changes, ClaimChange{Old: old, New: claim})
		}
		if ownedBy(claim, pod) {
			generated = append(generated, claim)
		}
	}
	for _, claim := range generated {
		if gone := c.dra.DeleteClaim(claim.Namespace, claim.Name); gone != nil {
			changes = append(changes, ClaimChange{Old: gone})
		}
	}
	return changes
}

func removePod(list []*v1.Pod, pod *v1.Pod) []*v1.Pod {
	for i, p := range list {
		if p == pod {
			return append(list[:i:i], list[i+1:]...)
		}
	}
	return list
}

// ownedBy reports whether the pod controls the claim (a claim generated
// from a template, or the scheduler's extended-resource claim).
func ownedBy(claim *resourceapi.ResourceClaim, pod *v1.Pod) bool {
	for _, or := range claim.OwnerReferences {
		if ptr.Deref(or.Controller, false) && or.Kind == "Pod" && or.Name == pod.Name && (or.UID == "" || or.UID == pod.UID) {
			return true
		}
	}
	return false
}
