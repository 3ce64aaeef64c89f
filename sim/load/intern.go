package load

import (
	"encoding/binary"
	"maps"
	"reflect"
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
	devices  map[string][]resourceapi.Device
	buf      []byte
}

func newDeviceInterner() *deviceInterner {
	return &deviceInterner{
		attrs:    map[string]map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{},
		capacity: map[string]map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{},
		counters: map[string]map[string]resourceapi.Counter{},
		devices:  map[string][]resourceapi.Device{},
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
	sl.Spec.Devices = internDevices(in, sl.Spec.Devices)
}

// internDevices shares a device list between the slices that have equal
// ones once their maps are interned, as the generator's slices of one
// profile share theirs: the devices themselves cost the snapshot of a
// 50,000-node fleet about as much as their maps. Only lists of devices
// with a name, maps and counter consumption, and nothing else set, are
// keyed: by the names and the maps' addresses, which are the interned
// maps' (or a map kept alive by the list that holds it), so that equal
// keys mean equal lists.
func internDevices(in *deviceInterner, ds []resourceapi.Device) []resourceapi.Device {
	if len(ds) == 0 {
		return ds
	}
	b := in.buf[:0]
	for i := range ds {
		d := &ds[i]
		other := *d
		other.Name, other.Attributes, other.Capacity, other.ConsumesCounters = "", nil, nil, nil
		if !reflect.ValueOf(&other).Elem().IsZero() {
			return ds
		}
		b = appendStr(b, d.Name)
		b = binary.AppendUvarint(b, uint64(reflect.ValueOf(d.Attributes).Pointer()))
		b = binary.AppendUvarint(b, uint64(reflect.ValueOf(d.Capacity).Pointer()))
		if d.ConsumesCounters == nil {
			b = append(b, 0)
		} else {
			b = binary.AppendUvarint(append(b, 1), uint64(len(d.ConsumesCounters)))
		}
		for j := range d.ConsumesCounters {
			cc := d.ConsumesCounters[j]
			b = appendStr(b, cc.CounterSet)
			b = binary.AppendUvarint(b, uint64(reflect.ValueOf(cc.Counters).Pointer()))
			cc.CounterSet, cc.Counters = "", nil
			if !reflect.ValueOf(&cc).Elem().IsZero() {
				return ds
			}
		}
	}
	in.buf = b
	if shared, ok := in.devices[string(b)]; ok {
		return shared
	}
	in.devices[string(b)] = ds
	return ds
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
