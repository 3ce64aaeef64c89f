package kube

import (
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
)

// DefaultClaimSpec applies the API server's defaults to a claim spec: a
// request without allocationMode is ExactCount, ExactCount without a count
// asks for one device, and a toleration without an operator means Equal.
func DefaultClaimSpec(spec *resourceapi.ResourceClaimSpec) {
	for i := range spec.Devices.Requests {
		r := &spec.Devices.Requests[i]
		if r.Exactly != nil {
			defaultRequestMode(&r.Exactly.AllocationMode, &r.Exactly.Count)
			defaultTolerations(r.Exactly.Tolerations)
		}
		for j := range r.FirstAvailable {
			s := &r.FirstAvailable[j]
			defaultRequestMode(&s.AllocationMode, &s.Count)
			defaultTolerations(s.Tolerations)
		}
	}
}

func defaultRequestMode(mode *resourceapi.DeviceAllocationMode, count *int64) {
	if *mode == "" {
		*mode = resourceapi.DeviceAllocationModeExactCount
	}
	if *mode == resourceapi.DeviceAllocationModeExactCount && *count == 0 {
		*count = 1
	}
}

func defaultTolerations(ts []resourceapi.DeviceToleration) {
	for i := range ts {
		if ts[i].Operator == "" {
			ts[i].Operator = resourceapi.DeviceTolerationOpEqual
		}
	}
}

// DefaultResourceSlice applies the API server's defaults to a slice. None of
// them changes allocation today; the hook keeps one place per kind.
func DefaultResourceSlice(*resourceapi.ResourceSlice) {}

// DefaultPod applies the API server's defaults that change scheduling: a
// container resource with a limit and no request requests its limit (also for
// pod-level resources), container ports default to TCP and, with host
// networking, to a host port equal to the container port; the scheduler name
// defaults to default-scheduler.
func DefaultPod(p *v1.Pod) {
	if p.Spec.SchedulerName == "" {
		p.Spec.SchedulerName = v1.DefaultSchedulerName
	}
	for i := range p.Spec.InitContainers {
		defaultContainer(&p.Spec.InitContainers[i], p.Spec.HostNetwork)
	}
	for i := range p.Spec.Containers {
		defaultContainer(&p.Spec.Containers[i], p.Spec.HostNetwork)
	}
	if p.Spec.Resources != nil {
		defaultRequestsFromLimits(p.Spec.Resources)
	}
}

func defaultContainer(c *v1.Container, hostNetwork bool) {
	defaultRequestsFromLimits(&c.Resources)
	for i := range c.Ports {
		port := &c.Ports[i]
		if port.Protocol == "" {
			port.Protocol = v1.ProtocolTCP
		}
		if hostNetwork && port.HostPort == 0 {
			port.HostPort = port.ContainerPort
		}
	}
}

func defaultRequestsFromLimits(r *v1.ResourceRequirements) {
	if len(r.Limits) == 0 {
		return
	}
	if r.Requests == nil {
		r.Requests = v1.ResourceList{}
	}
	for name, limit := range r.Limits {
		if _, ok := r.Requests[name]; !ok {
			r.Requests[name] = limit.DeepCopy()
		}
	}
}
