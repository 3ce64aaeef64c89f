package inspect

import (
	"sort"
	"strings"

	"github.com/drasim/drasim/sim/kube"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// barePods is the Kind of the Workload that stands for a namespace's pods
// without a controller.
const barePods = "Pod"

// modelled are the controller kinds drasim reads; a pod owned by one of them
// that is not in the snapshot has a missing controller, while an owner of any
// other kind (a Node for mirror pods, a custom controller) is merely unknown.
var modelled = map[string]bool{"Deployment": true, "ReplicaSet": true, "StatefulSet": true, "DaemonSet": true, "Job": true}

type ownerKey struct{ kind, namespace, name string }

type workloads struct {
	byKey       map[ownerKey]*Workload
	list        []*Workload
	deployments map[ownerKey]bool
	// rsOwner maps a ReplicaSet owned by a Deployment in the snapshot to that
	// Deployment, which speaks for it (as in the loader).
	rsOwner map[ownerKey]ownerKey
}

func (w *workloads) add(k ownerKey, desired *int) *Workload {
	wl := &Workload{Kind: k.kind, Namespace: k.namespace, Name: k.name, Desired: desired}
	w.byKey[k] = wl
	w.list = append(w.list, wl)
	return wl
}

func summarizeWorkloads(s *snapshot.Snapshot) []Workload {
	w := &workloads{byKey: map[ownerKey]*Workload{}, deployments: map[ownerKey]bool{}, rsOwner: map[ownerKey]ownerKey{}}
	for _, d := range s.Deployments {
		k := ownerKey{"Deployment", d.Namespace, d.Name}
		w.deployments[k] = true
		w.add(k, ptr.To(replicas(d.Spec.Replicas)))
	}
	for _, rs := range s.ReplicaSets {
		k := ownerKey{"ReplicaSet", rs.Namespace, rs.Name}
		if ref := metav1.GetControllerOf(rs); ref != nil && ref.Kind == "Deployment" {
			if dk := (ownerKey{"Deployment", rs.Namespace, ref.Name}); w.deployments[dk] {
				w.rsOwner[k] = dk
				continue
			}
		}
		w.add(k, ptr.To(replicas(rs.Spec.Replicas)))
	}
	for _, ss := range s.StatefulSets {
		w.add(ownerKey{"StatefulSet", ss.Namespace, ss.Name}, ptr.To(replicas(ss.Spec.Replicas)))
	}
	for _, ds := range s.DaemonSets {
		n := 0
		for _, node := range s.Nodes {
			if kube.DaemonShouldRun(ds, node) {
				n++
			}
		}
		w.add(ownerKey{"DaemonSet", ds.Namespace, ds.Name}, ptr.To(n))
	}
	for _, j := range s.Jobs {
		w.add(ownerKey{"Job", j.Namespace, j.Name}, ptr.To(kube.JobActive(j)))
	}
	for _, p := range s.Pods {
		k := w.ownerOf(p)
		wl := w.byKey[k]
		if wl == nil {
			wl = w.add(k, nil)
			wl.ControllerMissing = modelled[k.kind]
		}
		wl.Pods++
		if len(p.Spec.ResourceClaims) > 0 {
			wl.WithClaims++
		}
	}
	// By namespace and name; a namespace's bare pods come after its
	// controllers.
	sort.SliceStable(w.list, func(i, j int) bool {
		a, b := w.list[i], w.list[j]
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		if (a.Name == "") != (b.Name == "") {
			return b.Name == ""
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Kind < b.Kind
	})
	out := make([]Workload, len(w.list))
	for i, wl := range w.list {
		out[i] = *wl
	}
	return out
}

// ownerOf returns the workload a pod belongs to.
func (w *workloads) ownerOf(p *v1.Pod) ownerKey {
	ref := metav1.GetControllerOf(p)
	if ref == nil {
		return ownerKey{barePods, p.Namespace, ""}
	}
	k := ownerKey{ref.Kind, p.Namespace, ref.Name}
	if ref.Kind != "ReplicaSet" {
		return k
	}
	if dk, ok := w.rsOwner[k]; ok {
		return dk
	}
	if _, ok := w.byKey[k]; ok {
		return k
	}
	// The ReplicaSet is not in the snapshot (dumps often leave them out, and
	// drasim's generated pods have none): a Deployment names its ReplicaSets
	// <deployment>-<pod-template-hash>.
	if hash := p.Labels["pod-template-hash"]; hash != "" && strings.HasSuffix(ref.Name, "-"+hash) {
		if dk := (ownerKey{"Deployment", p.Namespace, strings.TrimSuffix(ref.Name, "-"+hash)}); w.deployments[dk] {
			return dk
		}
	}
	return k
}

func replicas(r *int32) int {
	if r == nil {
		return 1
	}
	return int(*r)
}
