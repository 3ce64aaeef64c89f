package load

import (
	"encoding/binary"
	"maps"
	"slices"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// deviceInterner shares equal device maps between the ResourceSlices of
// one load. A dump of a large fleet repeats the same attributes, capacity
// and counters on every node of a kind (often all but a UUID), and each
// device's maps cost more than the rest of it: interning them keeps the
// snapshot of 50,000 nodes within memory. Nothing in drasim changes a
// loaded object in place (cluster.Build, the DRA state and DeviceTaintRules
// copy what they change), so sharing is safe. Maps are shared only when
// their keys and values are equal as written back (a quantity by its
// string and format), so an output snapshot is byte for byte the same.
type deviceInterner struct {
	attrs    map[string]map[resourceapi.QualifiedName]resourceapi.DeviceAttribute
	capacity map[string]map[resourceapi.QualifiedName]resourceapi.DeviceCapacity
	counters map[string]map[string]resourceapi.Counter
	buf      []byte
}

func newDeviceInterner() *deviceInterner {
	return &deviceInterner{
		attrs:    map[string]map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{},
		capacity: map[string]map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{},
		counters: map[string]map[string]resourceapi.Counter{},
	}
}

// slice replaces the slice's device maps by shared equal ones.
func (in *deviceInterner) slice(sl *resourceapi.ResourceSlice) {
	for i := range sl.Spec.Devices {
		d := &sl.Spec.Devices[i]
		d.Attributes = internAttributes(in, d.Attributes)
		d.Capacity = internCapacity(in, d.Capacity)
		for j := range d.ConsumesCounters {
			d.ConsumesCounters[j].Counters = internCounters(in, d.ConsumesCounters[j].Counters)
		}
	}
	for i := range sl.Spec.SharedCounters {
		sl.Spec.SharedCounters[i].Counters = internCounters(in, sl.Spec.SharedCounters[i].Counters)
	}
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendOptStr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, 0)
	}
	return appendStr(append(b, 1), *s)
}

func internAttributes(in *deviceInterner, m map[resourceapi.QualifiedName]resourceapi.DeviceAttribute) map[resourceapi.QualifiedName]resourceapi.DeviceAttribute {
	if len(m) == 0 {
		return m
	}
	b := in.buf[:0]
	for _, k := range slices.Sorted(maps.Keys(m)) {
		a := m[k]
		b = appendStr(b, string(k))
		if a.IntValue != nil {
			b = binary.AppendVarint(append(b, 1), *a.IntValue)
		} else {
			b = append(b, 0)
		}
		switch {
		case a.BoolValue == nil:
			b = append(b, 0)
		case *a.BoolValue:
			b = append(b, 2)
		default:
			b = append(b, 1)
		}
		b = appendOptStr(b, a.StringValue)
		b = appendOptStr(b, a.VersionValue)
		b = binary.AppendUvarint(b, uint64(len(a.IntValues)))
		for _, v := range a.IntValues {
			b = binary.AppendVarint(b, v)
		}
		b = binary.AppendUvarint(b, uint64(len(a.BoolValues)))
		for _, v := range a.BoolValues {
			if v {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		}
		for _, list := range [][]string{a.StringValues, a.VersionValues} {
			b = binary.AppendUvarint(b, uint64(len(list)))
			for _, s := range list {
				b = appendStr(b, s)
			}
		}
		// nil and empty lists are written back alike (omitempty).
	}
	in.buf = b
	if shared, ok := in.attrs[string(b)]; ok {
		return shared
	}
	in.attrs[string(b)] = m
	return m
}

func internCapacity(in *deviceInterner, m map[resourceapi.QualifiedName]resourceapi.DeviceCapacity) map[resourceapi.QualifiedName]resourceapi.DeviceCapacity {
	return internQuantities(in, in.capacity, m, func(c resourceapi.DeviceCapacity) (resource.Quantity, bool) {
		// Consumable-capacity request policies are rare: not worth a key.
		return c.Value, c.RequestPolicy == nil
	})
}

func internCounters(in *deviceInterner, m map[string]resourceapi.Counter) map[string]resourceapi.Counter {
	return internQuantities(in, in.counters, m, func(c resourceapi.Counter) (resource.Quantity, bool) { return c.Value, true })
}

// internQuantities interns a map whose values are each one quantity;
// quantity returns false for a value it cannot key.
func internQuantities[K ~string, V any](in *deviceInterner, table map[string]map[K]V, m map[K]V, quantity func(V) (resource.Quantity, bool)) map[K]V {
	if len(m) == 0 {
		return m
	}
	b := in.buf[:0]
	for _, k := range slices.Sorted(maps.Keys(m)) {
		q, ok := quantity(m[k])
		if !ok {
			return m
		}
		b = appendStr(b, string(k))
		b = appendStr(b, q.String())
		b = appendStr(b, string(q.Format))
	}
	in.buf = b
	if shared, ok := table[string(b)]; ok {
		return shared
	}
	table[string(b)] = m
	return m
}
