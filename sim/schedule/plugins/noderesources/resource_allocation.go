package noderesources

import (
	"math"

	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/plugins/config"
)

type scorerKind int

const (
	leastAllocated scorerKind = iota
	mostAllocated
	requestedToCapacityRatio
	balancedAllocation
	// balancedWithPodOnly is BalancedAllocation before kube 1.36.
	balancedWithPodOnly
)

// maxUtilization is 100% in the RequestedToCapacityRatio curve.
const maxUtilization = 100

// shapePoint is a RequestedToCapacityRatio point with the score already
// scaled to [0, MaxNodeScore].
type shapePoint struct {
	utilization int64
	score       int64
}

// resourceAllocationScorer is the part NodeResourcesFit's scoring and
// BalancedAllocation share: per scoring resource, what the node has, what
// is in use and what the pod adds.
type resourceAllocationScorer struct {
	kind      scorerKind
	resources []config.ResourceSpec
	names     []v1.ResourceName
	isScalar  []bool
	shape     []shapePoint
	// useRequested scores against the actual requests (BalancedAllocation);
	// otherwise against NonZeroRequested and the pod's requests with the
	// per-container defaults (the Fit strategies).
	useRequested bool
	dra          DRAExtendedResources
	requests     framework.PodCache[[]int64]
	// sums are the pod's requests added up, shared with the profile.
	sums *framework.PodRequestCache
}

func newResourceAllocationScorer(kind scorerKind, resources []config.ResourceSpec, shape []shapePoint, useRequested bool, dra DRAExtendedResources, sums *framework.PodRequestCache) *resourceAllocationScorer {
	r := &resourceAllocationScorer{
		kind:         kind,
		resources:    resources,
		names:        make([]v1.ResourceName, len(resources)),
		isScalar:     make([]bool, len(resources)),
		shape:        shape,
		useRequested: useRequested,
		dra:          dra,
		sums:         sums,
	}
	for i, res := range resources {
		r.names[i] = v1.ResourceName(res.Name)
		r.isScalar[i] = framework.IsScalarResourceName(r.names[i])
	}
	return r
}

// podRequests returns the pod's request for each scoring resource, as kube
// computes it for scoring: resize status honoured, pod-level resources on,
// and, unless useRequested, the 100m/200Mi default for containers that set
// no CPU/memory request.
func (r *resourceAllocationScorer) podRequests(pod *v1.Pod) []int64 {
	return r.requests.Get(pod, r.computePodRequests)
}

func (r *resourceAllocationScorer) computePodRequests(pod *v1.Pod) []int64 {
	sums := r.sums.Get(pod)
	reqs := sums.NonZero
	if r.useRequested {
		reqs = sums.Requests
	}
	out := make([]int64, len(r.names))
	for i, name := range r.names {
		q := reqs[name]
		if name == v1.ResourceCPU {
			out[i] = q.MilliValue()
		} else {
			out[i] = q.Value()
		}
	}
	return out
}

// anyDRABacked reports whether a scoring resource is provided by a
// DeviceClass and the DRA side can count devices for it.
func (r *resourceAllocationScorer) anyDRABacked() bool {
	if _, ok := r.dra.(DRADeviceCounter); !ok || r.dra == nil {
		return false
	}
	for _, name := range r.names {
		if isDRAExtendedResourceName(name) && r.dra.HasDeviceClass(name) {
			return true
		}
	}
	return false
}

// maxInlineResources bounds the scoring resources kept on the stack.
const maxInlineResources = 8

func (r *resourceAllocationScorer) score(nodeInfo *framework.NodeInfo, podRequests []int64, draBacked bool) (int64, *framework.Status) {
	n := len(r.names)
	if n == 0 {
		return 0, framework.NewStatus(framework.Error, "resources not found")
	}
	var buf [3 * maxInlineResources]int64
	var requested, allocated, allocatable []int64
	if n <= maxInlineResources {
		requested, allocated, allocatable = buf[:n:n], buf[n:2*n:2*n], buf[2*n:3*n:3*n]
	} else {
		requested, allocated, allocatable = make([]int64, n), make([]int64, n), make([]int64, n)
	}
	for i := range r.names {
		if podRequests[i] == 0 && r.isScalar[i] {
			continue
		}
		nodeAllocatable, nodeAllocated := r.nodeResource(nodeInfo, i, draBacked)
		if nodeAllocatable == 0 {
			continue
		}
		allocatable[i] = nodeAllocatable
		allocated[i] = nodeAllocated
		requested[i] = nodeAllocated + podRequests[i]
	}
	return r.scoreOf(requested, allocated, allocatable), nil
}

// nodeResource returns the node's allocatable and in-use amount of scoring
// resource i; (0, 0) leaves the resource out of the score.
func (r *resourceAllocationScorer) nodeResource(nodeInfo *framework.NodeInfo, i int, draBacked bool) (int64, int64) {
	used := nodeInfo.NonZeroRequested
	if r.useRequested {
		used = nodeInfo.Requested
	}
	name := r.names[i]
	switch name {
	case v1.ResourceCPU:
		return nodeInfo.Allocatable.MilliCPU, used.MilliCPU
	case v1.ResourceMemory:
		return nodeInfo.Allocatable.Memory, used.Memory
	case v1.ResourceEphemeralStorage:
		return nodeInfo.Allocatable.EphemeralStorage, nodeInfo.Requested.EphemeralStorage
	}
	a, exists := nodeInfo.Allocatable.ScalarResources[name]
	if a == 0 && draBacked {
		if counter, ok := r.dra.(DRADeviceCounter); ok && r.dra.HasDeviceClass(name) {
			// Errors leave the resource out, as kube logs and moves on.
			if capacity, inUse, err := counter.DeviceCounts(nodeInfo.Node(), name); err == nil && capacity > 0 {
				return capacity, inUse
			}
		}
	}
	if exists {
		return a, nodeInfo.Requested.ScalarResources[name]
	}
	return 0, 0
}

func (r *resourceAllocationScorer) scoreOf(requested, allocated, allocatable []int64) int64 {
	switch r.kind {
	case leastAllocated:
		return r.weighted(requested, allocatable, leastRequestedScore)
	case mostAllocated:
		return r.weighted(requested, allocatable, mostRequestedScore)
	case requestedToCapacityRatio:
		return r.requestedToCapacityRatioScore(requested, allocatable)
	case balancedAllocation:
		return balancedResourceScorer(requested, allocated, allocatable)
	case balancedWithPodOnly:
		return balancedResourceScore(requested, allocatable)
	}
	return 0
}

// weighted is the weighted mean (integer division) of per-resource scores
// over the resources the node has.
func (r *resourceAllocationScorer) weighted(requested, allocatable []int64, f func(requested, capacity int64) int64) int64 {
	var nodeScore, weightSum int64
	for i := range requested {
		if allocatable[i] == 0 {
			continue
		}
		w := r.resources[i].Weight
		nodeScore += f(requested[i], allocatable[i]) * w
		weightSum += w
	}
	if weightSum == 0 {
		return 0
	}
	return nodeScore / weightSum
}

// leastRequestedScore favours free capacity: 100 * free / capacity, 0 when
// over-committed.
func leastRequestedScore(requested, capacity int64) int64 {
	if capacity == 0 || requested > capacity {
		return 0
	}
	return (capacity - requested) * framework.MaxNodeScore / capacity
}

// mostRequestedScore favours used capacity: 100 * used / capacity, capped.
func mostRequestedScore(requested, capacity int64) int64 {
	if capacity == 0 {
		return 0
	}
	if requested > capacity {
		requested = capacity
	}
	return requested * framework.MaxNodeScore / capacity
}

// brokenLinear evaluates the piecewise-linear shape at utilization p.
func (r *resourceAllocationScorer) brokenLinear(p int64) int64 {
	shape := r.shape
	for i := range shape {
		if p <= shape[i].utilization {
			if i == 0 {
				return shape[0].score
			}
			return shape[i-1].score + (shape[i].score-shape[i-1].score)*(p-shape[i-1].utilization)/(shape[i].utilization-shape[i-1].utilization)
		}
	}
	return shape[len(shape)-1].score
}

// requestedToCapacityRatioScore is the weighted mean, rounded, of the shape
// at each resource's utilization; resources scoring 0 do not count.
func (r *resourceAllocationScorer) requestedToCapacityRatioScore(requested, allocatable []int64) int64 {
	var nodeScore, weightSum int64
	for i := range requested {
		if allocatable[i] == 0 {
			continue
		}
		var s int64
		if requested[i] > allocatable[i] {
			s = r.brokenLinear(maxUtilization)
		} else {
			s = r.brokenLinear(requested[i] * maxUtilization / allocatable[i])
		}
		if s > 0 {
			w := r.resources[i].Weight
			nodeScore += s * w
			weightSum += w
		}
	}
	if weightSum == 0 {
		return 0
	}
	return int64(math.Round(float64(nodeScore) / float64(weightSum)))
}

// balancedResourceScorer is kube v1.37's BalancedAllocation: half the range
// plus half the change in balance the pod brings, so a pod that evens out
// the node's usage scores above 50 and one that skews it below.
func balancedResourceScorer(requested, allocated, allocatable []int64) int64 {
	withPod := balancedResourceScore(requested, allocatable)
	withoutPod := balancedResourceScore(allocated, allocatable)
	return framework.MaxNodeScore/2 + (framework.MaxNodeScore/2+withPod-withoutPod)/2
}

// balancedResourceScore is 100 * (1 - standard deviation of the used
// fractions), fractions capped at 1.
func balancedResourceScore(requested, allocatable []int64) int64 {
	var buf [maxInlineResources]float64
	fractions := buf[:0]
	var total float64
	for i := range requested {
		if allocatable[i] == 0 {
			continue
		}
		f := min(float64(requested[i])/float64(allocatable[i]), 1)
		total += f
		fractions = append(fractions, f)
	}
	std := 0.0
	if len(fractions) == 2 {
		std = math.Abs((fractions[0] - fractions[1]) / 2)
	} else if len(fractions) > 2 {
		mean := total / float64(len(fractions))
		var sum float64
		for _, f := range fractions {
			sum += (f - mean) * (f - mean)
		}
		std = math.Sqrt(sum / float64(len(fractions)))
	}
	return int64((1 - std) * float64(framework.MaxNodeScore))
}
