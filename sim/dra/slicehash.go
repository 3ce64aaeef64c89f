package dra

import (
	"encoding/json"
	"reflect"
	"slices"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// sliceHasher hashes what the allocator reads of a ResourceSlice, without
// its node and pool names, for the node equivalence classes (see
// indexSlices), as their JSON encoding did before. Specs that hash alike
// encode to the same JSON (but for 64-bit collisions). Specs with the same
// JSON hash alike too, except where the hasher looks closer: an empty list
// or map where it falls back to JSON (below) counts as set, and so does
// the format of a quantity between -1024 and 1024, which the canonical
// form drops. That can only make fewer nodes equivalent, never wrong ones.
//
// The fields every driver sets (devices with their names, attributes,
// capacities, counter consumption and taints, the counter sets) are hashed
// directly: encoding every device as JSON cost more than half of
// cluster.Build on large clusters. Whatever else a device, an attribute,
// a counter or the spec carries, including fields a later API version
// adds, is hashed through its JSON encoding when it is set, so no field
// is ever left out.
//
// A device's maps (attributes, capacity, counters) are hashed on their own
// and enter the slice's hash as that number, once per map: a loaded dump
// shares equal maps between its slices (sim/load interns them) and the
// generator shares whole device lists, so most maps come again and again,
// and hashing each map's content once per map took the hashing of a
// 50,000-node fleet from the most of cluster.Build to a fraction of it.
type sliceHasher struct {
	h       uint64 // FNV-1a, 64 bits
	scratch []byte
	keys    []string
	// memo holds the hash of each map hashed so far, by its address. The
	// maps do not change while a hasher lives (one indexSlices call).
	memo map[uintptr]uint64
	// lists holds the hash of each device list hashed so far.
	lists map[listKey]uint64
}

const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

func newSliceHasher() *sliceHasher {
	return &sliceHasher{h: fnvOffset64, scratch: make([]byte, 0, 64), memo: map[uintptr]uint64{}, lists: map[listKey]uint64{}}
}

func (s *sliceHasher) reset() { s.h = fnvOffset64 }

func (s *sliceHasher) sum() uint64 { return s.h }

func (s *sliceHasher) byte(b byte) { s.h = (s.h ^ uint64(b)) * fnvPrime64 }

func (s *sliceHasher) raw(b []byte) {
	for _, c := range b {
		s.byte(c)
	}
}

func (s *sliceHasher) int(v int64) {
	for i := range 8 {
		s.byte(byte(v >> (8 * i)))
	}
}

// str writes a string with its length, so that concatenations differ.
func (s *sliceHasher) str(v string) {
	s.int(int64(len(v)))
	for i := 0; i < len(v); i++ {
		s.byte(v[i])
	}
}

func (s *sliceHasher) optStr(v *string) {
	if v == nil {
		s.byte(0)
		return
	}
	s.byte(1)
	s.str(*v)
}

// quantity writes the value and format of an integer quantity, from which
// the canonical form JSON encodes follows, and the canonical form of any
// other.
func (s *sliceHasher) quantity(q resource.Quantity) {
	if v, ok := q.AsInt64(); ok {
		s.byte('i')
		s.int(v)
		s.str(string(q.Format))
		return
	}
	s.byte('c')
	number, suffix := q.CanonicalizeBytes(s.scratch[:0])
	s.int(int64(len(number) + len(suffix)))
	s.raw(number)
	s.raw(suffix)
}

// rest writes the JSON encoding of *v when it is not the zero value, and a
// marker either way. *v holds the fields the hasher does not know. Only
// the slow path copies *v to the heap.
func rest[T any](s *sliceHasher, v *T) {
	if reflect.ValueOf(v).Elem().IsZero() {
		s.byte(0)
		return
	}
	data, _ := json.Marshal(*v)
	s.byte(1)
	s.int(int64(len(data)))
	s.raw(data)
}

// sortedKeys returns m's keys in order, in a buffer that the next call
// reuses: loops over the keys must not call it.
func sortedKeys[K ~string, V any](s *sliceHasher, m map[K]V) []string {
	s.keys = s.keys[:0]
	for k := range m {
		s.keys = append(s.keys, string(k))
	}
	slices.Sort(s.keys)
	return s.keys
}

// spec hashes a slice's spec without spec.nodeName and spec.pool.name.
func (s *sliceHasher) spec(spec *resourceapi.ResourceSliceSpec) {
	s.str(spec.Driver)
	s.int(spec.Pool.Generation)
	s.int(spec.Pool.ResourceSliceCount)
	s.int(int64(len(spec.Devices)))
	s.devices(spec.Devices)
	s.int(int64(len(spec.SharedCounters)))
	for i := range spec.SharedCounters {
		cs := &spec.SharedCounters[i]
		s.str(cs.Name)
		s.counters(cs.Counters)
		other := *cs
		other.Name, other.Counters = "", nil
		rest(s, &other)
	}
	other := *spec
	other.Driver, other.NodeName, other.Devices, other.SharedCounters = "", nil, nil, nil
	other.Pool.Name, other.Pool.Generation, other.Pool.ResourceSliceCount = "", 0, 0
	rest(s, &other)
}

// devices writes the hash of a device list, computed once per list: the
// generator's slices of one profile share theirs, and so do a loaded
// dump's slices with equal devices (sim/load interns them).
func (s *sliceHasher) devices(ds []resourceapi.Device) {
	key := listKey{reflect.ValueOf(ds).Pointer(), len(ds)}
	v, ok := s.lists[key]
	if !ok {
		outer := s.h
		s.h = fnvOffset64
		for i := range ds {
			s.device(&ds[i])
		}
		v = s.h
		s.h = outer
		if key.addr != 0 {
			s.lists[key] = v
		}
	}
	s.int(int64(v))
}

// listKey is a list by its address and length.
type listKey struct {
	addr uintptr
	n    int
}

// sub writes the hash of map m, computed by write on its own the first
// time m is met.
func sub[M any](s *sliceHasher, m M, write func(M)) {
	key := reflect.ValueOf(m).Pointer()
	v, ok := s.memo[key]
	if !ok {
		outer := s.h
		s.h = fnvOffset64
		write(m)
		v = s.h
		s.h = outer
		if key != 0 {
			s.memo[key] = v
		}
	}
	s.int(int64(v))
}

func (s *sliceHasher) device(d *resourceapi.Device) {
	s.str(d.Name)
	sub(s, d.Attributes, s.attributes)
	sub(s, d.Capacity, s.capacity)
	s.int(int64(len(d.ConsumesCounters)))
	for i := range d.ConsumesCounters {
		cc := &d.ConsumesCounters[i]
		s.str(cc.CounterSet)
		s.counters(cc.Counters)
		other := *cc
		other.CounterSet, other.Counters = "", nil
		rest(s, &other)
	}
	// Taints come from DeviceTaintRules as often as from drivers, on every
	// device a rule selects.
	s.int(int64(len(d.Taints)))
	for i := range d.Taints {
		t := d.Taints[i]
		s.str(t.Key)
		s.str(t.Value)
		s.str(string(t.Effect))
		if t.TimeAdded != nil {
			s.byte(1)
			s.int(t.TimeAdded.Unix()) // JSON has seconds
		} else {
			s.byte(0)
		}
		t.Key, t.Value, t.Effect, t.TimeAdded = "", "", "", nil
		rest(s, &t)
	}
	other := *d
	other.Name, other.Attributes, other.Capacity, other.ConsumesCounters, other.Taints = "", nil, nil, nil, nil
	rest(s, &other)
}

func (s *sliceHasher) attributes(m map[resourceapi.QualifiedName]resourceapi.DeviceAttribute) {
	s.int(int64(len(m)))
	for _, k := range sortedKeys(s, m) {
		s.str(k)
		a := m[resourceapi.QualifiedName(k)]
		if a.IntValue != nil {
			s.byte(1)
			s.int(*a.IntValue)
		} else {
			s.byte(0)
		}
		if a.BoolValue != nil {
			s.byte(1)
			if *a.BoolValue {
				s.byte(1)
			} else {
				s.byte(0)
			}
		} else {
			s.byte(0)
		}
		s.optStr(a.StringValue)
		s.optStr(a.VersionValue)
		a.IntValue, a.BoolValue, a.StringValue, a.VersionValue = nil, nil, nil, nil
		rest(s, &a)
	}
}

func (s *sliceHasher) capacity(m map[resourceapi.QualifiedName]resourceapi.DeviceCapacity) {
	s.int(int64(len(m)))
	for _, k := range sortedKeys(s, m) {
		s.str(k)
		c := m[resourceapi.QualifiedName(k)]
		s.quantity(c.Value)
		c.Value = resource.Quantity{}
		rest(s, &c)
	}
}

func (s *sliceHasher) counters(m map[string]resourceapi.Counter) {
	sub(s, m, s.counterMap)
}

func (s *sliceHasher) counterMap(m map[string]resourceapi.Counter) {
	s.int(int64(len(m)))
	for _, k := range sortedKeys(s, m) {
		s.str(k)
		c := m[k]
		s.quantity(c.Value)
		c.Value = resource.Quantity{}
		rest(s, &c)
	}
}
