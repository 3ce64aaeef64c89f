package framework

import (
	"errors"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	resourcehelper "k8s.io/component-helpers/resource"
)

// The requests kube-scheduler assumes for a container that sets no CPU or
// memory request, so that zero-request pods do not all pile onto one node.
// They only feed NonZeroRequested (used by scoring), never the fit check.
const (
	DefaultMilliCPURequest int64 = 100               // 0.1 core
	DefaultMemoryRequest   int64 = 200 * 1024 * 1024 // 200 MiB
)

// podRequestOptions are the options kube-scheduler v1.37 passes to
// PodRequests when it accounts a pod on a node (PodInfo.CalculateResource):
// InPlacePodVerticalScaling is GA and InPlacePodLevelResourcesVerticalScaling
// beta-on, so status resources count; PodLevelResources is on by default;
// DRANodeAllocatableResources is alpha-off.
func podRequestOptions() resourcehelper.PodResourcesOptions {
	return resourcehelper.PodResourcesOptions{
		UseStatusResources: true,
		InPlacePodLevelResourcesVerticalScalingEnabled: true,
		SkipPodLevelResources:                          false,
		UseDRANodeAllocatableResourceClaimStatus:       false,
	}
}

// Resource is a set of compute resources as plain integers: millicores, bytes,
// a pod count and the scalar (extended, hugepages, attachable-volume)
// resources.
type Resource struct {
	MilliCPU         int64
	Memory           int64
	EphemeralStorage int64
	// AllowedPodNumber is Node.Status.Allocatable.Pods().Value(); it is only
	// meaningful for Allocatable.
	AllowedPodNumber int
	ScalarResources  map[v1.ResourceName]int64
}

// NewResource converts a ResourceList; names that are neither native nor
// scalar resources are dropped, as kube does.
func NewResource(rl v1.ResourceList) *Resource {
	r := &Resource{}
	r.Add(rl)
	return r
}

// Add adds every quantity of rl to r.
func (r *Resource) Add(rl v1.ResourceList) {
	if r == nil {
		return
	}
	for name, q := range rl {
		switch name {
		case v1.ResourceCPU:
			r.MilliCPU += q.MilliValue()
		case v1.ResourceMemory:
			r.Memory += q.Value()
		case v1.ResourcePods:
			r.AllowedPodNumber += int(q.Value())
		case v1.ResourceEphemeralStorage:
			r.EphemeralStorage += q.Value()
		default:
			if IsScalarResourceName(name) {
				r.AddScalar(name, q.Value())
			}
		}
	}
}

// SetMaxResource raises each resource of r to at least its value in rl.
// The pod count is not touched.
func (r *Resource) SetMaxResource(rl v1.ResourceList) {
	if r == nil {
		return
	}
	for name, q := range rl {
		switch name {
		case v1.ResourceMemory:
			r.Memory = max(r.Memory, q.Value())
		case v1.ResourceCPU:
			r.MilliCPU = max(r.MilliCPU, q.MilliValue())
		case v1.ResourceEphemeralStorage:
			r.EphemeralStorage = max(r.EphemeralStorage, q.Value())
		default:
			if IsScalarResourceName(name) {
				r.SetScalar(name, max(r.ScalarResources[name], q.Value()))
			}
		}
	}
}

// AddScalar adds quantity to one scalar resource.
func (r *Resource) AddScalar(name v1.ResourceName, quantity int64) {
	r.SetScalar(name, r.ScalarResources[name]+quantity)
}

// SetScalar sets one scalar resource, allocating the map on first use.
func (r *Resource) SetScalar(name v1.ResourceName, quantity int64) {
	if r.ScalarResources == nil {
		r.ScalarResources = map[v1.ResourceName]int64{}
	}
	r.ScalarResources[name] = quantity
}

// Clone returns an independent copy.
func (r *Resource) Clone() *Resource {
	c := &Resource{
		MilliCPU:         r.MilliCPU,
		Memory:           r.Memory,
		EphemeralStorage: r.EphemeralStorage,
		AllowedPodNumber: r.AllowedPodNumber,
	}
	if r.ScalarResources != nil {
		c.ScalarResources = make(map[v1.ResourceName]int64, len(r.ScalarResources))
		for k, v := range r.ScalarResources {
			c.ScalarResources[k] = v
		}
	}
	return c
}

// IsExtendedResourceName reports a fully-qualified name outside the
// kubernetes.io namespace that is valid as "requests.<name>" in a quota
// (k8s.io/kubernetes/pkg/apis/core/v1/helper.IsExtendedResourceName).
func IsExtendedResourceName(name v1.ResourceName) bool {
	if isNativeResource(name) || strings.HasPrefix(string(name), v1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(v1.DefaultResourceRequestsPrefix+string(name))) == 0
}

func isPrefixedNativeResource(name v1.ResourceName) bool {
	return strings.Contains(string(name), v1.ResourceDefaultNamespacePrefix)
}

func isNativeResource(name v1.ResourceName) bool {
	return !strings.Contains(string(name), "/") || isPrefixedNativeResource(name)
}

// IsScalarResourceName reports the resources kube-scheduler tracks in
// ScalarResources: extended resources, hugepages, prefixed native resources
// and attachable volumes.
func IsScalarResourceName(name v1.ResourceName) bool {
	return IsExtendedResourceName(name) ||
		strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix) ||
		isPrefixedNativeResource(name) ||
		strings.HasPrefix(string(name), v1.ResourceAttachableVolumesPrefix)
}

// PodResource is what a pod adds to a node's totals.
type PodResource struct {
	// Resource is the pod's effective request (PodRequests).
	Resource Resource
	// Non0CPU and Non0Mem are the CPU and memory requests with the
	// DefaultMilliCPURequest/DefaultMemoryRequest floor applied to every
	// container that sets none (and, with pod-level resources, only where
	// the pod level sets none either).
	Non0CPU int64
	Non0Mem int64
}

// AffinityTerm is a parsed v1.PodAffinityTerm.
type AffinityTerm struct {
	Namespaces        sets.Set[string]
	Selector          labels.Selector
	TopologyKey       string
	NamespaceSelector labels.Selector
}

// Matches reports whether pod is in the term's namespaces (listed, or
// selected by nsLabels, the labels of the pod's namespace) and matches its
// label selector.
func (at *AffinityTerm) Matches(pod *v1.Pod, nsLabels labels.Set) bool {
	if at.Namespaces.Has(pod.Namespace) || at.NamespaceSelector.Matches(nsLabels) {
		return at.Selector.Matches(labels.Set(pod.Labels))
	}
	return false
}

// WeightedAffinityTerm is a parsed v1.WeightedPodAffinityTerm.
type WeightedAffinityTerm struct {
	AffinityTerm
	Weight int32
}

// PodInfo wraps a pod with what the plugins need again and again: its parsed
// inter-pod (anti-)affinity terms and its request totals. It is immutable
// once built and may be shared between a NodeInfo and its clones.
type PodInfo struct {
	Pod                        *v1.Pod
	RequiredAffinityTerms      []AffinityTerm
	RequiredAntiAffinityTerms  []AffinityTerm
	PreferredAffinityTerms     []WeightedAffinityTerm
	PreferredAntiAffinityTerms []WeightedAffinityTerm

	resource PodResource
	parseErr error
}

// NewPodInfo parses the pod's affinity terms and computes its requests once.
// A term whose selector does not parse leaves that group of terms empty, as
// kube-scheduler's cache does (the API server does not fully validate them);
// ParseError reports what went wrong.
func NewPodInfo(pod *v1.Pod) *PodInfo {
	pi := newPodInfo(pod)
	pi.resource = calculatePodResource(pod)
	return pi
}

// newPodInfo is NewPodInfo without the requests.
func newPodInfo(pod *v1.Pod) *PodInfo {
	pi := &PodInfo{Pod: pod}
	var errs []error
	var err error
	aff := pod.Spec.Affinity
	var reqAff, reqAnti []v1.PodAffinityTerm
	var prefAff, prefAnti []v1.WeightedPodAffinityTerm
	if aff != nil && aff.PodAffinity != nil {
		reqAff = aff.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		prefAff = aff.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	}
	if aff != nil && aff.PodAntiAffinity != nil {
		reqAnti = aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		prefAnti = aff.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution
	}
	if pi.RequiredAffinityTerms, err = affinityTerms(pod, reqAff); err != nil {
		errs = append(errs, fmt.Errorf("requiredAffinityTerms: %w", err))
	}
	if pi.RequiredAntiAffinityTerms, err = affinityTerms(pod, reqAnti); err != nil {
		errs = append(errs, fmt.Errorf("requiredAntiAffinityTerms: %w", err))
	}
	if pi.PreferredAffinityTerms, err = weightedAffinityTerms(pod, prefAff); err != nil {
		errs = append(errs, fmt.Errorf("preferredAffinityTerms: %w", err))
	}
	if pi.PreferredAntiAffinityTerms, err = weightedAffinityTerms(pod, prefAnti); err != nil {
		errs = append(errs, fmt.Errorf("preferredAntiAffinityTerms: %w", err))
	}
	pi.parseErr = errors.Join(errs...)
	return pi
}

// NewPodInfoWithRequests is NewPodInfo for a pod whose requests are
// already added up.
func NewPodInfoWithRequests(pod *v1.Pod, sums *PodRequestSums) *PodInfo {
	pi := newPodInfo(pod)
	pi.resource = sums.resource
	return pi
}

// ParseError reports affinity terms that could not be parsed, or nil.
func (pi *PodInfo) ParseError() error { return pi.parseErr }

// CalculateResource returns the pod's precomputed request totals. The
// returned Resource shares its ScalarResources map with the PodInfo; do not
// modify it.
func (pi *PodInfo) CalculateResource() PodResource { return pi.resource }

func affinityTerms(pod *v1.Pod, terms []v1.PodAffinityTerm) ([]AffinityTerm, error) {
	if terms == nil {
		return nil, nil
	}
	out := make([]AffinityTerm, 0, len(terms))
	for i := range terms {
		t, err := newAffinityTerm(pod, &terms[i])
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func weightedAffinityTerms(pod *v1.Pod, terms []v1.WeightedPodAffinityTerm) ([]WeightedAffinityTerm, error) {
	if terms == nil {
		return nil, nil
	}
	out := make([]WeightedAffinityTerm, 0, len(terms))
	for i := range terms {
		t, err := newAffinityTerm(pod, &terms[i].PodAffinityTerm)
		if err != nil {
			return nil, err
		}
		out = append(out, WeightedAffinityTerm{AffinityTerm: t, Weight: terms[i].Weight})
	}
	return out, nil
}

func newAffinityTerm(pod *v1.Pod, term *v1.PodAffinityTerm) (AffinityTerm, error) {
	selector, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
	if err != nil {
		return AffinityTerm{}, err
	}
	nsSelector, err := metav1.LabelSelectorAsSelector(term.NamespaceSelector)
	if err != nil {
		return AffinityTerm{}, err
	}
	// No namespaces and no namespace selector means "the pod's own namespace".
	namespaces := sets.New[string]()
	if len(term.Namespaces) == 0 && term.NamespaceSelector == nil {
		namespaces.Insert(pod.Namespace)
	} else {
		namespaces.Insert(term.Namespaces...)
	}
	return AffinityTerm{Namespaces: namespaces, Selector: selector, TopologyKey: term.TopologyKey, NamespaceSelector: nsSelector}, nil
}

// calculatePodResource mirrors kube-scheduler's PodInfo.CalculateResource:
// containers summed, init containers as a running maximum with sidecars
// (restartable init containers) accumulated, pod-level requests replacing
// the container sum where set, overhead added, resize status honoured.
func calculatePodResource(pod *v1.Pod) PodResource {
	requests := PodRequests(pod, podRequestOptions())
	return podResource(requests, nonZeroRequests(pod, requests))
}

// nonZeroRequests are the pod's requests with the default for each
// container that sets no CPU or memory request (where the pod level does
// not set it either).
func nonZeroRequests(pod *v1.Pod, requests v1.ResourceList) v1.ResourceList {
	defaults := nonMissingContainerRequests(requests, resourcehelper.IsPodLevelRequestsSet(pod))
	if len(defaults) == 0 {
		return requests
	}
	opts := podRequestOptions()
	opts.NonMissingContainerRequests = defaults
	return PodRequests(pod, opts)
}

// podResource is what a pod with these requests adds to a NodeInfo.
func podResource(requests, non0 v1.ResourceList) PodResource {
	cpu := non0[v1.ResourceCPU]
	mem := non0[v1.ResourceMemory]
	var res Resource
	res.Add(requests)
	return PodResource{Resource: res, Non0CPU: cpu.MilliValue(), Non0Mem: mem.Value()}
}

// nonMissingContainerRequests returns the defaults to apply to containers
// that set no CPU/memory request. With pod-level requests, a default only
// applies to a resource the pod level does not set either.
func nonMissingContainerRequests(requests v1.ResourceList, podLevelRequestsSet bool) v1.ResourceList {
	if !podLevelRequestsSet {
		return v1.ResourceList{
			v1.ResourceCPU:    *resource.NewMilliQuantity(DefaultMilliCPURequest, resource.DecimalSI),
			v1.ResourceMemory: *resource.NewQuantity(DefaultMemoryRequest, resource.DecimalSI),
		}
	}
	out := make(v1.ResourceList, 2)
	if _, ok := requests[v1.ResourceCPU]; !ok {
		out[v1.ResourceCPU] = *resource.NewMilliQuantity(DefaultMilliCPURequest, resource.DecimalSI)
	}
	if _, ok := requests[v1.ResourceMemory]; !ok {
		out[v1.ResourceMemory] = *resource.NewQuantity(DefaultMemoryRequest, resource.DecimalSI)
	}
	return out
}

// DefaultBindAllHostIP is the host IP that conflicts with every other IP.
const DefaultBindAllHostIP = "0.0.0.0"

// ProtocolPort is a protocol and port pair, e.g. TCP/80.
type ProtocolPort struct {
	Protocol string
	Port     int32
}

// HostPortInfo maps a host IP to the protocol/port pairs in use on it.
type HostPortInfo map[string]map[ProtocolPort]struct{}

func sanitizeHostPort(ip, protocol string) (string, string) {
	if ip == "" {
		ip = DefaultBindAllHostIP
	}
	if protocol == "" {
		protocol = string(v1.ProtocolTCP)
	}
	return ip, protocol
}

// Add records (ip, protocol, port); an empty ip means 0.0.0.0, an empty
// protocol TCP; ports <= 0 are ignored.
func (h HostPortInfo) Add(ip, protocol string, port int32) {
	if port <= 0 {
		return
	}
	ip, protocol = sanitizeHostPort(ip, protocol)
	m, ok := h[ip]
	if !ok {
		m = map[ProtocolPort]struct{}{}
		h[ip] = m
	}
	m[ProtocolPort{Protocol: protocol, Port: port}] = struct{}{}
}

// Remove forgets (ip, protocol, port).
func (h HostPortInfo) Remove(ip, protocol string, port int32) {
	if port <= 0 {
		return
	}
	ip, protocol = sanitizeHostPort(ip, protocol)
	if m, ok := h[ip]; ok {
		delete(m, ProtocolPort{Protocol: protocol, Port: port})
		if len(m) == 0 {
			delete(h, ip)
		}
	}
}

// Len counts the recorded (ip, protocol, port) triples.
func (h HostPortInfo) Len() int {
	n := 0
	for _, m := range h {
		n += len(m)
	}
	return n
}

// CheckConflict reports whether (ip, protocol, port) collides with a recorded
// triple: 0.0.0.0 collides with the pair on any IP, any other IP with the
// same IP or 0.0.0.0.
func (h HostPortInfo) CheckConflict(ip, protocol string, port int32) bool {
	if port <= 0 {
		return false
	}
	ip, protocol = sanitizeHostPort(ip, protocol)
	pp := ProtocolPort{Protocol: protocol, Port: port}
	if ip == DefaultBindAllHostIP {
		for _, m := range h {
			if _, ok := m[pp]; ok {
				return true
			}
		}
		return false
	}
	if _, ok := h[DefaultBindAllHostIP][pp]; ok {
		return true
	}
	_, ok := h[ip][pp]
	return ok
}

func (h HostPortInfo) clone() HostPortInfo {
	c := make(HostPortInfo, len(h))
	for ip, m := range h {
		cm := make(map[ProtocolPort]struct{}, len(m))
		for pp := range m {
			cm[pp] = struct{}{}
		}
		c[ip] = cm
	}
	return c
}

// HostPorts returns the host ports a pod occupies: those of its containers
// and of its sidecars (restartable init containers), which run for the
// pod's whole life. Plain init containers are not counted.
func HostPorts(pod *v1.Pod) []v1.ContainerPort {
	var ports []v1.ContainerPort
	if pod == nil {
		return nil
	}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if c.RestartPolicy == nil || *c.RestartPolicy != v1.ContainerRestartPolicyAlways {
			continue
		}
		for _, p := range c.Ports {
			if p.HostPort > 0 {
				ports = append(ports, p)
			}
		}
	}
	for i := range pod.Spec.Containers {
		for _, p := range pod.Spec.Containers[i].Ports {
			if p.HostPort > 0 {
				ports = append(ports, p)
			}
		}
	}
	return ports
}

// ImageStateSummary describes one image on a node.
type ImageStateSummary struct {
	// Size is the image size in bytes as this node reports it.
	Size int64
	// NumNodes is how many nodes of the cluster hold the image.
	NumNodes int
}

// NodeInfo is one node with the running totals of the pods placed on it.
// It is not safe for concurrent mutation; Filter and Score only read it.
type NodeInfo struct {
	node *v1.Node

	// Pods are the pods on the node, in the order they were added (removal
	// swaps the last pod into the gap, as kube does).
	Pods []*PodInfo
	// PodsWithAffinity holds the pods with any inter-pod (anti-)affinity.
	PodsWithAffinity []*PodInfo
	// PodsWithRequiredAntiAffinity holds the pods with required
	// anti-affinity terms.
	PodsWithRequiredAntiAffinity []*PodInfo

	// Requested sums the pods' requests; NonZeroRequested does the same for
	// CPU and memory with the per-container defaults applied; Allocatable is
	// the node's status.allocatable.
	Requested        *Resource
	NonZeroRequested *Resource
	Allocatable      *Resource

	// UsedPorts are the host ports taken by the pods.
	UsedPorts HostPortInfo
	// ImageStates holds the images on the node; see SetImageStates. The map
	// is replaced, never edited in place.
	ImageStates map[string]*ImageStateSummary

	// Generation grows by one with every change of this NodeInfo; a clone
	// starts from its original's value.
	Generation int64
	// Index is the node's position in its cluster's node list, for
	// plugins that keep per-node arrays; a clone keeps it.
	Index int
	// observer, when set, hears of every change (see SetObserver).
	observer func(*NodeInfo)
}

// SetObserver has f called after every change of the NodeInfo, so that
// its owner can keep per-node caches up to date without scanning every
// node. A clone starts without an observer.
func (n *NodeInfo) SetObserver(f func(*NodeInfo)) { n.observer = f }

// SameNodeList reports whether b is the node list a was copied from, for
// caches kept per node across scheduling cycles. A cluster's node list only
// grows by appending, and a fork has new NodeInfos, so the length and the
// two ends tell.
func SameNodeList(a, b []*NodeInfo) bool {
	return len(a) == len(b) && (len(a) == 0 || (a[0] == b[0] && a[len(a)-1] == b[len(b)-1]))
}

func (n *NodeInfo) changed() {
	n.Generation++
	if n.observer != nil {
		n.observer(n)
	}
}

// NewNodeInfo returns the NodeInfo of node with pods already placed.
// ImageStates start empty; call SetImageStates once all nodes are known.
func NewNodeInfo(node *v1.Node, pods ...*v1.Pod) *NodeInfo {
	n := &NodeInfo{
		Requested:        &Resource{},
		NonZeroRequested: &Resource{},
		Allocatable:      &Resource{},
		UsedPorts:        make(HostPortInfo),
		ImageStates:      map[string]*ImageStateSummary{},
	}
	if node != nil {
		n.SetNode(node)
	}
	for _, p := range pods {
		n.AddPod(p)
	}
	return n
}

// Node returns the node, or nil for a nil NodeInfo.
func (n *NodeInfo) Node() *v1.Node {
	if n == nil {
		return nil
	}
	return n.node
}

// SetNode replaces the node object and recomputes Allocatable; the pods stay.
func (n *NodeInfo) SetNode(node *v1.Node) {
	n.node = node
	n.Allocatable = NewResource(node.Status.Allocatable)
	n.changed()
}

// AddPod accounts a pod on the node.
func (n *NodeInfo) AddPod(pod *v1.Pod) {
	n.AddPodInfo(NewPodInfo(pod))
}

// AddPodInfo accounts an already parsed pod on the node.
func (n *NodeInfo) AddPodInfo(pi *PodInfo) {
	n.Pods = append(n.Pods, pi)
	if podWithAffinity(pi.Pod) {
		n.PodsWithAffinity = append(n.PodsWithAffinity, pi)
	}
	if podWithRequiredAntiAffinity(pi.Pod) {
		n.PodsWithRequiredAntiAffinity = append(n.PodsWithRequiredAntiAffinity, pi)
	}
	n.update(pi, 1)
}

// RemovePod takes a pod, matched by namespace and name, off the node. It
// fails when the pod is not there.
func (n *NodeInfo) RemovePod(pod *v1.Pod) error {
	if podWithAffinity(pod) {
		n.PodsWithAffinity, _ = removePodInfo(n.PodsWithAffinity, pod)
	}
	if podWithRequiredAntiAffinity(pod) {
		n.PodsWithRequiredAntiAffinity, _ = removePodInfo(n.PodsWithRequiredAntiAffinity, pod)
	}
	var removed *PodInfo
	if n.Pods, removed = removePodInfo(n.Pods, pod); removed == nil {
		return fmt.Errorf("node %s: no pod %s/%s to remove", n.nodeName(), pod.Namespace, pod.Name)
	}
	n.update(removed, -1)
	return nil
}

func (n *NodeInfo) nodeName() string {
	if n.node == nil {
		return "<no node>"
	}
	return n.node.Name
}

// Clone returns a copy that can take pods, lose pods or get a new node
// without changing n. PodInfos and the node object are shared: they are
// never modified in place.
func (n *NodeInfo) Clone() *NodeInfo {
	c := &NodeInfo{
		node:             n.node,
		Requested:        n.Requested.Clone(),
		NonZeroRequested: n.NonZeroRequested.Clone(),
		Allocatable:      n.Allocatable.Clone(),
		UsedPorts:        n.UsedPorts.clone(),
		ImageStates:      make(map[string]*ImageStateSummary, len(n.ImageStates)),
		Generation:       n.Generation,
		Index:            n.Index,
	}
	if len(n.Pods) > 0 {
		c.Pods = append([]*PodInfo(nil), n.Pods...)
	}
	if len(n.PodsWithAffinity) > 0 {
		c.PodsWithAffinity = append([]*PodInfo(nil), n.PodsWithAffinity...)
	}
	if len(n.PodsWithRequiredAntiAffinity) > 0 {
		c.PodsWithRequiredAntiAffinity = append([]*PodInfo(nil), n.PodsWithRequiredAntiAffinity...)
	}
	for k, v := range n.ImageStates {
		c.ImageStates[k] = v
	}
	return c
}

func (n *NodeInfo) update(pi *PodInfo, sign int64) {
	res := pi.resource
	n.Requested.MilliCPU += sign * res.Resource.MilliCPU
	n.Requested.Memory += sign * res.Resource.Memory
	n.Requested.EphemeralStorage += sign * res.Resource.EphemeralStorage
	if n.Requested.ScalarResources == nil && len(res.Resource.ScalarResources) > 0 {
		n.Requested.ScalarResources = map[v1.ResourceName]int64{}
	}
	for name, q := range res.Resource.ScalarResources {
		n.Requested.ScalarResources[name] += sign * q
	}
	n.NonZeroRequested.MilliCPU += sign * res.Non0CPU
	n.NonZeroRequested.Memory += sign * res.Non0Mem
	for _, p := range HostPorts(pi.Pod) {
		if sign > 0 {
			n.UsedPorts.Add(p.HostIP, string(p.Protocol), p.HostPort)
		} else {
			n.UsedPorts.Remove(p.HostIP, string(p.Protocol), p.HostPort)
		}
	}
	n.changed()
}

func podWithAffinity(p *v1.Pod) bool {
	a := p.Spec.Affinity
	return a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil)
}

func podWithRequiredAntiAffinity(p *v1.Pod) bool {
	a := p.Spec.Affinity
	return a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 0
}

// removePodInfo deletes the pod with pod's namespace and name by moving the
// last element into its place, and returns the removed PodInfo (nil if
// absent). An emptied slice becomes nil.
func removePodInfo(s []*PodInfo, pod *v1.Pod) ([]*PodInfo, *PodInfo) {
	var removed *PodInfo
	for i, pi := range s {
		if pi.Pod.Name == pod.Name && pi.Pod.Namespace == pod.Namespace {
			removed = pi
			last := len(s) - 1
			s[i] = s[last]
			s[last] = nil
			s = s[:last]
			break
		}
	}
	if len(s) == 0 {
		return nil, removed
	}
	return s, removed
}

// SetImageStates fills every NodeInfo's ImageStates from its node's
// status.images: one entry per image name, with the size this node reports
// and NumNodes counting the nodes (among those given, which should be the
// whole cluster) that list the name. This is what kube-scheduler's snapshot
// hands to ImageLocality. Call it again after nodes are added or removed.
func SetImageStates(nodes []*NodeInfo) {
	count := map[string]int{}
	lastSeen := map[string]int{} // image name -> 1 + index of the last node counted
	for i, n := range nodes {
		node := n.Node()
		if node == nil {
			continue
		}
		for _, img := range node.Status.Images {
			for _, name := range img.Names {
				if lastSeen[name] != i+1 {
					lastSeen[name] = i + 1
					count[name]++
				}
			}
		}
	}
	for _, n := range nodes {
		states := map[string]*ImageStateSummary{}
		if node := n.Node(); node != nil {
			for _, img := range node.Status.Images {
				for _, name := range img.Names {
					states[name] = &ImageStateSummary{Size: img.SizeBytes, NumNodes: count[name]}
				}
			}
		}
		n.ImageStates = states
		n.changed()
	}
}
