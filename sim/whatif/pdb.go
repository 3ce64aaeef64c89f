package whatif

import (
	"fmt"

	"github.com/drasim/drasim/sim/result"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// budget is a PodDisruptionBudget with the numbers the disruption
// controller would publish in its status, kept up to date as evictions go.
type budget struct {
	pdb      *policyv1.PodDisruptionBudget
	selector labels.Selector
	desired  int32
	healthy  int32
	// evicted pods no longer count as healthy.
	evicted map[string]bool
}

// budgets holds the snapshot's budgets for the edits of one Apply: the
// evictions of a drain use up what an earlier drain left.
type budgets struct {
	list []*budget
}

// budgetsFor returns the budgets, computing them on first use from the
// working snapshot.
func (e *editor) budgetsFor() *budgets {
	if e.budgets != nil {
		return e.budgets
	}
	b := &budgets{}
	for _, pdb := range e.s.PodDisruptionBudgets {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || pdb.Spec.Selector == nil {
			continue // the disruption controller ignores it too
		}
		bd := &budget{pdb: pdb, selector: sel, evicted: map[string]bool{}}
		var pods []*v1.Pod
		for _, p := range e.s.Pods {
			if p.Namespace == pdb.Namespace && !terminated(p) && sel.Matches(labels.Set(p.Labels)) {
				pods = append(pods, p)
			}
		}
		for _, p := range pods {
			if healthy(p) {
				bd.healthy++
			}
		}
		bd.desired = desiredHealthy(pdb, pods, e.expectedScale(pods))
		b.list = append(b.list, bd)
	}
	e.budgets = b
	return b
}

// healthy is the disruption controller's "ready" for a bound pod; a bound
// pod without any condition (a hand-written snapshot) counts as ready.
func healthy(p *v1.Pod) bool {
	if p.Spec.NodeName == "" || p.DeletionTimestamp != nil {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodReady {
			return c.Status == v1.ConditionTrue
		}
	}
	return p.Status.Phase == v1.PodRunning || p.Status.Phase == ""
}

// desiredHealthy is the disruption controller's desiredHealthy.
func desiredHealthy(pdb *policyv1.PodDisruptionBudget, pods []*v1.Pod, expected int32) int32 {
	switch {
	case pdb.Spec.MaxUnavailable != nil:
		maxUnavailable, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MaxUnavailable, int(expected), true)
		if err != nil {
			return expected
		}
		return max(0, expected-int32(maxUnavailable))
	case pdb.Spec.MinAvailable != nil && pdb.Spec.MinAvailable.Type == intstr.Int:
		return pdb.Spec.MinAvailable.IntVal
	case pdb.Spec.MinAvailable != nil:
		minAvailable, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MinAvailable, int(expected), true)
		if err != nil {
			return expected
		}
		return int32(minAvailable)
	}
	return 0
}

// expectedScale is the disruption controller's expected count: the sum of
// the replicas of the pods' controllers (a Deployment for the ReplicaSets
// it owns), or the number of pods where a controller is unknown.
func (e *editor) expectedScale(pods []*v1.Pod) int32 {
	replicas := map[string]int32{}
	for _, d := range e.s.Deployments {
		replicas["Deployment/"+key(d.Namespace, d.Name)] = int32(replicaCount(d.Spec.Replicas))
	}
	rsOwner := map[string]string{}
	for _, rs := range e.s.ReplicaSets {
		k := "ReplicaSet/" + key(rs.Namespace, rs.Name)
		replicas[k] = int32(replicaCount(rs.Spec.Replicas))
		if ref := metav1.GetControllerOf(rs); ref != nil && ref.Kind == "Deployment" {
			rsOwner[k] = "Deployment/" + key(rs.Namespace, ref.Name)
		}
	}
	for _, ss := range e.s.StatefulSets {
		replicas["StatefulSet/"+key(ss.Namespace, ss.Name)] = int32(replicaCount(ss.Spec.Replicas))
	}
	counted := map[string]bool{}
	var total int32
	for _, p := range pods {
		ref := metav1.GetControllerOf(p)
		if ref == nil {
			total++
			continue
		}
		k := ref.Kind + "/" + key(p.Namespace, ref.Name)
		if owner, ok := rsOwner[k]; ok {
			k = owner
		} else if d := e.deploymentOf(p); d != "" {
			k = d
		}
		n, ok := replicas[k]
		if !ok {
			total++
			continue
		}
		if !counted[k] {
			counted[k] = true
			total += n
		}
	}
	return total
}

func replicaCount(r *int32) int {
	if r == nil {
		return 1
	}
	return int(*r)
}

// evict asks the budgets whether the pod may be evicted, as the eviction
// API does, and records the eviction; it returns the refusal, or nil.
func (b *budgets) evict(p *v1.Pod) *result.BlockedEviction {
	k := key(p.Namespace, p.Name)
	// The API deletes pending and terminal pods without asking budgets.
	if p.Status.Phase == v1.PodPending || terminated(p) {
		return nil
	}
	var matched []*budget
	for _, bd := range b.list {
		if bd.pdb.Namespace == p.Namespace && bd.selector.Matches(labels.Set(p.Labels)) {
			matched = append(matched, bd)
		}
	}
	switch len(matched) {
	case 0:
		return nil
	case 1:
	default:
		return &result.BlockedEviction{Pod: k, Budget: matched[0].pdb.Namespace + "/" + matched[0].pdb.Name,
			Reason: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."}
	}
	bd := matched[0]
	if !healthy(p) || bd.evicted[k] {
		policy := bd.pdb.Spec.UnhealthyPodEvictionPolicy
		if (policy != nil && *policy == policyv1.AlwaysAllow) || (bd.healthy >= bd.desired && bd.desired > 0) {
			return nil
		}
	}
	if bd.healthy-bd.desired <= 0 {
		return &result.BlockedEviction{Pod: k, Budget: bd.pdb.Namespace + "/" + bd.pdb.Name,
			Reason: fmt.Sprintf("Cannot evict pod as it would violate the pod's disruption budget. The disruption budget %s needs %d healthy pods and has %d currently", bd.pdb.Name, bd.desired, bd.healthy)}
	}
	bd.healthy--
	bd.evicted[k] = true
	return nil
}
