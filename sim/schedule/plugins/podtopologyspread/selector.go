package podtopologyspread

import (
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// WorkloadLister gives the objects kube-scheduler derives default spreading
// selectors from. Lookups return nil when the object does not exist.
type WorkloadLister interface {
	Services(namespace string) []*v1.Service
	ReplicationController(namespace, name string) *v1.ReplicationController
	ReplicaSet(namespace, name string) *appsv1.ReplicaSet
	StatefulSet(namespace, name string) *appsv1.StatefulSet
}

// Workloads is a WorkloadLister over fixed objects.
type Workloads struct {
	services     map[string][]*v1.Service
	rcs          map[string]*v1.ReplicationController
	replicaSets  map[string]*appsv1.ReplicaSet
	statefulSets map[string]*appsv1.StatefulSet
}

var _ WorkloadLister = (*Workloads)(nil)

// NewWorkloads indexes the given objects; any slice may be nil.
func NewWorkloads(services []*v1.Service, rcs []*v1.ReplicationController, replicaSets []*appsv1.ReplicaSet, statefulSets []*appsv1.StatefulSet) *Workloads {
	w := &Workloads{
		services:     map[string][]*v1.Service{},
		rcs:          map[string]*v1.ReplicationController{},
		replicaSets:  map[string]*appsv1.ReplicaSet{},
		statefulSets: map[string]*appsv1.StatefulSet{},
	}
	for _, s := range services {
		w.services[s.Namespace] = append(w.services[s.Namespace], s)
	}
	for _, o := range rcs {
		w.rcs[o.Namespace+"/"+o.Name] = o
	}
	for _, o := range replicaSets {
		w.replicaSets[o.Namespace+"/"+o.Name] = o
	}
	for _, o := range statefulSets {
		w.statefulSets[o.Namespace+"/"+o.Name] = o
	}
	return w
}

// Services returns the namespace's services in the order given.
func (w *Workloads) Services(namespace string) []*v1.Service { return w.services[namespace] }

// ReplicationController returns one RC or nil.
func (w *Workloads) ReplicationController(namespace, name string) *v1.ReplicationController {
	return w.rcs[namespace+"/"+name]
}

// ReplicaSet returns one ReplicaSet or nil.
func (w *Workloads) ReplicaSet(namespace, name string) *appsv1.ReplicaSet {
	return w.replicaSets[namespace+"/"+name]
}

// StatefulSet returns one StatefulSet or nil.
func (w *Workloads) StatefulSet(namespace, name string) *appsv1.StatefulSet {
	return w.statefulSets[namespace+"/"+name]
}

// DefaultSelector is kube-scheduler's helper.DefaultSelector: the merged
// selectors of the Services selecting the pod, plus the selector of its
// controlling ReplicationController, ReplicaSet or StatefulSet. It is empty
// when there are none (or w is nil).
func DefaultSelector(pod *v1.Pod, w WorkloadLister) labels.Selector {
	labelSet := make(labels.Set)
	if w == nil {
		return labelSet.AsSelector()
	}
	for _, svc := range w.Services(pod.Namespace) {
		if svc.Spec.Selector == nil {
			continue
		}
		if labels.Set(svc.Spec.Selector).AsSelectorPreValidated().Matches(labels.Set(pod.Labels)) {
			labelSet = labels.Merge(labelSet, svc.Spec.Selector)
		}
	}
	selector := labelSet.AsSelector()

	owner := metav1.GetControllerOfNoCopy(pod)
	if owner == nil {
		return selector
	}
	gv, err := schema.ParseGroupVersion(owner.APIVersion)
	if err != nil {
		return selector
	}
	switch gv.WithKind(owner.Kind) {
	case v1.SchemeGroupVersion.WithKind("ReplicationController"):
		if rc := w.ReplicationController(pod.Namespace, owner.Name); rc != nil {
			labelSet = labels.Merge(labelSet, rc.Spec.Selector)
			selector = labelSet.AsSelector()
		}
	case appsv1.SchemeGroupVersion.WithKind("ReplicaSet"):
		if rs := w.ReplicaSet(pod.Namespace, owner.Name); rs != nil {
			if other, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector); err == nil {
				if r, ok := other.Requirements(); ok {
					selector = selector.Add(r...)
				}
			}
		}
	case appsv1.SchemeGroupVersion.WithKind("StatefulSet"):
		if ss := w.StatefulSet(pod.Namespace, owner.Name); ss != nil {
			if other, err := metav1.LabelSelectorAsSelector(ss.Spec.Selector); err == nil {
				if r, ok := other.Requirements(); ok {
					selector = selector.Add(r...)
				}
			}
		}
	}
	return selector
}
