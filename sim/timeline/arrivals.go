package timeline

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/snapshot"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Annotations that put a snapshot's pods (or their workload) in time.
const (
	// AnnotationArrival is when the pod is created, from the start of the
	// timeline: a Go duration ("15m", "1h30m") or seconds ("900").
	AnnotationArrival = "drasim.io/arrival"
	// AnnotationDuration is how long the pod runs once it is bound (same
	// format). Without it a pod runs until its activeDeadlineSeconds (the
	// pod's, else its Job's), or for ever.
	AnnotationDuration = "drasim.io/duration"
)

// Arrival is a pod that arrives during the timeline.
type Arrival struct {
	// At is when the pod is created, from the start.
	At time.Duration
	// Duration is how long the pod runs once bound; Endless pods run
	// until the end of the timeline.
	Duration time.Duration
	Endless  bool
	// Pod is the pod as created: pending, without a node.
	Pod *v1.Pod
	// Source says where the arrival was read from, for messages.
	Source string
}

// Arrivals are the pods of a timeline in arrival order.
type Arrivals []Arrival

// sortArrivals orders arrivals by time; equal times keep their order.
func sortArrivals(a Arrivals) {
	sort.SliceStable(a, func(i, j int) bool { return a[i].At < a[j].At })
}

// parseDuration reads a duration annotation or column: a Go duration or a
// number of seconds. Negative values are errors.
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty")
	}
	var d time.Duration
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		d = time.Duration(secs * float64(time.Second))
	} else if d, err = time.ParseDuration(s); err != nil {
		return 0, fmt.Errorf("%q is neither a duration (15m, 2h) nor seconds", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%q is negative", s)
	}
	return d, nil
}

// FromSnapshot splits a snapshot into the cluster at the start and the
// pods that arrive later, by the drasim.io/arrival annotation (on the pod,
// else on its workload: Job, Deployment, ReplicaSet, StatefulSet). Pods
// without it are there at the start: bound pods run, pending pods wait.
// Every pod's run time comes from drasim.io/duration (pod, else workload),
// else from activeDeadlineSeconds (pod, else Job), else it runs for ever.
// The returned snapshot is a copy; the caller's is not changed.
func FromSnapshot(snap *snapshot.Snapshot) (*snapshot.Snapshot, Arrivals, map[*v1.Pod]Arrival, error) {
	work := *snap
	work.Pods = nil
	w := newWorkloadAnnotations(snap)
	var later Arrivals
	initial := map[*v1.Pod]Arrival{}
	var errs load.Errors
	for _, p := range snap.Pods {
		if p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed {
			work.Pods = append(work.Pods, p)
			continue
		}
		ref := snapshot.Ref{Kind: "Pod", Namespace: p.Namespace, Name: p.Name}
		src := snap.Sources[ref]
		fail := func(key string, err error) {
			errs = append(errs, &load.Error{Source: src, Object: ref.String(), Field: "metadata.annotations[" + key + "]", Msg: err.Error()})
		}
		a := Arrival{Source: src.String(), Endless: true}
		if v, ok := w.lookup(p, AnnotationArrival); ok {
			d, err := parseDuration(v)
			if err != nil {
				fail(AnnotationArrival, err)
				continue
			}
			a.At = d
		}
		if v, ok := w.lookup(p, AnnotationDuration); ok {
			d, err := parseDuration(v)
			if err != nil {
				fail(AnnotationDuration, err)
				continue
			}
			a.Duration, a.Endless = d, false
		} else if dl := w.deadline(p); dl != nil {
			a.Duration, a.Endless = time.Duration(*dl)*time.Second, false
		}
		if a.At > 0 && p.Spec.NodeName != "" {
			errs = append(errs, &load.Error{Source: src, Object: ref.String(), Field: "spec.nodeName",
				Msg: "a pod that arrives later (" + AnnotationArrival + ") cannot be bound already"})
			continue
		}
		if a.At == 0 {
			work.Pods = append(work.Pods, p)
			initial[p] = a
			continue
		}
		a.Pod = p.DeepCopy()
		later = append(later, a)
	}
	if len(errs) > 0 {
		return nil, nil, nil, errs
	}
	sortArrivals(later)
	return &work, later, initial, nil
}

// workloadAnnotations finds a pod's workload object for annotations and
// deadlines.
type workloadAnnotations struct {
	meta map[string]*metav1.ObjectMeta // Kind/namespace/name
	jobs map[string]*int64             // namespace/name -> activeDeadlineSeconds
	// rsDeployment maps namespace/ReplicaSet to its Deployment.
	rsDeployment map[string]string
}

func newWorkloadAnnotations(s *snapshot.Snapshot) *workloadAnnotations {
	w := &workloadAnnotations{meta: map[string]*metav1.ObjectMeta{}, jobs: map[string]*int64{}, rsDeployment: map[string]string{}}
	for _, j := range s.Jobs {
		w.meta["Job/"+j.Namespace+"/"+j.Name] = &j.ObjectMeta
		w.jobs[j.Namespace+"/"+j.Name] = j.Spec.ActiveDeadlineSeconds
	}
	for _, d := range s.Deployments {
		w.meta["Deployment/"+d.Namespace+"/"+d.Name] = &d.ObjectMeta
	}
	for _, rs := range s.ReplicaSets {
		w.meta["ReplicaSet/"+rs.Namespace+"/"+rs.Name] = &rs.ObjectMeta
		if ref := metav1.GetControllerOf(rs); ref != nil && ref.Kind == "Deployment" {
			w.rsDeployment[rs.Namespace+"/"+rs.Name] = ref.Name
		}
	}
	for _, ss := range s.StatefulSets {
		w.meta["StatefulSet/"+ss.Namespace+"/"+ss.Name] = &ss.ObjectMeta
	}
	return w
}

// owners lists the pod's workload objects, nearest first: its controller,
// and a Deployment above a ReplicaSet (listed or known by the
// pod-template-hash naming).
func (w *workloadAnnotations) owners(p *v1.Pod) []*metav1.ObjectMeta {
	ref := metav1.GetControllerOf(p)
	if ref == nil {
		return nil
	}
	var out []*metav1.ObjectMeta
	if m := w.meta[ref.Kind+"/"+p.Namespace+"/"+ref.Name]; m != nil {
		out = append(out, m)
	}
	if ref.Kind == "ReplicaSet" {
		d, ok := w.rsDeployment[p.Namespace+"/"+ref.Name]
		if hash := p.Labels[appsv1.DefaultDeploymentUniqueLabelKey]; !ok && hash != "" {
			d, ok = strings.TrimSuffix(ref.Name, "-"+hash), true
		}
		if m := w.meta["Deployment/"+p.Namespace+"/"+d]; ok && m != nil {
			out = append(out, m)
		}
	}
	return out
}

// lookup returns the annotation from the pod, else from its workload.
func (w *workloadAnnotations) lookup(p *v1.Pod, key string) (string, bool) {
	if v, ok := p.Annotations[key]; ok {
		return v, true
	}
	for _, m := range w.owners(p) {
		if v, ok := m.Annotations[key]; ok {
			return v, true
		}
	}
	return "", false
}

// deadline is the pod's activeDeadlineSeconds, else its Job's.
func (w *workloadAnnotations) deadline(p *v1.Pod) *int64 {
	if p.Spec.ActiveDeadlineSeconds != nil {
		return p.Spec.ActiveDeadlineSeconds
	}
	if ref := metav1.GetControllerOf(p); ref != nil && ref.Kind == "Job" {
		return w.jobs[p.Namespace+"/"+ref.Name]
	}
	return nil
}
