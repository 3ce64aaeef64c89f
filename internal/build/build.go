// Package build makes small snapshots for tests: nodes with CPUs and GPUs,
// pods with priorities, CPU requests and GPU claims, pending or bound
// (with their claims allocated), PodDisruptionBudgets and pod groups.
package build

import (
	"fmt"

	"github.com/drasim/drasim/sim/kube"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Driver is the GPUs' driver and DeviceClass name.
const Driver = "gpu.example.com"

// Cluster builds a snapshot.
type Cluster struct {
	snap *snapshot.Snapshot
}

// NewCluster starts a snapshot with the GPU DeviceClass.
func NewCluster() *Cluster {
	s := snapshot.New()
	s.DeviceClasses = append(s.DeviceClasses, &resourceapi.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: Driver},
		Spec: resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{
			Expression: fmt.Sprintf("device.driver == %q", Driver),
		}}}},
	})
	return &Cluster{snap: s}
}

// Snapshot returns the snapshot built so far.
func (b *Cluster) Snapshot() *snapshot.Snapshot { return b.snap }

// Node adds a node with cpu cores, 256Gi of memory, 110 pods and gpus
// GPUs named gpu-0.. in a pool named after the node.
func (b *Cluster) Node(name string, cpu, gpus int) *Cluster {
	b.snap.Nodes = append(b.snap.Nodes, &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name}},
		Status: v1.NodeStatus{Allocatable: v1.ResourceList{
			v1.ResourceCPU: resource.MustParse(fmt.Sprint(cpu)), v1.ResourceMemory: resource.MustParse("256Gi"), v1.ResourcePods: resource.MustParse("110"),
		}},
	})
	if gpus > 0 {
		sl := &resourceapi.ResourceSlice{
			ObjectMeta: metav1.ObjectMeta{Name: name + "-gpus"},
			Spec: resourceapi.ResourceSliceSpec{Driver: Driver, NodeName: ptr.To(name),
				Pool: resourceapi.ResourcePool{Name: name, Generation: 1, ResourceSliceCount: 1}},
		}
		for i := 0; i < gpus; i++ {
			sl.Spec.Devices = append(sl.Spec.Devices, resourceapi.Device{Name: fmt.Sprintf("gpu-%d", i)})
		}
		b.snap.ResourceSlices = append(b.snap.ResourceSlices, sl)
	}
	return b
}

// PodSpec describes a pod for Cluster.Pod.
type PodSpec struct {
	Name      string
	Namespace string // default "default"
	Priority  int32
	CPU       string // a quantity; "" for none
	// GPUs asks for that many GPUs through a claim made from a template
	// (pending pods) or an allocated claim on the node's first free GPUs
	// (bound pods, see FirstGPU).
	GPUs     int
	FirstGPU int
	// Node binds the pod; StartTime is its start (seconds after an epoch).
	Node      string
	StartTime int
	Labels    map[string]string
	// PreemptNever sets preemptionPolicy: Never.
	PreemptNever bool
	// PodGroup puts the pod in a pod group (spec.schedulingGroup).
	PodGroup string
	// Mutate, when set, changes the pod last.
	Mutate func(*v1.Pod)
}

// Pod adds a pod.
func (b *Cluster) Pod(ps PodSpec) *Cluster {
	ns := ps.Namespace
	if ns == "" {
		ns = "default"
	}
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: ps.Name, Namespace: ns, UID: types.UID("uid-" + ns + "-" + ps.Name), Labels: ps.Labels},
		Spec:       v1.PodSpec{Priority: ptr.To(ps.Priority), Containers: []v1.Container{{Name: "main", Image: "pause"}}},
	}
	if ps.CPU != "" {
		pod.Spec.Containers[0].Resources.Requests = v1.ResourceList{v1.ResourceCPU: resource.MustParse(ps.CPU)}
	}
	if ps.PreemptNever {
		pod.Spec.PreemptionPolicy = ptr.To(v1.PreemptNever)
	}
	if ps.PodGroup != "" {
		pod.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To(ps.PodGroup)}
	}
	if ps.Node != "" {
		pod.Spec.NodeName = ps.Node
		pod.Status.Phase = v1.PodRunning
		pod.Status.StartTime = &metav1.Time{Time: metav1.Unix(1_700_000_000+int64(ps.StartTime), 0).Time}
	}
	if ps.GPUs > 0 {
		spec := resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{{
			Name: "gpus", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: Driver, Count: int64(ps.GPUs)},
		}}}}
		kube.DefaultClaimSpec(&spec)
		if ps.Node == "" {
			b.snap.ResourceClaimTemplates = append(b.snap.ResourceClaimTemplates, &resourceapi.ResourceClaimTemplate{
				ObjectMeta: metav1.ObjectMeta{Name: ps.Name + "-gpus", Namespace: ns},
				Spec:       resourceapi.ResourceClaimTemplateSpec{Spec: spec},
			})
			pod.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpus", ResourceClaimTemplateName: ptr.To(ps.Name + "-gpus")}}
		} else {
			claim := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: ps.Name + "-gpus", Namespace: ns, UID: types.UID("uid-claim-" + ps.Name)}, Spec: spec}
			alloc := &resourceapi.AllocationResult{}
			for i := 0; i < ps.GPUs; i++ {
				alloc.Devices.Results = append(alloc.Devices.Results, resourceapi.DeviceRequestAllocationResult{
					Request: "gpus", Driver: Driver, Pool: ps.Node, Device: fmt.Sprintf("gpu-%d", ps.FirstGPU+i)})
			}
			claim.Status.Allocation = alloc
			claim.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: ps.Name, UID: pod.UID}}
			claim.Finalizers = []string{resourceapi.Finalizer}
			b.snap.ResourceClaims = append(b.snap.ResourceClaims, claim)
			pod.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpus", ResourceClaimName: ptr.To(claim.Name)}}
		}
	}
	if ps.Mutate != nil {
		ps.Mutate(pod)
	}
	kube.DefaultPod(pod)
	b.snap.Pods = append(b.snap.Pods, pod)
	return b
}

// PDB adds a PodDisruptionBudget over the pods labelled app=<app>, with
// status.disruptionsAllowed set to allowed.
func (b *Cluster) PDB(name, app string, allowed int32) *Cluster {
	b.snap.PodDisruptionBudgets = append(b.snap.PodDisruptionBudgets, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: ptr.To(intstr.FromInt32(1)),
			Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
		},
		Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed, ObservedGeneration: 1},
	})
	return b
}

// PodGroup adds a pod group of priority: a gang of minCount, or a basic
// group when minCount is 0.
func (b *Cluster) PodGroup(name string, minCount, priority int32) *Cluster {
	pg := &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-podgroup-" + name)},
		Spec:       schedulingv1beta1.PodGroupSpec{Priority: ptr.To(priority)},
	}
	if minCount > 0 {
		pg.Spec.SchedulingPolicy.Gang = &schedulingv1beta1.GangSchedulingPolicy{MinCount: minCount}
	} else {
		pg.Spec.SchedulingPolicy.Basic = &schedulingv1beta1.BasicSchedulingPolicy{}
	}
	b.snap.PodGroups = append(b.snap.PodGroups, pg)
	return b
}
