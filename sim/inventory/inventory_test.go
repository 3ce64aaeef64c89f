package inventory

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// slice builds a ResourceSlice of the pool with the named devices, on
// node ("" for allNodes).
func slice(name, driver, pool string, gen int64, node string, devices ...string) *resourceapi.ResourceSlice {
	sl := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourceapi.ResourceSliceSpec{
			Driver: driver,
			Pool:   resourceapi.ResourcePool{Name: pool, Generation: gen, ResourceSliceCount: 1},
		},
	}
	if node != "" {
		sl.Spec.NodeName = ptr.To(node)
	} else {
		sl.Spec.AllNodes = ptr.To(true)
	}
	for _, d := range devices {
		sl.Spec.Devices = append(sl.Spec.Devices, resourceapi.Device{Name: d})
	}
	return sl
}

var nodeSelector = corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
	MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}},
}}}

func names(ss []*resourceapi.ResourceSlice) []string {
	out := []string{}
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

func TestPoolGenerations(t *testing.T) {
	in := []*resourceapi.ResourceSlice{
		slice("b-old", "gpu.example.com", "b", 1, "n1", "g0"),
		slice("a-1", "gpu.example.com", "a", 3, "n1", "g0"),
		nil,
		slice("b-new", "gpu.example.com", "b", 2, "n1", "g0", "g1"),
		slice("no-pool", "gpu.example.com", "", 1, "n1", "g0"),
		slice("b-older", "gpu.example.com", "b", 0, "n1", "g0"),
		slice("a-2", "gpu.example.com", "a", 3, "n2", "g1"),
		slice("nic", "nic.example.com", "a", 1, "n1", "eth0"),
	}
	type pool struct {
		ID              PoolID
		Generation      int64
		Slices, Current []string
		Stale           int
	}
	var got []pool
	for _, p := range Pools(in) {
		got = append(got, pool{p.ID, p.Generation, names(p.Slices), names(p.Current), p.Stale()})
	}
	want := []pool{
		{PoolID{"gpu.example.com", "a"}, 3, []string{"a-1", "a-2"}, []string{"a-1", "a-2"}, 0},
		{PoolID{"gpu.example.com", "b"}, 2, []string{"b-old", "b-new", "b-older"}, []string{"b-new"}, 2},
		{PoolID{"nic.example.com", "a"}, 1, []string{"nic"}, []string{"nic"}, 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Pools (-want +got):\n%s", diff)
	}
	// Current keeps the input order across pools: the order the allocator
	// reads the slices in.
	if diff := cmp.Diff([]string{"a-1", "b-new", "a-2", "nic"}, names(Current(in))); diff != "" {
		t.Errorf("Current (-want +got):\n%s", diff)
	}
}

func TestDeviceToNode(t *testing.T) {
	local := slice("local", "gpu.example.com", "p1", 1, "n1", "g0")
	everywhere := slice("everywhere", "gpu.example.com", "p2", 1, "", "g0")
	bySelector := slice("selector", "gpu.example.com", "p3", 1, "n1", "g0")
	bySelector.Spec.NodeName = nil
	bySelector.Spec.NodeSelector = &nodeSelector
	perDevice := slice("per-device", "gpu.example.com", "p4", 1, "", "g0", "g1", "g2")
	perDevice.Spec.AllNodes = nil
	perDevice.Spec.PerDeviceNodeSelection = ptr.To(true)
	perDevice.Spec.Devices[0].NodeName = ptr.To("n2")
	perDevice.Spec.Devices[1].AllNodes = ptr.To(true)
	perDevice.Spec.Devices[2].NodeSelector = &nodeSelector

	type dev struct {
		ID       string
		Node     string
		AllNodes bool
	}
	var got []dev
	for _, d := range Devices([]*resourceapi.ResourceSlice{local, everywhere, bySelector, perDevice}) {
		got = append(got, dev{d.ID.String(), d.Node, d.AllNodes})
	}
	want := []dev{
		{"gpu.example.com/p1/g0", "n1", false},
		{"gpu.example.com/p2/g0", "", true},
		{"gpu.example.com/p3/g0", "", false},
		{"gpu.example.com/p4/g0", "n2", false},
		{"gpu.example.com/p4/g1", "", true},
		{"gpu.example.com/p4/g2", "", false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Devices (-want +got):\n%s", diff)
	}
}

func class(name string, exprs ...string) *resourceapi.DeviceClass {
	c := &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, e := range exprs {
		c.Spec.Selectors = append(c.Spec.Selectors, resourceapi.DeviceSelector{CEL: &resourceapi.CELDeviceSelector{Expression: e}})
	}
	return c
}

func sels(exprs ...string) []resourceapi.DeviceSelector {
	return class("", exprs...).Spec.Selectors
}

// fleet is two GPUs (one with a memory attribute) and a NIC.
func fleet() []Device {
	gpus := slice("gpus", "gpu.example.com", "n1", 1, "n1", "g0", "g1")
	gpus.Spec.Devices[0].Attributes = map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"model": {StringValue: ptr.To("a100")}}
	nic := slice("nics", "nic.example.com", "n1", 1, "n1", "eth0")
	return Devices([]*resourceapi.ResourceSlice{gpus, nic})
}

func TestClassMatching(t *testing.T) {
	m := NewMatcher(context.Background(), nil, []*resourceapi.DeviceClass{
		class("gpu", `device.driver == "gpu.example.com"`),
		class("any"),
		class("a100", `device.driver == "gpu.example.com"`, `device.attributes["gpu.example.com"].?model.orValue("") == "a100"`),
	})
	devs := fleet()
	got := map[string][]string{}
	for _, d := range devs {
		got[d.ID.String()] = m.ClassesOf(d)
	}
	want := map[string][]string{
		"gpu.example.com/n1/g0":   {"gpu", "any", "a100"},
		"gpu.example.com/n1/g1":   {"gpu", "any"},
		"nic.example.com/n1/eth0": {"any"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ClassesOf (-want +got):\n%s", diff)
	}
	if !m.Selects("gpu", "claim/r", sels(`device.attributes["gpu.example.com"].?model.orValue("") == "a100"`), devs[0]) {
		t.Errorf("Selects(gpu, model a100) on %s = false, want true", devs[0].ID)
	}
	if m.Selects("gpu", "claim/r", sels(`device.attributes["gpu.example.com"].?model.orValue("") == "a100"`), devs[1]) {
		t.Errorf("Selects(gpu, model a100) on %s = true, want false", devs[1].ID)
	}
	if m.Selects("gpu", "claim/r", nil, devs[2]) {
		t.Errorf("Selects(gpu) on the NIC %s = true, want false", devs[2].ID)
	}
	if ok, err := m.ClassSelects("no-such-class", devs[0]); ok || err != nil {
		t.Errorf("ClassSelects(no-such-class) = %v, %v; want false, nil", ok, err)
	}
	if m.Class("no-such-class") != nil || m.Class("gpu") == nil {
		t.Errorf("Class: want nil for an unknown class and the class for gpu")
	}
	if errs := m.Errors(); len(errs) != 0 {
		t.Errorf("Errors = %v, want none", errs)
	}
}

func TestCELErrorsReported(t *testing.T) {
	m := NewMatcher(context.Background(), nil, []*resourceapi.DeviceClass{
		class("broken", `device.driver ==`),
		class("a100", `device.driver == "gpu.example.com"`, `device.attributes["gpu.example.com"].model == "a100"`),
	})
	devs := fleet()
	for _, d := range devs {
		m.ClassesOf(d)
		m.ClassesOf(d) // each failing selector is reported once
	}
	ok, err := m.ClassSelects("a100", devs[1])
	var ce *CELError
	if ok || !errors.As(err, &ce) || ce.Class != "a100" || ce.Selector != 1 || ce.Device.String() != "gpu.example.com/n1/g1" {
		t.Fatalf("ClassSelects(a100) on g1 = %v, %v; want false and a *CELError of class a100, selector #1, device gpu.example.com/n1/g1", ok, err)
	}
	m.RequestSelects("claim/gpu", sels(`device.capacity["gpu.example.com"].memory.compareTo(quantity("1Gi")) >= 0`), devs[0])

	type row struct {
		Subject  string
		Selector int
		Compile  bool
		Device   string
	}
	var got []row
	for _, e := range m.Errors() {
		got = append(got, row{e.Subject(), e.Selector, e.Compile(), e.Device.String()})
		if e.Err == nil || e.Error() == "" {
			t.Errorf("error %#v has no cause or text", e)
		}
	}
	want := []row{
		{"DeviceClass broken", 0, true, "//"},
		{"DeviceClass a100", 1, false, "gpu.example.com/n1/g1"},
		{"request claim/gpu", 0, false, "gpu.example.com/n1/g0"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Errors (-want +got):\n%s", diff)
	}
	if e := m.ClassError("broken"); e == nil || !e.Compile() {
		t.Errorf("ClassError(broken) = %v, want its compile error", e)
	}
}
