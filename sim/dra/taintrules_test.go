package dra

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/utils/ptr"
)

// TestApplyTaintRulesLeavesInputAlone: the patched slice gets the taints,
// the input keeps its own, even where its taint list has room to spare.
func TestApplyTaintRulesLeavesInputAlone(t *testing.T) {
	old := resourceapi.DeviceTaint{Key: "old", Effect: resourceapi.DeviceTaintEffectNoSchedule}
	spare := make([]resourceapi.DeviceTaint, 1, 4)
	spare[0] = old
	in := &resourceapi.ResourceSlice{Spec: resourceapi.ResourceSliceSpec{
		Driver: "d", Pool: resourceapi.ResourcePool{Name: "p"}, NodeName: ptr.To("n"),
		Devices: []resourceapi.Device{
			{Name: "a", Taints: spare, Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"x": {IntValue: ptr.To[int64](1)}}},
			{Name: "b"},
		},
	}}
	before := in.DeepCopy()
	rule := func(device string, key string) *resourceapi.DeviceTaintRule {
		return &resourceapi.DeviceTaintRule{Spec: resourceapi.DeviceTaintRuleSpec{
			DeviceSelector: &resourceapi.DeviceTaintSelector{Driver: ptr.To("d"), Device: ptr.To(device)},
			Taint:          resourceapi.DeviceTaint{Key: key, Effect: resourceapi.DeviceTaintEffectNoExecute},
		}}
	}
	out := applyTaintRules(in, []*resourceapi.DeviceTaintRule{rule("a", "r1"), rule("a", "r2"), rule("c", "r3")})
	if diff := cmp.Diff(before, in); diff != "" {
		t.Errorf("input slice changed (-before +after):\n%s", diff)
	}
	if got := spare[:2][1]; got != (resourceapi.DeviceTaint{}) {
		t.Errorf("input's spare taint capacity: want untouched, got %+v", got)
	}
	want := before.DeepCopy()
	want.Spec.Devices[0].Taints = append(want.Spec.Devices[0].Taints, rule("a", "r1").Spec.Taint, rule("a", "r2").Spec.Taint)
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("patched slice (-want +got):\n%s", diff)
	}
	if none := applyTaintRules(in, []*resourceapi.DeviceTaintRule{rule("c", "r3")}); none != in {
		t.Errorf("no device matched: want the input slice itself, got a copy")
	}
}
