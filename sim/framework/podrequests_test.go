package framework

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// requestSumsCases are pods on which sharing one sum could go wrong:
// containers without a CPU or memory request (the defaults must apply),
// init containers and sidecars, pod-level requests, overhead, and each
// kind of resource status (the spec's sum then differs from the
// status-honouring one).
func requestSumsCases() map[string]*v1.Pod {
	full := func() *v1.Pod {
		return pod("p", v1.PodSpec{
			InitContainers: []v1.Container{container("init", "cpu", "3", "memory", "1Gi"), sidecar("side", "cpu", "250m", "memory", "64Mi")},
			Containers:     []v1.Container{container("a", "cpu", "1", "memory", "512Mi", "example.com/gpu", "2"), container("b", "cpu", "2", "memory", "1Gi")},
			Overhead:       rl("cpu", "50m"),
		})
	}
	pods := map[string]*v1.Pod{
		"every container sets cpu and memory": full(),
		"no requests":                         pod("p", v1.PodSpec{Containers: []v1.Container{container("a"), container("b")}}),
		"cpu only":                            pod("p", v1.PodSpec{Containers: []v1.Container{container("a", "cpu", "1")}}),
		"memory only in an init container": pod("p", v1.PodSpec{
			InitContainers: []v1.Container{container("i", "memory", "2Gi")},
			Containers:     []v1.Container{container("a", "cpu", "1", "memory", "1Gi")},
		}),
		"extended resource only": pod("p", v1.PodSpec{Containers: []v1.Container{container("a", "example.com/gpu", "1")}}),
	}
	{
		p := full()
		p.Spec.Resources = &v1.ResourceRequirements{Requests: rl("cpu", "8", "memory", "8Gi")}
		pods["pod-level requests"] = p
	}
	{
		p := pod("p", v1.PodSpec{Containers: []v1.Container{container("a"), container("b", "cpu", "1")}})
		p.Spec.Resources = &v1.ResourceRequirements{Requests: rl("cpu", "4")}
		pods["pod-level cpu, containers without memory"] = p
	}
	{
		p := full()
		p.Status.ContainerStatuses = []v1.ContainerStatus{{Name: "a", AllocatedResources: rl("cpu", "6", "memory", "4Gi"), Resources: &v1.ResourceRequirements{Requests: rl("cpu", "6")}}}
		pods["container status"] = p
	}
	{
		p := full()
		p.Status.InitContainerStatuses = []v1.ContainerStatus{{Name: "side", AllocatedResources: rl("cpu", "5")}}
		pods["init container status"] = p
	}
	{
		p := full()
		p.Spec.Resources = &v1.ResourceRequirements{Requests: rl("cpu", "4")}
		p.Status.Resources = &v1.ResourceRequirements{Requests: rl("cpu", "7")}
		p.Status.AllocatedResources = rl("cpu", "7")
		pods["pod-level status"] = p
	}
	{
		p := full()
		p.Status.Conditions = []v1.PodCondition{{Type: v1.PodResizePending, Reason: v1.PodReasonInfeasible}}
		pods["resize infeasible"] = p
	}
	return pods
}

// TestPodRequestSums holds each shared sum to the helper's own sum with
// the options of the reader it replaces, and the NodeInfo's share to
// NewPodInfo's.
func TestPodRequestSums(t *testing.T) {
	scorer := podRequestOptions()
	scorer.NonMissingContainerRequests = rl("cpu", "100m", "memory", "200Mi")
	equal := cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })
	for name, p := range requestSumsCases() {
		t.Run(name, func(t *testing.T) {
			got := NewPodRequestSums(p)
			for _, c := range []struct {
				field string
				got   v1.ResourceList
				opts  resourcehelper.PodResourcesOptions
			}{
				{"Spec (NodeResourcesFit's filter)", got.Spec, resourcehelper.PodResourcesOptions{SkipPodLevelResources: false}},
				{"Requests (NodeInfo, BalancedAllocation)", got.Requests, podRequestOptions()},
				{"NonZero (NodeResourcesFit's scorer)", got.NonZero, scorer},
			} {
				want := resourcehelper.PodRequests(p, c.opts)
				if diff := cmp.Diff(want, c.got, equal); diff != "" {
					t.Errorf("%s mismatch (-want +got):\n%s", c.field, diff)
				}
			}
			want := NewPodInfo(p).CalculateResource()
			if diff := cmp.Diff(want, NewPodInfoWithRequests(p, got).CalculateResource()); diff != "" {
				t.Errorf("NewPodInfoWithRequests(...).CalculateResource() mismatch with NewPodInfo's (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodRequestCache(t *testing.T) {
	var c PodRequestCache
	p := requestSumsCases()["cpu only"]
	first := c.Get(p)
	if again := c.Get(p); again != first {
		t.Errorf("Get twice: got a new PodRequestSums, want the cached one")
	}
	other := requestSumsCases()["cpu only"] // equal spec, another pod
	if c.Get(other) == first {
		t.Errorf("Get(another pod with the same spec): got the first pod's sums, want its own")
	}
	c.Forget(p)
	if c.Get(p) == first {
		t.Errorf("Get after Forget: got the forgotten sums, want them computed again")
	}
	var none *PodRequestCache
	if got, want := none.Get(p).Requests.Cpu().MilliValue(), int64(1000); got != want {
		t.Errorf("nil cache: Get(p).Requests cpu = %dm, want %dm", got, want)
	}
	none.Forget(p) // must not panic
}
