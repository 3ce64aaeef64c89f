package kube

import (
	"fmt"
	"strings"

	"github.com/drasim/drasim/internal/kubenames"
	"github.com/drasim/drasim/sim/snapshot"
	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// templateHash mimics the pod-template-hash label: a stable hash of the
// template, rendered in the suffix alphabet.
func templateHash(owner string, tmpl *v1.PodTemplateSpec) string {
	return kubenames.Suffix(fmt.Sprintf("%s/%v", owner, tmpl.Spec.String()), 10)
}

type ownerKey struct {
	kind, namespace, name string
}

// ExpandWorkloads adds the pods that workload controllers would create and
// that the snapshot does not already hold. It returns warnings for what it
// cannot model.
func ExpandWorkloads(s *snapshot.Snapshot) ([]snapshot.Warning, snapshot.Errors) {
	e := &expander{s: s, budget: MaxGeneratedPods}
	e.countOwned()
	// The order matters: DaemonSets look at every pod made before them.
	e.expandDeployments()
	e.expandReplicaSets()
	e.expandStatefulSets()
	e.expandJobs()
	e.expandDaemonSets()
	return e.warnings, e.errs
}

// expander is ExpandWorkloads' state: the snapshot it adds pods to, the
// pods each controller already has, and how many more pods drasim may
// still make.
type expander struct {
	s        *snapshot.Snapshot
	budget   int
	warnings []snapshot.Warning
	errs     snapshot.Errors

	owned      map[ownerKey]int
	ownedNames map[string]bool
	// rsOfDeployment counts pods whose ReplicaSet is missing from the dump
	// but whose name and pod-template-hash say which Deployment made it.
	rsOfDeployment map[ownerKey]int
	deployments    map[ownerKey]bool
}

// countOwned counts the pods each controller already has in the snapshot.
func (e *expander) countOwned() {
	s := e.s
	e.owned = map[ownerKey]int{}
	e.ownedNames = map[string]bool{}
	e.rsOfDeployment = map[ownerKey]int{}
	for _, p := range s.Pods {
		e.ownedNames[p.Namespace+"/"+p.Name] = true
		if ref := metav1.GetControllerOf(p); ref != nil {
			e.owned[ownerKey{ref.Kind, p.Namespace, ref.Name}]++
			hash := p.Labels["pod-template-hash"]
			if _, listed := s.Sources[snapshot.Ref{Kind: "ReplicaSet", Namespace: p.Namespace, Name: ref.Name}]; ref.Kind == "ReplicaSet" && !listed && hash != "" && strings.HasSuffix(ref.Name, "-"+hash) {
				e.rsOfDeployment[ownerKey{"Deployment", p.Namespace, strings.TrimSuffix(ref.Name, "-"+hash)}]++
			}
		}
	}
	// ReplicaSets owned by a Deployment in the snapshot count toward it.
	e.deployments = map[ownerKey]bool{}
	for _, d := range s.Deployments {
		e.deployments[ownerKey{"Deployment", d.Namespace, d.Name}] = true
	}
	for _, rs := range s.ReplicaSets {
		if ref := metav1.GetControllerOf(rs); ref != nil && ref.Kind == "Deployment" {
			e.owned[ownerKey{"Deployment", rs.Namespace, ref.Name}] += e.owned[ownerKey{"ReplicaSet", rs.Namespace, rs.Name}]
		}
	}
}

// tooMany reports (once per controller) a controller that asks for more
// pods than drasim will make; the budget keeps a typo such as
// replicas: 100000000 from exhausting memory.
func (e *expander) tooMany(ref snapshot.Ref, field string, want int) bool {
	if want <= e.budget {
		e.budget -= want
		return false
	}
	e.errs = append(e.errs, &snapshot.Error{Source: e.s.Sources[ref], Object: ref.String(), Field: field,
		Msg: fmt.Sprintf("asks for %d pods; drasim makes at most %d pods from workload controllers in one snapshot", want, MaxGeneratedPods)})
	return true
}

// add puts a pod made for ownerRef into the snapshot, defaulted as the
// API server would, and marks it generated.
func (e *expander) add(ownerRef snapshot.Ref, pod *v1.Pod) {
	DefaultPod(pod)
	ref := snapshot.Ref{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name}
	e.s.Pods = append(e.s.Pods, pod)
	e.s.Sources[ref] = e.s.Sources[ownerRef]
	e.s.Generated[ref] = true
}

// expandDeployments makes the pods of each Deployment's current
// ReplicaSet, named as the ReplicaSet controller would name them.
func (e *expander) expandDeployments() {
	for _, d := range e.s.Deployments {
		want := replicas(d.Spec.Replicas)
		have := e.owned[ownerKey{"Deployment", d.Namespace, d.Name}]
		ref := snapshot.Ref{Kind: "Deployment", Namespace: d.Namespace, Name: d.Name}
		hash := templateHash(ref.String(), &d.Spec.Template)
		rsName := d.Name + "-" + hash
		if e.tooMany(ref, "spec.replicas", want) {
			continue
		}
		// Pods of ReplicaSets the dump does not list (including those drasim
		// made in an earlier run) still count toward their Deployment.
		have += e.rsOfDeployment[ownerKey{"Deployment", d.Namespace, d.Name}]
		for i := 0; have < want; i++ {
			name := rsName + "-" + kubenames.Suffix(fmt.Sprintf("%s/%d", rsName, i), 5)
			if e.ownedNames[d.Namespace+"/"+name] {
				continue
			}
			e.add(ref, podFromTemplate(&d.Spec.Template, d.Namespace, name, "ReplicaSet", rsName, map[string]string{"pod-template-hash": hash}))
			have++
		}
	}
}

// expandReplicaSets makes the pods of the ReplicaSets no Deployment in the
// snapshot speaks for.
func (e *expander) expandReplicaSets() {
	for _, rs := range e.s.ReplicaSets {
		if ref := metav1.GetControllerOf(rs); ref != nil && ref.Kind == "Deployment" && e.deployments[ownerKey{"Deployment", rs.Namespace, ref.Name}] {
			continue // the Deployment speaks for it
		}
		want := replicas(rs.Spec.Replicas)
		have := e.owned[ownerKey{"ReplicaSet", rs.Namespace, rs.Name}]
		ref := snapshot.Ref{Kind: "ReplicaSet", Namespace: rs.Namespace, Name: rs.Name}
		if e.tooMany(ref, "spec.replicas", want) {
			continue
		}
		for i := 0; have < want; i++ {
			name := rs.Name + "-" + kubenames.Suffix(fmt.Sprintf("%s/%d", rs.Name, i), 5)
			if e.ownedNames[rs.Namespace+"/"+name] {
				continue
			}
			e.add(ref, podFromTemplate(&rs.Spec.Template, rs.Namespace, name, "ReplicaSet", rs.Name, nil))
			have++
		}
	}
}

func (e *expander) expandStatefulSets() {
	for _, ss := range e.s.StatefulSets {
		want := replicas(ss.Spec.Replicas)
		ref := snapshot.Ref{Kind: "StatefulSet", Namespace: ss.Namespace, Name: ss.Name}
		if e.tooMany(ref, "spec.replicas", want) {
			continue
		}
		if len(ss.Spec.VolumeClaimTemplates) > 0 {
			e.warnings = append(e.warnings, snapshot.Warning{Source: e.s.Sources[ref], Message: fmt.Sprintf("%s: volumeClaimTemplates are not modelled; its pods are scheduled without volumes", ref)})
		}
		start := 0
		if ss.Spec.Ordinals != nil {
			start = int(ss.Spec.Ordinals.Start)
		}
		for i := start; i < start+want; i++ {
			name := fmt.Sprintf("%s-%d", ss.Name, i)
			if e.ownedNames[ss.Namespace+"/"+name] {
				continue
			}
			pod := podFromTemplate(&ss.Spec.Template, ss.Namespace, name, "StatefulSet", ss.Name,
				map[string]string{"statefulset.kubernetes.io/pod-name": name, "apps.kubernetes.io/pod-index": fmt.Sprint(i)})
			e.add(ref, pod)
		}
	}
}

func (e *expander) expandJobs() {
	for _, j := range e.s.Jobs {
		ref := snapshot.Ref{Kind: "Job", Namespace: j.Namespace, Name: j.Name}
		want := JobActive(j)
		if e.tooMany(ref, "spec.parallelism", want) {
			continue
		}
		have := e.owned[ownerKey{"Job", j.Namespace, j.Name}]
		for i := 0; have < want; i++ {
			name := j.Name + "-" + kubenames.Suffix(fmt.Sprintf("%s/%d", j.Name, i), 5)
			if e.ownedNames[j.Namespace+"/"+name] {
				continue
			}
			labels := map[string]string{"batch.kubernetes.io/job-name": j.Name, "job-name": j.Name}
			if j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion {
				labels["batch.kubernetes.io/job-completion-index"] = fmt.Sprint(i)
			}
			e.add(ref, podFromTemplate(&j.Spec.Template, j.Namespace, name, "Job", j.Name, labels))
			have++
		}
	}
}

// expandDaemonSets makes one pod per node that should run it and has
// none yet, pinned to that node.
func (e *expander) expandDaemonSets() {
	for _, ds := range e.s.DaemonSets {
		ref := snapshot.Ref{Kind: "DaemonSet", Namespace: ds.Namespace, Name: ds.Name}
		onNode := map[string]bool{}
		for _, p := range e.s.Pods {
			if c := metav1.GetControllerOf(p); c != nil && c.Kind == "DaemonSet" && c.Name == ds.Name && p.Namespace == ds.Namespace {
				onNode[daemonPodNode(p)] = true
			}
		}
		for _, n := range e.s.Nodes {
			if onNode[n.Name] || !DaemonShouldRun(ds, n) {
				continue
			}
			name := ds.Name + "-" + kubenames.Suffix(ds.Namespace+"/"+ds.Name+"/"+n.Name, 5)
			pod := podFromTemplate(&ds.Spec.Template, ds.Namespace, name, "DaemonSet", ds.Name, nil)
			PinToNode(pod, n.Name)
			AddDaemonTolerations(pod)
			e.add(ref, pod)
		}
	}
}

// MaxGeneratedPods bounds the pods drasim makes from workload controllers.
const MaxGeneratedPods = 500_000

func replicas(r *int32) int {
	if r == nil {
		return 1
	}
	return int(*r)
}

// JobActive is how many pods a Job runs at once: parallelism (default 1),
// bounded by the completions still outstanding.
func JobActive(j *batchv1.Job) int {
	if j.Spec.Suspend != nil && *j.Spec.Suspend {
		return 0
	}
	want := 1
	if j.Spec.Parallelism != nil {
		want = int(*j.Spec.Parallelism)
	}
	if j.Spec.Completions != nil {
		left := int(*j.Spec.Completions) - int(j.Status.Succeeded)
		if left < want {
			want = left
		}
	}
	if want < 0 {
		want = 0
	}
	return want
}

func podFromTemplate(t *v1.PodTemplateSpec, namespace, name, ownerKind, ownerName string, extraLabels map[string]string) *v1.Pod {
	pod := &v1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: *t.ObjectMeta.DeepCopy(),
		Spec:       *t.Spec.DeepCopy(),
	}
	pod.Name = name
	pod.Namespace = namespace
	pod.UID = types.UID(kubenames.UID("pod/" + namespace + "/" + name))
	if len(extraLabels) > 0 && pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	for k, v := range extraLabels {
		pod.Labels[k] = v
	}
	apiVersion := "apps/v1"
	if ownerKind == "Job" {
		apiVersion = "batch/v1"
	}
	controller := true
	pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: apiVersion, Kind: ownerKind, Name: ownerName, Controller: &controller}}
	pod.Status = v1.PodStatus{Phase: v1.PodPending}
	return pod
}

// daemonPodNode returns the node a daemon pod runs on or is pinned to.
func daemonPodNode(p *v1.Pod) string {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, f := range t.MatchFields {
				if f.Key == "metadata.name" && len(f.Values) == 1 {
					return f.Values[0]
				}
			}
		}
	}
	return ""
}

// PinToNode sets the node affinity the DaemonSet controller uses to bind a
// daemon pod to its node (metadata.name matchFields), replacing any
// metadata.name term the template had.
func PinToNode(pod *v1.Pod, node string) {
	term := v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{node}}}}
	if pod.Spec.Affinity == nil {
		pod.Spec.Affinity = &v1.Affinity{}
	}
	if pod.Spec.Affinity.NodeAffinity == nil {
		pod.Spec.Affinity.NodeAffinity = &v1.NodeAffinity{}
	}
	req := pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	if req == nil || len(req.NodeSelectorTerms) == 0 {
		pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{term}}
		return
	}
	for i := range req.NodeSelectorTerms {
		t := &req.NodeSelectorTerms[i]
		t.MatchFields = append([]v1.NodeSelectorRequirement(nil), term.MatchFields...)
	}
}

// daemonTolerations are the tolerations the DaemonSet controller adds to
// every daemon pod.
var daemonTolerations = []v1.Toleration{
	{Key: v1.TaintNodeNotReady, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
	{Key: v1.TaintNodeUnreachable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute},
	{Key: v1.TaintNodeDiskPressure, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
	{Key: v1.TaintNodeMemoryPressure, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
	{Key: v1.TaintNodePIDPressure, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
	{Key: v1.TaintNodeUnschedulable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule},
}

// AddDaemonTolerations adds the tolerations the DaemonSet controller gives
// every daemon pod (and network-unavailable for host-network pods).
func AddDaemonTolerations(pod *v1.Pod) {
	for _, t := range daemonTolerations {
		present := false
		for _, have := range pod.Spec.Tolerations {
			if have.Key == t.Key && have.Effect == t.Effect {
				present = true
				break
			}
		}
		if !present {
			pod.Spec.Tolerations = append(pod.Spec.Tolerations, t)
		}
	}
	if pod.Spec.HostNetwork {
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, v1.Toleration{Key: v1.TaintNodeNetworkUnavailable, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule})
	}
}

// DaemonShouldRun mirrors the DaemonSet controller's predicate: the node
// matches the template's nodeSelector and required node affinity, and the pod
// (with the controller's added tolerations) tolerates the node's NoSchedule
// and NoExecute taints.
func DaemonShouldRun(ds *appsv1.DaemonSet, node *v1.Node) bool {
	pod := &v1.Pod{Spec: *ds.Spec.Template.Spec.DeepCopy()}
	AddDaemonTolerations(pod)
	if ok, _ := nodeaffinity.GetRequiredNodeAffinity(pod).Match(node); !ok {
		return false
	}
	_, untolerated := corev1helpers.FindMatchingUntoleratedTaint(logr.Discard(), node.Spec.Taints, pod.Spec.Tolerations, func(t *v1.Taint) bool {
		return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
	}, false)
	return !untolerated
}
