package kubeversion

import (
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
func DropDisabledFields(s *snapshot.Snapshot, gates map[string]bool) *snapshot.Snapshot {
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
