package autoscale

import (
	"fmt"

	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Builders for the objects of the tests: a NodeGroup whose template has
// CPU, memory and GPUs; pods with CPU and a claim template; the snapshot
// that holds them. Every group's template is labelled pool=<group>.

const gpuDriver = "gpu.example.com"

type groupBuilder struct{ ng *snapshot.NodeGroup }

func makeGroup(name string) *groupBuilder {
	return &groupBuilder{ng: &snapshot.NodeGroup{
		TypeMeta:   metav1.TypeMeta{APIVersion: snapshot.NodeGroupAPIVersion, Kind: "NodeGroup"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: snapshot.NodeGroupSpec{
			MaxSize:      10,
			NodeSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"pool": name}},
			Template: &snapshot.NodeTemplate{Node: v1.Node{
				ObjectMeta: metav1.ObjectMeta{Name: name + "-node", Labels: map[string]string{"pool": name}},
				Status: v1.NodeStatus{Allocatable: v1.ResourceList{
					v1.ResourceCPU: resource.MustParse("32"), v1.ResourceMemory: resource.MustParse("128Gi"), v1.ResourcePods: resource.MustParse("110"),
				}},
			}},
		},
	}}
}

func (b *groupBuilder) Min(n int32) *groupBuilder { b.ng.Spec.MinSize = n; return b }
func (b *groupBuilder) Max(n int32) *groupBuilder { b.ng.Spec.MaxSize = n; return b }
func (b *groupBuilder) Price(p float64) *groupBuilder {
	b.ng.Spec.PricePerHour = &p
	return b
}

func (b *groupBuilder) CPU(q string) *groupBuilder {
	b.ng.Spec.Template.Node.Status.Allocatable[v1.ResourceCPU] = resource.MustParse(q)
	return b
}

// GPUs gives the template n GPUs; devices i and i+1 of perRoot share a
// PCIe root (perRoot 0: no root attribute).
func (b *groupBuilder) GPUs(n, perRoot int) *groupBuilder {
	node := b.ng.Spec.Template.Node.Name
	sl := resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: node + "-gpu"},
		Spec: resourceapi.ResourceSliceSpec{Driver: gpuDriver, NodeName: ptr.To(node),
			Pool: resourceapi.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1}},
	}
	for i := 0; i < n; i++ {
		d := resourceapi.Device{Name: fmt.Sprintf("gpu-%d", i)}
		if perRoot > 0 {
			d.Attributes = map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
				"resource.kubernetes.io/pcieRoot": {StringValue: ptr.To(fmt.Sprintf("root-%d", i/perRoot))},
			}
		}
		sl.Spec.Devices = append(sl.Spec.Devices, d)
	}
	b.ng.Spec.Template.ResourceSlices = append(b.ng.Spec.Template.ResourceSlices, sl)
	return b
}

// From makes the group's template come from an existing node.
func (b *groupBuilder) From(node string) *groupBuilder {
	b.ng.Spec.Template = nil
	b.ng.Spec.TemplateFrom = node
	return b
}

func (b *groupBuilder) Obj() *snapshot.NodeGroup { return b.ng }

type podBuilder struct{ p *v1.Pod }

func makePod(name string) *podBuilder {
	return &podBuilder{p: &v1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "main", Image: "pause", Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), v1.ResourceMemory: resource.MustParse("1Gi")},
		}}}},
	}}
}

func (b *podBuilder) CPU(q string) *podBuilder {
	b.p.Spec.Containers[0].Resources.Requests[v1.ResourceCPU] = resource.MustParse(q)
	return b
}

// Init gives the pod an init container that requests cpu.
func (b *podBuilder) Init(cpu string) *podBuilder {
	b.p.Spec.InitContainers = append(b.p.Spec.InitContainers, v1.Container{Name: "init", Image: "pause", Resources: v1.ResourceRequirements{
		Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu)},
	}})
	return b
}

// Claim gives the pod a claim from the template.
func (b *podBuilder) Claim(template string) *podBuilder {
	b.p.Spec.ResourceClaims = append(b.p.Spec.ResourceClaims, v1.PodResourceClaim{Name: "gpus", ResourceClaimTemplateName: ptr.To(template)})
	b.p.Spec.Containers[0].Resources.Claims = append(b.p.Spec.Containers[0].Resources.Claims, v1.ResourceClaim{Name: "gpus"})
	return b
}

func (b *podBuilder) OwnedBy(kind, name string) *podBuilder {
	b.p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: name, Controller: ptr.To(true)}}
	return b
}

func (b *podBuilder) Priority(p int32) *podBuilder { b.p.Spec.Priority = &p; return b }

func (b *podBuilder) Obj() *v1.Pod { return b.p }

// replicas makes n pods name-0..n-1 from one builder function.
func replicas(n int, name string, f func(*podBuilder) *podBuilder) []*v1.Pod {
	out := make([]*v1.Pod, n)
	for i := range out {
		out[i] = f(makePod(fmt.Sprintf("%s-%d", name, i)).OwnedBy("ReplicaSet", name)).Obj()
	}
	return out
}

// gpuTemplate asks for count GPUs, on one PCIe root when sameRoot.
func gpuTemplate(name string, count int64, sameRoot bool) *resourceapi.ResourceClaimTemplate {
	t := &resourceapi.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: resourceapi.ResourceClaimTemplateSpec{Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests: []resourceapi.DeviceRequest{{Name: "gpus", Exactly: &resourceapi.ExactDeviceRequest{
				DeviceClassName: "gpu.example.com", AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: count,
			}}},
		}}},
	}
	if sameRoot {
		t.Spec.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{{MatchAttribute: ptr.To(resourceapi.FullyQualifiedName("resource.kubernetes.io/pcieRoot"))}}
	}
	return t
}

func gpuClass() *resourceapi.DeviceClass {
	return &resourceapi.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: "gpu.example.com"},
		Spec: resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{
			Expression: `device.driver == "gpu.example.com"`,
		}}}},
	}
}

// snapshotOf builds a snapshot; NodeGroups are recorded as read from
// groups.yaml, one document each.
func snapshotOf(objs ...any) *snapshot.Snapshot {
	s := snapshot.New()
	for _, o := range objs {
		switch o := o.(type) {
		case *snapshot.NodeGroup:
			s.Sources[snapshot.Ref{Kind: "NodeGroup", Name: o.Name}] = snapshot.Source{File: "groups.yaml", Doc: len(s.NodeGroups), Item: -1}
			s.NodeGroups = append(s.NodeGroups, o)
		case *v1.Node:
			s.Nodes = append(s.Nodes, o)
		case *v1.Pod:
			s.Pods = append(s.Pods, o)
		case []*v1.Pod:
			s.Pods = append(s.Pods, o...)
		case *resourceapi.ResourceSlice:
			s.ResourceSlices = append(s.ResourceSlices, o)
		case *resourceapi.ResourceClaimTemplate:
			s.ResourceClaimTemplates = append(s.ResourceClaimTemplates, o)
		case *resourceapi.DeviceClass:
			s.DeviceClasses = append(s.DeviceClasses, o)
		default:
			panic(fmt.Sprintf("snapshotOf: unexpected %T", o))
		}
	}
	return s
}

func makeNode(name string, labels map[string]string, cpu string) *v1.Node {
	labels = copyLabels(labels)
	labels[v1.LabelHostname] = name
	rl := v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse("64Gi"), v1.ResourcePods: resource.MustParse("110")}
	return &v1.Node{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Status:     v1.NodeStatus{Allocatable: rl, Capacity: rl.DeepCopy()},
	}
}

func copyLabels(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	return out
}
