package snapshot

import (
	"fmt"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
)

// Source says where an object was read from. Doc is the zero-based index of
// the YAML document in the file; Item is the index inside a List (-1 when the
// object was not inside a List); Line is 1-based and 0 when unknown.
type Source struct {
	File string `json:"file"`
	Doc  int    `json:"doc"`
	Item int    `json:"item"`
	Line int    `json:"line,omitempty"`
}

// String renders the source as "file:line (document N)" for messages.
func (s Source) String() string {
	loc := s.File
	if s.Line > 0 {
		loc = fmt.Sprintf("%s:%d", s.File, s.Line)
	}
	if s.Item >= 0 {
		return fmt.Sprintf("%s (document %d, item %d)", loc, s.Doc+1, s.Item)
	}
	return fmt.Sprintf("%s (document %d)", loc, s.Doc+1)
}

// Ref identifies an object: its kind, namespace (empty for cluster-scoped
// kinds) and name.
type Ref struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// String renders the reference the way drasim's messages name objects:
// `ResourceSlice "node-a-gpu"` or `Pod "team-a/train-0"`.
func (r Ref) String() string {
	if r.Namespace != "" {
		return fmt.Sprintf("%s %q", r.Kind, r.Namespace+"/"+r.Name)
	}
	return fmt.Sprintf("%s %q", r.Kind, r.Name)
}

// Snapshot is everything drasim knows about one cluster. Slices keep the order
// in which objects were read (files in lexical order, documents in file order);
// that order is the documented tie-break wherever kube has none.
type Snapshot struct {
	Namespaces             []*v1.Namespace
	Nodes                  []*v1.Node
	Pods                   []*v1.Pod
	PriorityClasses        []*schedulingv1.PriorityClass
	Deployments            []*appsv1.Deployment
	ReplicaSets            []*appsv1.ReplicaSet
	StatefulSets           []*appsv1.StatefulSet
	DaemonSets             []*appsv1.DaemonSet
	Jobs                   []*batchv1.Job
	DeviceClasses          []*resourceapi.DeviceClass
	ResourceSlices         []*resourceapi.ResourceSlice
	ResourceClaims         []*resourceapi.ResourceClaim
	ResourceClaimTemplates []*resourceapi.ResourceClaimTemplate
	DeviceTaintRules       []*resourceapi.DeviceTaintRule
	// PodDisruptionBudgets limit voluntary evictions (what-if drains) and
	// guide preemption's choice of victims.
	PodDisruptionBudgets []*policyv1.PodDisruptionBudget
	// Workloads and PodGroups (scheduling.k8s.io/v1beta1; v1alpha3 is
	// read as the same shape) make gangs of the pods that name a pod
	// group, when the GenericWorkload gate is on.
	Workloads []*schedulingv1beta1.Workload
	PodGroups []*schedulingv1beta1.PodGroup
	// NodeGroups are drasim.io/v1alpha1 node groups for the autoscaler.
	NodeGroups []*NodeGroup
	// PodTemplates give ProvisioningRequests and CapacityBuffers their
	// pods; ProvisioningRequests and CapacityBuffers (autoscaling.x-k8s.io)
	// take part in the autoscaler's loop.
	PodTemplates         []*v1.PodTemplate
	ProvisioningRequests []*ProvisioningRequest
	CapacityBuffers      []*CapacityBuffer

	// Sources maps each loaded object to where it came from. Objects made by
	// drasim itself (pods of workload controllers) point at their controller's
	// source.
	Sources map[Ref]Source

	// Skipped counts documents of kinds drasim does not model, by
	// "apiVersion/kind".
	Skipped map[string]int

	// Written holds the apiVersion that objects of the kinds whose served
	// versions differ between Kubernetes releases (DeviceTaintRule,
	// Workload, PodGroup; see sim/kubeversion) were written in, by source:
	// the objects are stored in one version, and --kube-version refuses
	// those its release would not know.
	Written map[Source]string

	// Generated lists pods that drasim made from workload controllers, so that
	// reports can tell them from pods that were in the dump.
	Generated map[Ref]bool
}

// New returns an empty snapshot ready to be filled.
func New() *Snapshot {
	return &Snapshot{
		Sources:   map[Ref]Source{},
		Skipped:   map[string]int{},
		Written:   map[Source]string{},
		Generated: map[Ref]bool{},
	}
}

// SourceOf returns where the object was read from, if known.
func (s *Snapshot) SourceOf(r Ref) (Source, bool) {
	src, ok := s.Sources[r]
	return src, ok
}

// Where names an object and its origin for messages:
// `ResourceSlice "a" (file.yaml:12 (document 3))`.
func (s *Snapshot) Where(r Ref) string {
	if src, ok := s.Sources[r]; ok {
		return fmt.Sprintf("%s: %s", src, r)
	}
	return r.String()
}

// Copy returns a snapshot whose lists and maps can grow, shrink and be
// reordered without touching s. The objects themselves are shared: replace
// an object with a changed copy, never change it in place.
func (s *Snapshot) Copy() *Snapshot {
	c := *s
	c.Namespaces = slices.Clone(s.Namespaces)
	c.Nodes = slices.Clone(s.Nodes)
	c.Pods = slices.Clone(s.Pods)
	c.PriorityClasses = slices.Clone(s.PriorityClasses)
	c.Deployments = slices.Clone(s.Deployments)
	c.ReplicaSets = slices.Clone(s.ReplicaSets)
	c.StatefulSets = slices.Clone(s.StatefulSets)
	c.DaemonSets = slices.Clone(s.DaemonSets)
	c.Jobs = slices.Clone(s.Jobs)
	c.DeviceClasses = slices.Clone(s.DeviceClasses)
	c.ResourceSlices = slices.Clone(s.ResourceSlices)
	c.ResourceClaims = slices.Clone(s.ResourceClaims)
	c.ResourceClaimTemplates = slices.Clone(s.ResourceClaimTemplates)
	c.DeviceTaintRules = slices.Clone(s.DeviceTaintRules)
	c.NodeGroups = slices.Clone(s.NodeGroups)
	c.PodTemplates = slices.Clone(s.PodTemplates)
	c.ProvisioningRequests = slices.Clone(s.ProvisioningRequests)
	c.CapacityBuffers = slices.Clone(s.CapacityBuffers)
	c.PodDisruptionBudgets = slices.Clone(s.PodDisruptionBudgets)
	c.Workloads = slices.Clone(s.Workloads)
	c.PodGroups = slices.Clone(s.PodGroups)
	c.Sources = maps.Clone(s.Sources)
	c.Skipped = maps.Clone(s.Skipped)
	c.Written = maps.Clone(s.Written)
	c.Generated = maps.Clone(s.Generated)
	return &c
}
