package kubeversion

import (
	"fmt"

	"github.com/drasim/drasim/sim/snapshot"
	resourceapi "k8s.io/api/resource/v1"
)

// DropDisabledFields returns the snapshot as an API server with these gates
// would store it when its objects are created: the fields of a disabled
// feature are dropped (kube's dropDisabledFields in
// pkg/registry/resource/*/strategy.go and pkg/api/resourceclaimspec). A
// release whose default is off for a feature (partitionable devices,
// consumable capacity, device taints, binding conditions and extended
// resources are beta-on only from 1.36) thus sees plain devices where a
// file describes partitions or shares, as a real cluster of that release
// would. A dump taken from such a cluster has no such fields; for it this
// changes nothing. With every gate of these features on (1.37's and
// 1.36's defaults) the snapshot is returned unchanged. Objects are never
// changed in place: a changed one is a copy in a copied snapshot.
//
// The API server validates an object after dropping its fields, so an
// object that is valid only with them is refused: a constraint that had
// only distinctAttribute has neither attribute left, a slice that chose
// its nodes per device (perDeviceNodeSelection) has no node selection
// left. Those are returned as *Problems, each naming file, object and
// field, and the snapshot is not returned: the release would not create
// the objects, so there is nothing to simulate.
func (r *Release) DropDisabledFields(s *snapshot.Snapshot, gates map[string]bool) (*snapshot.Snapshot, error) {
	out := dropDisabledFields(s, gates)
	if ps := r.invalidAfterDrop(s, out, gates); len(ps) > 0 {
		return nil, &Problems{Release: r.Name, List: ps}
	}
	return out, nil
}

func dropDisabledFields(s *snapshot.Snapshot, gates map[string]bool) *snapshot.Snapshot {
	taints := gates["DRADeviceTaints"]
	partitionable := gates["DRAPartitionableDevices"]
	binding := gates["DRADeviceBindingConditions"] && gates["DRAResourceClaimDeviceStatus"]
	consumable := gates["DRAConsumableCapacity"]
	extended := gates["DRAExtendedResource"]
	if taints && partitionable && binding && consumable && extended {
		return s
	}
	out := s
	copied := func() *snapshot.Snapshot {
		if out == s {
			out = s.Copy()
		}
		return out
	}
	for i, sl := range s.ResourceSlices {
		if !sliceUses(sl, taints, partitionable, binding, consumable) {
			continue
		}
		c := sl.DeepCopy()
		dropSlice(c, taints, partitionable, binding, consumable)
		copied().ResourceSlices[i] = c
	}
	for i, cl := range s.ResourceClaims {
		if !specUses(&cl.Spec, taints, consumable) {
			continue
		}
		c := cl.DeepCopy()
		dropSpec(&c.Spec, taints, consumable)
		copied().ResourceClaims[i] = c
	}
	for i, t := range s.ResourceClaimTemplates {
		if !specUses(&t.Spec.Spec, taints, consumable) {
			continue
		}
		c := t.DeepCopy()
		dropSpec(&c.Spec.Spec, taints, consumable)
		copied().ResourceClaimTemplates[i] = c
	}
	if !extended {
		for i, dc := range s.DeviceClasses {
			if dc.Spec.ExtendedResourceName == nil {
				continue
			}
			c := dc.DeepCopy()
			c.Spec.ExtendedResourceName = nil
			copied().DeviceClasses[i] = c
		}
	}
	return out
}

func sliceUses(sl *resourceapi.ResourceSlice, taints, partitionable, binding, consumable bool) bool {
	if !partitionable && (len(sl.Spec.SharedCounters) > 0 || sl.Spec.PerDeviceNodeSelection != nil) {
		return true
	}
	for _, d := range sl.Spec.Devices {
		switch {
		case !taints && len(d.Taints) > 0,
			!partitionable && (len(d.ConsumesCounters) > 0 || d.NodeName != nil || d.NodeSelector != nil || d.AllNodes != nil),
			!binding && (len(d.BindingConditions) > 0 || len(d.BindingFailureConditions) > 0 || d.BindsToNode != nil),
			!consumable && d.AllowMultipleAllocations != nil:
			return true
		}
		if !consumable {
			for _, c := range d.Capacity {
				if c.RequestPolicy != nil {
					return true
				}
			}
		}
	}
	return false
}

func dropSlice(sl *resourceapi.ResourceSlice, taints, partitionable, binding, consumable bool) {
	if !partitionable {
		sl.Spec.SharedCounters = nil
		sl.Spec.PerDeviceNodeSelection = nil
	}
	for i := range sl.Spec.Devices {
		d := &sl.Spec.Devices[i]
		if !taints {
			d.Taints = nil
		}
		if !partitionable {
			d.ConsumesCounters, d.NodeName, d.NodeSelector, d.AllNodes = nil, nil, nil, nil
		}
		if !binding {
			d.BindingConditions, d.BindingFailureConditions, d.BindsToNode = nil, nil, nil
		}
		if !consumable {
			d.AllowMultipleAllocations = nil
			for name, c := range d.Capacity {
				c.RequestPolicy = nil
				d.Capacity[name] = c
			}
		}
	}
}

func specUses(spec *resourceapi.ResourceClaimSpec, taints, consumable bool) bool {
	if !consumable {
		for _, c := range spec.Devices.Constraints {
			if c.DistinctAttribute != nil {
				return true
			}
		}
	}
	for _, r := range spec.Devices.Requests {
		if e := r.Exactly; e != nil && (!taints && len(e.Tolerations) > 0 || !consumable && e.Capacity != nil) {
			return true
		}
		for _, sub := range r.FirstAvailable {
			if !taints && len(sub.Tolerations) > 0 || !consumable && sub.Capacity != nil {
				return true
			}
		}
	}
	return false
}

func dropSpec(spec *resourceapi.ResourceClaimSpec, taints, consumable bool) {
	if !consumable {
		for i := range spec.Devices.Constraints {
			spec.Devices.Constraints[i].DistinctAttribute = nil
		}
	}
	for i := range spec.Devices.Requests {
		r := &spec.Devices.Requests[i]
		if e := r.Exactly; e != nil {
			if !taints {
				e.Tolerations = nil
			}
			if !consumable {
				e.Capacity = nil
			}
		}
		for j := range r.FirstAvailable {
			if !taints {
				r.FirstAvailable[j].Tolerations = nil
			}
			if !consumable {
				r.FirstAvailable[j].Capacity = nil
			}
		}
	}
}

// invalidAfterDrop lists the objects of dropped (s with the disabled
// fields dropped) that the API server's validation refuses, where the
// object in s was valid: kube's validateDeviceConstraint and
// validateResourceSliceSpec (pkg/apis/resource/validation) on what
// dropDisabledFields left. Only the rules a drop can break are checked.
func (r *Release) invalidAfterDrop(s, dropped *snapshot.Snapshot, gates map[string]bool) []Problem {
	if dropped == s {
		return nil
	}
	var ps []Problem
	source := func(kind, namespace, name string) snapshot.Source {
		return s.Sources[snapshot.Ref{Kind: kind, Namespace: namespace, Name: name}]
	}
	constraints := func(kind, namespace, name, path string, before, after *resourceapi.ResourceClaimSpec) {
		for i, c := range after.Devices.Constraints {
			if c.MatchAttribute != nil || c.DistinctAttribute != nil || before.Devices.Constraints[i].DistinctAttribute == nil {
				continue
			}
			ps = append(ps, Problem{
				Source: source(kind, namespace, name),
				Object: fmt.Sprintf("%s %q", kind, namespace+"/"+name),
				Field:  fmt.Sprintf("%s.devices.constraints[%d].matchAttribute", path, i),
				Msg: fmt.Sprintf("Required value: Kubernetes v%s drops distinctAttribute (feature gate DRAConsumableCapacity is off) and then refuses the constraint, which names no attribute",
					r.Name),
			})
		}
	}
	for i, cl := range dropped.ResourceClaims {
		if cl != s.ResourceClaims[i] {
			constraints("ResourceClaim", cl.Namespace, cl.Name, "spec", &s.ResourceClaims[i].Spec, &cl.Spec)
		}
	}
	for i, t := range dropped.ResourceClaimTemplates {
		if t != s.ResourceClaimTemplates[i] {
			constraints("ResourceClaimTemplate", t.Namespace, t.Name, "spec.spec", &s.ResourceClaimTemplates[i].Spec.Spec, &t.Spec.Spec)
		}
	}
	for i, sl := range dropped.ResourceSlices {
		before := s.ResourceSlices[i]
		if sl == before || before.Spec.PerDeviceNodeSelection == nil || sl.Spec.PerDeviceNodeSelection != nil {
			continue
		}
		if sl.Spec.NodeName != nil || sl.Spec.NodeSelector != nil || sl.Spec.AllNodes != nil {
			continue
		}
		ps = append(ps, Problem{
			Source: source("ResourceSlice", "", sl.Name),
			Object: fmt.Sprintf("ResourceSlice %q", sl.Name),
			Field:  "spec",
			Msg: fmt.Sprintf("Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required: Kubernetes v%s drops perDeviceNodeSelection (feature gate DRAPartitionableDevices is off) and then refuses the slice",
				r.Name),
		})
	}
	return ps
}
