package validate

import (
	"strings"

	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The API server's rules for resource quantities (pkg/apis/core/validation
// ValidateResourceQuantityValue and validateResourceRequirements, v1.37):
// no quantity is negative; pods and extended resources are whole numbers;
// a request is at most its limit, and for resources that cannot be
// overcommitted (extended resources, hugepages) equal to it, with the limit
// required.

// isIntegerResource reports the resources whose quantities must be whole
// numbers.
func isIntegerResource(name v1.ResourceName) bool {
	return name == v1.ResourcePods || isExtendedResourceName(string(name))
}

// overcommitAllowed reports whether a request may be below its limit:
// resources in the kubernetes.io namespace (or unprefixed) except hugepages.
func overcommitAllowed(name v1.ResourceName) bool {
	native := !strings.Contains(string(name), "/") || strings.Contains(string(name), v1.ResourceDefaultNamespacePrefix)
	return native && !strings.HasPrefix(string(name), v1.ResourceHugePagesPrefix)
}

// checkQuantity checks one quantity of a resource list.
func (v *validator) checkQuantity(t target, field string, name v1.ResourceName, q resource.Quantity) bool {
	if q.Sign() < 0 {
		v.errorf(t, field, CodeInvalidValue, "must be greater than or equal to 0, found %s", q.String())
		return false
	}
	if isIntegerResource(name) && q.MilliValue()%1000 != 0 {
		v.errorf(t, field, CodeInvalidValue, "must be a whole number, found %s", q.String())
		return false
	}
	return true
}

func (v *validator) checkResourceList(t target, path string, list v1.ResourceList) {
	for _, name := range sortedKeys(list) {
		v.checkQuantity(t, key(path, string(name)), name, list[name])
	}
}

// checkRequirements checks requests and limits of a container or of the
// pod (path ends in ".resources").
func (v *validator) checkRequirements(t target, path string, r *v1.ResourceRequirements) {
	v.checkResourceList(t, path+".limits", r.Limits)
	for _, name := range sortedKeys(r.Requests) {
		field := key(path+".requests", string(name))
		q := r.Requests[name]
		if !v.checkQuantity(t, field, name, q) {
			continue
		}
		limit, hasLimit := r.Limits[name]
		switch {
		case !hasLimit && !overcommitAllowed(name):
			v.errorf(t, key(path+".limits", string(name)), CodeRequired,
				"a limit is required for %s, which cannot be overcommitted: set it equal to the request %s", name, q.String())
		case !hasLimit:
		case !overcommitAllowed(name) && q.Cmp(limit) != 0:
			v.errorf(t, field, CodeInvalidValue, "must be equal to the %s limit of %s, found %s", name, limit.String(), q.String())
		case q.Cmp(limit) > 0:
			v.errorf(t, field, CodeInvalidValue, "must be less than or equal to the %s limit of %s, found %s", name, limit.String(), q.String())
		}
	}
}

// checkPodResources checks the resources of every container and of the pod.
func (v *validator) checkPodResources(t target, p *v1.Pod) {
	for i := range p.Spec.InitContainers {
		v.checkRequirements(t, idx("spec.initContainers", i)+".resources", &p.Spec.InitContainers[i].Resources)
	}
	for i := range p.Spec.Containers {
		v.checkRequirements(t, idx("spec.containers", i)+".resources", &p.Spec.Containers[i].Resources)
	}
	if p.Spec.Resources != nil {
		v.checkRequirements(t, "spec.resources", p.Spec.Resources)
	}
}

// checkNodes checks the quantities a node reports.
func (v *validator) checkNodes() {
	for _, n := range v.s.Nodes {
		if n != nil {
			v.checkNode(v.targetFor(snapshot.Ref{Kind: "Node", Name: n.Name}), "", n)
		}
	}
}

// checkNode checks a node's capacity and allocatable; prefix places the
// fields (a NodeGroup's template node is under spec.template.node.).
func (v *validator) checkNode(t target, prefix string, n *v1.Node) {
	v.checkResourceList(t, prefix+"status.capacity", n.Status.Capacity)
	v.checkResourceList(t, prefix+"status.allocatable", n.Status.Allocatable)
}

// checkNodeGroups checks the node and the slices of each NodeGroup
// template as the API server would check them when the autoscaler creates
// the node (the group's own rules are sim/autoscale's).
func (v *validator) checkNodeGroups() {
	for _, g := range v.s.NodeGroups {
		if g == nil || g.Spec.Template == nil {
			continue
		}
		t := v.targetFor(snapshot.Ref{Kind: "NodeGroup", Name: g.Name})
		t.template = true
		v.checkNode(t, "spec.template.node.", &g.Spec.Template.Node)
		for i := range g.Spec.Template.ResourceSlices {
			st := t
			st.prefix = idx("spec.template.resourceSlices", i) + "."
			v.checkResourceSlice(st, &g.Spec.Template.ResourceSlices[i].Spec)
		}
	}
}
