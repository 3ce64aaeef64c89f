package load

import (
	"strconv"
	"strings"

	"github.com/drasim/drasim/sim/kube"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Decoding ResourceSlices was most of a large dump's load: their JSON,
// device after device, decoded by reflection. A sliceDecoder reads a
// resource.k8s.io/v1 slice straight from the fast reader's tree instead,
// for the slices it fully understands: the fields it knows, each of the
// YAML type the typed JSON decoding accepts. On anything else (an unknown
// field, a field it does not read, a null where JSON decoding would keep
// one, a type JSON decoding would reject) it declines, and the slice goes
// the JSON way as before, so that warnings, errors and strictness stay
// those of the JSON decoding. What it accepts, it decodes to the very value
// the JSON way gives; the differential tests and FuzzSliceDecoder hold it
// to that.
//
// It also does the interner's work as it goes, cheaper: a device list, an
// attribute, capacity or counter map is decoded once per distinct content
// (the same tree: keys in the same order, scalars of the same text) and
// shared by every slice that has it: equal trees decode to equal values. Nothing in
// drasim changes a loaded object in place (see deviceInterner).
type sliceDecoder struct {
	devices  map[string][]resourceapi.Device
	attrs    map[string]map[resourceapi.QualifiedName]resourceapi.DeviceAttribute
	capacity map[string]map[resourceapi.QualifiedName]resourceapi.DeviceCapacity
	counters map[string]map[string]resourceapi.Counter
	// strs shares the short strings that repeat from slice to slice
	// (drivers, label keys and values).
	strs map[string]string
	// held counts the bytes of the keys above; past maxSliceCacheBytes no
	// more are added, so that a fleet whose slices all differ (UUIDs) does
	// not hold their text.
	held int
	buf  []byte
}

const (
	maxSliceCacheBytes = 64 << 20
	maxSharedStrings   = 1 << 16
)

func newSliceDecoder() *sliceDecoder {
	return &sliceDecoder{
		devices:  map[string][]resourceapi.Device{},
		attrs:    map[string]map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{},
		capacity: map[string]map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{},
		counters: map[string]map[string]resourceapi.Counter{},
		strs:     map[string]string{},
	}
}

// slice decodes the ResourceSlice at mapping obj of t, or reports false if
// the JSON way must decode it. Like the JSON way's decoder, it leaves the
// namespace empty (slices are cluster-scoped) and applies the defaults.
func (d *sliceDecoder) slice(t *docTree, obj int32) (*resourceapi.ResourceSlice, bool) {
	sl := new(resourceapi.ResourceSlice)
	ok := fields(t, obj, func(key string, c int32) bool {
		switch key {
		case "apiVersion":
			return d.sharedString(t, c, &sl.APIVersion)
		case "kind":
			return d.sharedString(t, c, &sl.Kind)
		case "metadata":
			return d.meta(t, c, &sl.ObjectMeta)
		case "spec":
			return d.spec(t, c, &sl.Spec)
		}
		return false
	})
	if !ok {
		return nil, false
	}
	sl.Namespace = ""
	if sl.Name != "" {
		kube.DefaultResourceSlice(sl)
	}
	return sl, true
}

// fields decodes mapping m into a struct: it calls field for each key, and
// reports false as soon as field does (or if m is no mapping; a null
// leaves the struct as it is). field must decline a key it does not know,
// whatever its value.
//
// In JSON decoding, a null value of a struct field leaves the field as it
// is (zero): so do the readers below, each for a null of its own; the
// fields with an UnmarshalJSON (quantities, times) set their zero value
// on null. A null list item or map value is no zero value to leave: those
// are left to the JSON way.
func fields(t *docTree, m int32, field func(key string, c int32) bool) bool {
	n := t.node(m)
	if isNull(n) {
		return true
	}
	if n.kind != treeMap {
		return false
	}
	for c := n.first; c >= 0; c = t.node(c).next {
		if !field(t.node(c).key, c) {
			return false
		}
	}
	return true
}

func isNull(n *treeNode) bool { return n.kind == treeScalar && n.scalar == scalarNull }

func (d *sliceDecoder) meta(t *docTree, m int32, out *metav1.ObjectMeta) bool {
	return fields(t, m, func(key string, c int32) bool {
		switch key {
		case "name":
			return ownString(t, c, &out.Name)
		case "generateName":
			return ownString(t, c, &out.GenerateName)
		case "namespace":
			return ownString(t, c, &out.Namespace)
		case "uid":
			return ownString(t, c, &out.UID)
		case "resourceVersion":
			return ownString(t, c, &out.ResourceVersion)
		case "generation":
			return int64Value(t, c, &out.Generation)
		case "creationTimestamp":
			n := t.node(c)
			if n.kind != treeScalar {
				return false
			}
			return out.CreationTimestamp.UnmarshalJSON(d.scalarJSON(n)) == nil
		case "ownerReferences":
			return sequence(t, c, &out.OwnerReferences, func(c int32, o *metav1.OwnerReference) bool {
				return d.ownerReference(t, c, o)
			})
		case "labels":
			return d.stringMap(t, c, &out.Labels)
		case "annotations":
			return d.stringMap(t, c, &out.Annotations)
		}
		return false
	})
}

// ownerReference reads the reference to the node that a driver's slices
// have in a dump.
func (d *sliceDecoder) ownerReference(t *docTree, m int32, out *metav1.OwnerReference) bool {
	return fields(t, m, func(key string, c int32) bool {
		switch key {
		case "apiVersion":
			return d.sharedString(t, c, &out.APIVersion)
		case "kind":
			return d.sharedString(t, c, &out.Kind)
		case "name":
			return ownString(t, c, &out.Name)
		case "uid":
			return ownString(t, c, &out.UID)
		case "controller":
			return optBool(t, c, &out.Controller)
		case "blockOwnerDeletion":
			return optBool(t, c, &out.BlockOwnerDeletion)
		}
		return false
	})
}

func (d *sliceDecoder) spec(t *docTree, m int32, out *resourceapi.ResourceSliceSpec) bool {
	return fields(t, m, func(key string, c int32) bool {
		switch key {
		case "driver":
			return d.sharedString(t, c, &out.Driver)
		case "pool":
			return fields(t, c, func(key string, c int32) bool {
				switch key {
				case "name":
					return ownString(t, c, &out.Pool.Name)
				case "generation":
					return int64Value(t, c, &out.Pool.Generation)
				case "resourceSliceCount":
					return int64Value(t, c, &out.Pool.ResourceSliceCount)
				}
				return false
			})
		case "nodeName":
			return optString(t, c, &out.NodeName)
		case "allNodes":
			return optBool(t, c, &out.AllNodes)
		case "perDeviceNodeSelection":
			return optBool(t, c, &out.PerDeviceNodeSelection)
		case "devices":
			return d.deviceList(t, c, &out.Devices)
		case "sharedCounters":
			return sequence(t, c, &out.SharedCounters, func(c int32, cs *resourceapi.CounterSet) bool {
				return fields(t, c, func(key string, c int32) bool {
					switch key {
					case "name":
						return ownString(t, c, &cs.Name)
					case "counters":
						return d.counterMap(t, c, &cs.Counters)
					}
					return false
				})
			})
		}
		return false
	})
}

// deviceList decodes spec.devices, sharing the list with every slice whose
// list has the same content.
func (d *sliceDecoder) deviceList(t *docTree, c int32, out *[]resourceapi.Device) bool {
	return cached(d, d.devices, t, c, out, func(out *[]resourceapi.Device) bool {
		return sequence(t, c, out, func(c int32, dev *resourceapi.Device) bool {
			return d.device(t, c, dev)
		})
	})
}

func (d *sliceDecoder) device(t *docTree, m int32, out *resourceapi.Device) bool {
	return fields(t, m, func(key string, c int32) bool {
		switch key {
		case "name":
			return ownString(t, c, &out.Name)
		case "attributes":
			return cached(d, d.attrs, t, c, &out.Attributes, func(out *map[resourceapi.QualifiedName]resourceapi.DeviceAttribute) bool {
				return mapping(t, c, out, func(c int32, a *resourceapi.DeviceAttribute) bool { return attribute(t, c, a) })
			})
		case "capacity":
			return cached(d, d.capacity, t, c, &out.Capacity, func(out *map[resourceapi.QualifiedName]resourceapi.DeviceCapacity) bool {
				return mapping(t, c, out, func(c int32, dc *resourceapi.DeviceCapacity) bool {
					return fields(t, c, func(key string, c int32) bool {
						return key == "value" && d.quantity(t, c, &dc.Value)
					})
				})
			})
		case "consumesCounters":
			return sequence(t, c, &out.ConsumesCounters, func(c int32, cc *resourceapi.DeviceCounterConsumption) bool {
				return fields(t, c, func(key string, c int32) bool {
					switch key {
					case "counterSet":
						return ownString(t, c, &cc.CounterSet)
					case "counters":
						return d.counterMap(t, c, &cc.Counters)
					}
					return false
				})
			})
		case "nodeName":
			return optString(t, c, &out.NodeName)
		case "allNodes":
			return optBool(t, c, &out.AllNodes)
		}
		return false
	})
}

func attribute(t *docTree, m int32, out *resourceapi.DeviceAttribute) bool {
	return fields(t, m, func(key string, c int32) bool {
		switch key {
		case "int":
			return optInt64(t, c, &out.IntValue)
		case "bool":
			return optBool(t, c, &out.BoolValue)
		case "string":
			return optString(t, c, &out.StringValue)
		case "version":
			return optString(t, c, &out.VersionValue)
		}
		return false
	})
}

func (d *sliceDecoder) counterMap(t *docTree, c int32, out *map[string]resourceapi.Counter) bool {
	return cached(d, d.counters, t, c, out, func(out *map[string]resourceapi.Counter) bool {
		return mapping(t, c, out, func(c int32, v *resourceapi.Counter) bool {
			return fields(t, c, func(key string, c int32) bool {
				return key == "value" && d.quantity(t, c, &v.Value)
			})
		})
	})
}

// cached decodes node c into out with decode, or takes the value decoded
// before for the same content (the tree's key of it, appendKey: equal keys
// are equal trees, which decode to equal values; it costs less than the
// JSON text, which a 50,000-node load spent 2.7 CPU-seconds writing).
func cached[V any](d *sliceDecoder, table map[string]V, t *docTree, c int32, out *V, decode func(*V) bool) bool {
	if isNull(t.node(c)) {
		return true
	}
	d.buf = t.appendKey(d.buf[:0], c)
	if v, ok := table[string(d.buf)]; ok {
		*out = v
		return true
	}
	// Empty maps and lists are not shared: they cost nothing, and JSON
	// decoding gives each its own.
	keep := t.node(c).children > 0 && d.held+len(d.buf) <= maxSliceCacheBytes
	var key string
	if keep {
		key = string(d.buf) // decode reuses the buffer
	}
	if !decode(out) {
		return false
	}
	if keep {
		d.held += len(key)
		table[key] = *out
	}
	return true
}

// sequence decodes a YAML sequence into a list, as JSON decoding does: an
// empty sequence gives an empty list, not nil. Null items are left to the
// JSON way.
func sequence[E any](t *docTree, c int32, out *[]E, item func(int32, *E) bool) bool {
	n := t.node(c)
	if isNull(n) {
		return true
	}
	if n.kind != treeSeq {
		return false
	}
	list := make([]E, n.children)
	i := 0
	for e := n.first; e >= 0; e, i = t.node(e).next, i+1 {
		if isNull(t.node(e)) || !item(e, &list[i]) {
			return false
		}
	}
	*out = list
	return true
}

// mapping decodes a YAML mapping into a map, as JSON decoding does: an
// empty mapping gives an empty map, not nil. Null values are left to the
// JSON way.
func mapping[K ~string, V any](t *docTree, c int32, out *map[K]V, value func(int32, *V) bool) bool {
	n := t.node(c)
	if isNull(n) {
		return true
	}
	if n.kind != treeMap {
		return false
	}
	m := make(map[K]V, n.children)
	for e := n.first; e >= 0; e = t.node(e).next {
		var v V
		if isNull(t.node(e)) || !value(e, &v) {
			return false
		}
		m[K(strings.Clone(t.node(e).key))] = v
	}
	*out = m
	return true
}

// stringMap decodes labels and annotations.
func (d *sliceDecoder) stringMap(t *docTree, c int32, out *map[string]string) bool {
	return mapping(t, c, out, func(c int32, v *string) bool {
		return d.sharedString(t, c, v)
	})
}

// ownString reads a string scalar into out, copied out of the file's text,
// which it must not keep alive.
func ownString[S ~string](t *docTree, c int32, out *S) bool {
	n := t.node(c)
	if isNull(n) {
		return true
	}
	if n.kind != treeScalar || n.scalar != scalarString {
		return false
	}
	*out = S(strings.Clone(n.value))
	return true
}

// optString, optBool and optInt64 read an optional field: JSON decoding
// sets the pointer when the value is not null.
func optString(t *docTree, c int32, out **string) bool {
	if isNull(t.node(c)) {
		return true
	}
	*out = new(string)
	return ownString(t, c, *out)
}

func optBool(t *docTree, c int32, out **bool) bool {
	if isNull(t.node(c)) {
		return true
	}
	*out = new(bool)
	return boolValue(t, c, *out)
}

func optInt64(t *docTree, c int32, out **int64) bool {
	if isNull(t.node(c)) {
		return true
	}
	*out = new(int64)
	return int64Value(t, c, *out)
}

// sharedString reads a string scalar that many slices repeat.
func (d *sliceDecoder) sharedString(t *docTree, c int32, out *string) bool {
	n := t.node(c)
	if isNull(n) {
		return true
	}
	if n.kind != treeScalar || n.scalar != scalarString {
		return false
	}
	if s, ok := d.strs[n.value]; ok {
		*out = s
		return true
	}
	s := strings.Clone(n.value)
	if len(d.strs) < maxSharedStrings {
		d.strs[s] = s
	}
	*out = s
	return true
}

// int64Value reads a number as JSON decoding reads it into an int64: the
// tree holds the number's JSON text.
func int64Value(t *docTree, c int32, out *int64) bool {
	n := t.node(c)
	if isNull(n) {
		return true
	}
	if n.kind != treeScalar || n.scalar != scalarNumber {
		return false
	}
	v, err := strconv.ParseInt(n.value, 10, 64)
	*out = v
	return err == nil
}

func boolValue(t *docTree, c int32, out *bool) bool {
	n := t.node(c)
	if isNull(n) {
		return true
	}
	if n.kind != treeScalar || n.scalar != scalarBool {
		return false
	}
	*out = n.value == "true"
	return true
}

// quantity reads a quantity with its own UnmarshalJSON, from the JSON text
// the JSON way would give it.
func (d *sliceDecoder) quantity(t *docTree, c int32, out *resource.Quantity) bool {
	n := t.node(c)
	if isNull(n) {
		return true
	}
	if n.kind != treeScalar || (n.scalar != scalarString && n.scalar != scalarNumber) {
		return false
	}
	return out.UnmarshalJSON(d.scalarJSON(n)) == nil
}

// scalarJSON returns a scalar's JSON text, in a buffer the next call
// reuses.
func (d *sliceDecoder) scalarJSON(n *treeNode) []byte {
	if n.scalar == scalarString {
		d.buf = appendJSONString(d.buf[:0], n.value)
	} else {
		d.buf = append(d.buf[:0], n.value...)
	}
	return d.buf
}
