package dra

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/drasim/drasim/sim/generate"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func hashSpec(spec *resourceapi.ResourceSliceSpec) uint64 {
	h := newSliceHasher()
	h.spec(spec)
	return h.sum()
}

// jsonSpec is what indexSlices hashed before the hasher: the spec's JSON
// without the node and pool names.
func jsonSpec(t *testing.T, spec resourceapi.ResourceSliceSpec) string {
	t.Helper()
	spec.NodeName = nil
	spec.Pool.Name = ""
	data, err := json.Marshal(&spec)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	return string(data)
}

// TestSliceHashAgreesWithJSON checks the hasher against the JSON encoding it
// replaces, on the generator's slices and on variants that change one
// field each (fields hashed directly and fields it falls back to JSON for):
// two specs hash alike exactly when their JSON is the same.
func TestSliceHashAgreesWithJSON(t *testing.T) {
	snap, err := generate.Generate(generate.Options{Nodes: 8, Profiles: map[string]int{
		generate.ProfileDGXH100: 1, generate.ProfileA100MIG: 1, generate.ProfileL4: 1, generate.ProfileCPU: 1}})
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	var dgx, a100 *resourceapi.ResourceSlice
	specs := map[string]resourceapi.ResourceSliceSpec{}
	for _, sl := range snap.ResourceSlices {
		specs[sl.Name] = sl.Spec
		if dgx == nil && len(sl.Spec.Devices) == 8 {
			dgx = sl
		}
		if a100 == nil && len(sl.Spec.SharedCounters) > 0 {
			a100 = sl
		}
	}
	variants := map[string]func(s *resourceapi.ResourceSliceSpec){
		"node and pool renamed": func(s *resourceapi.ResourceSliceSpec) {
			s.NodeName, s.Pool.Name = ptr.To("other"), "other"
		},
		"driver":            func(s *resourceapi.ResourceSliceSpec) { s.Driver = "other.example.com" },
		"pool generation":   func(s *resourceapi.ResourceSliceSpec) { s.Pool.Generation++ },
		"slice count":       func(s *resourceapi.ResourceSliceSpec) { s.Pool.ResourceSliceCount++ },
		"device name":       func(s *resourceapi.ResourceSliceSpec) { s.Devices[0].Name = "gpu-9" },
		"device order":      func(s *resourceapi.ResourceSliceSpec) { s.Devices[0], s.Devices[1] = s.Devices[1], s.Devices[0] },
		"device removed":    func(s *resourceapi.ResourceSliceSpec) { s.Devices = s.Devices[1:] },
		"int attribute":     func(s *resourceapi.ResourceSliceSpec) { s.Devices[0].Attributes["index"] = attrInt(7) },
		"string attribute":  func(s *resourceapi.ResourceSliceSpec) { s.Devices[0].Attributes["model"] = attrStr("b200") },
		"attribute renamed": func(s *resourceapi.ResourceSliceSpec) { moveKey(s.Devices[0].Attributes, "model", "kind") },
		"attribute removed": func(s *resourceapi.ResourceSliceSpec) { delete(s.Devices[0].Attributes, "model") },
		"string or version": func(s *resourceapi.ResourceSliceSpec) {
			a := s.Devices[0].Attributes["model"]
			a.VersionValue, a.StringValue = a.StringValue, nil
			s.Devices[0].Attributes["model"] = a
		},
		"capacity": func(s *resourceapi.ResourceSliceSpec) {
			s.Devices[0].Capacity["memory"] = resourceapi.DeviceCapacity{Value: resource.MustParse("40Gi")}
		},
		"capacity spelled": func(s *resourceapi.ResourceSliceSpec) { setCapacity(s, "81920Mi") }, // the same quantity as 80Gi
		"capacity renamed": func(s *resourceapi.ResourceSliceSpec) { moveKey(s.Devices[0].Capacity, "memory", "mem") },
		"capacity policy": func(s *resourceapi.ResourceSliceSpec) {
			c := s.Devices[0].Capacity["memory"]
			c.RequestPolicy = &resourceapi.CapacityRequestPolicy{Default: ptr.To(resource.MustParse("1Gi"))}
			s.Devices[0].Capacity["memory"] = c
		},
		"taint": func(s *resourceapi.ResourceSliceSpec) {
			s.Devices[0].Taints = []resourceapi.DeviceTaint{{Key: "k", Effect: resourceapi.DeviceTaintEffectNoSchedule}}
		},
		"taint added at": func(s *resourceapi.ResourceSliceSpec) {
			s.Devices[0].Taints = []resourceapi.DeviceTaint{{Key: "k", Effect: resourceapi.DeviceTaintEffectNoSchedule, TimeAdded: &metav1.Time{}}}
		},
		"multi-allocatable":  func(s *resourceapi.ResourceSliceSpec) { s.Devices[0].AllowMultipleAllocations = ptr.To(true) },
		"binds to node":      func(s *resourceapi.ResourceSliceSpec) { s.Devices[0].BindsToNode = ptr.To(true) },
		"binding conditions": func(s *resourceapi.ResourceSliceSpec) { s.Devices[0].BindingConditions = []string{"ready"} },
		"node allocatable": func(s *resourceapi.ResourceSliceSpec) {
			s.Devices[0].NodeAllocatableResources = map[v1.ResourceName]resourceapi.NodeAllocatableResource{}
			s.Devices[0].NodeAllocatableResources["cpu"] = resourceapi.NodeAllocatableResource{}
		},
		"per-device node selection": func(s *resourceapi.ResourceSliceSpec) { s.PerDeviceNodeSelection = ptr.To(true) },
		"partition attribute": func(s *resourceapi.ResourceSliceSpec) {
			s.PartitionTypeAttribute = ptr.To(resourceapi.FullyQualifiedName("x/y"))
		},
	}
	// One more attribute, of every kind; no two alike.
	for name, attr := range map[string]resourceapi.DeviceAttribute{
		"true":     {BoolValue: ptr.To(true)},
		"false":    {BoolValue: ptr.To(false)},
		"int 1":    {IntValue: ptr.To[int64](1)},
		"string 1": {StringValue: ptr.To("1")},
		"version1": {VersionValue: ptr.To("1.0.0")},
		"version2": {VersionValue: ptr.To("2.0.0")},
		"ints 1 2": {IntValues: []int64{1, 2}},
		"ints 1 3": {IntValues: []int64{1, 3}},
		"strings":  {StringValues: []string{"a"}},
	} {
		variants["attribute "+name] = func(s *resourceapi.ResourceSliceSpec) { s.Devices[0].Attributes["extra"] = attr }
	}
	// Taints, hashed directly: each field counts, sub-second times do not
	// (JSON has seconds).
	at := func(sec int64, nsec int64) *metav1.Time { return &metav1.Time{Time: time.Unix(sec, nsec)} }
	for name, taints := range map[string][]resourceapi.DeviceTaint{
		"key":         {{Key: "other", Effect: resourceapi.DeviceTaintEffectNoSchedule}},
		"value":       {{Key: "k", Value: "v", Effect: resourceapi.DeviceTaintEffectNoSchedule}},
		"effect":      {{Key: "k", Effect: resourceapi.DeviceTaintEffectNoExecute}},
		"two":         {{Key: "k", Effect: resourceapi.DeviceTaintEffectNoSchedule}, {Key: "k2", Effect: resourceapi.DeviceTaintEffectNone}},
		"time 1":      {{Key: "k", Effect: resourceapi.DeviceTaintEffectNoSchedule, TimeAdded: at(1e9, 0)}},
		"time 1 + ns": {{Key: "k", Effect: resourceapi.DeviceTaintEffectNoSchedule, TimeAdded: at(1e9, 5e8)}},
		"time 2":      {{Key: "k", Effect: resourceapi.DeviceTaintEffectNoSchedule, TimeAdded: at(1e9+1, 0)}},
	} {
		variants["taint "+name] = func(s *resourceapi.ResourceSliceSpec) { s.Devices[0].Taints = taints }
	}
	counterVariants := map[string]func(s *resourceapi.ResourceSliceSpec){
		"counter set name": func(s *resourceapi.ResourceSliceSpec) { s.SharedCounters[0].Name = "gpu-9" },
		"counter value":    func(s *resourceapi.ResourceSliceSpec) { setCounter(s.SharedCounters[0].Counters, "slices", "6") },
		"counter renamed":  func(s *resourceapi.ResourceSliceSpec) { moveKey(s.SharedCounters[0].Counters, "slices", "sm") },
		"counter set order": func(s *resourceapi.ResourceSliceSpec) {
			s.SharedCounters[0], s.SharedCounters[1] = s.SharedCounters[1], s.SharedCounters[0]
		},
	}
	var a100Devices *resourceapi.ResourceSlice
	for _, sl := range snap.ResourceSlices {
		if len(sl.Spec.Devices) > 0 && len(sl.Spec.Devices[0].ConsumesCounters) > 0 {
			a100Devices = sl
			break
		}
	}
	consumesVariants := map[string]func(s *resourceapi.ResourceSliceSpec){
		"consumed set": func(s *resourceapi.ResourceSliceSpec) { s.Devices[0].ConsumesCounters[0].CounterSet = "gpu-9" },
		"consumed value": func(s *resourceapi.ResourceSliceSpec) {
			setCounter(s.Devices[0].ConsumesCounters[0].Counters, "memory", "1Gi")
		},
		"consumed groups": func(s *resourceapi.ResourceSliceSpec) {
			s.Devices[0].ConsumesCounters[0].CompatibilityGroups = []string{"a"}
		},
		"consumes no longer": func(s *resourceapi.ResourceSliceSpec) { s.Devices[0].ConsumesCounters = nil },
	}
	for base, vs := range map[*resourceapi.ResourceSlice]map[string]func(s *resourceapi.ResourceSliceSpec){dgx: variants, a100: counterVariants, a100Devices: consumesVariants} {
		for name, change := range vs {
			cp := base.DeepCopy()
			change(&cp.Spec)
			specs[base.Name+": "+name] = cp.Spec
		}
	}
	names := make([]string, 0, len(specs))
	for n := range specs {
		names = append(names, n)
	}
	for i, a := range names {
		sa := specs[a]
		for _, b := range names[i:] {
			sb := specs[b]
			sameJSON := jsonSpec(t, sa) == jsonSpec(t, sb)
			if sameHash := hashSpec(&sa) == hashSpec(&sb); sameJSON != sameHash {
				t.Errorf("%q and %q: same JSON %v, same hash %v; want both or neither", a, b, sameJSON, sameHash)
			}
		}
	}
	// The variants must hash as the JSON says: renaming the node keeps the
	// hash, every other change is seen.
	renamed := specs[dgx.Name+": node and pool renamed"]
	if hashSpec(&renamed) != hashSpec(&dgx.Spec) {
		t.Errorf("renaming the node and pool: want the same hash")
	}
	spelled := specs[dgx.Name+": capacity spelled"]
	if hashSpec(&spelled) != hashSpec(&dgx.Spec) {
		t.Errorf("80Gi written as 81920Mi: want the same hash, as the JSON is the same")
	}
}

func attrInt(v int64) resourceapi.DeviceAttribute { return resourceapi.DeviceAttribute{IntValue: &v} }
func attrStr(v string) resourceapi.DeviceAttribute {
	return resourceapi.DeviceAttribute{StringValue: &v}
}

func moveKey[K ~string, V any](m map[K]V, from, to K) {
	m[to] = m[from]
	delete(m, from)
}

func setCapacity(s *resourceapi.ResourceSliceSpec, q string) {
	s.Devices[0].Capacity["memory"] = resourceapi.DeviceCapacity{Value: resource.MustParse(q)}
}

func setCounter(m map[string]resourceapi.Counter, name, q string) {
	m[name] = resourceapi.Counter{Value: resource.MustParse(q)}
}

// TestSliceHashLeavesSnapshotAlone: hashing must not write into the
// objects (their quantities cache their string form when asked for it).
func TestSliceHashLeavesSnapshotAlone(t *testing.T) {
	q := resource.MustParse("81920Mi")
	spec := resourceapi.ResourceSliceSpec{Driver: "d", Devices: []resourceapi.Device{{Name: "a", Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{"memory": {Value: q}}}}}
	before := spec.Devices[0].Capacity["memory"]
	hashSpec(&spec)
	if after := spec.Devices[0].Capacity["memory"]; after != before {
		t.Errorf("capacity after hashing: want %#v unchanged, got %#v", before, after)
	}
}

// TestSliceHashSharedMaps holds the hash of a spec whose devices share
// their maps (as a loaded dump's do, and the generator's) to the hash of
// the same spec with a copy of every map, hashed by one hasher after the
// other: hashing each map once must not change what a spec hashes to, nor
// let a changed copy pass for the original.
func TestSliceHashSharedMaps(t *testing.T) {
	snap, err := generate.Generate(generate.Options{Nodes: 2, Profiles: map[string]int{generate.ProfileA100MIG: 1}})
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	var shared resourceapi.ResourceSliceSpec
	for _, sl := range snap.ResourceSlices {
		if len(sl.Spec.Devices) > len(shared.Devices) {
			shared = sl.Spec
		}
	}
	if len(shared.Devices) < 4 || len(shared.Devices[3].Attributes) == 0 {
		t.Fatalf("the generated A100 slice has %d devices; want some with attributes", len(shared.Devices))
	}
	copied := *shared.DeepCopy()
	h := newSliceHasher()
	h.spec(&shared)
	want := h.sum()
	for name, spec := range map[string]*resourceapi.ResourceSliceSpec{"shared again": &shared, "copied": &copied} {
		h.reset()
		h.spec(spec)
		if got := h.sum(); got != want {
			t.Errorf("%s: hash %x, want %x as for the first", name, got, want)
		}
	}
	// A new hasher, as each indexSlices call has: maps do not change
	// while one lives.
	copied.Devices[3].Attributes["extra"] = resourceapi.DeviceAttribute{StringValue: ptr.To("x")}
	h = newSliceHasher()
	h.spec(&copied)
	if h.sum() == want {
		t.Errorf("a device with one more attribute hashes as the original")
	}
}
