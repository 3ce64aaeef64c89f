package autoscale

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// podGroup is an equivalence group: pending pods that the predicates
// cannot tell apart, so that one of them answers for all (CA's
// PodEquivalenceGroup).
type podGroup struct {
	// owner is "Kind/name" of the controller, "" for a bare pod.
	owner string
	pods  []*v1.Pod
}

func (g *podGroup) exemplar() *v1.Pod { return g.pods[0] }

// equivalenceGroups groups pods by controller and by scheduling-relevant
// content: namespace, labels and the whole spec (the name does not count;
// the claims made from templates live in the status). Groups come in the
// order of their first pod. Unlike cluster-autoscaler, which makes a group
// of one for every pod without a controller, drasim groups identical bare
// pods too; the fit of identical specs is the same, so only the work
// changes, not the outcome. key gives each pod's equivalenceKey.
func equivalenceGroups(pods []*v1.Pod, key func(*v1.Pod) string) []*podGroup {
	var out []*podGroup
	byKey := map[string]*podGroup{}
	for _, p := range pods {
		k := key(p)
		if g := byKey[k]; g != nil {
			g.pods = append(g.pods, p)
			continue
		}
		g := &podGroup{owner: ownerOf(p), pods: []*v1.Pod{p}}
		byKey[k] = g
		out = append(out, g)
	}
	return out
}

func ownerOf(p *v1.Pod) string {
	if ref := metav1.GetControllerOf(p); ref != nil {
		return ref.Kind + "/" + ref.Name
	}
	return ""
}

func equivalenceKey(p *v1.Pod) string {
	type key struct {
		Controller string            `json:"c"`
		Namespace  string            `json:"n"`
		Labels     map[string]string `json:"l"`
		Spec       v1.PodSpec        `json:"s"`
	}
	k := key{Namespace: p.Namespace, Labels: p.Labels, Spec: p.Spec}
	if ref := metav1.GetControllerOf(p); ref != nil {
		k.Controller = ref.Kind + "/" + ref.Name + "/" + string(ref.UID)
	}
	data, _ := json.Marshal(k) // a PodSpec always encodes
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
