package dra

import (
	"fmt"
	"sort"
	"strings"

	"github.com/drasim/drasim/internal/kubenames"
	"github.com/drasim/drasim/sim/framework"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/utils/ptr"
)

// specialClaimName is the in-memory name kube gives the extended-resource
// claim before it is created; it is not a valid object name on purpose.
const specialClaimName = "<extended-resources>"

// isDRAExtendedResourceName mirrors kube-scheduler's check: an extended
// resource name or an implicit device-class resource name.
func isDRAExtendedResourceName(name v1.ResourceName) bool {
	return framework.IsExtendedResourceName(name) || strings.HasPrefix(string(name), resourceapi.ResourceDeviceClassPrefix)
}

// extendedRequests returns the pod's scalar resource requests when at least
// one of them is provided by a DeviceClass (DRAExtendedResource).
func (p *Plugin) extendedRequests(pod *v1.Pod) map[v1.ResourceName]int64 {
	if !p.state.gates["DRAExtendedResource"] || len(p.state.extResource) == 0 || !p.mayRequestExtended(pod) {
		return nil
	}
	reqs := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	mapped := false
	for name, q := range reqs {
		if !q.IsZero() && isDRAExtendedResourceName(name) && p.state.extResource[name] != nil {
			mapped = true
			break
		}
	}
	if !mapped {
		return nil
	}
	out := map[v1.ResourceName]int64{}
	for name, q := range reqs {
		if isDRAExtendedResourceName(name) {
			out[name] = q.Value()
		}
	}
	return out
}

// mayRequestExtended reports whether a resource a DeviceClass provides is
// named anywhere PodRequests takes requests from (the containers', the
// init containers', the pod level and the pod overhead). When none is,
// the pod's requests cannot map to a DeviceClass, and adding them up
// (every pod, every cycle) is skipped.
func (p *Plugin) mayRequestExtended(pod *v1.Pod) bool {
	provided := func(l v1.ResourceList) bool {
		for name := range l {
			if p.state.extResource[name] != nil {
				return true
			}
		}
		return false
	}
	for i := range pod.Spec.Containers {
		if provided(pod.Spec.Containers[i].Resources.Requests) {
			return true
		}
	}
	for i := range pod.Spec.InitContainers {
		if provided(pod.Spec.InitContainers[i].Resources.Requests) {
			return true
		}
	}
	if r := pod.Spec.Resources; r != nil && provided(r.Requests) {
		return true
	}
	return provided(pod.Spec.Overhead)
}

// findExtendedClaim finds an extended-resource claim made for the pod in an
// earlier cycle (as in a dump of a running cluster).
func (p *Plugin) findExtendedClaim(pod *v1.Pod) *resourceapi.ResourceClaim {
	for _, c := range p.state.Claims() {
		if c.Namespace != pod.Namespace || c.Annotations[resourceapi.ExtendedResourceClaimAnnotation] != "true" {
			continue
		}
		for _, or := range c.OwnerReferences {
			if or.Name == pod.Name && ptr.Deref(or.Controller, false) && or.UID == pod.UID {
				return c
			}
		}
	}
	return nil
}

func newExtendedClaim(pod *v1.Pod) *resourceapi.ResourceClaim {
	return &resourceapi.ResourceClaim{
		TypeMeta: metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceClaim"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace:    pod.Namespace,
			Name:         specialClaimName,
			GenerateName: pod.Name + "-extended-resources-",
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
			Annotations: map[string]string{resourceapi.ExtendedResourceClaimAnnotation: "true"},
		},
	}
}

// filterExtended decides, for one node, which of the pod's extended
// resources come from DRA: those a DeviceClass provides and the node does
// not advertise. It returns the node's variant of the extended-resource
// claim, or nil when the node's own resources cover everything.
func (p *Plugin) filterExtended(d *cycleData, pod *v1.Pod, ni *framework.NodeInfo) (*resourceapi.ResourceClaim, []v1.ContainerExtendedResourceRequest, *framework.Status) {
	if d.extendedClaim == nil {
		return nil, nil, nil
	}
	if d.extendedClaim.Name != specialClaimName && len(d.extendedClaim.Spec.Devices.Requests) > 0 {
		if d.extendedClaim.Status.Allocation != nil {
			return nil, nil, nil
		}
		return nil, nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonExtendedClaimFailed)
	}
	viaDRA := map[v1.ResourceName]int64{}
	for _, name := range sortedResourceNames(d.extendedRequests) {
		qty := d.extendedRequests[name]
		if qty == 0 {
			continue
		}
		allocatable, onNode := ni.Allocatable.ScalarResources[name]
		backed := p.state.extResource[name] != nil
		if backed && allocatable == 0 {
			viaDRA[name] = qty
		} else if !onNode {
			return nil, nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonCannotFitExtended)
		}
	}
	if len(viaDRA) == 0 {
		return nil, nil, nil
	}
	claim := d.extendedClaim.DeepCopy()
	reqs, mappings := p.extendedDeviceRequests(pod, viaDRA)
	claim.Spec.Devices.Requests = reqs
	return claim, mappings, nil
}

// extendedDeviceRequests turns container requests for DRA-backed extended
// resources into device requests named container-<i>-request-<j>, where i
// indexes init containers then containers and j the sorted resource names of
// that container, as kube-scheduler does. Regular containers and sidecars
// each get their own devices; plain init containers run before them and
// reuse devices of later long-lived containers, needing only the largest
// shortfall among them.
func (p *Plugin) extendedDeviceRequests(pod *v1.Pod, viaDRA map[v1.ResourceName]int64) ([]resourceapi.DeviceRequest, []v1.ContainerExtendedResourceRequest) {
	containers := append(append([]v1.Container(nil), pod.Spec.InitContainers...), pod.Spec.Containers...)
	numInit := len(pod.Spec.InitContainers)
	var requests []resourceapi.DeviceRequest
	var mappings []v1.ContainerExtendedResourceRequest
	for _, rName := range sortedResourceNames(viaDRA) {
		class := p.state.extResource[rName]
		if class == nil {
			continue
		}
		longLived := make([]*resourceapi.DeviceRequest, len(containers))
		var longMappings, shortMappings []v1.ContainerExtendedResourceRequest
		for i := range containers {
			if isShortLivedInit(&containers[i], i, numInit) {
				continue
			}
			req, m := containerDeviceRequest(i, &containers[i], rName, class.Name, nil)
			longLived[i] = req
			longMappings = append(longMappings, m...)
		}
		var largest *resourceapi.DeviceRequest
		shortNames := map[string]bool{}
		for i := range containers {
			if !isShortLivedInit(&containers[i], i, numInit) {
				continue
			}
			req, m := containerDeviceRequest(i, &containers[i], rName, class.Name, longLived[i:])
			if req != nil {
				shortNames[req.Name] = true
				if largest == nil || largest.Exactly.Count < req.Exactly.Count {
					largest = req
				}
			}
			shortMappings = append(shortMappings, m...)
		}
		if largest != nil && len(shortNames) > 1 {
			for i := range shortMappings {
				if shortNames[shortMappings[i].RequestName] {
					shortMappings[i].RequestName = largest.Name
				}
			}
		}
		if largest != nil {
			requests = append(requests, *largest)
		}
		for _, r := range longLived {
			if r != nil {
				requests = append(requests, *r)
			}
		}
		mappings = append(mappings, longMappings...)
		mappings = append(mappings, shortMappings...)
	}
	sort.Slice(requests, func(i, j int) bool { return requests[i].Name < requests[j].Name })
	return requests, mappings
}

func isShortLivedInit(c *v1.Container, index, numInit int) bool {
	return index < numInit && (c.RestartPolicy == nil || *c.RestartPolicy != v1.ContainerRestartPolicyAlways)
}

func containerDeviceRequest(index int, c *v1.Container, rName v1.ResourceName, className string, reusable []*resourceapi.DeviceRequest) (*resourceapi.DeviceRequest, []v1.ContainerExtendedResourceRequest) {
	q, ok := c.Resources.Requests[rName]
	if !ok {
		return nil, nil
	}
	want, ok := q.AsInt64()
	if !ok || want == 0 {
		return nil, nil
	}
	var mappings []v1.ContainerExtendedResourceRequest
	var have int64
	for _, r := range reusable {
		if r == nil {
			continue
		}
		have += r.Exactly.Count
		mappings = append(mappings, v1.ContainerExtendedResourceRequest{ContainerName: c.Name, ResourceName: string(rName), RequestName: r.Name})
		if have >= want {
			return nil, mappings
		}
	}
	names := make([]string, 0, len(c.Resources.Requests))
	for k := range c.Resources.Requests {
		names = append(names, string(k))
	}
	sort.Strings(names)
	ridx := sort.SearchStrings(names, string(rName))
	name := fmt.Sprintf("container-%d-request-%d", index, ridx)
	req := &resourceapi.DeviceRequest{
		Name: name,
		Exactly: &resourceapi.ExactDeviceRequest{
			DeviceClassName: className,
			AllocationMode:  resourceapi.DeviceAllocationModeExactCount,
			Count:           want - have,
		},
	}
	mappings = append(mappings, v1.ContainerExtendedResourceRequest{ContainerName: c.Name, ResourceName: string(rName), RequestName: name})
	return req, mappings
}

// materializeExtendedClaim gives the node's extended-resource claim a real
// name and adds it to the state, as PreBind creates it in the API server.
func (p *Plugin) materializeExtendedClaim(pod *v1.Pod, nodeClaim *resourceapi.ResourceClaim) *resourceapi.ResourceClaim {
	c := nodeClaim.DeepCopy()
	c.Name = kubenames.GenerateName(c.GenerateName, pod.Namespace+"/"+pod.Name+"/extended", 63)
	c.UID = types.UID(kubenames.UID("claim/" + c.Namespace + "/" + c.Name))
	p.state.AddClaim(c)
	return c
}

func setExtendedStatus(pod *v1.Pod, claimName string, mappings []v1.ContainerExtendedResourceRequest) {
	pod.Status.ExtendedResourceClaimStatus = &v1.PodExtendedResourceClaimStatus{
		ResourceClaimName: claimName,
		RequestMappings:   mappings,
	}
}
