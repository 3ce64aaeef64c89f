package analysis

import (
	"fmt"

	"github.com/drasim/drasim/sim/kube"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// clusterBuilder makes snapshots for tests: nodes with GPUs, bound pods
// holding some of them, and probe pods.
type clusterBuilder struct {
	snap *snapshot.Snapshot
}

const testDriver = "gpu.example.com"

func newCluster() *clusterBuilder {
	s := snapshot.New()
	s.DeviceClasses = append(s.DeviceClasses, &resourceapi.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: testDriver},
		Spec: resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{
			Expression: fmt.Sprintf("device.driver == %q", testDriver),
		}}}},
	})
	return &clusterBuilder{snap: s}
}

// Node adds a node with cpu cores, 256Gi of memory and gpus GPUs.
func (b *clusterBuilder) Node(name, group string, cpu, gpus int) *clusterBuilder {
	b.snap.Nodes = append(b.snap.Nodes, &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name, DefaultGroupBy: group}},
		Status: v1.NodeStatus{Allocatable: v1.ResourceList{
			v1.ResourceCPU: resource.MustParse(fmt.Sprint(cpu)), v1.ResourceMemory: resource.MustParse("256Gi"), v1.ResourcePods: resource.MustParse("110"),
		}},
	})
	sl := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-gpus"},
		Spec: resourceapi.ResourceSliceSpec{Driver: testDriver, NodeName: ptr.To(name),
			Pool: resourceapi.ResourcePool{Name: name, Generation: 1, ResourceSliceCount: 1}},
	}
	for i := 0; i < gpus; i++ {
		sl.Spec.Devices = append(sl.Spec.Devices, resourceapi.Device{Name: fmt.Sprintf("gpu-%d", i)})
	}
	if gpus > 0 {
		b.snap.ResourceSlices = append(b.snap.ResourceSlices, sl)
	}
	return b
}

// Bound adds a running pod on node with cpu cores and an allocated claim
// holding the node's first gpus GPUs.
func (b *clusterBuilder) Bound(name, node string, cpu, gpus int) *clusterBuilder {
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name)},
		Spec: v1.PodSpec{NodeName: node, Containers: []v1.Container{{Name: "main", Image: "pause",
			Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(fmt.Sprint(cpu))}}}}},
		Status: v1.PodStatus{Phase: v1.PodRunning},
	}
	if gpus > 0 {
		claim := &resourceapi.ResourceClaim{
			ObjectMeta: metav1.ObjectMeta{Name: name + "-gpus", Namespace: "default"},
			Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{{
				Name: "gpus", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: testDriver, Count: int64(gpus)},
			}}}},
		}
		kube.DefaultClaimSpec(&claim.Spec)
		alloc := &resourceapi.AllocationResult{}
		for i := 0; i < gpus; i++ {
			alloc.Devices.Results = append(alloc.Devices.Results, resourceapi.DeviceRequestAllocationResult{
				Request: "gpus", Driver: testDriver, Pool: node, Device: fmt.Sprintf("gpu-%d", i)})
		}
		claim.Status.Allocation = alloc
		claim.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: name, UID: pod.UID}}
		b.snap.ResourceClaims = append(b.snap.ResourceClaims, claim)
		pod.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpus", ResourceClaimName: ptr.To(claim.Name)}}
	}
	kube.DefaultPod(pod)
	b.snap.Pods = append(b.snap.Pods, pod)
	return b
}

// Snapshot returns the snapshot built so far.
func (b *clusterBuilder) Snapshot() *snapshot.Snapshot { return b.snap }

// probeSnapshot returns a probe file with replicas pods of a shape asking
// for cpu cores and gpus GPUs (no claim when gpus is 0).
func probeSnapshot(shapes ...probeShape) *snapshot.Snapshot {
	s := snapshot.New()
	for _, sh := range shapes {
		if sh.gpus > 0 {
			t := &resourceapi.ResourceClaimTemplate{
				ObjectMeta: metav1.ObjectMeta{Name: sh.name, Namespace: "probes"},
				Spec: resourceapi.ResourceClaimTemplateSpec{Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{{
					Name: "gpus", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: testDriver, Count: int64(sh.gpus)},
				}}}}},
			}
			kube.DefaultClaimSpec(&t.Spec.Spec)
			s.ResourceClaimTemplates = append(s.ResourceClaimTemplates, t)
		}
		for i := 0; i < sh.replicas; i++ {
			pod := &v1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", sh.name, i), Namespace: "probes"},
				Spec: v1.PodSpec{Containers: []v1.Container{{Name: "main", Image: "pause",
					Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(fmt.Sprint(sh.cpu))}}}}},
			}
			if sh.gpus > 0 {
				pod.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpus", ResourceClaimTemplateName: ptr.To(sh.name)}}
			}
			if sh.spreadKey != "" {
				pod.Labels = map[string]string{"app": sh.name}
				pod.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: sh.spreadKey, WhenUnsatisfiable: v1.DoNotSchedule,
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": sh.name}}}}
			}
			kube.DefaultPod(pod)
			s.Pods = append(s.Pods, pod)
		}
	}
	return s
}

type probeShape struct {
	name      string
	replicas  int
	cpu, gpus int
	// spreadKey adds a hard topology spread constraint over this key.
	spreadKey string
}
