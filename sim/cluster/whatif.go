package cluster

import (
	"fmt"
	"slices"

	"github.com/drasim/drasim/sim/framework"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
)

// What-if runs on the cluster itself, in cluster-autoscaler's shape
// (simulator/clustersnapshot's Forkable): Fork opens a layer, the
// cluster's what-if changes made while it is open are recorded in it,
// Revert takes them back, newest first, and Commit keeps them (folded
// into the layer below, which may still revert them; kept for good when
// no layer is left). Forks nest. WithForkedCluster always closes the fork
// it opens. The changes a layer records are those of AddNode, SetNode,
// Unschedule, Bind and Place; every other change made while a fork is
// open stays.
//
// The layers are undo logs rather than CA's copies of the state: the
// questions asked in a row (is this node's removal possible? would this
// pod fit somewhere?) change a few nodes of a large cluster, and a copy
// per question costs more than the questions. A copy that lives on beside
// the cluster is Clone's (clone.go).

// Fork opens a what-if layer: the changes made from now on can be taken
// back with Revert or kept with Commit. Prefer WithForkedCluster, which
// cannot leave a layer open.
func (c *Cluster) Fork() {
	n := len(c.forks)
	if n < cap(c.forks) {
		c.forks = c.forks[:n+1]
		c.forks[n] = c.forks[n][:0] // the log a closed layer left, empty
		return
	}
	c.forks = append(c.forks, nil)
}

// Revert takes back the changes of the innermost open layer, newest
// first, and closes it. With no layer open it does nothing (as CA's).
func (c *Cluster) Revert() {
	n := len(c.forks)
	if n == 0 {
		return
	}
	ops := c.forks[n-1]
	// The undo steps change the cluster through unrecorded paths only,
	// so the layer can stay open while they run.
	for i := len(ops) - 1; i >= 0; i-- {
		ops[i]()
	}
	clear(ops)
	c.forks[n-1] = ops[:0]
	c.forks = c.forks[:n-1]
}

// Commit keeps the changes of the innermost open layer and closes it:
// they become the enclosing layer's, to be taken back by its Revert, or,
// with no enclosing layer, the cluster's for good. With no layer open it
// does nothing (as CA's).
func (c *Cluster) Commit() {
	n := len(c.forks)
	if n == 0 {
		return
	}
	ops := c.forks[n-1]
	if n > 1 {
		c.forks[n-2] = append(c.forks[n-2], ops...)
	}
	clear(ops)
	c.forks[n-1] = ops[:0]
	c.forks = c.forks[:n-1]
}

// Forks is the number of open layers.
func (c *Cluster) Forks() int { return len(c.forks) }

// WithForkedCluster runs f on a fork of c and closes it whatever
// happens: the changes are committed when f returns true and no error,
// reverted otherwise (cluster-autoscaler's
// clustersnapshot.WithForkedSnapshot; committing cannot fail here). It
// returns f's error.
func WithForkedCluster(c *Cluster, f func() (commit bool, err error)) error {
	c.Fork()
	commit := false
	defer func() {
		if commit {
			c.Commit()
		} else {
			c.Revert()
		}
	}()
	var err error
	commit, err = f()
	commit = commit && err == nil
	return err
}

// record adds an undo step to the innermost open layer.
func (c *Cluster) record(undo func()) {
	if n := len(c.forks); n > 0 {
		c.forks[n-1] = append(c.forks[n-1], undo)
	}
}

// claimState is a claim's status as it was before a change.
type claimState struct {
	claim      *resourceapi.ResourceClaim
	status     resourceapi.ResourceClaimStatus
	finalizers []string
}

func (c *Cluster) saveClaims(pod *v1.Pod) []claimState {
	var out []claimState
	seen := map[*resourceapi.ResourceClaim]bool{}
	add := func(c *resourceapi.ResourceClaim) {
		if !seen[c] {
			seen[c] = true
			out = append(out, claimState{claim: c, status: copyStatus(&c.Status), finalizers: append([]string(nil), c.Finalizers...)})
		}
	}
	for _, c := range c.dra.ClaimsInUse(pod) {
		add(c)
	}
	return out
}

// restoreClaims puts the saved claims back, in reverse order. A layer's
// change is taken back once, so the saved statuses are handed over, not
// copied again.
func (c *Cluster) restoreClaims(saved []claimState) {
	for i := len(saved) - 1; i >= 0; i-- {
		s := saved[i]
		c.dra.Restore(s.claim, s.status, s.finalizers)
	}
}

// copyStatus copies a claim's status for a fork's undo step. The lists
// that the DRA state changes in place (reservedFor, the devices'
// statuses) are copied; the allocation result is shared, since nothing changes an
// allocation in place: a claim gets a new result or none (dra.State's
// Allocate, DeallocateInPlace and Restore replace it), and a deep copy of
// every claim's allocation at every what-if step and its undo was the
// largest part of a timeline's scale-down simulations' garbage.
func copyStatus(st *resourceapi.ResourceClaimStatus) resourceapi.ResourceClaimStatus {
	out := *st
	out.ReservedFor = slices.Clone(st.ReservedFor)
	if st.Devices != nil {
		out.Devices = make([]resourceapi.AllocatedDeviceStatus, len(st.Devices))
		for i := range st.Devices {
			st.Devices[i].DeepCopyInto(&out.Devices[i])
		}
	}
	return out
}

// Unschedule takes a bound pod off its node, as cluster-autoscaler's
// snapshot UnschedulePod does with DRA: the pod leaves its claims'
// reservedFor, and a claim made for the pod, or used by no other pod, is
// deallocated (not deleted: the pod still refers to it). An open fork
// records it.
func (c *Cluster) Unschedule(pod *v1.Pod) error {
	node := pod.Spec.NodeName
	ni := c.byName[node]
	if ni == nil {
		return fmt.Errorf("pod %s/%s is not on a node of the cluster", pod.Namespace, pod.Name)
	}
	saved := c.saveClaims(pod)
	pi, at := podIndex(ni.Pods, pod)
	_, atAffinity := podIndex(ni.PodsWithAffinity, pod)
	_, atAnti := podIndex(ni.PodsWithRequiredAntiAffinity, pod)
	if err := ni.RemovePod(pod); err != nil {
		return err
	}
	for _, s := range saved {
		c.dra.Unreserve(s.claim, pod)
		if len(s.claim.Status.ReservedFor) == 0 {
			c.dra.DeallocateInPlace(s.claim)
		}
	}
	pod.Spec.NodeName = ""
	c.record(func() {
		c.restoreClaims(saved)
		pod.Spec.NodeName = node
		ni := c.byName[node]
		if ni == nil {
			return
		}
		// The PodInfo the pod had (parsing the pod again costs more than
		// the rest of the undo), back at its place: RemovePod moved the
		// last pod into the gap, AddPodInfo appends; swapping the two
		// gives the node its pods in their order again.
		ni.AddPodInfo(pi)
		unswap(ni.Pods, at)
		unswap(ni.PodsWithAffinity, atAffinity)
		unswap(ni.PodsWithRequiredAntiAffinity, atAnti)
	})
	return nil
}

// podIndex finds the pod's PodInfo in a list, and its index (-1: absent).
func podIndex(list []*framework.PodInfo, pod *v1.Pod) (*framework.PodInfo, int) {
	for i, pi := range list {
		if pi.Pod == pod {
			return pi, i
		}
	}
	return nil, -1
}

// unswap moves the list's last element back to index i, and the element
// there to the end: the inverse of a removal at i followed by an append.
func unswap(list []*framework.PodInfo, i int) {
	if last := len(list) - 1; i >= 0 && i < last {
		list[i], list[last] = list[last], list[i]
	}
}

// Bind runs bind, which binds the pod (a scheduling cycle's Reserve and
// the pod's placement on its node), and records the binding in the open
// fork: Revert takes the pod off the node again and gives its claims
// their earlier status; an extended-resource claim the binding created is
// deleted.
func (c *Cluster) Bind(pod *v1.Pod, bind func() error) error {
	if len(c.forks) == 0 {
		return bind()
	}
	saved := c.saveClaims(pod)
	extended := pod.Status.ExtendedResourceClaimStatus
	err := bind()
	node := pod.Spec.NodeName
	c.record(func() {
		if node != "" {
			if ni := c.byName[node]; ni != nil {
				_ = ni.RemovePod(pod)
			}
		}
		pod.Spec.NodeName = ""
		if st := pod.Status.ExtendedResourceClaimStatus; st != nil && st != extended {
			c.dra.DeleteClaim(pod.Namespace, st.ResourceClaimName)
		}
		pod.Status.ExtendedResourceClaimStatus = extended
		c.restoreClaims(saved)
	})
	return err
}

// SetNode replaces a node's object (e.g. with a tainted copy); an open
// fork records it, and Revert puts the old object back.
func (c *Cluster) SetNode(name string, node *v1.Node) {
	ni := c.byName[name]
	if ni == nil {
		return
	}
	old := ni.Node()
	ni.SetNode(node)
	c.record(func() {
		if ni := c.byName[name]; ni != nil {
			ni.SetNode(old)
		}
	})
}

// PlacedClaim is a claim's status after a placement, to make the same
// placement again without a scheduling cycle (Place).
type PlacedClaim struct {
	claim      *resourceapi.ResourceClaim
	status     resourceapi.ResourceClaimStatus
	finalizers []string
}

// Placed records how a bound pod holds its node: its PodInfo there and its
// claims' statuses.
func (c *Cluster) Placed(pod *v1.Pod) (*framework.PodInfo, []PlacedClaim) {
	var pi *framework.PodInfo
	if ni := c.byName[pod.Spec.NodeName]; ni != nil {
		for _, x := range ni.Pods {
			if x.Pod == pod {
				pi = x
				break
			}
		}
	}
	var claims []PlacedClaim
	for _, cl := range c.dra.ClaimsInUse(pod) {
		claims = append(claims, PlacedClaim{claim: cl, status: copyStatus(&cl.Status), finalizers: append([]string(nil), cl.Finalizers...)})
	}
	return pi, claims
}

// Fresh reports whether claims recorded by Placed for the pod can be made
// again from nothing: the pod's claims are still those claims, none is
// allocated or reserved now, and each recorded status is reserved for the
// pod alone (so the claim was free when that placement made it, as it is
// now).
func (c *Cluster) Fresh(pod *v1.Pod, claims []PlacedClaim) bool {
	if pod.Status.ExtendedResourceClaimStatus != nil {
		return false // made by the binding itself
	}
	now := c.dra.ClaimsInUse(pod)
	if len(now) != len(claims) {
		return false
	}
	for i, cl := range now {
		pc := &claims[i]
		if pc.claim != cl || cl.Status.Allocation != nil || len(cl.Status.ReservedFor) > 0 {
			return false
		}
		if r := pc.status.ReservedFor; len(r) != 1 || r[0].UID != pod.UID {
			return false
		}
	}
	return true
}

// Place binds the pod to the node as an earlier placement did (its PodInfo
// and its claims' statuses from Placed), without a scheduling cycle: what
// a what-if run knows will come out of the same cycle on the same state.
// An open fork records it as it records Bind.
func (c *Cluster) Place(pod *v1.Pod, node string, pi *framework.PodInfo, claims []PlacedClaim) error {
	ni := c.byName[node]
	if ni == nil || pi == nil || pi.Pod != pod {
		return fmt.Errorf("internal error: cannot place pod %s/%s on node %s again", pod.Namespace, pod.Name, node)
	}
	return c.Bind(pod, func() error {
		for _, pc := range claims {
			c.dra.Restore(pc.claim, copyStatus(&pc.status), append([]string(nil), pc.finalizers...))
		}
		pod.Spec.NodeName = node
		ni.AddPodInfo(pi)
		return nil
	})
}
