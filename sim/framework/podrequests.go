package framework

import (
	"sync"

	v1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
)

// PodRequestSums are the sums of a pod's requests that a scheduling cycle
// needs, each with kube's options for its reader. Adding up the
// containers builds a map per container, and NodeResourcesFit's filter,
// its scorer, BalancedAllocation and the NodeInfo the pod is bound into
// each did it on their own (twice for the NodeInfo): five sums per pod
// where two give the same values. The lists are shared and read only.
type PodRequestSums struct {
	// Spec is what NodeResourcesFit's filter checks: the spec's requests
	// (no resize status), pod-level requests and overhead.
	Spec v1.ResourceList
	// Requests honour the resize status as well (podRequestOptions):
	// what a NodeInfo counts and BalancedAllocation scores.
	Requests v1.ResourceList
	// NonZero are Requests with the 100m / 200Mi default for containers
	// that set no CPU or memory request: what NodeResourcesFit scores.
	NonZero v1.ResourceList
	// resource is what the pod adds to a NodeInfo.
	resource PodResource
}

// NewPodRequestSums adds up the pod's requests. For a pod with no resource
// status the three lists are one sum: with no status the spec's requests
// are the status-honouring ones (see PodRequests), and when every
// container sets both a CPU and a memory request the defaults replace
// nothing.
func NewPodRequestSums(pod *v1.Pod) *PodRequestSums {
	opts := podRequestOptions()
	s := &PodRequestSums{Requests: PodRequests(pod, opts)}
	status := hasResourceStatus(pod)
	if status {
		s.Spec = resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{SkipPodLevelResources: false})
	} else {
		s.Spec = s.Requests
	}
	if !status && setsCPUAndMemory(pod) {
		s.NonZero = s.Requests
	} else {
		opts.NonMissingContainerRequests = nonMissingContainerRequests(nil, false)
		s.NonZero = PodRequests(pod, opts)
	}
	non0 := s.NonZero
	if resourcehelper.IsPodLevelRequestsSet(pod) {
		// With pod-level requests a default only applies to what the pod
		// level leaves out as well (calculatePodResource).
		non0 = nonZeroRequests(pod, s.Requests)
	}
	s.resource = podResource(s.Requests, non0)
	return s
}

// setsCPUAndMemory reports whether every container and init container
// requests both CPU and memory.
func setsCPUAndMemory(pod *v1.Pod) bool {
	for _, cs := range [][]v1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range cs {
			r := cs[i].Resources.Requests
			if _, ok := r[v1.ResourceCPU]; !ok {
				return false
			}
			if _, ok := r[v1.ResourceMemory]; !ok {
				return false
			}
		}
	}
	return true
}

// PodCache remembers a value computed from a pod's spec, per pod. It
// relies, as kube's queued PodInfo does, on a queued pod's spec not
// changing while it waits: the scheduler only sets its node, nomination
// and conditions. A pod that does not fit is tried again in later passes,
// so the plugins would otherwise add up the same container requests in
// every cycle. It is safe for concurrent use, and starts over when full.
type PodCache[T any] struct {
	mu sync.Mutex
	m  map[*v1.Pod]T
}

// maxCachedPods bounds a PodCache.
const maxCachedPods = 1 << 18

// Get returns the pod's value, computing it on first use.
func (c *PodCache[T]) Get(pod *v1.Pod, compute func(*v1.Pod) T) T {
	c.mu.Lock()
	v, ok := c.m[pod]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = compute(pod)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedPods {
		c.m = map[*v1.Pod]T{}
	}
	c.m[pod] = v
	c.mu.Unlock()
	return v
}

// Forget drops the pod's value.
func (c *PodCache[T]) Forget(pod *v1.Pod) {
	c.mu.Lock()
	delete(c.m, pod)
	c.mu.Unlock()
}

// PodRequestCache keeps each pod's PodRequestSums, so that the plugins of
// a profile and the binding share one computation per pod (see PodCache).
// A nil cache computes every time.
type PodRequestCache struct {
	cache PodCache[*PodRequestSums]
}

// Get returns the pod's sums, computing them on first use.
func (c *PodRequestCache) Get(pod *v1.Pod) *PodRequestSums {
	if c == nil {
		return NewPodRequestSums(pod)
	}
	return c.cache.Get(pod, NewPodRequestSums)
}

// Forget drops the pod's sums: once it is bound nothing reads them again
// unless it is queued again, and then they are computed anew.
func (c *PodRequestCache) Forget(pod *v1.Pod) {
	if c == nil {
		return
	}
	c.cache.Forget(pod)
}
