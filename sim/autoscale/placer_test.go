package autoscale

import (
	"context"
	"testing"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/schedule"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// TestFirstFitGoesOnAfterAnErrorStatus: a filter's Error status on a node
// (here a class selector reading an attribute the node's GPU lacks) means
// the pod does not fit that node, and first-fit goes on to the next one,
// as CA's CheckPredicates does; the scheduler's Feasible, which fails the
// whole pass on the first Error, must not make it give up. A pod that fits
// no node is still found so.
func TestFirstFitGoesOnAfterAnErrorStatus(t *testing.T) {
	gpu := func(node string, attrs map[resourceapi.QualifiedName]resourceapi.DeviceAttribute) *resourceapi.ResourceSlice {
		return &resourceapi.ResourceSlice{
			ObjectMeta: metav1.ObjectMeta{Name: node + "-gpu"},
			Spec: resourceapi.ResourceSliceSpec{Driver: gpuDriver, NodeName: ptr.To(node), Pool: resourceapi.ResourcePool{Name: node, ResourceSliceCount: 1},
				Devices: []resourceapi.Device{{Name: "gpu-0", Attributes: attrs}}},
		}
	}
	a100 := &resourceapi.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: "a100"},
		Spec: resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{
			Expression: `device.attributes["gpu.example.com"].model == "a100"`,
		}}}},
	}
	template := func(name, class string) *resourceapi.ResourceClaimTemplate {
		t := gpuTemplate(name, 1, false)
		t.Spec.Spec.Devices.Requests[0].Exactly.DeviceClassName = class
		return t
	}
	snap := snapshotOf(
		makeNode("n1", nil, "8"), makeNode("n2", nil, "8"),
		gpu("n1", nil), // no model: the a100 selector fails with a CEL error here
		gpu("n2", map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{"model": {StringValue: ptr.To("a100")}}),
		gpuClass(), a100, template("one-a100", "a100"), template("one-h100", "h100"),
		&resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "h100"}, Spec: resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{
			Expression: `device.driver == "gpu.example.com" && "model" in device.attributes["gpu.example.com"] && device.attributes["gpu.example.com"].model == "h100"`,
		}}}}},
		makePod("a").CPU("1").Claim("one-a100").Obj(),
		makePod("h").CPU("1").Claim("one-h100").Obj(),
	)
	c := cluster.Build(snap, feature.Defaults())
	e, err := sim.NewEngine(c, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := newChecker(e)
	so := schedule.Options{}
	p := newPlacer(k, e.Scheduler(so), &lastIndex{last: -1})
	pods := map[string]*v1.Pod{}
	for _, pod := range c.Queue() {
		pods[pod.Name] = pod
	}
	if a := p.eval.Feasible(context.Background(), pods["a"]); a.Error == nil {
		t.Fatalf("fixture: the scheduler's filter pass should fail on n1 with an Error status, got %d feasible node(s)", a.FeasibleNodes)
	}
	c.Fork()
	defer c.Revert()
	placed, err := p.trySchedule(context.Background(), []*v1.Pod{pods["a"], pods["h"]}, false, nil)
	if err != nil {
		t.Fatalf("trySchedule: %v", err)
	}
	if len(placed) != 1 || placed[0].pod != pods["a"] || placed[0].node != "n2" {
		var got []string
		for _, pl := range placed {
			got = append(got, pl.pod.Name+" on "+pl.node)
		}
		t.Errorf("placed %q; want a on n2 (n1's Error status means it does not fit there), h nowhere", got)
	}
}
