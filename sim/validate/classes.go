package validate

import (
	"strings"

	"github.com/drasim/drasim/sim/snapshot"
	resourceapi "k8s.io/api/resource/v1"
)

func (v *validator) checkDeviceClasses() {
	for _, c := range v.s.DeviceClasses {
		if c == nil {
			continue
		}
		t := v.targetFor(snapshot.Ref{Kind: "DeviceClass", Name: c.Name})
		v.checkSelectors(t, "spec.selectors", c.Spec.Selectors)
		if len(c.Spec.Config) > resourceapi.DeviceConfigMaxSize {
			v.errorf(t, "spec.config", CodeTooMany, "%d config entries, the limit is %d", len(c.Spec.Config), resourceapi.DeviceConfigMaxSize)
		} else {
			for i, cfg := range c.Spec.Config {
				v.checkOpaqueConfig(t, idx("spec.config", i), cfg.Opaque)
			}
		}
		if n := c.Spec.ExtendedResourceName; n != nil && !isExtendedResourceName(*n) {
			v.errorf(t, "spec.extendedResourceName", CodeInvalidName,
				"%q is not a valid extended resource name: it needs a domain outside kubernetes.io, e.g. example.com/gpu", *n)
		}
	}
}

func (v *validator) checkDeviceTaintRules() {
	for _, r := range v.s.DeviceTaintRules {
		if r == nil {
			continue
		}
		t := v.targetFor(snapshot.Ref{Kind: "DeviceTaintRule", Name: r.Name})
		v.checkTaint(t, "spec.taint", r.Spec.Taint)
		sel := r.Spec.DeviceSelector
		valid := true
		if sel != nil {
			if sel.Driver != nil {
				valid = v.checkDriverName(t, "spec.deviceSelector.driver", *sel.Driver) && valid
			}
			if sel.Pool != nil {
				valid = v.checkPoolName(t, "spec.deviceSelector.pool", *sel.Pool) && valid
			}
			if sel.Device != nil {
				valid = v.checkName(t, "spec.deviceSelector.device", *sel.Device, dnsLabel) && valid
			}
		}
		if valid && v.taintRuleMatches(sel) == 0 {
			v.warnf(t, "spec.deviceSelector", CodeTaintRuleMatchesNothing,
				"the rule matches no device of the snapshot (%s), so it taints nothing", describeTaintSelector(sel))
		}
	}
}

// taintRuleMatches counts the devices of current pool generations that a
// DeviceTaintRule selects; a nil selector selects every device.
func (v *validator) taintRuleMatches(sel *resourceapi.DeviceTaintSelector) int {
	n := 0
	for _, p := range v.pools.order {
		if sel != nil && sel.Driver != nil && *sel.Driver != p.ID.Driver {
			continue
		}
		if sel != nil && sel.Pool != nil && *sel.Pool != p.ID.Pool {
			continue
		}
		for _, s := range p.Current {
			for _, d := range s.Spec.Devices {
				if sel == nil || sel.Device == nil || *sel.Device == d.Name {
					n++
				}
			}
		}
	}
	return n
}

func describeTaintSelector(sel *resourceapi.DeviceTaintSelector) string {
	if sel == nil {
		return "no selector: all devices"
	}
	var parts []string
	if sel.Driver != nil {
		parts = append(parts, "driver "+*sel.Driver)
	}
	if sel.Pool != nil {
		parts = append(parts, "pool "+*sel.Pool)
	}
	if sel.Device != nil {
		parts = append(parts, "device "+*sel.Device)
	}
	if len(parts) == 0 {
		return "empty selector: all devices"
	}
	return strings.Join(parts, ", ")
}
