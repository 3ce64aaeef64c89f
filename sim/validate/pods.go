package validate

import (
	"strings"

	v1 "k8s.io/api/core/v1"
)

// isBuiltinPriorityClass reports the classes every cluster has without them
// being in a dump.
func isBuiltinPriorityClass(name string) bool {
	return name == "system-node-critical" || name == "system-cluster-critical"
}

func (v *validator) checkPods() {
	for _, p := range v.s.Pods {
		if p != nil {
			v.checkPod(v.podTarget(p), p)
		}
	}
}

func (v *validator) checkPod(t target, p *v1.Pod) {
	if len(p.Spec.Containers) == 0 {
		v.errorf(t, "spec.containers", CodeRequired, "required field is missing: a pod needs at least one container")
	}

	v.checkPodResources(t, p)

	bound := p.Spec.NodeName != ""
	podClaims := map[string]bool{}
	for i, rc := range p.Spec.ResourceClaims {
		cp := idx("spec.resourceClaims", i)
		if rc.Name == "" {
			v.errorf(t, cp+".name", CodeRequired, "required field is missing")
		} else if podClaims[rc.Name] {
			v.errorf(t, cp+".name", CodeDuplicate, "pod claim name %q is already used", rc.Name)
		} else {
			v.checkName(t, cp+".name", rc.Name, dnsLabel)
			podClaims[rc.Name] = true
		}
		switch {
		case rc.ResourceClaimName != nil && rc.ResourceClaimTemplateName != nil:
			v.errorf(t, cp, CodeOneOf, "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified, both are")
		case rc.ResourceClaimName == nil && rc.ResourceClaimTemplateName == nil:
			v.errorf(t, cp, CodeOneOf, "one of `resourceClaimName` or `resourceClaimTemplateName` is required, none is set")
		}
		if n := rc.ResourceClaimName; n != nil && v.checkName(t, cp+".resourceClaimName", *n, dnsSubdomain) &&
			v.claims[nsName{p.Namespace, *n}] == nil {
			v.warnf(t, cp+".resourceClaimName", CodeMissingResourceClaim, "ResourceClaim %q is not in the snapshot: %s",
				p.Namespace+"/"+*n, missingClaimEffect(bound))
		}
		if n := rc.ResourceClaimTemplateName; n != nil && v.checkName(t, cp+".resourceClaimTemplateName", *n, dnsSubdomain) &&
			v.templates[nsName{p.Namespace, *n}] == nil {
			v.warnf(t, cp+".resourceClaimTemplateName", CodeMissingResourceClaimTemplate,
				"ResourceClaimTemplate %q is not in the snapshot: no claim can be generated from it, %s",
				p.Namespace+"/"+*n, missingClaimEffect(bound))
		}
	}

	for i := range p.Spec.InitContainers {
		v.checkContainerClaims(t, idx("spec.initContainers", i), &p.Spec.InitContainers[i], podClaims)
	}
	for i := range p.Spec.Containers {
		v.checkContainerClaims(t, idx("spec.containers", i), &p.Spec.Containers[i], podClaims)
	}

	for i, st := range p.Status.ResourceClaimStatuses {
		if st.ResourceClaimName != nil && *st.ResourceClaimName != "" && v.claims[nsName{p.Namespace, *st.ResourceClaimName}] == nil {
			v.warnf(t, idx("status.resourceClaimStatuses", i)+".resourceClaimName", CodeMissingResourceClaim,
				"the claim generated for pod claim %q, ResourceClaim %q, is not in the snapshot: %s",
				st.Name, p.Namespace+"/"+*st.ResourceClaimName, missingClaimEffect(bound))
		}
	}

	if pc := p.Spec.PriorityClassName; pc != "" && !v.priority[pc] && !isBuiltinPriorityClass(pc) {
		if p.Spec.Priority == nil {
			v.errorf(t, "spec.priorityClassName", CodeMissingPriorityClass,
				"PriorityClass %q is not in the snapshot and the pod has no spec.priority: admission would reject the pod; add the PriorityClass", pc)
		} else {
			v.warnf(t, "spec.priorityClassName", CodeMissingPriorityClass,
				"PriorityClass %q is not in the snapshot; the pod's spec.priority %d is used", pc, *p.Spec.Priority)
		}
	}

	if bound && !v.nodes[p.Spec.NodeName] {
		v.warnf(t, "spec.nodeName", CodeUnknownNode,
			"Node %q is not in the snapshot: the pod is bound to a node the simulation does not have, so its resources count nowhere", p.Spec.NodeName)
	}
}

func missingClaimEffect(bound bool) string {
	if bound {
		return "the pod is bound, but the devices it uses are unknown to the simulation"
	}
	return "the pod stays pending"
}

// checkContainerClaims checks resources.claims of one container: each entry
// names a pod claim (optionally one request of it), at most once.
func (v *validator) checkContainerClaims(t target, cp string, c *v1.Container, podClaims map[string]bool) {
	seen := map[string]bool{}
	// viaRequest maps a pod claim to the first (in name order) of its
	// requests referenced so far, so that every reference is checked in
	// constant time.
	viaRequest := map[string]string{}
	for i, rc := range c.Resources.Claims {
		p := idx(cp+".resources.claims", i)
		if rc.Name == "" {
			v.errorf(t, p+".name", CodeRequired, "required field is missing")
			continue
		}
		k := rc.Name
		if rc.Request != "" {
			v.checkName(t, p+".request", rc.Request, dnsLabel)
			k += "/" + rc.Request
		}
		if seen[k] || (rc.Request != "" && seen[rc.Name]) {
			v.errorf(t, p, CodeDuplicate, "claim %q is already referenced by this container", k)
		} else if prev, ok := viaRequest[rc.Name]; ok && rc.Request == "" {
			v.errorf(t, p, CodeDuplicate, "claim %q is already referenced by this container through request %q", rc.Name, prev)
		}
		seen[k] = true
		if prev, ok := viaRequest[rc.Name]; rc.Request != "" && (!ok || k < prev) {
			viaRequest[rc.Name] = k
		}
		if !podClaims[rc.Name] {
			v.errorf(t, p+".name", CodeUnknownPodClaim,
				"%q must be the name of an entry in pod.spec.resourceClaims%s", rc.Name, podClaimList(podClaims))
		}
	}
}

func podClaimList(m map[string]bool) string {
	if len(m) == 0 {
		return ", which is empty"
	}
	return " (" + strings.Join(sortedKeys(m), ", ") + ")"
}
