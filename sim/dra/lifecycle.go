package dra

import (
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
)

// What happens to claims and slices after scheduling, for simulations that
// run in time (sim/timeline): pods finish and give their devices back,
// claims made from templates are deleted with their pod, nodes go away with
// the slices their drivers published. Every change keeps the allocated
// sets, the pools' allocation facts and the node classes as they would be
// had the claim never been allocated.

// Unreserve removes the pod from the claim's status.reservedFor, as the
// resource-claim controller does once the pod has terminated.
func (s *State) Unreserve(c *resourceapi.ResourceClaim, pod *v1.Pod) {
	s.mutations++
	c.Status.ReservedFor = slices.DeleteFunc(c.Status.ReservedFor, func(r resourceapi.ResourceClaimConsumerReference) bool {
		return r.Resource == "pods" && r.UID == pod.UID && r.Name == pod.Name
	})
	if len(c.Status.ReservedFor) == 0 {
		c.Status.ReservedFor = nil
	}
}

// DeallocateInPlace clears the claim's allocation and reservations and
// frees its devices, as cluster-autoscaler's DeallocateClaimInPlace does in
// its what-if snapshots: unlike Deallocate it keeps no copy of the claim
// (a cluster's fork saves what it restores). A claim without an allocation is
// left as it is.
func (s *State) DeallocateInPlace(c *resourceapi.ResourceClaim) {
	s.mutations++
	if c.Status.Allocation == nil {
		return
	}
	s.unmarkAllocated(c)
	c.Status.Allocation = nil
	c.Status.ReservedFor = nil
	c.Status.Devices = nil
}

// dropClaim takes the claim's key out of the claim order, leaving a hole
// that Claims skips. The order is compacted once most of it is holes, so a
// long run with many short-lived claims does not grow it without bound.
func (s *State) dropClaim(key claimRef) {
	s.mutations++
	pos, ok := s.claimPos[key]
	if !ok {
		return
	}
	s.claimOrder[pos] = claimRef{}
	delete(s.claimPos, key)
	s.deadClaims++
	if s.deadClaims > 1024 && s.deadClaims > len(s.claimOrder)/2 {
		live := s.claimOrder[:0]
		for _, k := range s.claimOrder {
			if k != (claimRef{}) {
				s.claimPos[k] = len(live)
				live = append(live, k)
			}
		}
		clear(s.claimOrder[len(live):])
		s.claimOrder = live
		s.deadClaims = 0
	}
}

// RemoveNodeSlices removes the ResourceSlices published for a node
// (spec.nodeName), as happens when the node is deleted, and returns them
// in their order. Claims allocated on them are left to the caller: a
// deleted node's pods are gone before it.
func (s *State) RemoveNodeSlices(node string) []*resourceapi.ResourceSlice {
	s.mutations++
	var removed []*resourceapi.ResourceSlice
	kept := make([]*resourceapi.ResourceSlice, 0, len(s.slices))
	for _, sl := range s.slices {
		if sl.Spec.NodeName != nil && *sl.Spec.NodeName == node {
			removed = append(removed, sl)
			continue
		}
		kept = append(kept, sl)
	}
	if len(removed) == 0 {
		return nil
	}
	// A fork may share the list with its parent: kept is a new array.
	s.slices = kept
	if np := s.nodes[node]; np != nil {
		// Allocator answers cached for the node's class may have been
		// computed on this node: keep its pools to translate them.
		if s.retired == nil {
			s.retired = map[string][]poolRef{}
		}
		s.retired[node] = np.pools
		for _, ref := range np.pools {
			delete(s.poolNode, ref)
			delete(s.poolFacts, ref)
		}
		delete(s.nodes, node)
	}
	delete(s.nodeSlices, node)
	// The pools are gone: every node's class may be looked at again.
	s.epoch++
	s.version++
	return removed
}

// PodClaims returns the pod's ResourceClaims in spec order, resolving
// template claims through pod.status.resourceClaimStatuses as kube does.
// A claim that is missing, being deleted or (for a template claim) not
// owned by the pod is an error: the pod cannot be scheduled.
func (s *State) PodClaims(pod *v1.Pod) ([]*resourceapi.ResourceClaim, error) {
	var out []*resourceapi.ResourceClaim
	for i := range pod.Spec.ResourceClaims {
		pc := &pod.Spec.ResourceClaims[i]
		name, mustCheckOwner, err := resourceclaim.Name(pod, pc)
		if err != nil {
			return nil, err
		}
		if name == nil {
			continue
		}
		claim, err := s.Claim(pod.Namespace, *name)
		if err != nil {
			return nil, err
		}
		if claim.DeletionTimestamp != nil {
			return nil, fmt.Errorf("resourceclaim %q is being deleted", claim.Name)
		}
		if mustCheckOwner {
			if err := resourceclaim.IsForPod(pod, claim, false); err != nil {
				return nil, err
			}
		}
		out = append(out, claim)
	}
	return out, nil
}

// ClaimsInUse returns every claim the pod holds once it runs: the claims
// of its spec that exist, and its extended-resource claim. Unlike
// PodClaims it skips what it cannot find, for pods that are already
// bound.
func (s *State) ClaimsInUse(pod *v1.Pod) []*resourceapi.ResourceClaim {
	var out []*resourceapi.ResourceClaim
	for i := range pod.Spec.ResourceClaims {
		name, _, err := resourceclaim.Name(pod, &pod.Spec.ResourceClaims[i])
		if err != nil || name == nil {
			continue
		}
		if c, ok := s.claims[claimKey(pod.Namespace, *name)]; ok {
			out = append(out, c)
		}
	}
	if st := pod.Status.ExtendedResourceClaimStatus; st != nil {
		if c, ok := s.claims[claimKey(pod.Namespace, st.ResourceClaimName)]; ok {
			out = append(out, c)
		}
	}
	return out
}

// Restore puts a claim back into a status saved earlier, for what-if runs
// that undo their changes: the allocation it has now is released, the
// saved one marked allocated again. The status becomes the claim's: its
// lists must not be shared with another claim or saved status. Its
// allocation result may be shared, as nothing in drasim changes an
// allocation result in place (a claim gets a new one or none).
func (s *State) Restore(c *resourceapi.ResourceClaim, status resourceapi.ResourceClaimStatus, finalizers []string) {
	s.mutations++
	if c.Status.Allocation != nil {
		s.unmarkAllocated(c)
	}
	c.Status = status
	c.Finalizers = finalizers
	s.markAllocated(c)
}

// LocalSlices returns the slices published for one node (spec.nodeName),
// in snapshot order.
func (s *State) LocalSlices(node string) []*resourceapi.ResourceSlice {
	if s.equivalence {
		return s.nodeSlices[node]
	}
	var out []*resourceapi.ResourceSlice
	for _, sl := range s.slices {
		if sl.Spec.NodeName != nil && *sl.Spec.NodeName == node {
			out = append(out, sl)
		}
	}
	return out
}

// NodeKey is the node's allocation class (equivalence.go): the content of
// its pools and which of their devices are allocated, without names. ok is
// false when nodes cannot be compared so (slices that are not node-local).
func (s *State) NodeKey(node string) (static, dynamic uint64, pools int, ok bool) {
	k, ok := s.nodeClass(node)
	return k.static, k.dynamic, k.pools, ok
}
