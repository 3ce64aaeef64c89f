package noderesources

import (
	"sync"

	v1 "k8s.io/api/core/v1"
)

// podCache remembers a value computed from a pod's spec, per pod. A queued
// pod's spec does not change while it waits (the scheduler only sets its
// node and conditions), and a pod that does not fit is tried again in
// later passes, so NodeResourcesFit and BalancedAllocation would otherwise
// add up the same container requests in every cycle, several times: kube
// computes them once per pod too, in its queued PodInfo.
type podCache[T any] struct {
	mu sync.Mutex
	m  map[*v1.Pod]T
}

// maxCachedPods bounds a podCache; it starts over when full.
const maxCachedPods = 1 << 18

func (c *podCache[T]) get(pod *v1.Pod, compute func(*v1.Pod) T) T {
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
