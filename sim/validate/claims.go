package validate

import (
	"encoding/json"
	"strings"

	"github.com/drasim/drasim/sim/snapshot"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// requestNames maps each request of a claim to the names of its
// subrequests (nil for a request with `exactly`).
type requestNames map[string]map[string]bool

// has reports whether ref names a request ("gpu") or a subrequest
// ("gpu/large") of the claim.
func (r requestNames) has(ref string) bool {
	req, sub, isSub := strings.Cut(ref, "/")
	subs, ok := r[req]
	if !ok {
		return false
	}
	if !isSub {
		return true
	}
	return subs[sub]
}

func gatherRequestNames(spec *resourceapi.ResourceClaimSpec) requestNames {
	names := requestNames{}
	for _, r := range spec.Devices.Requests {
		if len(r.FirstAvailable) == 0 {
			names[r.Name] = nil
			continue
		}
		subs := map[string]bool{}
		for _, s := range r.FirstAvailable {
			subs[s.Name] = true
		}
		names[r.Name] = subs
	}
	return names
}

func (v *validator) checkResourceClaims() {
	for _, c := range v.s.ResourceClaims {
		if c == nil {
			continue
		}
		t := v.targetFor(snapshot.Ref{Kind: "ResourceClaim", Namespace: c.Namespace, Name: c.Name})
		names := v.checkClaimSpec(t, "spec", c.Namespace, &c.Spec)
		v.checkClaimStatus(t, c, names)
	}
}

func (v *validator) checkResourceClaimTemplates() {
	for _, c := range v.s.ResourceClaimTemplates {
		if c == nil {
			continue
		}
		t := v.targetFor(snapshot.Ref{Kind: "ResourceClaimTemplate", Namespace: c.Namespace, Name: c.Name})
		v.checkClaimSpec(t, "spec.spec", c.Namespace, &c.Spec.Spec)
	}
}

// checkClaimSpec checks the spec of a claim or of a claim template (path is
// "spec" or "spec.spec") and returns its request names.
func (v *validator) checkClaimSpec(t target, path, namespace string, spec *resourceapi.ResourceClaimSpec) requestNames {
	names := gatherRequestNames(spec)
	dp := path + ".devices"
	reqs := spec.Devices.Requests
	if len(reqs) > resourceapi.DeviceRequestsMaxSize {
		v.errorf(t, dp+".requests", CodeTooMany, "%d requests, the limit is %d", len(reqs), resourceapi.DeviceRequestsMaxSize)
	} else {
		seen := map[string]int{}
		for i := range reqs {
			r := &reqs[i]
			p := idx(dp+".requests", i)
			if v.checkName(t, p+".name", r.Name, dnsLabel) {
				if first, dup := seen[r.Name]; dup {
					v.errorf(t, p+".name", CodeDuplicate, "request name %q is already used by requests[%d]", r.Name, first)
				} else {
					seen[r.Name] = i
				}
			}
			switch {
			case r.Exactly == nil && len(r.FirstAvailable) == 0:
				v.errorf(t, p, CodeOneOf, "exactly one of `exactly` or `firstAvailable` is required, none is set")
			case r.Exactly != nil && len(r.FirstAvailable) > 0:
				v.errorf(t, p, CodeOneOf, "exactly one of `exactly` or `firstAvailable` is required, but both are set")
			case r.Exactly != nil:
				e := r.Exactly
				ep := p + ".exactly"
				v.checkRequestBody(t, ep, namespace, requestBody{
					class: e.DeviceClassName, selectors: e.Selectors, mode: e.AllocationMode, count: e.Count,
					tolerations: e.Tolerations, capacity: e.Capacity, adminAccess: e.AdminAccess != nil && *e.AdminAccess,
				})
			default:
				v.checkFirstAvailable(t, p+".firstAvailable", namespace, r.FirstAvailable)
			}
		}
	}

	cons := spec.Devices.Constraints
	if len(cons) > resourceapi.DeviceConstraintsMaxSize {
		v.errorf(t, dp+".constraints", CodeTooMany, "%d constraints, the limit is %d", len(cons), resourceapi.DeviceConstraintsMaxSize)
	} else {
		for i, c := range cons {
			p := idx(dp+".constraints", i)
			v.checkRequestRefs(t, p+".requests", c.Requests, names)
			switch {
			case c.MatchAttribute != nil && c.DistinctAttribute != nil:
				v.checkFullyQualifiedName(t, p+".matchAttribute", string(*c.MatchAttribute))
				v.warnf(t, p, CodeOneOf, "both matchAttribute and distinctAttribute are set: the allocator only applies matchAttribute; use two constraints")
			case c.MatchAttribute != nil:
				v.checkFullyQualifiedName(t, p+".matchAttribute", string(*c.MatchAttribute))
			case c.DistinctAttribute != nil:
				v.checkFullyQualifiedName(t, p+".distinctAttribute", string(*c.DistinctAttribute))
			default:
				v.errorf(t, p, CodeOneOf, "exactly one of `matchAttribute` or `distinctAttribute` is required, none is set")
			}
		}
	}

	cfg := spec.Devices.Config
	if len(cfg) > resourceapi.DeviceConfigMaxSize {
		v.errorf(t, dp+".config", CodeTooMany, "%d config entries, the limit is %d", len(cfg), resourceapi.DeviceConfigMaxSize)
	} else {
		for i, c := range cfg {
			p := idx(dp+".config", i)
			v.checkRequestRefs(t, p+".requests", c.Requests, names)
			v.checkOpaqueConfig(t, p, c.Opaque)
		}
	}
	return names
}

func (v *validator) checkFirstAvailable(t target, p, namespace string, subs []resourceapi.DeviceSubRequest) {
	if len(subs) > resourceapi.FirstAvailableDeviceRequestMaxSize {
		v.errorf(t, p, CodeTooMany, "%d subrequests, the limit is %d", len(subs), resourceapi.FirstAvailableDeviceRequestMaxSize)
		return
	}
	seen := map[string]int{}
	for j := range subs {
		s := &subs[j]
		sp := idx(p, j)
		if v.checkName(t, sp+".name", s.Name, dnsLabel) {
			if first, dup := seen[s.Name]; dup {
				v.errorf(t, sp+".name", CodeDuplicate, "subrequest name %q is already used by firstAvailable[%d]", s.Name, first)
			} else {
				seen[s.Name] = j
			}
		}
		v.checkRequestBody(t, sp, namespace, requestBody{
			class: s.DeviceClassName, selectors: s.Selectors, mode: s.AllocationMode, count: s.Count,
			tolerations: s.Tolerations, capacity: s.Capacity,
		})
	}
}

// requestBody is what `exactly` and a firstAvailable entry have in common.
type requestBody struct {
	class       string
	selectors   []resourceapi.DeviceSelector
	mode        resourceapi.DeviceAllocationMode
	count       int64
	tolerations []resourceapi.DeviceToleration
	capacity    *resourceapi.CapacityRequirements
	adminAccess bool
}

func (v *validator) checkRequestBody(t target, p, namespace string, b requestBody) {
	if b.class == "" {
		v.errorf(t, p+".deviceClassName", CodeRequired, "required field is missing; note that in resource.k8s.io/v1 deviceClassName, selectors, "+
			"allocationMode and count stand under `exactly:` (or in each firstAvailable entry), not directly in the request as in v1beta1")
	} else if v.checkName(t, p+".deviceClassName", b.class, dnsSubdomain) && v.classes[b.class] == nil {
		v.warnf(t, p+".deviceClassName", CodeUnknownDeviceClass,
			"DeviceClass %q is not in the snapshot: the request cannot be allocated and pods using this claim stay pending", b.class)
	}
	v.checkSelectors(t, p+".selectors", b.selectors)
	switch b.mode {
	case resourceapi.DeviceAllocationModeExactCount:
		if b.count <= 0 {
			v.errorf(t, p+".count", CodeInvalidValue, "must be greater than zero, found %d", b.count)
		}
	case resourceapi.DeviceAllocationModeAll:
		if b.count != 0 {
			v.errorf(t, p+".count", CodeForbidden, "must not be specified when allocationMode is All, found %d", b.count)
		}
	default:
		v.errorf(t, p+".allocationMode", CodeInvalidValue, "unsupported allocation mode %q: must be ExactCount or All", b.mode)
	}
	if len(b.tolerations) > resourceapi.DeviceTolerationsMaxLength {
		v.errorf(t, p+".tolerations", CodeTooMany, "%d tolerations, the limit is %d", len(b.tolerations), resourceapi.DeviceTolerationsMaxLength)
	} else {
		for i, tol := range b.tolerations {
			v.checkToleration(t, idx(p+".tolerations", i), tol)
		}
	}
	if b.capacity != nil {
		for _, name := range sortedKeys(b.capacity.Requests) {
			cp := key(p+".capacity.requests", string(name))
			// The API server does not check these; a malformed name or a
			// non-positive amount cannot match any device capacity.
			if errs := qualifiedNameErrors(string(name)); len(errs) > 0 {
				v.warnf(t, cp, CodeInvalidName, "%q is not a valid capacity name, so it matches no device capacity: %s", name, strings.Join(errs, "; "))
			}
			if q := b.capacity.Requests[name]; q.Sign() <= 0 {
				v.warnf(t, cp, CodeInvalidValue, "requests %s of capacity %q: a capacity request must be positive", q.String(), name)
			}
		}
	}
	if b.adminAccess {
		for _, ns := range v.s.Namespaces {
			if ns != nil && ns.Name == namespace && ns.Labels[resourceapi.DRAAdminNamespaceLabelKey] != "true" {
				v.errorf(t, p+".adminAccess", CodeForbidden, "admin access to devices requires the label `%s: \"true\"` on Namespace %q",
					resourceapi.DRAAdminNamespaceLabelKey, namespace)
			}
		}
	}
}

func (v *validator) checkToleration(t target, p string, tol resourceapi.DeviceToleration) {
	if tol.Key != "" {
		v.checkLabelKey(t, p+".key", tol.Key)
	}
	switch tol.Operator {
	case resourceapi.DeviceTolerationOpExists:
		if tol.Value != "" {
			v.errorf(t, p+".value", CodeInvalidValue, "must be empty for operator Exists, found %q", tol.Value)
		}
	case resourceapi.DeviceTolerationOpEqual:
		v.checkLabelValue(t, p+".value", tol.Value)
	case "":
		v.errorf(t, p+".operator", CodeRequired, "required field is missing: Equal or Exists")
	default:
		v.errorf(t, p+".operator", CodeInvalidValue, "unsupported operator %q: must be Equal or Exists", tol.Operator)
	}
	switch tol.Effect {
	case "", resourceapi.DeviceTaintEffectNoSchedule, resourceapi.DeviceTaintEffectNoExecute, resourceapi.DeviceTaintEffectNone:
	default:
		v.errorf(t, p+".effect", CodeInvalidValue, "unsupported taint effect %q: must be one of NoSchedule, NoExecute, None", tol.Effect)
	}
}

// checkRequestRefs checks the request list of a constraint or config entry:
// each entry names a request or a request/subrequest, at most once.
func (v *validator) checkRequestRefs(t target, p string, refs []string, names requestNames) {
	if len(refs) > resourceapi.DeviceRequestsMaxSize {
		v.errorf(t, p, CodeTooMany, "%d request references, the limit is %d", len(refs), resourceapi.DeviceRequestsMaxSize)
		return
	}
	seen := map[string]bool{}
	for i, ref := range refs {
		rp := idx(p, i)
		if seen[ref] {
			v.errorf(t, rp, CodeDuplicate, "request %q is listed more than once", ref)
			continue
		}
		seen[ref] = true
		v.checkRequestRef(t, rp, ref, names)
	}
}

func (v *validator) checkRequestRef(t target, p, ref string, names requestNames) {
	if ref == "" {
		v.errorf(t, p, CodeRequired, "required field is missing: the name of a request")
		return
	}
	if strings.Count(ref, "/") > 1 {
		v.errorf(t, p, CodeInvalidName, "%q must be the name of a request, or of a request and a subrequest separated by '/'", ref)
		return
	}
	if !names.has(ref) {
		v.errorf(t, p, CodeUnknownRequest, "%q is not a request of the claim (nor a request/subrequest pair); requests are: %s", ref, names.String())
	}
}

// String lists the request names in order for messages.
func (r requestNames) String() string {
	var out []string
	for _, name := range sortedKeys(r) {
		out = append(out, name)
		for _, sub := range sortedKeys(r[name]) {
			out = append(out, name+"/"+sub)
		}
	}
	if len(out) == 0 {
		return "(none)"
	}
	return strings.Join(out, ", ")
}

// checkOpaqueConfig checks the opaque configuration of a claim or class.
func (v *validator) checkOpaqueConfig(t target, p string, o *resourceapi.OpaqueDeviceConfiguration) {
	if o == nil {
		v.errorf(t, p+".opaque", CodeRequired, "required field is missing")
		return
	}
	v.checkDriverName(t, p+".opaque.driver", o.Driver)
	v.checkRawParameters(t, p+".opaque.parameters", o.Parameters)
}

func (v *validator) checkRawParameters(t target, p string, raw runtime.RawExtension) {
	if len(raw.Raw) == 0 {
		v.errorf(t, p, CodeRequired, "required field is missing")
		return
	}
	if len(raw.Raw) > resourceapi.OpaqueParametersMaxLength {
		v.errorf(t, p, CodeTooLong, "the parameters are %d bytes long, the limit is %d", len(raw.Raw), resourceapi.OpaqueParametersMaxLength)
		return
	}
	var val any
	if err := json.Unmarshal(raw.Raw, &val); err != nil {
		v.errorf(t, p, CodeInvalidValue, "not valid JSON: %v", err)
		return
	}
	switch val.(type) {
	case nil:
		v.errorf(t, p, CodeRequired, "required field is missing")
	case map[string]any:
	default:
		v.errorf(t, p, CodeInvalidValue, "must be an object")
	}
}

// checkClaimStatus checks the allocation and reservations of a claim against
// the claim itself, the slices and the pods of the snapshot.
func (v *validator) checkClaimStatus(t target, c *resourceapi.ResourceClaim, names requestNames) {
	st := &c.Status
	if len(st.ReservedFor) > resourceapi.ResourceClaimReservedForMaxSize {
		v.errorf(t, "status.reservedFor", CodeTooMany, "reserved for %d consumers, the limit is %d", len(st.ReservedFor), resourceapi.ResourceClaimReservedForMaxSize)
	} else {
		if len(st.ReservedFor) > 0 && st.Allocation == nil {
			v.errorf(t, "status.reservedFor", CodeForbidden, "may not be set when status.allocation is not set")
		}
		uids := map[string]int{}
		for i, r := range st.ReservedFor {
			p := idx("status.reservedFor", i)
			if r.Resource == "" {
				v.errorf(t, p+".resource", CodeRequired, "required field is missing")
			}
			if r.Name == "" {
				v.errorf(t, p+".name", CodeRequired, "required field is missing")
			}
			if r.UID == "" {
				v.errorf(t, p+".uid", CodeRequired, "required field is missing")
			} else if first, dup := uids[string(r.UID)]; dup {
				v.errorf(t, p+".uid", CodeDuplicate, "uid %q is already listed in reservedFor[%d]", r.UID, first)
			} else {
				uids[string(r.UID)] = i
			}
			if r.APIGroup == "" && r.Resource == "pods" && r.Name != "" && v.pods[nsName{c.Namespace, r.Name}] == nil {
				v.warnf(t, p+".name", CodeUnknownReservedForPod,
					"reserved for Pod %q, which is not in the snapshot: the reservation keeps the claim (and its devices) in use", c.Namespace+"/"+r.Name)
			}
		}
	}
	if st.Allocation == nil {
		return
	}
	results := st.Allocation.Devices.Results
	rp := "status.allocation.devices.results"
	if len(results) > resourceapi.AllocationResultsMaxSize {
		v.errorf(t, rp, CodeTooMany, "%d results, the limit is %d", len(results), resourceapi.AllocationResultsMaxSize)
		return
	}
	for i, r := range results {
		p := idx(rp, i)
		v.checkRequestRef(t, p+".request", r.Request, names)
		okDriver := v.checkDriverName(t, p+".driver", r.Driver)
		okPool := v.checkPoolName(t, p+".pool", r.Pool)
		okDevice := v.checkName(t, p+".device", r.Device, dnsLabel)
		if !okDriver || !okPool || !okDevice {
			continue
		}
		pl := v.pools.byID[poolID{Driver: r.Driver, Pool: r.Pool}]
		switch {
		case pl == nil:
			v.warnf(t, p, CodeUnknownAllocatedPool,
				"allocated device %s: the snapshot holds no ResourceSlice of pool %q (driver %s), so the device is unknown to the simulation",
				deviceString(r.Driver, r.Pool, r.Device), r.Pool, r.Driver)
		case !pl.devices[r.Device]:
			v.errorf(t, p+".device", CodeUnknownAllocatedDevice,
				"allocated device %s does not exist: no slice of pool %q (driver %s) publishes a device %q",
				deviceString(r.Driver, r.Pool, r.Device), r.Pool, r.Driver, r.Device)
		}
	}
	for i, c := range st.Allocation.Devices.Config {
		p := idx("status.allocation.devices.config", i)
		switch c.Source {
		case resourceapi.AllocationConfigSourceClaim, resourceapi.AllocationConfigSourceClass:
		case "":
			v.errorf(t, p+".source", CodeRequired, "required field is missing: FromClaim or FromClass")
		default:
			v.errorf(t, p+".source", CodeInvalidValue, "unsupported source %q: must be FromClaim or FromClass", c.Source)
		}
		v.checkRequestRefs(t, p+".requests", c.Requests, names)
		v.checkOpaqueConfig(t, p, c.Opaque)
	}
}
