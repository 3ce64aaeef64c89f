package validate

import (
	"fmt"

	"github.com/drasim/drasim/sim/snapshot"
)

// Codes of the autoscaling.x-k8s.io checks that the API server does not
// make (its CRD schema takes any class name and any template name), but
// that leave cluster-autoscaler nothing to do: an unknown class is never
// picked up, a missing PodTemplate fails the request (FailedToCreatePods)
// or the buffer (FailedToGetPodTemplate).
const (
	// CodeUnknownProvisioningClass: a ProvisioningRequest's class is none
	// that cluster-autoscaler serves (error).
	CodeUnknownProvisioningClass Code = "UnknownProvisioningClass"
	// CodeMissingPodTemplate: a ProvisioningRequest or CapacityBuffer names
	// a PodTemplate that is not in its namespace (error).
	CodeMissingPodTemplate Code = "MissingPodTemplate"
)

// checkAutoscalingRequests checks ProvisioningRequests (the CRD schema's
// rules: 1 to 32 podSets, count at least 1, a template name) and
// CapacityBuffers (one of podTemplateRef and scalableRef, counts not
// negative, percentage only with scalableRef), and that the PodTemplates
// they name exist.
func (v *validator) checkAutoscalingRequests() {
	templates := map[string]bool{}
	for _, t := range v.s.PodTemplates {
		if t != nil {
			templates[t.Namespace+"/"+t.Name] = true
		}
	}
	for _, pr := range v.s.ProvisioningRequests {
		if pr == nil {
			continue
		}
		t := v.targetFor(snapshot.Ref{Kind: "ProvisioningRequest", Namespace: pr.Namespace, Name: pr.Name})
		switch c := pr.Spec.ProvisioningClassName; c {
		case snapshot.ProvisioningClassCheckCapacity, snapshot.ProvisioningClassBestEffortAtomicScaleUp:
		case "":
			v.errorf(t, "spec.provisioningClassName", CodeRequired, "required field is missing: use %s or %s", snapshot.ProvisioningClassCheckCapacity, snapshot.ProvisioningClassBestEffortAtomicScaleUp)
		default:
			v.errorf(t, "spec.provisioningClassName", CodeUnknownProvisioningClass, "unknown class %q: cluster-autoscaler serves %s and %s (other classes belong to a cloud provider's own provisioner)", c, snapshot.ProvisioningClassCheckCapacity, snapshot.ProvisioningClassBestEffortAtomicScaleUp)
		}
		switch n := len(pr.Spec.PodSets); {
		case n == 0:
			v.errorf(t, "spec.podSets", CodeRequired, "required: at least one pod set")
		case n > 32:
			v.errorf(t, "spec.podSets", CodeTooMany, "must have at most 32 items, found %d", n)
		}
		for i, ps := range pr.Spec.PodSets {
			field := fmt.Sprintf("spec.podSets[%d]", i)
			if ps.Count < 1 {
				v.errorf(t, field+".count", CodeInvalidValue, "must be greater than or equal to 1, found %d", ps.Count)
			}
			v.checkTemplateRef(t, field+".podTemplateRef.name", pr.Namespace, ps.PodTemplateRef.Name, templates)
		}
	}
	for _, b := range v.s.CapacityBuffers {
		if b == nil {
			continue
		}
		t := v.targetFor(snapshot.Ref{Kind: "CapacityBuffer", Namespace: b.Namespace, Name: b.Name})
		sp := b.Spec
		switch {
		case sp.PodTemplateRef == nil && sp.ScalableRef == nil:
			v.errorf(t, "spec", CodeRequired, "one of podTemplateRef and scalableRef is required")
		case sp.PodTemplateRef != nil && sp.ScalableRef != nil:
			v.errorf(t, "spec", CodeOneOf, "podTemplateRef and scalableRef are both set: give one")
		case sp.PodTemplateRef != nil:
			if sp.Replicas == nil && sp.Limits == nil {
				v.errorf(t, "spec.replicas", CodeRequired, "with podTemplateRef, replicas or limits is required")
			}
			v.checkTemplateRef(t, "spec.podTemplateRef.name", b.Namespace, sp.PodTemplateRef.Name, templates)
		}
		if sp.Replicas != nil && *sp.Replicas < 0 {
			v.errorf(t, "spec.replicas", CodeInvalidValue, "must be greater than or equal to 0, found %d", *sp.Replicas)
		}
		if sp.Percentage != nil {
			if *sp.Percentage < 0 {
				v.errorf(t, "spec.percentage", CodeInvalidValue, "must be greater than or equal to 0, found %d", *sp.Percentage)
			}
			if sp.ScalableRef == nil {
				v.warnf(t, "spec.percentage", CodeInvalidValue, "percentage only applies with scalableRef; it is ignored")
			}
		}
		if s := sp.ProvisioningStrategy; s != nil && *s != snapshot.CapacityBufferActiveStrategy {
			v.warnf(t, "spec.provisioningStrategy", CodeInvalidValue, "strategy %q: cluster-autoscaler only injects pods for %s; this buffer keeps no capacity", *s, snapshot.CapacityBufferActiveStrategy)
		}
	}
}

func (v *validator) checkTemplateRef(t target, field, namespace, name string, templates map[string]bool) {
	switch {
	case name == "":
		v.errorf(t, field, CodeRequired, "required field is missing: the PodTemplate the pods are made from")
	case !templates[namespace+"/"+name]:
		v.errorf(t, field, CodeMissingPodTemplate, "PodTemplate %q is not in namespace %s of the snapshot", name, namespace)
	}
}
