package feature

import "k8s.io/dynamic-resource-allocation/cel"

// CELFeatures are the CEL environment features the gates enable, as
// kube-scheduler sets them up. Which devices a selector matches outside
// the allocator is sim/inventory's to decide, with these features.
func (g Gates) CELFeatures() cel.Features {
	return cel.Features{
		EnableConsumableCapacity: g["DRAConsumableCapacity"],
		EnableListTypeAttributes: g["DRAListTypeAttributes"],
	}
}
