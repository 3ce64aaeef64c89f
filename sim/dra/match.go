package dra

import (
	"context"
	"fmt"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/cel"
)

// CELFeatures are the CEL environment features the gates enable, as
// kube-scheduler sets them up.
func (g Gates) CELFeatures() cel.Features {
	return cel.Features{
		EnableConsumableCapacity: g["DRAConsumableCapacity"],
		EnableListTypeAttributes: g["DRAListTypeAttributes"],
	}
}

// Selectors are compiled CEL device selectors, for code outside the
// allocator that must decide which devices a class or request selects
// (inspect, capacity analysis) exactly as the allocator would.
type Selectors struct {
	exprs []cel.CompilationResult
	index []int // each expression's index among the selectors, for messages
}

// CompileSelectors compiles the CEL selectors with the cache; a selector
// that does not compile is an error naming it.
func CompileSelectors(cache *cel.Cache, sels []resourceapi.DeviceSelector) (Selectors, error) {
	var out Selectors
	for i, sel := range sels {
		if sel.CEL == nil {
			continue // no other selector type exists; validation rejects an empty one
		}
		r := cache.GetOrCompile(sel.CEL.Expression)
		if r.Error != nil {
			return Selectors{}, fmt.Errorf("selector #%d: CEL compile error: %w", i, r.Error)
		}
		out.exprs = append(out.exprs, r)
		out.index = append(out.index, i)
	}
	return out, nil
}

// Empty reports whether there is no selector (everything matches).
func (s Selectors) Empty() bool { return len(s.exprs) == 0 }

// Match evaluates the selectors on a device in order, stopping at the first
// that is false, as the allocator does. id names the device in errors.
func (s Selectors) Match(ctx context.Context, driver, id string, dev *resourceapi.Device) (bool, error) {
	in := cel.Device{Driver: driver, AllowMultipleAllocations: dev.AllowMultipleAllocations, Attributes: dev.Attributes, Capacity: dev.Capacity}
	for i, e := range s.exprs {
		ok, _, err := e.DeviceMatches(ctx, in)
		if err != nil {
			return false, fmt.Errorf("selector #%d on device %s: CEL runtime error: %w", s.index[i], id, cel.EnhanceRuntimeError(err))
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}
