package cluster

import (
	"fmt"
	"slices"

	"github.com/drasim/drasim/internal/kubenames"
	"github.com/drasim/drasim/sim/framework"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
)

// A cluster that lives in time (sim/timeline): pods arrive and finish,
// nodes are added and deleted. Each change does what the controllers and
// the scheduler's cache would do, so that the cluster stays the state a
// snapshot of the same moment would load into.

// AddPod adds a pod that arrives while the cluster runs: it gets a UID and
// its place in the pod order, and the resource-claim controller's claims
// from its templates. It is not queued: the caller's queue decides when
// it is tried. A pod that names a node is bound to it at once.
func (c *Cluster) AddPod(pod *v1.Pod) error {
	c.edits++
	if pod.UID == "" {
		pod.UID = types.UID(kubenames.UID("pod/" + pod.Namespace + "/" + pod.Name))
	}
	if c.templates == nil {
		c.templates = map[string]*resourceapi.ResourceClaimTemplate{}
		for _, t := range c.snapshot.ResourceClaimTemplates {
			c.templates[t.Namespace+"/"+t.Name] = t
		}
	}
	for _, claim := range c.claimsFromTemplates(pod, c.templates) {
		c.dra.AddClaim(claim)
	}
	c.setOrder(pod)
	c.pods = append(c.pods, pod)
	if name := PodGroupName(pod); name != "" && c.groupMembers != nil {
		k := groupKey(pod.Namespace, name)
		c.groupMembers[k] = append(c.groupMembers[k], pod)
	}
	if pod.Spec.NodeName != "" {
		ni := c.byName[pod.Spec.NodeName]
		if ni == nil {
			return fmt.Errorf("pod %s/%s is bound to node %s, which is not in the cluster", pod.Namespace, pod.Name, pod.Spec.NodeName)
		}
		ni.AddPod(pod)
	}
	return nil
}

// RemovePod deletes a pod that ran or waited: it leaves its node, its
// claims are released as the controllers release them (ReleaseClaims:
// the pod leaves reservedFor, a claim no pod uses any more is deallocated
// if it carries the scheduler's finalizer, a claim made for the pod is
// deleted), and it leaves the pod lists. Unlike DeletePod it leaves a hole
// in the lists (compacted later), so that a long run stays linear. It
// returns the claim changes, in the order they happen.
func (c *Cluster) RemovePod(pod *v1.Pod) ([]ClaimChange, error) {
	if pod.Spec.NodeName != "" {
		if ni := c.byName[pod.Spec.NodeName]; ni != nil {
			if err := ni.RemovePod(pod); err != nil {
				return nil, err
			}
		}
	}
	changes := c.ReleaseClaims(pod, c.dra.ClaimsInUse(pod))
	c.dropPod(pod)
	return changes, nil
}

// dropPod takes the pod off the pod lists. The lists are compacted when
// they are mostly holes, so a long run with many short pods stays linear.
func (c *Cluster) dropPod(pod *v1.Pod) {
	c.edits++
	if c.gone == nil {
		c.gone = map[*v1.Pod]bool{}
	}
	c.gone[pod] = true
	c.forgetGroupMember(pod)
	if len(c.gone) > 256 && len(c.gone) > len(c.pods)/2 {
		c.compactPods()
	}
}

// compactPods removes the pods dropPod marked from every list.
func (c *Cluster) compactPods() {
	if len(c.gone) == 0 {
		return
	}
	keep := func(list []*v1.Pod) []*v1.Pod {
		return slices.DeleteFunc(list, func(p *v1.Pod) bool { return c.gone[p] })
	}
	c.pods, c.queue, c.gated, c.skipped, c.bound = keep(c.pods), keep(c.queue), keep(c.gated), keep(c.skipped), keep(c.bound)
	for p := range c.gone {
		delete(c.podOrder, p.UID)
	}
	c.gone = nil
}

// LivePods returns the pods of the cluster that were not removed, in
// order.
func (c *Cluster) LivePods() []*v1.Pod {
	c.compactPods()
	return c.pods
}

// RemoveNode deletes a node and the ResourceSlices published for it. Its
// pods must be gone already (RemovePod), except DaemonSet and static pods,
// which go with it. The other nodes keep kube's order.
func (c *Cluster) RemoveNode(name string) (*v1.Node, []*resourceapi.ResourceSlice, error) {
	c.edits++
	ni := c.byName[name]
	if ni == nil {
		return nil, nil, fmt.Errorf("node %s is not in the cluster", name)
	}
	for _, pi := range append([]*framework.PodInfo(nil), ni.Pods...) {
		if _, err := c.RemovePod(pi.Pod); err != nil {
			return nil, nil, err
		}
	}
	node := ni.Node()
	delete(c.byName, name)
	c.nodes = slices.DeleteFunc(c.nodes, func(n *framework.NodeInfo) bool { return n == ni })
	slices := c.dra.RemoveNodeSlices(name)
	c.renewNodes(c.nodes)
	return node, slices, nil
}

// Reorder puts the nodes in the order kube-scheduler's snapshot lists them
// (see orderNodes): with NodeOrderName as a scheduler that starts now
// would see them, otherwise nodes added later after the others. Call it
// after adding or removing nodes.
func (c *Cluster) Reorder() {
	byNode := make(map[*v1.Node]*framework.NodeInfo, len(c.nodes))
	objs := make([]*v1.Node, len(c.nodes))
	for i, ni := range c.nodes {
		byNode[ni.Node()] = ni
		objs[i] = ni.Node()
	}
	ordered := make([]*framework.NodeInfo, 0, len(c.nodes))
	for _, n := range c.orderNodes(objs) {
		ordered = append(ordered, byNode[n])
	}
	c.renewNodes(ordered)
}

// renewNodes makes list the cluster's node list, with every NodeInfo
// replaced by a shallow copy. Caches kept across cycles recognize a node
// list by its length and its first and last NodeInfo
// (framework.SameNodeList); after a node was removed or the order changed,
// new NodeInfos tell them to look at every node again.
func (c *Cluster) renewNodes(list []*framework.NodeInfo) {
	c.edits++
	c.nodes = make([]*framework.NodeInfo, 0, len(list))
	c.byName = make(map[string]*framework.NodeInfo, len(list))
	for _, ni := range list {
		cp := *ni
		c.adopt(&cp)
	}
	c.affinity.valid = false
	framework.SetImageStates(c.nodes)
}
