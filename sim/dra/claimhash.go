package dra

import (
	resourceapi "k8s.io/api/resource/v1"
)

// claimsHash hashes what the allocator reads of the claims to allocate:
// namespace (admin access depends on it) and spec. Rather than the specs'
// JSON encoding (docs/performance.md), the fields claims set (requests
// with their class, selectors, mode, count and admin access; constraints)
// are hashed directly, and whatever else a spec
// carries, including fields a later API version adds, through its JSON
// encoding when it is set (sliceHasher's rest), so that no field is ever
// left out. Specs that hash alike encode to the same JSON (but for 64-bit
// collisions and for a nil and an empty list, which the allocator reads
// alike); TestClaimsHashSeesEveryField holds it to that.
func claimsHash(claims []*resourceapi.ResourceClaim) uint64 {
	s := sliceHasher{h: fnvOffset64}
	for _, c := range claims {
		if c.Status.Allocation != nil {
			continue
		}
		s.str(c.Namespace)
		s.claimSpec(&c.Spec)
	}
	return s.sum()
}

func (s *sliceHasher) claimSpec(spec *resourceapi.ResourceClaimSpec) {
	d := &spec.Devices
	s.int(int64(len(d.Requests)))
	for i := range d.Requests {
		r := &d.Requests[i]
		s.str(r.Name)
		if r.Exactly != nil {
			s.byte(1)
			s.exactRequest(r.Exactly)
		} else {
			s.byte(0)
		}
		s.int(int64(len(r.FirstAvailable)))
		for j := range r.FirstAvailable {
			s.subRequest(&r.FirstAvailable[j])
		}
		other := *r
		other.Name, other.Exactly, other.FirstAvailable = "", nil, nil
		rest(s, &other)
	}
	s.int(int64(len(d.Constraints)))
	for i := range d.Constraints {
		c := d.Constraints[i]
		s.strs(c.Requests)
		s.optStr((*string)(c.MatchAttribute))
		s.optStr((*string)(c.DistinctAttribute))
		c.Requests, c.MatchAttribute, c.DistinctAttribute = nil, nil, nil
		rest(s, &c)
	}
	// Config (opaque driver parameters) and anything later go as JSON.
	other := *d
	other.Requests, other.Constraints = nil, nil
	rest(s, &other)
	otherSpec := *spec
	otherSpec.Devices = resourceapi.DeviceClaim{}
	rest(s, &otherSpec)
}

func (s *sliceHasher) exactRequest(r *resourceapi.ExactDeviceRequest) {
	s.str(r.DeviceClassName)
	s.selectors(r.Selectors)
	s.str(string(r.AllocationMode))
	s.int(r.Count)
	s.optBool(r.AdminAccess)
	// Tolerations, capacity requests, derived attributes and later
	// fields.
	other := *r
	other.DeviceClassName, other.Selectors, other.AllocationMode, other.Count, other.AdminAccess = "", nil, "", 0, nil
	rest(s, &other)
}

func (s *sliceHasher) subRequest(r *resourceapi.DeviceSubRequest) {
	s.str(r.Name)
	s.str(r.DeviceClassName)
	s.selectors(r.Selectors)
	s.str(string(r.AllocationMode))
	s.int(r.Count)
	other := *r
	other.Name, other.DeviceClassName, other.Selectors, other.AllocationMode, other.Count = "", "", nil, "", 0
	rest(s, &other)
}

func (s *sliceHasher) selectors(sels []resourceapi.DeviceSelector) {
	s.int(int64(len(sels)))
	for _, sel := range sels {
		if sel.CEL != nil {
			s.byte(1)
			s.str(sel.CEL.Expression)
			cel := *sel.CEL
			cel.Expression = ""
			rest(s, &cel)
		} else {
			s.byte(0)
		}
		sel.CEL = nil
		rest(s, &sel)
	}
}

func (s *sliceHasher) strs(v []string) {
	s.int(int64(len(v)))
	for _, x := range v {
		s.str(x)
	}
}

func (s *sliceHasher) optBool(v *bool) {
	switch {
	case v == nil:
		s.byte(0)
	case *v:
		s.byte(2)
	default:
		s.byte(1)
	}
}
