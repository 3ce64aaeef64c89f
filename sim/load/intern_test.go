package load

import (
	"encoding/json"
	"reflect"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
)

const twoNodesSlices = `
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: a}
spec:
  driver: gpu.example.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 1}
  sharedCounters:
  - name: gpu-0
    counters: {memory: {value: 40Gi}}
  devices:
  - name: gpu-0
    attributes: {model: {string: A100}, index: {int: 0}}
    capacity: {memory: {value: 40Gi}}
    consumesCounters:
    - counterSet: gpu-0
      counters: {memory: {value: 40Gi}}
  - name: gpu-1
    attributes: {model: {string: A100}, index: {int: 1}}
    capacity: {memory: {value: 40Gi}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: b}
spec:
  driver: gpu.example.com
  nodeName: node-b
  pool: {name: node-b, generation: 1, resourceSliceCount: 1}
  sharedCounters:
  - name: gpu-0
    counters: {memory: {value: 40Gi}}
  devices:
  - name: gpu-0
    attributes: {model: {string: A100}, index: {int: 0}}
    capacity: {memory: {value: "42949672960"}}
    consumesCounters:
    - counterSet: gpu-0
      counters: {memory: {value: 40Gi}}
  - name: gpu-1
    attributes: {model: {string: H100}, index: {int: 1}}
    capacity: {memory: {value: 40Gi}}
`

func mapID(m any) uintptr { return reflect.ValueOf(m).Pointer() }

// TestDeviceMapsAreShared: equal attribute, capacity and counter maps of
// different slices become one map; maps that differ in a value, or in how
// a quantity is written, stay apart.
func TestDeviceMapsAreShared(t *testing.T) {
	res, err := LoadBytes("slices.yaml", []byte(twoNodesSlices), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var a, b *resourceapi.ResourceSlice
	for _, sl := range res.Snapshot.ResourceSlices {
		switch sl.Name {
		case "a":
			a = sl
		case "b":
			b = sl
		}
	}
	if a == nil || b == nil {
		t.Fatalf("want slices a and b, got %d slices", len(res.Snapshot.ResourceSlices))
	}
	da, db := a.Spec.Devices, b.Spec.Devices
	if mapID(da[0].Attributes) != mapID(db[0].Attributes) {
		t.Error("gpu-0's equal attributes on both nodes: want one shared map")
	}
	if mapID(da[1].Attributes) == mapID(db[1].Attributes) {
		t.Error("gpu-1's attributes differ (A100, H100): want two maps")
	}
	if mapID(da[0].Capacity) == mapID(db[0].Capacity) {
		t.Error("40Gi and 42949672960 are written back differently: want two capacity maps")
	}
	if mapID(da[0].Capacity) != mapID(da[1].Capacity) {
		t.Error("equal capacity of gpu-0 and gpu-1 on node a: want one shared map")
	}
	if mapID(da[0].ConsumesCounters[0].Counters) != mapID(db[0].ConsumesCounters[0].Counters) ||
		mapID(a.Spec.SharedCounters[0].Counters) != mapID(db[0].ConsumesCounters[0].Counters) {
		t.Error("equal counters: want one shared map")
	}
	if got := db[1].Attributes["model"].StringValue; got == nil || *got != "H100" {
		t.Errorf("node b's gpu-1 model: want H100, got %v", got)
	}
	if q := db[0].Capacity["memory"].Value; q.String() != "42949672960" {
		t.Errorf("node b's gpu-0 capacity: want it written as loaded, 42949672960, got %s", q.String())
	}
}

// TestDeviceListsAreShared: slices whose device lists are equal share one
// list, and lists that differ in anything (the twoNodesSlices' second
// slice) stay apart: on a generated dump, one list per distinct content.
func TestDeviceListsAreShared(t *testing.T) {
	path := writeGenerated(t, t.TempDir(), 6, 0)
	res, err := Load([]string{path}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	lists := map[uintptr]string{}
	contents := map[string]bool{}
	for _, sl := range res.Snapshot.ResourceSlices {
		if len(sl.Spec.Devices) == 0 {
			continue
		}
		data, err := json.Marshal(sl.Spec.Devices)
		if err != nil {
			t.Fatal(err)
		}
		id := reflect.ValueOf(sl.Spec.Devices).Pointer()
		if prev, seen := lists[id]; seen && prev != string(data) {
			t.Errorf("slice %s shares its device list with a slice whose devices differ", sl.Name)
		}
		lists[id] = string(data)
		contents[string(data)] = true
	}
	if len(lists) != len(contents) || len(contents) == 0 {
		t.Errorf("%d device lists for %d distinct contents; want one list per content", len(lists), len(contents))
	}
	res, err = LoadBytes("slices.yaml", []byte(twoNodesSlices), Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := res.Snapshot.ResourceSlices[0].Spec.Devices, res.Snapshot.ResourceSlices[1].Spec.Devices
	if mapID(a) == mapID(b) {
		t.Errorf("slices a and b share a device list, though b's differ")
	}
}
