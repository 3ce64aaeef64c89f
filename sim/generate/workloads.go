package generate

import (
	"math/rand/v2"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// namespaceOf gives each workload its team's namespace.
var namespaceOf = map[string]string{
	WorkloadInference: "inference",
	WorkloadTraining:  "training",
	WorkloadMIG:       "notebooks",
	WorkloadCPU:       "batch",
}

// Claim templates, by name.
const (
	TemplateInference = "gpu-any"
	TemplateTraining8 = "h100-x8"
	TemplateTraining4 = "h100-x4-numa"
	TemplateMIG1g     = "mig-1g"
	TemplateMIG2g     = "mig-2g"
)

// podClaim is the name of the pod's (only) claim and of its request.
const podClaim = "gpu"

func claimTemplates(workload string) []*resourceapi.ResourceClaimTemplate {
	ns := namespaceOf[workload]
	attr := `device.attributes["` + Driver + `"]`
	switch workload {
	case WorkloadInference:
		// The first alternative the node can satisfy wins, so a node with
		// an H100 free scores above one that only has an L4.
		return []*resourceapi.ResourceClaimTemplate{template(ns, TemplateInference, resourceapi.DeviceRequest{
			Name: podClaim,
			FirstAvailable: []resourceapi.DeviceSubRequest{
				sub("h100", ClassH100, nil),
				sub("a100", ClassA100, nil),
				sub("a100-3g", ClassMIG, cel(attr+`.profile == "3g.40gb"`)),
				sub("l4", ClassL4, nil),
			},
		}, nil)}
	case WorkloadTraining:
		return []*resourceapi.ResourceClaimTemplate{
			template(ns, TemplateTraining8, exactly(ClassH100, 8, nil), nil),
			// Four GPUs of one socket. A DGX H100 has two GPUs per PCIe
			// root, so a pcieRoot match could never hold four; NUMA can.
			template(ns, TemplateTraining4, exactly(ClassH100, 4, nil), []resourceapi.DeviceConstraint{{
				Requests:       []string{podClaim},
				MatchAttribute: ptr.To(resourceapi.FullyQualifiedName(Driver + "/" + attrNUMA)),
			}}),
		}
	case WorkloadMIG:
		return []*resourceapi.ResourceClaimTemplate{
			template(ns, TemplateMIG1g, exactly(ClassMIG, 1, cel(attr+`.profile == "1g.10gb"`)), nil),
			template(ns, TemplateMIG2g, exactly(ClassMIG, 1, cel(attr+`.profile == "2g.20gb"`)), nil),
		}
	}
	return nil
}

func sub(name, class string, sel []resourceapi.DeviceSelector) resourceapi.DeviceSubRequest {
	return resourceapi.DeviceSubRequest{
		Name: name, DeviceClassName: class, Selectors: sel,
		AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1,
	}
}

func exactly(class string, count int64, sel []resourceapi.DeviceSelector) resourceapi.DeviceRequest {
	return resourceapi.DeviceRequest{Name: podClaim, Exactly: &resourceapi.ExactDeviceRequest{
		DeviceClassName: class, Selectors: sel,
		AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: count,
	}}
}

func template(ns, name string, req resourceapi.DeviceRequest, constraints []resourceapi.DeviceConstraint) *resourceapi.ResourceClaimTemplate {
	return &resourceapi.ResourceClaimTemplate{
		TypeMeta:   metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceClaimTemplate"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: resourceapi.ResourceClaimTemplateSpec{Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests:    []resourceapi.DeviceRequest{req},
			Constraints: constraints,
		}}},
	}
}

// cpuSizes are the requests of CPU-only pods, from a small sidecar-like
// job to a large batch task.
var cpuSizes = []struct{ cpu, memory string }{
	{"500m", "1Gi"}, {"1", "2Gi"}, {"2", "4Gi"}, {"4", "8Gi"}, {"8", "32Gi"},
}

// makePod builds one pending pod of the workload. The random choices are
// drawn in a fixed order, so the stream stays aligned for later pods.
func (sh *shared) makePod(workload, name string, rng *rand.Rand) *v1.Pod {
	var cpu, memory, tmpl, image string
	switch workload {
	case WorkloadInference:
		cpu, memory, tmpl, image = "4", "32Gi", TemplateInference, "registry.example.com/llm-serve:1.4"
	case WorkloadTraining:
		if rng.IntN(2) == 0 {
			cpu, memory, tmpl = "96", "1000Gi", TemplateTraining8
		} else {
			cpu, memory, tmpl = "48", "500Gi", TemplateTraining4
		}
		image = "registry.example.com/trainer:2.3"
	case WorkloadMIG:
		if rng.IntN(3) < 2 {
			cpu, memory, tmpl = "1", "8Gi", TemplateMIG1g
		} else {
			cpu, memory, tmpl = "2", "16Gi", TemplateMIG2g
		}
		image = "registry.example.com/notebook:5.1"
	case WorkloadCPU:
		sz := cpuSizes[rng.IntN(len(cpuSizes))]
		cpu, memory, image = sz.cpu, sz.memory, "registry.example.com/batch:0.9"
	}
	pod := &v1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: namespaceOf[workload],
			Labels: memo(sh.labels, workload, func() map[string]string {
				return map[string]string{"app.kubernetes.io/name": workload}
			}),
		},
		Spec: v1.PodSpec{
			SchedulerName: v1.DefaultSchedulerName,
			Priority:      sh.priority,
			Containers: memo(sh.containers, image+"/"+cpu+"/"+memory+"/"+tmpl, func() []v1.Container {
				c := v1.Container{
					Name:  "main",
					Image: image,
					Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
						v1.ResourceCPU:    resource.MustParse(cpu),
						v1.ResourceMemory: resource.MustParse(memory),
					}},
				}
				if tmpl != "" {
					c.Resources.Claims = []v1.ResourceClaim{{Name: podClaim}}
				}
				return []v1.Container{c}
			}),
		},
	}
	if tmpl != "" {
		pod.Spec.ResourceClaims = memo(sh.podClaims, tmpl, func() []v1.PodResourceClaim {
			return []v1.PodResourceClaim{{Name: podClaim, ResourceClaimTemplateName: ptr.To(tmpl)}}
		})
	}
	return pod
}
