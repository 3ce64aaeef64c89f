package autoscale

import (
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/inventory"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
)

// Utilization is cluster-autoscaler's measure of how used a node is, the
// number its scale-down compares with --scale-down-utilization-threshold
// (simulator/utilization.Calculate).
type Utilization struct {
	// Resource is what the measure is of: "cpu" or "memory" (the larger of
	// the two), an extended GPU resource, or "driver/pool" for the most
	// used device pool.
	Resource string `json:"resource"`
	// Value is the share in use, 0..1.
	Value float64 `json:"value"`
	// GPU is set when the GPU threshold applies (a node with nvidia.com/gpu
	// allocatable, not through DRA).
	GPU bool `json:"gpu,omitempty"`
}

// gpuResource is the extended resource cluster-autoscaler's cloud
// providers report as the GPU of a node (GetNodeGpuConfig); drasim takes a
// node with it allocatable for a GPU node.
const gpuResource = v1.ResourceName("nvidia.com/gpu")

// nodeUtilization is CA's utilization of a node, in its order of rules:
//
//   - a GPU node (extended resource, not DRA): requested GPUs over
//     allocatable;
//   - a node with node-local ResourceSlices: the highest utilization of its
//     device pools (CA's provisional DRA rule; CPU and memory are not
//     looked at): allocated devices over devices, or, for a pool with
//     shared counters, the most consumed counter of each counter set
//     averaged over the pool's partitionable devices;
//   - otherwise the larger of CPU and memory requests over allocatable.
//
// DaemonSet pods count unless ignoreDaemonSets (and are then taken off the
// allocatable as well); mirror pods always count (CA's
// --ignore-mirror-pods-utilization is false by default).
func nodeUtilization(ni *framework.NodeInfo, st *dra.State, ignoreDaemonSets bool) Utilization {
	node := ni.Node()
	if q, ok := node.Status.Allocatable[gpuResource]; ok && !q.IsZero() {
		return Utilization{Resource: string(gpuResource), Value: resourceShare(ni, gpuResource, ignoreDaemonSets), GPU: true}
	}
	if local := st.LocalSlices(node.Name); len(local) > 0 {
		name, value := highestPoolUtilization(local, allocatedOnNode(ni, st))
		return Utilization{Resource: name, Value: value}
	}
	cpu := resourceShare(ni, v1.ResourceCPU, ignoreDaemonSets)
	mem := resourceShare(ni, v1.ResourceMemory, ignoreDaemonSets)
	if cpu > mem {
		return Utilization{Resource: string(v1.ResourceCPU), Value: cpu}
	}
	return Utilization{Resource: string(v1.ResourceMemory), Value: mem}
}

// resourceShare is CalculateUtilizationOfResource: the pods' requests of
// the resource over the node's allocatable (0 when the node has none).
func resourceShare(ni *framework.NodeInfo, name v1.ResourceName, ignoreDaemonSets bool) float64 {
	q, ok := ni.Node().Status.Allocatable[name]
	if !ok || q.MilliValue() == 0 {
		return 0
	}
	var requested, daemon int64
	for _, pi := range ni.Pods {
		r := podRequest(pi, name)
		if ignoreDaemonSets && isDaemonSetPod(pi.Pod) {
			daemon += r
			continue
		}
		requested += r
	}
	return float64(requested) / float64(q.MilliValue()-daemon)
}

// podRequest is a pod's request of a resource in milli-units, as the
// scheduler accounts it (containers, init containers, overhead).
func podRequest(pi *framework.PodInfo, name v1.ResourceName) int64 {
	r := pi.CalculateResource().Resource
	switch name {
	case v1.ResourceCPU:
		return r.MilliCPU
	case v1.ResourceMemory:
		return r.Memory * 1000
	}
	return r.ScalarResources[name] * 1000
}

// allocatedOnNode lists, per driver and pool, the devices allocated to the
// claims of the node's pods (admin access excepted), as CA's
// groupAllocatedReservedDevices does.
func allocatedOnNode(ni *framework.NodeInfo, st *dra.State) map[inventory.PoolID]map[string]bool {
	view := map[inventory.DeviceID]inventory.Use{}
	for _, pi := range ni.Pods {
		inventory.AddAllocated(view, st.ClaimsInUse(pi.Pod))
	}
	return inventory.InUseByPool(view)
}

// highestPoolUtilization is CA's HighestDynamicResourceUtilization over
// the node's slices: per pool (newest generation), the utilization, and
// the highest of them with its "driver/pool" name. CA walks the pools in
// map order and keeps the last of equal values; drasim walks them sorted
// by driver and pool and keeps the last as well.
func highestPoolUtilization(slices []*resourceapi.ResourceSlice, allocated map[inventory.PoolID]map[string]bool) (string, float64) {
	name, highest := "", 0.0
	for _, p := range inventory.Pools(slices) {
		// CA fails the node on an incomplete pool (it does not have all
		// the slices of its newest generation); the node stays.
		if int64(len(p.Current)) != p.Current[0].Spec.Pool.ResourceSliceCount {
			continue
		}
		u := poolUtilization(p.Current, allocated[p.ID])
		if u >= highest {
			name, highest = p.ID.Driver+"/"+p.ID.Pool, u
		}
	}
	return name, highest
}

// poolUtilization is CA's calculatePoolUtil: allocated devices over all
// devices, or for a pool with shared counters, per counter set the most
// consumed counter, summed and divided by the number of counter sets the
// devices consume. A device counts as allocated as soon as one claim has
// it, whatever share of its capacity the claim consumed.
func poolUtilization(slices []*resourceapi.ResourceSlice, allocated map[string]bool) float64 {
	// The devices are read in place, slice by slice: copying them into one
	// list was most of a timeline's utilization garbage.
	devices := 0
	var counterSets []resourceapi.CounterSet
	for _, sl := range slices {
		devices += len(sl.Spec.Devices)
		counterSets = append(counterSets, sl.Spec.SharedCounters...)
	}
	if len(counterSets) == 0 {
		if devices == 0 {
			return 0
		}
		used := 0
		for _, sl := range slices {
			for i := range sl.Spec.Devices {
				if allocated[sl.Spec.Devices[i].Name] {
					used++
				}
			}
		}
		return float64(used) / float64(devices)
	}
	consumedSets := map[string]bool{}
	consumed := map[string]map[string]float64{}
	for _, sl := range slices {
		for i := range sl.Spec.Devices {
			d := &sl.Spec.Devices[i]
			for _, cc := range d.ConsumesCounters {
				consumedSets[cc.CounterSet] = true
				if !allocated[d.Name] {
					continue
				}
				if consumed[cc.CounterSet] == nil {
					consumed[cc.CounterSet] = map[string]float64{}
				}
				for name, c := range cc.Counters {
					consumed[cc.CounterSet][name] += c.Value.AsApproximateFloat64()
				}
			}
		}
	}
	if len(consumedSets) == 0 {
		return 0
	}
	total := 0.0
	for _, set := range counterSets {
		highest := 0.0
		for name, c := range set.Counters {
			if c.Value.IsZero() {
				continue
			}
			if v, ok := consumed[set.Name][name]; ok {
				highest = max(highest, v/c.Value.AsApproximateFloat64())
			}
		}
		total += highest / float64(len(consumedSets))
	}
	return total
}

// isDaemonSetPod is CA's pod_util.IsDaemonSetPod: controlled by a
// DaemonSet (or annotated as one).
func isDaemonSetPod(pod *v1.Pod) bool {
	if ref := controllerRef(pod); ref != nil && ref.Kind == "DaemonSet" {
		return true
	}
	return pod.Annotations["cluster-autoscaler.kubernetes.io/daemonset-pod"] == "true"
}

// isMirrorPod is CA's pod_util.IsMirrorPod.
func isMirrorPod(pod *v1.Pod) bool {
	_, ok := pod.Annotations[v1.MirrorPodAnnotationKey]
	return ok
}
