package validate

import (
	"maps"

	"github.com/drasim/drasim/sim/snapshot"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// The API server's rules for workload controllers (pkg/apis/apps/validation
// and pkg/apis/batch/validation, v1.37) that decide which pods drasim
// makes: replica counts are not negative, the selector is present, not
// empty and well formed, and it selects the pod template's labels. The pod
// template itself is checked on the pods made from it (see podTarget).

// controller is what the rules read of a Deployment, ReplicaSet,
// StatefulSet or DaemonSet.
type controller struct {
	ref      snapshot.Ref
	replicas *int32 // nil for a DaemonSet
	selector *metav1.LabelSelector
	labels   map[string]string // the pod template's
}

// checkWorkloads checks every workload controller.
func (v *validator) checkWorkloads() {
	var cs []controller
	for _, d := range v.s.Deployments {
		if d != nil {
			cs = append(cs, controller{snapshot.Ref{Kind: "Deployment", Namespace: d.Namespace, Name: d.Name}, d.Spec.Replicas, d.Spec.Selector, d.Spec.Template.Labels})
		}
	}
	for _, rs := range v.s.ReplicaSets {
		if rs != nil {
			cs = append(cs, controller{snapshot.Ref{Kind: "ReplicaSet", Namespace: rs.Namespace, Name: rs.Name}, rs.Spec.Replicas, rs.Spec.Selector, rs.Spec.Template.Labels})
		}
	}
	for _, ss := range v.s.StatefulSets {
		if ss == nil {
			continue
		}
		ref := snapshot.Ref{Kind: "StatefulSet", Namespace: ss.Namespace, Name: ss.Name}
		if ss.Spec.Ordinals != nil {
			v.checkReplicas(v.targetFor(ref), "spec.ordinals.start", &ss.Spec.Ordinals.Start)
		}
		cs = append(cs, controller{ref, ss.Spec.Replicas, ss.Spec.Selector, ss.Spec.Template.Labels})
	}
	for _, ds := range v.s.DaemonSets {
		if ds != nil {
			cs = append(cs, controller{snapshot.Ref{Kind: "DaemonSet", Namespace: ds.Namespace, Name: ds.Name}, nil, ds.Spec.Selector, ds.Spec.Template.Labels})
		}
	}
	for _, c := range cs {
		t := v.targetFor(c.ref)
		v.checkReplicas(t, "spec.replicas", c.replicas)
		v.checkSelectorLabels(t, c.selector, c.labels, true)
	}
	for _, j := range v.s.Jobs {
		if j != nil {
			v.checkJob(v.targetFor(snapshot.Ref{Kind: "Job", Namespace: j.Namespace, Name: j.Name}), j)
		}
	}
}

func (v *validator) checkReplicas(t target, field string, n *int32) {
	if n != nil && *n < 0 {
		v.errorf(t, field, CodeInvalidValue, "must be greater than or equal to 0, found %d", *n)
	}
}

// checkSelectorLabels checks spec.selector against the labels of the pods
// the controller makes. required is false for a Job, whose selector the API
// server generates when it is not given.
func (v *validator) checkSelectorLabels(t target, sel *metav1.LabelSelector, podLabels map[string]string, required bool) {
	if sel == nil {
		if required {
			v.errorf(t, "spec.selector", CodeRequired, "required field is missing: the controller owns the pods its selector selects; it must select the template's labels")
		}
		return
	}
	if len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 {
		v.errorf(t, "spec.selector", CodeInvalidValue, "an empty selector is invalid: it would select every pod of the namespace")
		return
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		v.errorf(t, "spec.selector", CodeInvalidValue, "invalid label selector: %v", err)
		return
	}
	if !s.Matches(labels.Set(podLabels)) {
		v.errorf(t, "spec.template.metadata.labels", CodeInvalidValue, "`selector` does not match template `labels`: %s does not select %s", s, labels.Set(podLabels))
	}
}

// checkJob checks a Job's counts and, when it has one, its selector. The
// API server adds the job-name and controller-uid labels to the template
// unless spec.manualSelector is true, so a selector may name them.
func (v *validator) checkJob(t target, j *batchv1.Job) {
	v.checkReplicas(t, "spec.parallelism", j.Spec.Parallelism)
	v.checkReplicas(t, "spec.completions", j.Spec.Completions)
	podLabels := j.Spec.Template.Labels
	if j.Spec.ManualSelector == nil || !*j.Spec.ManualSelector {
		podLabels = maps.Clone(podLabels)
		if podLabels == nil {
			podLabels = map[string]string{}
		}
		// The legacy names ("job-name", "controller-uid") are not exported
		// by k8s.io/api.
		for key, value := range map[string]string{
			"job-name": j.Name, batchv1.JobNameLabel: j.Name,
			"controller-uid": string(j.UID), batchv1.ControllerUidLabel: string(j.UID),
		} {
			if _, set := podLabels[key]; !set {
				podLabels[key] = value
			}
		}
	}
	v.checkSelectorLabels(t, j.Spec.Selector, podLabels, false)
}
