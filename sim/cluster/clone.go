package cluster

import (
	"slices"
	"time"

	"github.com/drasim/drasim/sim/framework"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
)

// Clone returns an independent copy of the cluster, to run on beside it:
// a whole replay (which changes the cluster in ways a fork does not
// record, and may run in parallel with others on copies of the same
// cluster) or a long series of dry cycles. It is not a what-if layer
// (Fork is): nothing flows back. Pods are deep-copied; the snapshot is
// shared read-only; open forks are not copied. Clone compacts the pod
// lists of c first.
func (c *Cluster) Clone() *Cluster { return c.clone(nil) }

// clone is Clone without the nodes in lost.
func (c *Cluster) clone(lost map[string]bool) *Cluster {
	c.compactPods()
	f := &Cluster{
		snapshot:   c.snapshot,
		byName:     make(map[string]*framework.NodeInfo, len(c.byName)),
		dra:        c.dra.Clone(),
		namespaces: c.namespaces,
		warnings:   append([]string(nil), c.warnings...),
		podOrder:   make(map[types.UID]int, len(c.podOrder)),
		nextOrder:  c.nextOrder,
		nodeOrder:  c.nodeOrder,
		joins:      c.joins.copy(),
	}
	for uid, i := range c.podOrder {
		f.podOrder[uid] = i
	}
	copies := make(map[*v1.Pod]*v1.Pod, len(c.pods))
	for _, p := range c.pods {
		cp := p.DeepCopy()
		copies[p] = cp
		f.pods = append(f.pods, cp)
	}
	remap := func(list []*v1.Pod) []*v1.Pod {
		out := make([]*v1.Pod, 0, len(list))
		for _, p := range list {
			if cp, ok := copies[p]; ok {
				out = append(out, cp)
			} else {
				out = append(out, p.DeepCopy())
			}
		}
		return out
	}
	f.queue, f.gated, f.skipped, f.bound = remap(c.queue), remap(c.gated), remap(c.skipped), remap(c.bound)
	for _, pdb := range c.pdbs {
		f.pdbs = append(f.pdbs, pdb.DeepCopy())
	}
	f.gangs = c.gangs
	if c.groupByKey != nil {
		f.groupByKey = make(map[string]*schedulingv1beta1.PodGroup, len(c.groupByKey))
		for _, pg := range c.podGroups {
			cp := pg.DeepCopy()
			f.podGroups = append(f.podGroups, cp)
			f.groupByKey[groupKey(cp.Namespace, cp.Name)] = cp
		}
		f.indexGroupMembers()
	}
	if lost == nil {
		for _, n := range c.nodes {
			f.adopt(n.Clone())
		}
		return f
	}
	// Without some nodes, the node tree interleaves the zones anew.
	var kept []*v1.Node
	for _, n := range c.nodes {
		if !lost[n.Node().Name] {
			kept = append(kept, n.Node())
		}
	}
	for _, n := range f.orderNodes(kept) {
		f.adopt(c.byName[n.Name].Clone())
	}
	return f
}

// Lost is what went with the nodes CloneWithout removed.
type Lost struct {
	// Requeued are the pods the nodes ran, queued again as replacements.
	Requeued []*v1.Pod
	// Dropped are the DaemonSet and static pods that went with their
	// nodes (nothing would run them elsewhere).
	Dropped []*v1.Pod
}

// CloneWithout returns a copy of a replayed cluster (see Clone) in which
// the named nodes are lost, and what went with them. The nodes' pods are queued
// again as their controllers' replacements (created now, after every pod
// of the cluster); the claims made for them are deallocated, as the
// resource-claim controller would delete them and make new ones, and
// shared claims no longer count them as users. The copy's queue holds
// only those replacements, in the scheduler's order: pods that were
// pending already are not tried again. Pods are placed; nothing else of
// the cluster changes, and the cluster itself is only read.
func (c *Cluster) CloneWithout(nodes []string) (*Cluster, Lost) {
	lost := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		lost[n] = true
	}
	f := c.clone(lost)
	var out Lost
	var latest time.Time
	for _, p := range f.pods {
		if p.CreationTimestamp.Time.After(latest) {
			latest = p.CreationTimestamp.Time
		}
	}
	replacedAt := metav1.NewTime(latest.Add(time.Second))
	f.bound = f.bound[:0]
	kept := f.pods[:0]
	for _, p := range f.pods {
		switch {
		case p.Spec.NodeName == "":
			kept = append(kept, p)
		case !lost[p.Spec.NodeName]:
			kept = append(kept, p)
			f.bound = append(f.bound, p)
		case goesWithNode(p):
			f.release(p)
			out.Dropped = append(out.Dropped, p)
		default:
			f.release(p)
			p.Spec.NodeName = ""
			p.Status.NominatedNodeName = ""
			p.Status.Phase = v1.PodPending
			p.Status.Conditions = slices.DeleteFunc(p.Status.Conditions, func(c v1.PodCondition) bool { return c.Type == v1.PodScheduled })
			p.CreationTimestamp = replacedAt
			kept = append(kept, p)
			out.Requeued = append(out.Requeued, p)
		}
	}
	f.pods = kept
	f.queue = append([]*v1.Pod(nil), out.Requeued...)
	f.sortQueue()
	return f, out
}

// Requeued counts the pods that losing the nodes would queue again (those
// that do not go with their node), without a copy.
func (c *Cluster) Requeued(nodes []string) int {
	n := 0
	for _, name := range nodes {
		if ni := c.Node(name); ni != nil {
			for _, pi := range ni.Pods {
				if !goesWithNode(pi.Pod) {
					n++
				}
			}
		}
	}
	return n
}

// goesWithNode reports the pods that die with their node: DaemonSet and
// static (mirror) pods.
func goesWithNode(p *v1.Pod) bool {
	if _, mirror := p.Annotations[v1.MirrorPodAnnotationKey]; mirror {
		return true
	}
	ref := metav1.GetControllerOf(p)
	return ref != nil && ref.Kind == "DaemonSet"
}

// release does the resource-claim controller's work for a pod that is
// gone: claims made for it are deallocated (the replacement's new claims
// are the same claims, unallocated), shared claims drop it from
// reservedFor and are deallocated when nobody is left.
func (c *Cluster) release(p *v1.Pod) {
	c.edits++
	for _, pc := range p.Spec.ResourceClaims {
		name, _, err := resourceclaim.Name(p, &pc)
		if err != nil || name == nil {
			continue
		}
		claim, err := c.dra.Claim(p.Namespace, *name)
		if err != nil {
			continue
		}
		if pc.ResourceClaimTemplateName != nil {
			c.dra.Deallocate(claim)
			continue
		}
		claim.Status.ReservedFor = slices.DeleteFunc(claim.Status.ReservedFor, func(r resourceapi.ResourceClaimConsumerReference) bool { return r.UID == p.UID })
		if len(claim.Status.ReservedFor) == 0 && slices.Contains(claim.Finalizers, resourceapi.Finalizer) {
			c.dra.Deallocate(claim)
		}
	}
	if st := p.Status.ExtendedResourceClaimStatus; st != nil {
		if claim, err := c.dra.Claim(p.Namespace, st.ResourceClaimName); err == nil {
			c.dra.Deallocate(claim)
		}
		p.Status.ExtendedResourceClaimStatus = nil
	}
}
