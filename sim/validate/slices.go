package validate

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// semverRe is the API server's check of version attributes (semver.org 2.0.0).
var semverRe = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(-(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?` +
	`(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$`)

func (v *validator) sliceTarget(s *resourceapi.ResourceSlice) target {
	return v.targetFor(snapshot.Ref{Kind: "ResourceSlice", Name: s.Name})
}

func (v *validator) checkResourceSlices() {
	for _, s := range v.s.ResourceSlices {
		if s != nil {
			v.checkResourceSlice(v.sliceTarget(s), &s.Spec)
		}
	}
}

func (v *validator) checkResourceSlice(t target, spec *resourceapi.ResourceSliceSpec) {
	v.checkDriverName(t, "spec.driver", spec.Driver)
	v.checkPoolName(t, "spec.pool.name", spec.Pool.Name)
	if spec.Pool.ResourceSliceCount <= 0 {
		v.errorf(t, "spec.pool.resourceSliceCount", CodeInvalidValue, "must be greater than zero, found %d", spec.Pool.ResourceSliceCount)
	}
	if spec.Pool.Generation < 0 {
		v.errorf(t, "spec.pool.generation", CodeInvalidValue, "must be greater than or equal to zero, found %d", spec.Pool.Generation)
	}

	var set []string
	if spec.NodeName != nil {
		if *spec.NodeName == "" {
			v.errorf(t, "spec.nodeName", CodeInvalidValue, "must be either unset or a node name, found an empty string")
		} else {
			set = append(set, "`nodeName`")
			if v.checkName(t, "spec.nodeName", *spec.NodeName, dnsSubdomain) && !t.template && len(v.nodes) > 0 && !v.nodes[*spec.NodeName] {
				v.warnf(t, "spec.nodeName", CodeUnknownNode, "Node %q is not in the snapshot: the devices of this slice are not available anywhere", *spec.NodeName)
			}
		}
	}
	if spec.NodeSelector != nil {
		set = append(set, "`nodeSelector`")
		v.checkNodeSelector(t, "spec.nodeSelector", spec.NodeSelector, true)
	}
	if spec.AllNodes != nil {
		if *spec.AllNodes {
			set = append(set, "`allNodes`")
		} else {
			v.errorf(t, "spec.allNodes", CodeInvalidValue, "must be either unset or true")
		}
	}
	perDevice := spec.PerDeviceNodeSelection != nil && *spec.PerDeviceNodeSelection
	if spec.PerDeviceNodeSelection != nil {
		if perDevice {
			set = append(set, "`perDeviceNodeSelection`")
		} else {
			v.errorf(t, "spec.perDeviceNodeSelection", CodeInvalidValue, "must be either unset or true")
		}
	}
	switch len(set) {
	case 0:
		v.errorf(t, "spec", CodeOneOf, "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, none is set")
	case 1:
	default:
		v.errorf(t, "spec", CodeOneOf, "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but %s are set", strings.Join(set, ", "))
	}

	if len(spec.SharedCounters) > 0 && len(spec.Devices) > 0 {
		v.errorf(t, "spec", CodeOneOf, "only one of `sharedCounters` or `devices` is allowed: publish counter sets in a slice of their own in the same pool")
	}

	maxDevices := resourceapi.ResourceSliceMaxDevices
	if usesAdvancedFeatures(spec) {
		maxDevices = resourceapi.ResourceSliceMaxDevicesWithAdvancedFeatures
	}
	if len(spec.Devices) > maxDevices {
		why := ""
		if maxDevices == resourceapi.ResourceSliceMaxDevicesWithAdvancedFeatures {
			why = " for a slice whose devices use taints, consumesCounters or list attributes"
		}
		v.errorf(t, "spec.devices", CodeTooMany, "%d devices, the limit is %d%s", len(spec.Devices), maxDevices, why)
	} else {
		seen := map[string]int{}
		for i := range spec.Devices {
			d := &spec.Devices[i]
			p := v.devicePath(i)
			v.checkDevice(t, p, d, perDevice)
			if d.Name == "" {
				continue
			}
			if first, dup := seen[d.Name]; dup {
				v.errorf(t, p+".name", CodeDuplicate, "device name %q is already used by spec.devices[%d]", d.Name, first)
			} else {
				seen[d.Name] = i
			}
		}
	}

	if len(spec.SharedCounters) > resourceapi.ResourceSliceMaxCounterSets {
		v.errorf(t, "spec.sharedCounters", CodeTooMany, "%d counter sets, the limit is %d", len(spec.SharedCounters), resourceapi.ResourceSliceMaxCounterSets)
	} else {
		seen := map[string]int{}
		for i, cs := range spec.SharedCounters {
			p := idx("spec.sharedCounters", i)
			if v.checkName(t, p+".name", cs.Name, dnsLabel) {
				if first, dup := seen[cs.Name]; dup {
					v.errorf(t, p+".name", CodeDuplicate, "counter set name %q is already used by spec.sharedCounters[%d]", cs.Name, first)
				} else {
					seen[cs.Name] = i
				}
			}
			v.checkCounters(t, func() string { return p + ".counters" }, cs.Counters, resourceapi.ResourceSliceMaxCountersPerCounterSet)
		}
	}
}

// devicePath returns "spec.devices[i]", made once per index for the run.
func (v *validator) devicePath(i int) string {
	for len(v.devicePaths) <= i {
		v.devicePaths = append(v.devicePaths, idx("spec.devices", len(v.devicePaths)))
	}
	return v.devicePaths[i]
}

// usesAdvancedFeatures says whether the lower device limit of a slice applies.
func usesAdvancedFeatures(spec *resourceapi.ResourceSliceSpec) bool {
	for _, d := range spec.Devices {
		if len(d.Taints) > 0 || len(d.ConsumesCounters) > 0 {
			return true
		}
		for _, a := range d.Attributes {
			if a.BoolValues != nil || a.IntValues != nil || a.StringValues != nil || a.VersionValues != nil {
				return true
			}
		}
	}
	return false
}

// checkCounters checks a counter map; path renders its field, only for a
// finding.
func (v *validator) checkCounters(t target, path func() string, counters map[string]resourceapi.Counter, limit int) {
	switch {
	case len(counters) == 0:
		v.errorf(t, path(), CodeRequired, "required field is missing: at least one counter")
	case len(counters) > limit:
		v.errorf(t, path(), CodeTooMany, "%d counters, the limit is %d", len(counters), limit)
	default:
		// Shared with other devices by the loader's interner: see once.
		v.once(mapKey{ptr: reflect.ValueOf(counters).Pointer()}, func() { v.checkCounterNames(t, path(), counters) })
	}
}

func (v *validator) checkCounterNames(t target, path string, counters map[string]resourceapi.Counter) {
	for _, name := range sortedKeys(counters) {
		if isDNSLabel(name) {
			continue
		}
		if errs := content.IsDNS1123Label(name); len(errs) > 0 {
			v.errorf(t, key(path, name), CodeInvalidName, "counter name %q is not a valid %s: %s", name, dnsLabel.what, strings.Join(errs, "; "))
		}
	}
}

// checkNodeSelector checks a node selector as the API server does; slices
// additionally need exactly one term.
func (v *validator) checkNodeSelector(t target, path string, ns *v1.NodeSelector, oneTerm bool) {
	if len(ns.NodeSelectorTerms) == 0 {
		v.errorf(t, path+".nodeSelectorTerms", CodeRequired, "must have at least one node selector term")
		return
	}
	if oneTerm && len(ns.NodeSelectorTerms) != 1 {
		v.errorf(t, path+".nodeSelectorTerms", CodeInvalidValue, "must have exactly one node selector term, found %d", len(ns.NodeSelectorTerms))
	}
	if _, err := nodeaffinity.NewNodeSelector(ns); err != nil {
		v.errorf(t, path, CodeInvalidValue, "invalid node selector: %v", err)
	}
}

func (v *validator) checkDevice(t target, p string, d *resourceapi.Device, perDevice bool) {
	if !isDNSLabel(d.Name) {
		v.checkName(t, p+".name", d.Name, dnsLabel)
	}

	if n := len(d.Attributes) + len(d.Capacity); n > resourceapi.ResourceSliceMaxAttributesAndCapacitiesPerDevice {
		v.errorf(t, p, CodeTooMany, "%d attributes and capacities, the limit is %d in total", n, resourceapi.ResourceSliceMaxAttributesAndCapacitiesPerDevice)
	}
	// The loader shares equal attribute and capacity maps between devices
	// (sim/load's interner): a map found clean once is clean again.
	multi := d.AllowMultipleAllocations != nil && *d.AllowMultipleAllocations
	v.once(mapKey{reflect.ValueOf(d.Attributes).Pointer(), false}, func() {
		if n := attributeValues(d); n > resourceapi.ResourceSliceMaxAttributeValuesPerDevice {
			v.errorf(t, p, CodeTooMany, "%d attribute values (list items count one each), the limit is %d", n, resourceapi.ResourceSliceMaxAttributeValuesPerDevice)
		}
		for _, name := range sortedKeys(d.Attributes) {
			ap := key(p+".attributes", string(name))
			v.checkQualifiedName(t, ap, string(name))
			v.checkAttribute(t, ap, d.Attributes[name])
		}
	})
	v.once(mapKey{reflect.ValueOf(d.Capacity).Pointer(), multi}, func() {
		for _, name := range sortedKeys(d.Capacity) {
			cp := key(p+".capacity", string(name))
			v.checkQualifiedName(t, cp, string(name))
			c := d.Capacity[name]
			if c.RequestPolicy == nil {
				continue
			}
			if !multi {
				v.errorf(t, cp+".requestPolicy", CodeForbidden, "a request policy needs allowMultipleAllocations: true on the device")
				continue
			}
			v.checkRequestPolicy(t, cp+".requestPolicy", c.Value, c.RequestPolicy)
		}
	})

	if len(d.Taints) > resourceapi.DeviceTaintsMaxLength {
		v.errorf(t, p+".taints", CodeTooMany, "%d taints, the limit is %d", len(d.Taints), resourceapi.DeviceTaintsMaxLength)
	} else {
		for i, taint := range d.Taints {
			v.checkTaint(t, idx(p+".taints", i), taint)
		}
	}

	if len(d.ConsumesCounters) > resourceapi.ResourceSliceMaxDeviceCounterConsumptionsPerDevice {
		v.errorf(t, p+".consumesCounters", CodeTooMany, "%d counter consumptions, the limit is %d", len(d.ConsumesCounters), resourceapi.ResourceSliceMaxDeviceCounterConsumptionsPerDevice)
	} else {
		// Paths are built only for a finding: partitionable devices make
		// this loop run a few hundred thousand times on a large dump.
		ccPath := func(i int, field string) string { return idx(p+".consumesCounters", i) + field }
		for i, cc := range d.ConsumesCounters {
			if isDNSLabel(cc.CounterSet) || v.checkName(t, ccPath(i, ".counterSet"), cc.CounterSet, dnsLabel) {
				for first := range i {
					if d.ConsumesCounters[first].CounterSet == cc.CounterSet {
						v.errorf(t, ccPath(i, ".counterSet"), CodeDuplicate, "counter set %q is already consumed by consumesCounters[%d]", cc.CounterSet, first)
						break
					}
				}
			}
			v.checkCounters(t, func() string { return ccPath(i, ".counters") }, cc.Counters, resourceapi.ResourceSliceMaxCountersPerDeviceCounterConsumption)
		}
	}

	if perDevice {
		var set []string
		if d.NodeName != nil {
			if *d.NodeName == "" {
				v.errorf(t, p+".nodeName", CodeInvalidValue, "must not be empty")
			} else {
				set = append(set, "`nodeName`")
				if v.checkName(t, p+".nodeName", *d.NodeName, dnsSubdomain) && !t.template && len(v.nodes) > 0 && !v.nodes[*d.NodeName] {
					v.warnf(t, p+".nodeName", CodeUnknownNode, "Node %q is not in the snapshot: this device is not available anywhere", *d.NodeName)
				}
			}
		}
		if d.NodeSelector != nil {
			set = append(set, "`nodeSelector`")
			v.checkNodeSelector(t, p+".nodeSelector", d.NodeSelector, false)
		}
		if d.AllNodes != nil {
			if *d.AllNodes {
				set = append(set, "`allNodes`")
			} else {
				v.errorf(t, p+".allNodes", CodeInvalidValue, "must be either unset or true")
			}
		}
		switch len(set) {
		case 0:
			v.errorf(t, p, CodeOneOf, "exactly one of `nodeName`, `nodeSelector` or `allNodes` is required when the slice sets `perDeviceNodeSelection: true`")
		case 1:
		default:
			v.errorf(t, p, CodeOneOf, "exactly one of `nodeName`, `nodeSelector` or `allNodes` is required, but %s are set", strings.Join(set, ", "))
		}
	} else if d.NodeName != nil || d.NodeSelector != nil || d.AllNodes != nil {
		v.errorf(t, p, CodeForbidden, "`nodeName`, `nodeSelector` and `allNodes` of a device can only be set when the slice sets `perDeviceNodeSelection: true`")
	}

	v.checkBindingConditions(t, p, d.BindingConditions, d.BindingFailureConditions)
}

// mapKey identifies a device's attribute or capacity map by its address,
// with what else its checks depend on (allowMultipleAllocations).
type mapKey struct {
	ptr   uintptr
	multi bool
}

// once runs check, unless the map of k was checked before and the check
// found nothing; the validator remembers the maps that were clean.
func (v *validator) once(k mapKey, check func()) {
	if k.ptr == 0 {
		return // a nil map holds nothing to check
	}
	if v.cleanMaps[k] {
		return
	}
	n := len(v.out)
	check()
	if len(v.out) == n {
		v.cleanMaps[k] = true
	}
}

// attributeValues counts attribute values the way the API limit does: a
// scalar counts one, a list counts its items.
func attributeValues(d *resourceapi.Device) int {
	n := 0
	for _, a := range d.Attributes {
		l := len(a.BoolValues) + len(a.IntValues) + len(a.StringValues) + len(a.VersionValues)
		if l == 0 {
			l = 1
		}
		n += l
	}
	return n
}

func (v *validator) checkAttribute(t target, p string, a resourceapi.DeviceAttribute) {
	var set []string
	if a.BoolValue != nil {
		set = append(set, "bool")
	}
	if a.IntValue != nil {
		set = append(set, "int")
	}
	if a.StringValue != nil {
		set = append(set, "string")
		v.checkAttributeString(t, p+".string", *a.StringValue)
	}
	if a.VersionValue != nil {
		set = append(set, "version")
		v.checkAttributeVersion(t, p+".version", *a.VersionValue)
	}
	if a.BoolValues != nil {
		set = append(set, "bools")
		if len(a.BoolValues) == 0 {
			v.errorf(t, p+".bools", CodeInvalidValue, "must not be empty if specified")
		}
	}
	if a.IntValues != nil {
		set = append(set, "ints")
		if len(a.IntValues) == 0 {
			v.errorf(t, p+".ints", CodeInvalidValue, "must not be empty if specified")
		}
	}
	if a.StringValues != nil {
		set = append(set, "strings")
		if len(a.StringValues) == 0 {
			v.errorf(t, p+".strings", CodeInvalidValue, "must not be empty if specified")
		}
		for i, s := range a.StringValues {
			v.checkAttributeString(t, idx(p+".strings", i), s)
		}
	}
	if a.VersionValues != nil {
		set = append(set, "versions")
		if len(a.VersionValues) == 0 {
			v.errorf(t, p+".versions", CodeInvalidValue, "must not be empty if specified")
		}
		for i, s := range a.VersionValues {
			v.checkAttributeVersion(t, idx(p+".versions", i), s)
		}
	}
	switch len(set) {
	case 0:
		v.errorf(t, p, CodeOneOf, "exactly one value must be specified (one of bool, int, string, version), none is set")
	case 1:
	default:
		v.errorf(t, p, CodeOneOf, "exactly one value must be specified, but %s are set", strings.Join(set, ", "))
	}
}

func (v *validator) checkAttributeString(t target, p, s string) {
	if len(s) > resourceapi.DeviceAttributeMaxValueLength {
		v.errorf(t, p, CodeTooLong, "the value is %d bytes long, the limit is %d", len(s), resourceapi.DeviceAttributeMaxValueLength)
	}
}

func (v *validator) checkAttributeVersion(t target, p, s string) {
	if !semverRe.MatchString(s) {
		v.errorf(t, p, CodeInvalidValue, "%q is not a semantic version (semver.org 2.0.0, e.g. 1.2.3)", s)
	}
	v.checkAttributeString(t, p, s)
}

// checkRequestPolicy checks the consumable-capacity request policy of a
// device capacity as the API server does.
func (v *validator) checkRequestPolicy(t target, p string, capacity resource.Quantity, rp *resourceapi.CapacityRequestPolicy) {
	if len(rp.ValidValues) > 0 && rp.ValidRange != nil {
		v.errorf(t, p, CodeForbidden, "exactly one policy can be specified, cannot specify validValues and validRange at the same time")
		return
	}
	switch {
	case len(rp.ValidValues) > 0:
		if rp.Default == nil {
			v.errorf(t, p+".default", CodeRequired, "required when validValues is defined")
			return
		}
		if len(rp.ValidValues) > capacityRequestPolicyDiscreteMaxOptions {
			v.errorf(t, p+".validValues", CodeTooMany, "%d values, the limit is %d", len(rp.ValidValues), capacityRequestPolicyDiscreteMaxOptions)
			return
		}
		foundDefault := false
		for i, q := range rp.ValidValues {
			if i > 0 && rp.ValidValues[i-1].Cmp(q) > 0 {
				v.errorf(t, idx(p+".validValues", i), CodeInvalidValue, "values must be sorted in ascending order")
			}
			if q.Cmp(capacity) > 0 {
				v.errorf(t, idx(p+".validValues", i), CodeInvalidValue, "%s is larger than the capacity %s", q.String(), capacity.String())
			}
			if q.Cmp(*rp.Default) == 0 {
				foundDefault = true
			}
		}
		if !foundDefault {
			v.errorf(t, p+".validValues", CodeInvalidValue, "the default %s is not one of the valid values", rp.Default.String())
		}
	case rp.ValidRange != nil:
		r := rp.ValidRange
		if rp.Default == nil {
			v.errorf(t, p+".default", CodeRequired, "required when validRange is defined")
			return
		}
		if r.Min == nil {
			v.errorf(t, p+".validRange.min", CodeRequired, "required when validRange is defined")
			return
		}
		if r.Min.Cmp(capacity) > 0 {
			v.errorf(t, p+".validRange.min", CodeInvalidValue, "min %s is larger than the capacity %s", r.Min.String(), capacity.String())
		}
		if rp.Default.Cmp(*r.Min) < 0 {
			v.errorf(t, p+".validRange.default", CodeInvalidValue, "default %s is less than min %s", rp.Default.String(), r.Min.String())
		}
		if r.Max != nil {
			if r.Min.Cmp(*r.Max) > 0 {
				v.errorf(t, p+".validRange.max", CodeInvalidValue, "min %s is larger than max %s", r.Min.String(), r.Max.String())
			}
			if r.Max.Cmp(capacity) > 0 {
				v.errorf(t, p+".validRange.max", CodeInvalidValue, "max %s is larger than the capacity %s", r.Max.String(), capacity.String())
			}
			if rp.Default.Cmp(*r.Max) > 0 {
				v.errorf(t, p+".validRange.default", CodeInvalidValue, "default %s is more than max %s", rp.Default.String(), r.Max.String())
			}
		}
		if r.Step != nil {
			if r.Step.Sign() <= 0 {
				v.errorf(t, p+".validRange.step", CodeInvalidValue, "must be greater than zero, found %s", r.Step.String())
				return
			}
			step, lo := r.Step.MilliValue(), r.Min.MilliValue()
			if step > 0 && (rp.Default.MilliValue()-lo)%step != 0 {
				v.errorf(t, p+".validRange.step", CodeInvalidValue, "default %s is not min %s plus a multiple of the step %s", rp.Default.String(), r.Min.String(), r.Step.String())
			}
		}
	}
}

// checkTaint checks a device taint (in a slice or a DeviceTaintRule).
func (v *validator) checkTaint(t target, p string, taint resourceapi.DeviceTaint) {
	if taint.Key == "" {
		v.errorf(t, p+".key", CodeRequired, "required field is missing")
	} else {
		v.checkLabelKey(t, p+".key", taint.Key)
	}
	if taint.Value != "" {
		v.checkLabelValue(t, p+".value", taint.Value)
	}
	switch taint.Effect {
	case "":
		v.errorf(t, p+".effect", CodeRequired, "required field is missing: one of NoSchedule, NoExecute, None")
	case resourceapi.DeviceTaintEffectNoSchedule, resourceapi.DeviceTaintEffectNoExecute, resourceapi.DeviceTaintEffectNone:
	default:
		v.errorf(t, p+".effect", CodeInvalidValue, "unsupported taint effect %q: must be one of NoSchedule, NoExecute, None", taint.Effect)
	}
}

// checkBindingConditions checks the binding conditions of a device.
func (v *validator) checkBindingConditions(t target, p string, conds, failure []string) {
	if len(conds) > resourceapi.BindingConditionsMaxSize {
		v.errorf(t, p+".bindingConditions", CodeTooMany, "%d binding conditions, the limit is %d", len(conds), resourceapi.BindingConditionsMaxSize)
	}
	if len(failure) > resourceapi.BindingFailureConditionsMaxSize {
		v.errorf(t, p+".bindingFailureConditions", CodeTooMany, "%d binding failure conditions, the limit is %d", len(failure), resourceapi.BindingFailureConditionsMaxSize)
	}
	if len(conds) > 0 && len(failure) == 0 {
		v.errorf(t, p+".bindingFailureConditions", CodeRequired, "bindingFailureConditions are required to use bindingConditions")
	}
	if len(failure) > 0 && len(conds) == 0 {
		v.errorf(t, p+".bindingConditions", CodeRequired, "bindingConditions are required to use bindingFailureConditions")
	}
	for i, c := range conds {
		v.checkLabelKey(t, idx(p+".bindingConditions", i), c)
	}
	for i, c := range failure {
		v.checkLabelKey(t, idx(p+".bindingFailureConditions", i), c)
		if slices.Contains(conds, c) {
			v.errorf(t, idx(p+".bindingFailureConditions", i), CodeInvalidValue, "%q is also a binding condition; the two lists must not overlap", c)
		}
	}
}

// sortedKeys returns the keys of a map in order, so that findings about map
// entries come out in the same order on every run.
func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// deviceString names a device as the allocator does: driver/pool/device.
func deviceString(driver, pool, device string) string {
	return fmt.Sprintf("%s/%s/%s", driver, pool, device)
}
