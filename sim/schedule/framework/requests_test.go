package framework

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
)

// TestPodRequestsShortcut compares PodRequests with the helper's on pods
// with and without resource status, under every option set the scheduler
// and the autoscaler use: the shortcut must never change a value.
func TestPodRequestsShortcut(t *testing.T) {
	base := func() *v1.Pod {
		return pod("p", v1.PodSpec{
			InitContainers: []v1.Container{container("init", "cpu", "3", "memory", "1Gi"), sidecar("side", "cpu", "250m")},
			Containers:     []v1.Container{container("a", "cpu", "1", "memory", "512Mi", "example.com/gpu", "2"), container("b")},
			Overhead:       rl("cpu", "50m"),
		})
	}
	pods := map[string]*v1.Pod{"pending": base()}
	{
		p := base()
		p.Spec.Resources = &v1.ResourceRequirements{Requests: rl("cpu", "4", "memory", "8Gi")}
		pods["pod-level"] = p
	}
	{
		p := base() // resized up: the kubelet allocated more than the spec now asks
		p.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "a", AllocatedResources: rl("cpu", "6", "memory", "4Gi"), Resources: &v1.ResourceRequirements{Requests: rl("cpu", "6")}}}
		pods["container-status"] = p
	}
	{
		p := base()
		p.Status.InitContainerStatuses = []v1.ContainerStatus{{Name: "side", AllocatedResources: rl("cpu", "5")}}
		pods["init-container-status"] = p
	}
	{
		p := base()
		p.Spec.Resources = &v1.ResourceRequirements{Requests: rl("cpu", "4")}
		p.Status.Resources = &v1.ResourceRequirements{Requests: rl("cpu", "7")}
		p.Status.AllocatedResources = rl("cpu", "7")
		pods["pod-level-status"] = p
	}
	{
		p := base() // an infeasible resize and no statuses: the helper counts nothing of the spec
		p.Status.Conditions = []v1.PodCondition{{Type: v1.PodResizePending, Reason: v1.PodReasonInfeasible}}
		pods["resize-infeasible"] = p
	}
	scorer := podRequestOptions()
	scorer.NonMissingContainerRequests = rl("cpu", "100m", "memory", "200Mi")
	options := map[string]resourcehelper.PodResourcesOptions{
		"nodeinfo":   podRequestOptions(),
		"scorer":     scorer,
		"autoscaler": {UseStatusResources: true},
		"fit":        {SkipPodLevelResources: false},
	}
	for pname, p := range pods {
		for oname, opts := range options {
			want := resourcehelper.PodRequests(p, opts)
			got := PodRequests(p, opts)
			if len(got) != len(want) {
				t.Errorf("%s, %s: got %v, want %v", pname, oname, got, want)
				continue
			}
			for name, q := range want {
				if g, ok := got[name]; !ok || g.Cmp(q) != 0 {
					t.Errorf("%s, %s: %s = %v, want %v", pname, oname, name, got[name], q)
				}
			}
		}
	}
	// The cases above must exercise the status: otherwise the test could
	// not tell a shortcut taken wrongly.
	for _, name := range []string{"container-status", "init-container-status", "pod-level-status", "resize-infeasible"} {
		p := pods[name]
		withStatus := resourcehelper.PodRequests(p, podRequestOptions())
		specOnly := resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})
		if withStatus.Cpu().Cmp(*specOnly.Cpu()) == 0 {
			t.Errorf("%s: the status does not change the CPU request (%v): the case tests nothing", name, withStatus.Cpu())
		}
	}
}
