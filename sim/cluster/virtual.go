package cluster

import (
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
)

// AddVirtualClaims does the resource-claim controller's work for a pod the
// cluster does not hold (an autoscaler's virtual pod: a
// ProvisioningRequest's or a CapacityBuffer's): claims from its
// ResourceClaimTemplates, recorded in its status and added to the DRA
// state, so that the allocator can try it. The pod stays out of the
// cluster's pod lists; RemoveVirtualClaims deletes the claims again.
func (c *Cluster) AddVirtualClaims(pod *v1.Pod) []*resourceapi.ResourceClaim {
	if c.templates == nil {
		c.templates = map[string]*resourceapi.ResourceClaimTemplate{}
		for _, t := range c.snapshot.ResourceClaimTemplates {
			c.templates[t.Namespace+"/"+t.Name] = t
		}
	}
	claims := c.claimsFromTemplates(pod, c.templates)
	for _, claim := range claims {
		c.dra.AddClaim(claim)
	}
	return claims
}

// RemoveVirtualClaims deletes claims AddVirtualClaims made.
func (c *Cluster) RemoveVirtualClaims(claims []*resourceapi.ResourceClaim) {
	for _, claim := range claims {
		c.dra.DeleteClaim(claim.Namespace, claim.Name)
	}
}
