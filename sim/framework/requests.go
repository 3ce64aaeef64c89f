package framework

import (
	v1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
)

// PodRequests is resourcehelper.PodRequests with one shortcut that changes
// no result. With UseStatusResources the helper sums the containers three
// times (spec, allocated and actuated requests) and keeps the largest of
// each; for a pod with no resource status (every pending pod, and every
// pod no kubelet has resized) the allocated and actuated requests are the
// spec's, so the largest is the spec's and one pass gives it. A replay
// computes a pod's requests in NodeResourcesFit, the scorers and the
// NodeInfo it is bound into; the two extra passes were most of that cost.
func PodRequests(pod *v1.Pod, opts resourcehelper.PodResourcesOptions) v1.ResourceList {
	if opts.UseStatusResources && !hasResourceStatus(pod) {
		opts.UseStatusResources = false
	}
	return resourcehelper.PodRequests(pod, opts)
}

// hasResourceStatus reports whether anything the helper reads with
// UseStatusResources is set: container statuses (their allocated and
// actual resources), the pod-level status resources, or a resize marked
// infeasible (which makes the helper ignore the spec).
func hasResourceStatus(pod *v1.Pod) bool {
	st := &pod.Status
	return len(st.ContainerStatuses) > 0 || len(st.InitContainerStatuses) > 0 ||
		st.Resources != nil || st.AllocatedResources != nil ||
		resourcehelper.IsPodResizeInfeasible(pod)
}
