package analysis

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/result"
	"github.com/drasim/drasim/sim/snapshot"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// extendedClaimName is the claim name shapes show for devices asked for as
// extended resources (DRAExtendedResource).
const extendedClaimName = "(extended resources)"

// requestAlternative is one way to serve a device request: its class and
// its own selectors.
type requestAlternative struct {
	// request names the request (claim/request) in CEL errors.
	request   string
	class     string
	selectors []resourceapi.DeviceSelector
}

// probeClaim is one claim a probe instance gets: the pod's claim entry name
// and the spec to copy.
type probeClaim struct {
	name string
	spec *resourceapi.ResourceClaimSpec
}

// shape is a request shape of the mix and how to make probe pods of it.
type shape struct {
	Shape
	// pod is the first pod of the shape; probe instances are copies.
	pod    *v1.Pod
	claims []probeClaim
	// requests are the shape's device requests, each with its alternatives.
	requests [][]requestAlternative
	// crossNode: placing an instance can change what fits on other nodes
	// (required pod affinity or anti-affinity, hard topology spread).
	crossNode bool
	// cpu and memory are the requests as NodeResourcesFit counts them.
	cpu, memory int64
}

// usable reports whether some request of the shape selects the device.
func (s *shape) usable(m matcher, d *device) bool {
	for _, alts := range s.requests {
		for _, alt := range alts {
			if m.selects(alt, d) {
				return true
			}
		}
	}
	return false
}

// instance returns a new probe pod of the shape, named name, with fresh
// claims (copies of the shape's claim specs) handed to add, which must add
// them to a copy's DRA state.
func (s *shape) instance(name string, add func(*resourceapi.ResourceClaim)) *v1.Pod {
	pod := s.pod.DeepCopy()
	pod.Name, pod.GenerateName, pod.ResourceVersion = name, "", ""
	pod.UID = types.UID("drasim-probe-" + pod.Namespace + "-" + name)
	pod.Spec.NodeName = ""
	pod.Spec.SchedulingGates = nil
	pod.Status = v1.PodStatus{}
	pod.Spec.ResourceClaims = nil
	for _, pc := range s.claims {
		claimName := name + "-" + pc.name
		add(&resourceapi.ResourceClaim{
			TypeMeta:   metav1.TypeMeta{APIVersion: "resource.k8s.io/v1", Kind: "ResourceClaim"},
			ObjectMeta: metav1.ObjectMeta{Name: claimName, Namespace: pod.Namespace, UID: types.UID("drasim-probe-claim-" + pod.Namespace + "-" + claimName)},
			Spec:       *pc.spec.DeepCopy(),
		})
		pod.Spec.ResourceClaims = append(pod.Spec.ResourceClaims, v1.PodResourceClaim{Name: pc.name, ResourceClaimName: &claimName})
	}
	return pod
}

// shapeSignature is what makes two pods the same shape: what the filters
// look at. Labels and images are left out (they only matter to scoring,
// or to a shape's own affinity, which the affinity itself then shows).
type shapeSignature struct {
	Namespace    string                        `json:"namespace"`
	Resources    framework.Resource            `json:"resources"`
	NodeSelector map[string]string             `json:"nodeSelector,omitempty"`
	Affinity     *v1.Affinity                  `json:"affinity,omitempty"`
	Tolerations  []v1.Toleration               `json:"tolerations,omitempty"`
	Spread       []v1.TopologySpreadConstraint `json:"spread,omitempty"`
	HostPorts    []v1.ContainerPort            `json:"hostPorts,omitempty"`
	Claims       []claimSignature              `json:"claims,omitempty"`
}

type claimSignature struct {
	Name string                         `json:"name"`
	Spec *resourceapi.ResourceClaimSpec `json:"spec"`
}

// mixSources is where buildMix finds pods and the claim specs they use.
type mixSources struct {
	pods      []*v1.Pod
	templates map[string]*resourceapi.ResourceClaimTemplate
	claims    map[string]*resourceapi.ResourceClaim
}

// buildMix groups pods into shapes. The mix is the probe file's pods when
// opts.Probes is set; otherwise the pods the replay tried (scheduled or
// still pending), or, when it tried none, the pods already bound. Each
// shape is weighted by its number of pods. DaemonSet pods are left out.
func buildMix(run *sim.Run, opts Options, wl *workloads) ([]*shape, string, []string) {
	c := run.Cluster
	src := mixSources{templates: map[string]*resourceapi.ResourceClaimTemplate{}, claims: map[string]*resourceapi.ResourceClaim{}}
	for _, t := range c.Snapshot().ResourceClaimTemplates {
		src.templates[t.Namespace+"/"+t.Name] = t
	}
	for _, cl := range c.DRA().Claims() {
		src.claims[cl.Namespace+"/"+cl.Name] = cl
	}
	source := MixWorkloads
	if opts.Probes != nil {
		source = MixProbe
		for _, t := range opts.Probes.ResourceClaimTemplates {
			src.templates[t.Namespace+"/"+t.Name] = t
		}
		for _, cl := range opts.Probes.ResourceClaims {
			src.claims[cl.Namespace+"/"+cl.Name] = cl
		}
		for _, p := range opts.Probes.Pods {
			if p.Status.Phase != v1.PodSucceeded && p.Status.Phase != v1.PodFailed {
				src.pods = append(src.pods, p)
			}
		}
	} else {
		phase := map[string]string{}
		for i := range run.Result.Pods {
			p := &run.Result.Pods[i]
			phase[p.Key()] = p.Phase
		}
		var bound []*v1.Pod
		for _, p := range c.Pods() {
			switch phase[p.Namespace+"/"+p.Name] {
			case result.PhaseScheduled, result.PhaseUnschedulable:
				src.pods = append(src.pods, p)
			case result.PhaseBound:
				bound = append(bound, p)
			}
		}
		if len(src.pods) == 0 {
			src.pods = bound
		}
	}
	shapes, warnings := groupShapes(run, opts, src, wl)
	return shapes, source, warnings
}

func groupShapes(run *sim.Run, opts Options, src mixSources, wl *workloads) ([]*shape, []string) {
	var warnings []string
	var shapes []*shape
	bySig := map[string]*shape{}
	total := 0
	for _, pod := range src.pods {
		if ref := metav1.GetControllerOf(pod); ref != nil && ref.Kind == "DaemonSet" {
			// One per node by design: not demand that can go anywhere,
			// and each, pinned to its node, would be a shape of its own.
			continue
		}
		claims, err := podClaimSpecs(pod, src)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("pod %s/%s is left out of the workload mix: %v", pod.Namespace, pod.Name, err))
			continue
		}
		res := framework.NewPodInfo(pod).CalculateResource().Resource
		sig := shapeSignature{
			Namespace: pod.Namespace, Resources: res, NodeSelector: pod.Spec.NodeSelector, Affinity: pod.Spec.Affinity,
			Tolerations: pod.Spec.Tolerations, Spread: pod.Spec.TopologySpreadConstraints, HostPorts: framework.HostPorts(pod),
		}
		for _, pc := range claims {
			sig.Claims = append(sig.Claims, claimSignature{Name: pc.name, Spec: pc.spec})
		}
		data, err := json.Marshal(sig)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("pod %s/%s is left out of the workload mix: %v", pod.Namespace, pod.Name, err))
			continue
		}
		total++
		workload := wl.name(pod)
		if s := bySig[string(data)]; s != nil {
			s.Pods++
			if !containsString(s.Workloads, workload) {
				s.Workloads = append(s.Workloads, workload)
			}
			continue
		}
		s := &shape{
			Shape: Shape{Namespace: pod.Namespace, Pods: 1, Workloads: []string{workload}, Devices: []ShapeRequest{},
				CPU: resource.NewMilliQuantity(res.MilliCPU, resource.DecimalSI).String(), Memory: resource.NewQuantity(res.Memory, resource.BinarySI).String()},
			pod: pod, claims: claims, cpu: res.MilliCPU, memory: res.Memory,
			crossNode: crossNode(pod, opts),
		}
		s.describeRequests(run, res)
		bySig[string(data)] = s
		shapes = append(shapes, s)
	}
	names := map[string]int{}
	for _, s := range shapes {
		s.Weight = round4(float64(s.Pods) / float64(total))
		name := s.Workloads[0]
		if len(s.Workloads) > 1 {
			name = fmt.Sprintf("%s (+%d)", name, len(s.Workloads)-1)
		}
		names[name]++
		if n := names[name]; n > 1 {
			name = fmt.Sprintf("%s #%d", name, n)
		}
		s.Name = name
	}
	return shapes, warnings
}

// podClaimSpecs returns the spec of each claim the pod names: the
// template's for template claims, a copy of the claim's for named claims
// (each probe instance gets its own).
func podClaimSpecs(pod *v1.Pod, src mixSources) ([]probeClaim, error) {
	var out []probeClaim
	for _, pc := range pod.Spec.ResourceClaims {
		switch {
		case pc.ResourceClaimTemplateName != nil:
			t := src.templates[pod.Namespace+"/"+*pc.ResourceClaimTemplateName]
			if t == nil {
				return nil, fmt.Errorf("claim %s: ResourceClaimTemplate %s/%s is not in the snapshot", pc.Name, pod.Namespace, *pc.ResourceClaimTemplateName)
			}
			out = append(out, probeClaim{name: pc.Name, spec: t.Spec.Spec.DeepCopy()})
		case pc.ResourceClaimName != nil:
			cl := src.claims[pod.Namespace+"/"+*pc.ResourceClaimName]
			if cl == nil {
				return nil, fmt.Errorf("claim %s: ResourceClaim %s/%s is not in the snapshot", pc.Name, pod.Namespace, *pc.ResourceClaimName)
			}
			out = append(out, probeClaim{name: pc.Name, spec: cl.Spec.DeepCopy()})
		}
	}
	return out, nil
}

// describeRequests fills the shape's device requests, for the report and
// for usable.
func (s *shape) describeRequests(run *sim.Run, res framework.Resource) {
	for _, pc := range s.claims {
		for _, req := range pc.spec.Devices.Requests {
			sr := ShapeRequest{Claim: pc.name, Request: req.Name, Classes: []string{}}
			var alts []requestAlternative
			switch {
			case req.Exactly != nil:
				sr.Classes = append(sr.Classes, req.Exactly.DeviceClassName)
				sr.Count = req.Exactly.Count
				sr.All = req.Exactly.AllocationMode == resourceapi.DeviceAllocationModeAll
				alts = append(alts, requestAlternative{request: pc.name + "/" + req.Name, class: req.Exactly.DeviceClassName, selectors: req.Exactly.Selectors})
			case len(req.FirstAvailable) > 0:
				for i, sub := range req.FirstAvailable {
					sr.Classes = append(sr.Classes, sub.DeviceClassName)
					if i == 0 {
						sr.Count = sub.Count
						sr.All = sub.AllocationMode == resourceapi.DeviceAllocationModeAll
					}
					alts = append(alts, requestAlternative{request: pc.name + "/" + req.Name + "/" + sub.Name, class: sub.DeviceClassName, selectors: sub.Selectors})
				}
			}
			if sr.All {
				sr.Count = 0
			}
			s.Devices = append(s.Devices, sr)
			s.requests = append(s.requests, alts)
		}
	}
	st := run.Cluster.DRA()
	if !st.Gates()["DRAExtendedResource"] {
		return
	}
	for _, name := range sortedScalarNames(res.ScalarResources) {
		class := st.ExtendedResourceClass(name)
		if class == nil || res.ScalarResources[name] == 0 {
			continue
		}
		s.Devices = append(s.Devices, ShapeRequest{Claim: extendedClaimName, Request: string(name), Classes: []string{class.Name}, Count: res.ScalarResources[name]})
		s.requests = append(s.requests, []requestAlternative{{class: class.Name}})
	}
}

// crossNode reports whether placing the pod can change what fits on other
// nodes, or whether what fits on a node depends on other nodes' pods.
func crossNode(pod *v1.Pod, opts Options) bool {
	if a := pod.Spec.Affinity; a != nil {
		if a.PodAffinity != nil && len(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
			return true
		}
		if a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
			return true
		}
	}
	constraints := pod.Spec.TopologySpreadConstraints
	if len(constraints) == 0 {
		constraints = opts.Engine.Plugins.PodTopologySpread.DefaultConstraints
	}
	for _, c := range constraints {
		if c.WhenUnsatisfiable == v1.DoNotSchedule {
			return true
		}
	}
	return false
}

// workloads names the workload of each pod: its controller as "Kind/name"
// (a ReplicaSet of a Deployment counts as the Deployment, found through
// the ReplicaSet's owner or, when the dump lacks the ReplicaSet, through
// the pod-template-hash suffix), or, for a pod without one, its name with a
// trailing "-<number>" replaced by "-*", so that infer-0..infer-9 form one
// workload "infer-*".
type workloads struct {
	rsOwner     map[string]string // namespace/ReplicaSet -> Deployment
	deployments map[string]bool   // namespace/name
	byPod       map[string]string // namespace/pod -> workload
}

func newWorkloads(snaps ...*snapshot.Snapshot) *workloads {
	w := &workloads{rsOwner: map[string]string{}, deployments: map[string]bool{}, byPod: map[string]string{}}
	for _, s := range snaps {
		if s == nil {
			continue
		}
		for _, d := range s.Deployments {
			w.deployments[d.Namespace+"/"+d.Name] = true
		}
		for _, rs := range s.ReplicaSets {
			if ref := metav1.GetControllerOf(rs); ref != nil && ref.Kind == "Deployment" {
				w.rsOwner[rs.Namespace+"/"+rs.Name] = ref.Name
			}
		}
	}
	return w
}

// of names the workload of one of the cluster's pods and remembers it for
// ofResult.
func (w *workloads) of(pod *v1.Pod) string {
	key := pod.Namespace + "/" + pod.Name
	if name, ok := w.byPod[key]; ok {
		return name
	}
	name := w.name(pod)
	w.byPod[key] = name
	return name
}

// name names the workload of any pod (a probe pod too).
func (w *workloads) name(pod *v1.Pod) string {
	name := bareWorkload(pod.Name)
	if ref := metav1.GetControllerOf(pod); ref != nil {
		name = ref.Kind + "/" + ref.Name
		if ref.Kind == "ReplicaSet" {
			if d, ok := w.rsOwner[pod.Namespace+"/"+ref.Name]; ok {
				name = "Deployment/" + d
			} else if hash := pod.Labels[appsv1.DefaultDeploymentUniqueLabelKey]; hash != "" && strings.HasSuffix(ref.Name, "-"+hash) {
				if d := strings.TrimSuffix(ref.Name, "-"+hash); w.deployments[pod.Namespace+"/"+d] {
					name = "Deployment/" + d
				}
			}
		}
	}
	return name
}

// ofResult names the workload of a result's pod, which must be one of the
// pods of().
func (w *workloads) ofResult(p *result.Pod) string {
	if name, ok := w.byPod[p.Key()]; ok {
		return name
	}
	if p.Owner != "" {
		return p.Owner
	}
	return bareWorkload(p.Name)
}

func bareWorkload(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 || i == len(name)-1 {
		return name
	}
	for _, r := range name[i+1:] {
		if r < '0' || r > '9' {
			return name
		}
	}
	return name[:i] + "-*"
}

func sortedScalarNames(m map[v1.ResourceName]int64) []v1.ResourceName {
	out := make([]v1.ResourceName, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortResourceNames(out)
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// WorkloadNamer names pods' workloads as the capacity report does
// (docs/metrics.md, Fit): the controller as Kind/name, a Deployment for
// its ReplicaSets, else the pod's name with a trailing number made "*".
func WorkloadNamer(snaps ...*snapshot.Snapshot) func(*v1.Pod) string {
	return newWorkloads(snaps...).name
}
