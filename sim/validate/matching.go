package validate

import (
	"context"
	"fmt"
	"strings"

	"github.com/drasim/drasim/sim/inventory"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
)

// device is one device of a current pool generation.
type device struct {
	id  string // driver/pool/device
	dev inventory.Device
	// node is the one node the device is attached to ("" for devices not
	// local to a node); allNodes is set for devices available to every
	// node (inventory.Device).
	node     string
	allNodes bool
}

// usableDevices lists the devices of the newest generation of every pool, in
// pool order then slice order: what the allocator could ever consider.
// Devices with a malformed attribute value are left out: the API server
// would have rejected their slice (reported already), and CEL would fail on
// whichever bad attribute it happens to meet first.
func (v *validator) usableDevices() []device {
	var out []device
	for _, p := range v.pools.order {
		for _, d := range inventory.Devices(p.Current) {
			if !attributesWellFormed(d.Device) {
				continue
			}
			out = append(out, device{
				node:     d.Node,
				allNodes: d.AllNodes,
				id:       d.ID.String(),
				dev:      d,
			})
		}
	}
	return out
}

// attributesWellFormed reports whether every attribute has exactly one
// value and every version is a semantic version.
func attributesWellFormed(d *resourceapi.Device) bool {
	for _, a := range d.Attributes {
		n := 0
		for _, set := range []bool{a.BoolValue != nil, a.IntValue != nil, a.StringValue != nil, a.VersionValue != nil,
			a.BoolValues != nil, a.IntValues != nil, a.StringValues != nil, a.VersionValues != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			return false
		}
		if a.VersionValue != nil && !semverRe.MatchString(*a.VersionValue) {
			return false
		}
		for _, ver := range a.VersionValues {
			if !semverRe.MatchString(ver) {
				return false
			}
		}
	}
	return true
}

// checkDeviceMatching evaluates every DeviceClass against every usable device
// with the allocator's CEL environment, then looks for pending pods that
// depend on a class without devices.
func (v *validator) checkDeviceMatching() {
	devices := v.usableDevices()
	v.devices = devices
	for _, c := range v.s.DeviceClasses {
		if c == nil {
			continue
		}
		t := v.targetFor(snapshot.Ref{Kind: "DeviceClass", Name: c.Name})
		n := v.matchClass(t, c, devices)
		v.classDevices[c.Name] = n
		if n != 0 {
			continue
		}
		if len(devices) == 0 {
			v.warnf(t, "spec.selectors", CodeClassMatchesNoDevice,
				"the class matches no device: the snapshot holds no ResourceSlice with devices, so claims of this class cannot be allocated")
		} else {
			v.warnf(t, "spec.selectors", CodeClassMatchesNoDevice,
				"the class matches none of the %d devices in %d pools of the snapshot, so claims of this class cannot be allocated",
				len(devices), len(v.pools.order))
		}
	}
	for _, p := range v.s.Pods {
		if p != nil {
			v.checkNeverSchedulable(p)
		}
	}
	v.checkRequestsAtRuntime()
}

// matchClass counts the devices a class selects; -1 when a selector cannot be
// compiled (already reported). A selector that fails at runtime on a device
// is reported once per selector, and the device counts as not matching.
// Which devices a class selects is sim/inventory's to decide.
func (v *validator) matchClass(t target, c *resourceapi.DeviceClass, devices []device) int {
	sels, ok := v.evaluable(c.Spec.Selectors)
	if !ok {
		return -1
	}
	type failure struct {
		device string
		err    error
		count  int
	}
	failures := make([]failure, len(c.Spec.Selectors))
	ctx := context.Background()
	n := 0
	var matched []int
	for di, d := range devices {
		match, cerr := sels.Match(ctx, d.dev)
		if cerr != nil {
			i := cerr.Selector
			if failures[i].count == 0 {
				failures[i].device, failures[i].err = d.id, cerr.Err
			}
			failures[i].count++
			match = false
		}
		if match {
			n++
			matched = append(matched, di)
		}
	}
	v.classMatched[c.Name] = matched
	for i, f := range failures {
		if f.count == 0 {
			continue
		}
		others := ""
		if f.count > 1 {
			others = fmt.Sprintf(" (and on %d more devices)", f.count-1)
		}
		v.warnf(t, idx("spec.selectors", i)+".cel.expression", CodeCELRuntime,
			"CEL expression %q fails on device %s%s: %v; the allocator aborts allocating any claim of this class when that happens "+
				"(guard the lookup, e.g. `device.driver == \"...\" && ...` or `\"attr\" in device.attributes[\"domain\"]`)",
			c.Spec.Selectors[i].CEL.Expression, f.device, others, f.err)
	}
	return n
}

// evaluable returns the selectors compiled for evaluation by
// sim/inventory, and whether every one of them compiles in the API
// server's environment (the others are reported by the spec checks and
// not evaluated).
func (v *validator) evaluable(selectors []resourceapi.DeviceSelector) (inventory.Selectors, bool) {
	for _, sel := range selectors {
		if sel.CEL == nil {
			return inventory.Selectors{}, false
		}
		if r := v.cel.compile(sel.CEL.Expression); r.Error != nil || r.Program == nil {
			return inventory.Selectors{}, false
		}
	}
	if v.matcher == nil {
		v.matcher = inventory.NewMatcher(context.Background(), v.opts.Gates, nil)
	}
	sels, err := v.matcher.Compile(selectors)
	return sels, err == nil
}

// checkNeverSchedulable warns about a pending pod whose claim has a request
// that only classes without devices can satisfy.
func (v *validator) checkNeverSchedulable(p *v1.Pod) {
	if p.Spec.NodeName != "" || p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed {
		return
	}
	t := v.podTarget(p)
	generated := map[string]string{}
	for _, st := range p.Status.ResourceClaimStatuses {
		if st.ResourceClaimName != nil {
			generated[st.Name] = *st.ResourceClaimName
		}
	}
	for i, rc := range p.Spec.ResourceClaims {
		var spec *resourceapi.ResourceClaimSpec
		var what string
		claimName := ""
		switch {
		case rc.ResourceClaimName != nil:
			claimName = *rc.ResourceClaimName
		case rc.ResourceClaimTemplateName != nil:
			claimName = generated[rc.Name]
			if tmpl := v.templates[nsName{p.Namespace, *rc.ResourceClaimTemplateName}]; tmpl != nil {
				spec, what = &tmpl.Spec.Spec, fmt.Sprintf("ResourceClaimTemplate %q", *rc.ResourceClaimTemplateName)
			}
		}
		if claim := v.claims[nsName{p.Namespace, claimName}]; claimName != "" && claim != nil {
			if claim.Status.Allocation != nil {
				continue // already allocated: nothing left to find
			}
			spec, what = &claim.Spec, fmt.Sprintf("ResourceClaim %q", claimName)
		}
		if spec == nil {
			continue
		}
		for _, r := range spec.Devices.Requests {
			var classes []string
			if r.Exactly != nil {
				classes = []string{r.Exactly.DeviceClassName}
			}
			for _, s := range r.FirstAvailable {
				classes = append(classes, s.DeviceClassName)
			}
			if len(classes) == 0 || !v.allWithoutDevices(classes) {
				continue
			}
			v.warnf(t, idx("spec.resourceClaims", i), CodePodNeverSchedulable,
				"the pod can never be scheduled: request %q of %s needs DeviceClass %s, which matches no device in the snapshot",
				r.Name, what, quoteJoin(classes))
		}
	}
}

// allWithoutDevices reports whether every class is known, evaluable and
// matches nothing.
func (v *validator) allWithoutDevices(classes []string) bool {
	for _, c := range classes {
		n, known := v.classDevices[c]
		if !known || n != 0 {
			return false
		}
	}
	return true
}

func quoteJoin(ss []string) string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, fmt.Sprintf("%q", s))
		}
	}
	return strings.Join(out, " or ")
}
