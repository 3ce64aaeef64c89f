package framework

import (
	"testing"

	resourcehelper "k8s.io/component-helpers/resource"
)

// TestPodRequestsShortcut compares PodRequests with the helper's on pods
// with and without resource status, under every option set the scheduler
// and the autoscaler use: the shortcut must never change a value.
func TestPodRequestsShortcut(t *testing.T) {
	pods := requestSumsCases()
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
	for _, name := range []string{"container status", "init container status", "pod-level status", "resize infeasible"} {
		p := pods[name]
		withStatus := resourcehelper.PodRequests(p, podRequestOptions())
		specOnly := resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})
		if withStatus.Cpu().Cmp(*specOnly.Cpu()) == 0 {
			t.Errorf("%s: the status does not change the CPU request (%v): the case tests nothing", name, withStatus.Cpu())
		}
	}
}
