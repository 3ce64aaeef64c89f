package policy

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/inventory"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Milli is one whole device in the policies' unit: a share of a device is
// measured in thousandths of it, as the simulator's gpu-milli.
const Milli = 1000

// defaultMilliCPU is what kube counts for a container without a CPU
// request (the simulator scores with the same non-zero requests).
const defaultMilliCPU = 100

// Shape is what a pod asks for, as the policies see it: CPU, and GPUs of
// one request (how many, and how much of each). Shapes are comparable: the
// workload's distribution counts pods by shape.
type Shape struct {
	// MilliCPU sums the containers' CPU requests, 100m for a container
	// that sets none (kube's non-zero request).
	MilliCPU int64
	// GPUs is the number of devices of the pod's first device request (0:
	// the pod asks for none).
	GPUs int64
	// MilliGPU is the share of each device, 1 to 1000: the requested
	// consumable capacity over the device's, or a partition's share of
	// its counters, or 1000 for a whole device.
	MilliGPU int64
	// Class and Selectors (CEL expressions joined by newlines) say which
	// devices the request may take; "" when it takes none.
	Class     string
	Selectors string
}

// Share reports whether the shape takes part of one device.
func (s Shape) Share() bool { return s.GPUs == 1 && s.MilliGPU < Milli }

// TotalMilliGPU is the shape's GPU demand in milli-GPUs.
func (s Shape) TotalMilliGPU() int64 { return s.GPUs * s.MilliGPU }

// String is "cpu=4000m gpus=1x500" with the device constraints when set.
func (s Shape) String() string {
	out := fmt.Sprintf("cpu=%dm gpus=%dx%d", s.MilliCPU, s.GPUs, s.MilliGPU)
	if s.Class != "" {
		out += " class=" + s.Class
	}
	if s.Selectors != "" {
		out += " selectors=" + strings.ReplaceAll(s.Selectors, "\n", " && ")
	}
	return out
}

// compareShapes orders shapes as the simulator breaks ties among equally
// popular ones: by CPU, milli-GPU, number of GPUs, then constraints.
func compareShapes(a, b Shape) int {
	return cmp.Or(cmp.Compare(a.MilliCPU, b.MilliCPU), cmp.Compare(a.MilliGPU, b.MilliGPU), cmp.Compare(a.GPUs, b.GPUs),
		cmp.Compare(a.Class, b.Class), cmp.Compare(a.Selectors, b.Selectors))
}

// Shaper reads pods' shapes: their claims (by template or by name) in the
// snapshot, with the devices of the snapshot as the measure of a share.
// It is safe for concurrent use only after construction (its caches are
// filled under the caller's lock; see Plugin).
type Shaper struct {
	templates map[string]*resourceapi.ResourceClaimSpec
	claims    map[string]*resourceapi.ResourceClaimSpec
	devices   []inventory.Device
	matcher   *inventory.Matcher
	// share caches the milli of one device a request takes, by request
	// key and capacity request.
	share map[string]int64
}

// NewShaper indexes the snapshot's claims, templates, classes and devices.
func NewShaper(snap *snapshot.Snapshot, gates feature.Gates) *Shaper {
	s := &Shaper{templates: map[string]*resourceapi.ResourceClaimSpec{}, claims: map[string]*resourceapi.ResourceClaimSpec{}, share: map[string]int64{}}
	for _, t := range snap.ResourceClaimTemplates {
		s.templates[t.Namespace+"/"+t.Name] = &t.Spec.Spec
	}
	for _, c := range snap.ResourceClaims {
		s.claims[c.Namespace+"/"+c.Name] = &c.Spec
	}
	s.devices = inventory.Devices(inventory.Current(snap.ResourceSlices))
	s.matcher = inventory.NewMatcher(context.Background(), gates, snap.DeviceClasses)
	return s
}

// Shape returns the pod's shape. A pod whose claims cannot be found (nor
// its templates) asks, as far as the policies know, for no device.
func (s *Shaper) Shape(pod *v1.Pod) Shape {
	sh := Shape{MilliCPU: podMilliCPU(pod)}
	for _, pc := range pod.Spec.ResourceClaims {
		spec := s.claimSpec(pod, pc)
		if spec == nil {
			continue
		}
		for _, req := range spec.Devices.Requests {
			ex := req.Exactly
			if ex == nil && len(req.FirstAvailable) > 0 {
				sub := req.FirstAvailable[0]
				ex = &resourceapi.ExactDeviceRequest{DeviceClassName: sub.DeviceClassName, Selectors: sub.Selectors, AllocationMode: sub.AllocationMode, Count: sub.Count, Capacity: sub.Capacity}
			}
			if ex == nil {
				continue
			}
			count := ex.Count
			if ex.AllocationMode == resourceapi.DeviceAllocationModeAll {
				count = 1 // "all" is a node's worth; the policies see one device
			}
			if count <= 0 {
				count = 1
			}
			sh.GPUs = count
			sh.Class = ex.DeviceClassName
			sh.Selectors = selectorsKey(ex.Selectors)
			sh.MilliGPU = s.milliOf(sh.Class, sh.Selectors, ex)
			return sh
		}
	}
	return sh
}

func (s *Shaper) claimSpec(pod *v1.Pod, pc v1.PodResourceClaim) *resourceapi.ResourceClaimSpec {
	if pc.ResourceClaimTemplateName != nil {
		return s.templates[pod.Namespace+"/"+*pc.ResourceClaimTemplateName]
	}
	if pc.ResourceClaimName != nil {
		return s.claims[pod.Namespace+"/"+*pc.ResourceClaimName]
	}
	return nil
}

// milliOf is the share of one device a request takes: requested capacity
// over the capacity of the first device it selects (in slice order), or
// a partition's counter share, or a whole device.
func (s *Shaper) milliOf(class, sels string, ex *resourceapi.ExactDeviceRequest) int64 {
	key := class + "\x00" + sels
	if ex.Capacity != nil {
		var names []string
		for n, q := range ex.Capacity.Requests {
			names = append(names, string(n)+"="+q.String())
		}
		slices.Sort(names)
		key += "\x00" + strings.Join(names, ",")
	}
	if m, ok := s.share[key]; ok {
		return m
	}
	m := int64(Milli)
	for _, d := range s.devices {
		if !s.matcher.Selects(class, "", ex.Selectors, d) {
			continue
		}
		if ex.Capacity != nil && len(ex.Capacity.Requests) > 0 {
			m = capacityShare(d.Device, ex.Capacity.Requests)
		} else if len(d.Device.ConsumesCounters) > 0 {
			m = counterShare(d.Slice, d.Device, nil)
		}
		break
	}
	s.share[key] = m
	return m
}

// capacityShare is the largest fraction, in milli, of the device's
// capacities that the requests take (at least 1, at most 1000).
func capacityShare(dev *resourceapi.Device, reqs map[resourceapi.QualifiedName]resource.Quantity) int64 {
	var m int64
	for name, q := range reqs {
		c, ok := dev.Capacity[name]
		if !ok || c.Value.MilliValue() <= 0 {
			continue
		}
		m = max(m, ceilDiv(q.MilliValue()*Milli, c.Value.MilliValue()))
	}
	return min(max(m, 1), Milli)
}

// counterShare is the largest fraction, in milli, of its counter set's
// counters that a partition consumes. sets resolves counter sets of the
// pool when the slice does not hold them (nil: the slice only).
func counterShare(sl *resourceapi.ResourceSlice, dev *resourceapi.Device, sets map[string]resourceapi.CounterSet) int64 {
	var m int64
	for _, cc := range dev.ConsumesCounters {
		set, ok := findCounterSet(sl, cc.CounterSet, sets)
		if !ok {
			continue
		}
		for name, c := range cc.Counters {
			total, ok := set.Counters[name]
			if !ok || total.Value.MilliValue() <= 0 {
				continue
			}
			m = max(m, ceilDiv(c.Value.MilliValue()*Milli, total.Value.MilliValue()))
		}
	}
	if m == 0 {
		return Milli
	}
	return min(m, Milli)
}

func findCounterSet(sl *resourceapi.ResourceSlice, name string, sets map[string]resourceapi.CounterSet) (resourceapi.CounterSet, bool) {
	for _, cs := range sl.Spec.SharedCounters {
		if cs.Name == name {
			return cs, true
		}
	}
	cs, ok := sets[name]
	return cs, ok
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

func selectorsKey(sels []resourceapi.DeviceSelector) string {
	var parts []string
	for _, s := range sels {
		if s.CEL != nil {
			parts = append(parts, s.CEL.Expression)
		}
	}
	return strings.Join(parts, "\n")
}

// podMilliCPU sums the containers' CPU requests, 100m for a container
// without one (the simulator's GetNonzeroRequests: an explicit zero stays
// zero).
func podMilliCPU(pod *v1.Pod) int64 {
	var total int64
	for _, c := range pod.Spec.Containers {
		q, ok := c.Resources.Requests[v1.ResourceCPU]
		if !ok {
			total += defaultMilliCPU
			continue
		}
		total += q.MilliValue()
	}
	return total
}
