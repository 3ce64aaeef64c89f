package autoscale

import (
	"context"

	"github.com/drasim/drasim/sim/dra"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/cel"
)

// matcher evaluates DeviceClass and request selectors on template devices
// with the scheduler's CEL environment, to weigh idle devices by class and
// to say how many devices a template offers for a request. A selector that
// does not compile or fails matches nothing, as the allocator would fail.
type matcher struct {
	ctx     context.Context
	cache   *cel.Cache
	classes map[string]*resourceapi.DeviceClass
	order   []string
}

func newMatcher(ctx context.Context, gates dra.Gates, classes []*resourceapi.DeviceClass) *matcher {
	m := &matcher{
		ctx: ctx,
		cache: cel.NewCache(64, cel.Features{
			EnableConsumableCapacity: gates["DRAConsumableCapacity"],
			EnableListTypeAttributes: gates["DRAListTypeAttributes"],
		}),
		classes: map[string]*resourceapi.DeviceClass{},
	}
	for _, c := range classes {
		m.classes[c.Name] = c
		m.order = append(m.order, c.Name)
	}
	return m
}

func (m *matcher) eval(sels []resourceapi.DeviceSelector, driver string, d *resourceapi.Device) bool {
	in := cel.Device{Driver: driver, AllowMultipleAllocations: d.AllowMultipleAllocations, Attributes: d.Attributes, Capacity: d.Capacity}
	for _, sel := range sels {
		if sel.CEL == nil {
			continue
		}
		r := m.cache.GetOrCompile(sel.CEL.Expression)
		if r.Error != nil {
			return false
		}
		ok, _, err := r.DeviceMatches(m.ctx, in)
		if err != nil || !ok {
			return false
		}
	}
	return true
}

// classesOf lists the classes that select the device, in snapshot order.
func (m *matcher) classesOf(driver string, d *resourceapi.Device) []string {
	var out []string
	for _, name := range m.order {
		if m.eval(m.classes[name].Spec.Selectors, driver, d) {
			out = append(out, name)
		}
	}
	return out
}

// selects reports whether a request (its class and its own selectors)
// selects the device.
func (m *matcher) selects(class string, sels []resourceapi.DeviceSelector, driver string, d *resourceapi.Device) bool {
	c := m.classes[class]
	if c == nil {
		return false
	}
	return m.eval(c.Spec.Selectors, driver, d) && m.eval(sels, driver, d)
}
