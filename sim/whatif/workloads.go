package whatif

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/drasim/drasim/sim/kube"
	"github.com/drasim/drasim/sim/result"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func movedPod(p *v1.Pod) result.MovedPod { return result.MovedPod{Pod: key(p.Namespace, p.Name)} }

// deploymentOf returns "Deployment/ns/name" for a pod of a ReplicaSet the
// snapshot does not list but whose name and pod-template-hash say which
// Deployment made it (drasim's own expansion names them so), or "".
func (e *editor) deploymentOf(p *v1.Pod) string {
	ref := metav1.GetControllerOf(p)
	hash := p.Labels["pod-template-hash"]
	if ref == nil || ref.Kind != "ReplicaSet" || hash == "" || !strings.HasSuffix(ref.Name, "-"+hash) {
		return ""
	}
	return "Deployment/" + key(p.Namespace, strings.TrimSuffix(ref.Name, "-"+hash))
}

// template returns a mutable pod template of the workload (nil for a
// Pod), and an error naming the field when the snapshot lacks it.
func (e *editor) template(ed *Edit, w Workload) (*v1.PodTemplateSpec, error) {
	var t *v1.PodTemplateSpec
	switch w.Kind {
	case "Deployment":
		if d := ownNamed(e, e.s.Deployments, w); d != nil {
			t = &d.Spec.Template
		}
	case "ReplicaSet":
		if rs := ownNamed(e, e.s.ReplicaSets, w); rs != nil {
			t = &rs.Spec.Template
		}
	case "StatefulSet":
		if ss := ownNamed(e, e.s.StatefulSets, w); ss != nil {
			t = &ss.Spec.Template
		}
	case "DaemonSet":
		if ds := ownNamed(e, e.s.DaemonSets, w); ds != nil {
			t = &ds.Spec.Template
		}
	case "Job":
		if j := ownNamed(e, e.s.Jobs, w); j != nil {
			t = &j.Spec.Template
		}
	case "Pod":
		for _, p := range e.s.Pods {
			if p.Namespace == w.Namespace && p.Name == w.Name {
				return nil, nil
			}
		}
	}
	if t == nil {
		return nil, ed.errorf("name", "no %s %q in the snapshot", w.Kind, key(w.Namespace, w.Name))
	}
	return t, nil
}

// ownNamed returns the editor's own copy of the object of the list that
// the workload names, or nil.
func ownNamed[T interface {
	comparable
	DeepCopy() T
	GetNamespace() string
	GetName() string
}](e *editor, list []T, w Workload) T {
	var zero T
	for i, o := range list {
		if o.GetNamespace() == w.Namespace && o.GetName() == w.Name {
			return own(e, &list[i])
		}
	}
	return zero
}

// workloadPods returns the indexes of the workload's live pods, in
// snapshot order.
func (e *editor) workloadPods(w Workload) []int {
	rsOfDeployment := map[string]bool{}
	if w.Kind == "Deployment" {
		for _, rs := range e.s.ReplicaSets {
			if ref := metav1.GetControllerOf(rs); ref != nil && ref.Kind == "Deployment" && rs.Namespace == w.Namespace && ref.Name == w.Name {
				rsOfDeployment[rs.Name] = true
			}
		}
	}
	var out []int
	for i, p := range e.s.Pods {
		if p.Namespace != w.Namespace || terminated(p) {
			continue
		}
		ref := metav1.GetControllerOf(p)
		var mine bool
		switch w.Kind {
		case "Pod":
			mine = p.Name == w.Name
		case "Deployment":
			mine = ref != nil && ref.Kind == "ReplicaSet" && (rsOfDeployment[ref.Name] || e.deploymentOf(p) == "Deployment/"+key(w.Namespace, w.Name))
		default:
			mine = ref != nil && ref.Kind == w.Kind && ref.Name == w.Name
		}
		if mine {
			out = append(out, i)
		}
	}
	return out
}

// scale sets the replicas (a Job's parallelism). Up: the controller's new
// pods are made as the loader makes them. Down: pods are deleted in the
// order the ReplicaSet controller picks them (unscheduled first, then not
// ready, then the nodes with more of the workload's pods, then the
// newest); a StatefulSet removes its highest ordinals.
func (e *editor) scale(ed *Edit) error {
	s := ed.Scale
	if _, err := e.template(ed, s.Workload); err != nil {
		return err
	}
	n := *s.Replicas
	var before int32
	switch s.Kind {
	case "Deployment":
		d := ownNamed(e, e.s.Deployments, s.Workload)
		before = int32(replicaCount(d.Spec.Replicas))
		d.Spec.Replicas = &n
	case "ReplicaSet":
		rs := ownNamed(e, e.s.ReplicaSets, s.Workload)
		before = int32(replicaCount(rs.Spec.Replicas))
		rs.Spec.Replicas = &n
	case "StatefulSet":
		ss := ownNamed(e, e.s.StatefulSets, s.Workload)
		before = int32(replicaCount(ss.Spec.Replicas))
		ss.Spec.Replicas = &n
	case "Job":
		j := ownNamed(e, e.s.Jobs, s.Workload)
		before = int32(kube.JobActive(j))
		j.Spec.Parallelism = &n
		n = int32(kube.JobActive(j))
	}
	e.out.Description = fmt.Sprintf("scale %s from %d to %d", s.Workload, before, *s.Replicas)
	pods := e.workloadPods(s.Workload)
	if extra := len(pods) - int(n); extra > 0 {
		for _, i := range e.scaleDownOrder(s.Workload, pods)[:extra] {
			e.deletePod(i)
		}
		return nil
	}
	return e.expand()
}

// expand makes the pods the workload controllers now want, and records
// them as added.
func (e *editor) expand() error {
	had := make(map[string]bool, len(e.s.Pods))
	for _, p := range e.s.Pods {
		had[key(p.Namespace, p.Name)] = true
	}
	warnings, err := kube.Expand(e.s)
	if err != nil {
		return &Error{Source: e.out.Source, Index: -1, Type: e.out.Type, Msg: err.Error()}
	}
	for _, w := range warnings {
		e.warnf("%s", w.Message)
	}
	for _, p := range e.s.Pods {
		if k := key(p.Namespace, p.Name); !had[k] {
			e.owned[p] = true
			e.out.Added = append(e.out.Added, movedPod(p))
		}
	}
	return nil
}

// scaleDownOrder sorts a workload's pods in the order its controller
// deletes them.
func (e *editor) scaleDownOrder(w Workload, pods []int) []int {
	out := slices.Clone(pods)
	if w.Kind == "StatefulSet" {
		ordinal := func(i int) int {
			p := e.s.Pods[i]
			n, _ := strconv.Atoi(p.Name[strings.LastIndex(p.Name, "-")+1:])
			return n
		}
		sort.SliceStable(out, func(a, b int) bool { return ordinal(out[a]) > ordinal(out[b]) })
		return out
	}
	perNode := map[string]int{}
	for _, i := range pods {
		perNode[e.s.Pods[i].Spec.NodeName]++
	}
	rank := func(i int) []int {
		p := e.s.Pods[i]
		r := []int{0, 0, 0}
		if p.Spec.NodeName != "" {
			r[0] = 1
		}
		if healthy(p) {
			r[1] = 1
		}
		if p.Spec.NodeName != "" {
			r[2] = -perNode[p.Spec.NodeName]
		}
		return r
	}
	sort.SliceStable(out, func(a, b int) bool {
		ra, rb := rank(out[a]), rank(out[b])
		if c := slices.Compare(ra, rb); c != 0 {
			return c < 0
		}
		pa, pb := e.s.Pods[out[a]], e.s.Pods[out[b]]
		if !pa.CreationTimestamp.Equal(&pb.CreationTimestamp) {
			return pb.CreationTimestamp.Before(&pa.CreationTimestamp)
		}
		return pa.Name > pb.Name
	})
	return out
}

// setRequests changes the requests of one container of the template and
// replaces the workload's pods: scheduled pods are queued again with the
// new requests (as a Recreate rollout would), pending ones change in place.
func (e *editor) setRequests(ed *Edit) error {
	s := ed.SetRequests
	tmpl, err := e.template(ed, s.Workload)
	if err != nil {
		return err
	}
	names := slices.Sorted(maps.Keys(s.Requests))
	var parts []string
	for _, n := range names {
		q := s.Requests[n]
		parts = append(parts, string(n)+"="+q.String())
	}
	e.out.Description = fmt.Sprintf("set requests %s of %s", strings.Join(parts, ", "), s.Workload)
	var limitsRaised bool
	set := func(spec *v1.PodSpec) error {
		ci := -1
		switch {
		case s.Container != "":
			for i, c := range spec.Containers {
				if c.Name == s.Container {
					ci = i
				}
			}
			if ci < 0 {
				return ed.errorf("container", "%s has no container %q", s.Workload, s.Container)
			}
		case len(spec.Containers) == 1:
			ci = 0
		default:
			var cs []string
			for _, c := range spec.Containers {
				cs = append(cs, c.Name)
			}
			return ed.errorf("container", "%s has %d containers (%s): name one", s.Workload, len(cs), strings.Join(cs, ", "))
		}
		r := &spec.Containers[ci].Resources
		if r.Requests == nil {
			r.Requests = v1.ResourceList{}
		}
		for _, n := range names {
			q := s.Requests[n]
			r.Requests[n] = q
			if l, ok := r.Limits[n]; ok && l.Cmp(q) < 0 {
				r.Limits[n] = q
				limitsRaised = true
			}
		}
		return nil
	}
	if tmpl != nil {
		if err := set(&tmpl.Spec); err != nil {
			return err
		}
	}
	for _, i := range e.workloadPods(s.Workload) {
		if e.s.Pods[i].Spec.NodeName != "" {
			e.requeue(i)
		} else {
			e.out.Changed = append(e.out.Changed, key(e.s.Pods[i].Namespace, e.s.Pods[i].Name))
		}
		if err := set(&own(e, &e.s.Pods[i]).Spec); err != nil {
			return err
		}
	}
	if limitsRaised {
		e.warnf("limits below the new requests were raised to them (the API server rejects requests above limits)")
	}
	return nil
}

// systemPriorities are the built-in PriorityClasses every cluster has.
var systemPriorities = map[string]int32{"system-node-critical": 2000001000, "system-cluster-critical": 2000000000}

// setPriority changes the priority of the template and of the workload's
// pods in place: running pods keep their nodes (kube would roll them out;
// the question here is who goes first and who may preempt whom).
func (e *editor) setPriority(ed *Edit) error {
	s := ed.SetPriority
	tmpl, err := e.template(ed, s.Workload)
	if err != nil {
		return err
	}
	var value int32
	className := s.PriorityClassName
	if s.Priority != nil {
		value = *s.Priority
		e.out.Description = fmt.Sprintf("set priority %d on %s", value, s.Workload)
	} else {
		v, ok := systemPriorities[className]
		for _, pc := range e.s.PriorityClasses {
			if pc.Name == className {
				v, ok = pc.Value, true
			}
		}
		if !ok {
			return ed.errorf("priorityClassName", "no PriorityClass %q in the snapshot", className)
		}
		value = v
		e.out.Description = fmt.Sprintf("set PriorityClass %s (%d) on %s", className, value, s.Workload)
	}
	set := func(spec *v1.PodSpec) {
		spec.Priority = &value
		spec.PriorityClassName = className
	}
	if tmpl != nil {
		set(&tmpl.Spec)
	}
	for _, i := range e.workloadPods(s.Workload) {
		set(&own(e, &e.s.Pods[i]).Spec)
		e.out.Changed = append(e.out.Changed, key(e.s.Pods[i].Namespace, e.s.Pods[i].Name))
	}
	return nil
}
