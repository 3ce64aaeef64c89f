package cluster

import (
	"fmt"
	"slices"

	"github.com/drasim/drasim/sim/framework"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
)

// Journal records what a what-if run changes on the live cluster, so that
// Undo takes it back: cluster-autoscaler's snapshot Fork and Revert, for
// callers that ask many small questions in a row (is this node's removal
// possible? would this pod fit somewhere?) where copying the whole cluster
// (Fork) for each would cost more than the questions. Every change made
// between NewJournal and Undo must go through the journal.
type Journal struct {
	c   *Cluster
	ops []func()
}

// NewJournal starts recording changes to the cluster.
func (c *Cluster) NewJournal() *Journal { return &Journal{c: c} }

// claimState is a claim's status as it was before a change.
type claimState struct {
	claim      *resourceapi.ResourceClaim
	status     resourceapi.ResourceClaimStatus
	finalizers []string
}

func (j *Journal) saveClaims(pod *v1.Pod) []claimState {
	var out []claimState
	seen := map[*resourceapi.ResourceClaim]bool{}
	add := func(c *resourceapi.ResourceClaim) {
		if !seen[c] {
			seen[c] = true
			out = append(out, claimState{claim: c, status: copyStatus(&c.Status), finalizers: append([]string(nil), c.Finalizers...)})
		}
	}
	for _, c := range j.c.DRA.ClaimsInUse(pod) {
		add(c)
	}
	return out
}

// restoreClaims puts the saved claims back, in reverse order. A journal's
// change is taken back once, so the saved statuses are handed over, not
// copied again.
func (j *Journal) restoreClaims(saved []claimState) {
	for i := len(saved) - 1; i >= 0; i-- {
		s := saved[i]
		j.c.DRA.Restore(s.claim, s.status, s.finalizers)
	}
}

// copyStatus copies a claim's status for a journal. The lists that the
// DRA state changes in place (reservedFor, the devices' statuses) are
// copied; the allocation result is shared, since nothing changes an
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
// deallocated (not deleted: the pod still refers to it).
func (j *Journal) Unschedule(pod *v1.Pod) error {
	node := pod.Spec.NodeName
	ni := j.c.byName[node]
	if ni == nil {
		return fmt.Errorf("pod %s/%s is not on a node of the cluster", pod.Namespace, pod.Name)
	}
	saved := j.saveClaims(pod)
	pi, at := podIndex(ni.Pods, pod)
	_, atAffinity := podIndex(ni.PodsWithAffinity, pod)
	_, atAnti := podIndex(ni.PodsWithRequiredAntiAffinity, pod)
	if err := ni.RemovePod(pod); err != nil {
		return err
	}
	for _, s := range saved {
		j.c.DRA.Unreserve(s.claim, pod)
		if len(s.claim.Status.ReservedFor) == 0 {
			j.c.DRA.DeallocateInPlace(s.claim)
		}
	}
	pod.Spec.NodeName = ""
	j.ops = append(j.ops, func() {
		j.restoreClaims(saved)
		pod.Spec.NodeName = node
		ni := j.c.byName[node]
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

// Bind records a binding that bind makes (a scheduling cycle's Reserve and
// the pod's placement on node): Undo takes the pod off the node again and
// gives its claims their earlier status; an extended-resource claim the
// binding created is deleted.
func (j *Journal) Bind(pod *v1.Pod, bind func() error) error {
	saved := j.saveClaims(pod)
	extended := pod.Status.ExtendedResourceClaimStatus
	err := bind()
	node := pod.Spec.NodeName
	j.ops = append(j.ops, func() {
		if node != "" {
			if ni := j.c.byName[node]; ni != nil {
				_ = ni.RemovePod(pod)
			}
		}
		pod.Spec.NodeName = ""
		if st := pod.Status.ExtendedResourceClaimStatus; st != nil && st != extended {
			j.c.DRA.DeleteClaim(pod.Namespace, st.ResourceClaimName)
		}
		pod.Status.ExtendedResourceClaimStatus = extended
		j.restoreClaims(saved)
	})
	return err
}

// AddNode adds a node (and its slices) for the what-if run; Undo deletes
// it again.
func (j *Journal) AddNode(node *v1.Node, slices []*resourceapi.ResourceSlice) {
	j.c.AddNode(node, slices)
	name := node.Name
	j.ops = append(j.ops, func() { _, _, _ = j.c.RemoveNode(name) })
}

// Undo takes back every recorded change, newest first. The journal is
// empty afterwards and can record again.
func (j *Journal) Undo() {
	for i := len(j.ops) - 1; i >= 0; i-- {
		j.ops[i]()
	}
	j.ops = j.ops[:0]
}

// Len is the number of changes recorded.
func (j *Journal) Len() int { return len(j.ops) }

// SetNode replaces a node's object (e.g. with a tainted copy) for the
// what-if run; Undo puts the old object back.
func (j *Journal) SetNode(name string, node *v1.Node) {
	ni := j.c.byName[name]
	if ni == nil {
		return
	}
	old := ni.Node()
	ni.SetNode(node)
	j.ops = append(j.ops, func() {
		if ni := j.c.byName[name]; ni != nil {
			ni.SetNode(old)
		}
	})
}

// Commit keeps what another journal of the same cluster recorded: its
// changes become this journal's, to be taken back by this journal's Undo
// (CA's snapshot Commit of a fork into its parent).
func (j *Journal) Commit(sub *Journal) {
	j.ops = append(j.ops, sub.ops...)
	sub.ops = nil
}

// PlacedClaim is a claim's status after a placement, to make the same
// placement again without a scheduling cycle (Journal.Place).
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
	for _, cl := range c.DRA.ClaimsInUse(pod) {
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
	now := c.DRA.ClaimsInUse(pod)
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
// Undo takes it back as it takes back Bind.
func (j *Journal) Place(pod *v1.Pod, node string, pi *framework.PodInfo, claims []PlacedClaim) error {
	ni := j.c.byName[node]
	if ni == nil || pi == nil || pi.Pod != pod {
		return fmt.Errorf("internal error: cannot place pod %s/%s on node %s again", pod.Namespace, pod.Name, node)
	}
	return j.Bind(pod, func() error {
		for _, pc := range claims {
			j.c.DRA.Restore(pc.claim, copyStatus(&pc.status), append([]string(nil), pc.finalizers...))
		}
		pod.Spec.NodeName = node
		ni.AddPodInfo(pi)
		return nil
	})
}
