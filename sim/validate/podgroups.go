package validate

import (
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/drasim/drasim/sim/snapshot"
)

// Limits of scheduling.k8s.io/v1beta1 (v1.37).
const (
	maxPodGroupTemplates         = schedulingv1beta1.WorkloadMaxPodGroupTemplates
	maxPodGroupResourceClaims    = schedulingv1beta1.MaxPodGroupResourceClaims
	highestUserDefinablePriority = 1000000000
)

// checkPodGroups validates Workloads, PodGroups and the pods that name a
// pod group as kube-apiserver v1.37 does with GenericWorkload on and the
// alpha gates around it (CompositePodGroup, TopologyAwareWorkloadScheduling,
// PodGroupPreemptionPolicy) off.
func (v *validator) checkPodGroups() {
	groups := v.checkPodGroupObjects()
	v.checkWorkloadObjects()
	v.checkPodGroupMembers(groups)
}

// checkPodGroupObjects checks each PodGroup as the API server would and
// returns them by namespace and name.
func (v *validator) checkPodGroupObjects() map[nsName]*schedulingv1beta1.PodGroup {
	groups := map[nsName]*schedulingv1beta1.PodGroup{}
	for _, pg := range v.s.PodGroups {
		if pg == nil {
			continue
		}
		groups[nsName{pg.Namespace, pg.Name}] = pg
		t := v.targetFor(snapshot.Ref{Kind: "PodGroup", Namespace: pg.Namespace, Name: pg.Name})
		v.checkName(t, "metadata.name", pg.Name, dnsSubdomain)
		v.checkSchedulingPolicy(t, "spec.schedulingPolicy", pg.Spec.SchedulingPolicy.Basic != nil, pg.Spec.SchedulingPolicy.Gang)
		if ref := pg.Spec.WorkloadRef; ref != nil {
			v.checkName(t, "spec.workloadRef.workloadName", ref.WorkloadName, dnsSubdomain)
			v.checkName(t, "spec.workloadRef.templateName", ref.TemplateName, dnsLabel)
		}
		if pg.Spec.ParentCompositePodGroupName != nil {
			v.errorf(t, "spec.parentCompositePodGroupName", CodeForbidden, "may not be set: the CompositePodGroup feature gate is off")
		}
		if pg.Spec.SchedulingConstraints != nil {
			v.errorf(t, "spec.schedulingConstraints", CodeForbidden, "may not be set: the TopologyAwareWorkloadScheduling feature gate is off")
		}
		if pg.Spec.PreemptionPolicy != nil {
			v.errorf(t, "spec.preemptionPolicy", CodeForbidden, "may not be set: the PodGroupPreemptionPolicy feature gate is off")
		}
		v.checkGroupPriority(t, "spec", pg.Spec.PriorityClassName, pg.Spec.Priority)
		v.checkGroupClaims(t, "spec.resourceClaims", pg.Spec.ResourceClaims)
		if dm := pg.Spec.DisruptionMode; dm != nil && (dm.Single != nil) == (dm.All != nil) {
			v.errorf(t, "spec.disruptionMode", CodeOneOf, "exactly one of `single` or `all` is required")
		}
	}
	return groups
}

// checkWorkloadObjects checks each Workload and its pod group templates as the
// API server would.
func (v *validator) checkWorkloadObjects() {
	for _, w := range v.s.Workloads {
		if w == nil {
			continue
		}
		t := v.targetFor(snapshot.Ref{Kind: "Workload", Namespace: w.Namespace, Name: w.Name})
		v.checkName(t, "metadata.name", w.Name, dnsSubdomain)
		if ref := w.Spec.ControllerRef; ref != nil {
			v.checkName(t, "spec.controllerRef.kind", ref.Kind, dnsSubdomain)
			v.checkName(t, "spec.controllerRef.name", ref.Name, dnsSubdomain)
		}
		if len(w.Spec.CompositePodGroupTemplates) > 0 {
			v.errorf(t, "spec.compositePodGroupTemplates", CodeForbidden, "may not be set: the CompositePodGroup feature gate is off")
		}
		if len(w.Spec.PodGroupTemplates) == 0 {
			v.errorf(t, "spec.podGroupTemplates", CodeRequired, "required field is missing: a Workload needs at least one pod group template")
		}
		if n := len(w.Spec.PodGroupTemplates); n > maxPodGroupTemplates {
			v.errorf(t, "spec.podGroupTemplates", CodeTooMany, "must have at most %d items, has %d", maxPodGroupTemplates, n)
		}
		names := map[string]bool{}
		for i, pt := range w.Spec.PodGroupTemplates {
			fp := idx("spec.podGroupTemplates", i)
			if v.checkName(t, fp+".name", pt.Name, dnsLabel) {
				if names[pt.Name] {
					v.errorf(t, fp+".name", CodeDuplicate, "template name %q is already used", pt.Name)
				}
				names[pt.Name] = true
			}
			v.checkSchedulingPolicy(t, fp+".schedulingPolicy", pt.SchedulingPolicy.Basic != nil, pt.SchedulingPolicy.Gang)
			if pt.SchedulingConstraints != nil {
				v.errorf(t, fp+".schedulingConstraints", CodeForbidden, "may not be set: the TopologyAwareWorkloadScheduling feature gate is off")
			}
			if pt.PreemptionPolicy != nil {
				v.errorf(t, fp+".preemptionPolicy", CodeForbidden, "may not be set: the PodGroupPreemptionPolicy feature gate is off")
			}
			v.checkGroupPriority(t, fp, pt.PriorityClassName, pt.Priority)
			v.checkGroupClaims(t, fp+".resourceClaims", pt.ResourceClaims)
			if i > 0 {
				first := w.Spec.PodGroupTemplates[0]
				if first.PriorityClassName != pt.PriorityClassName || (first.Priority == nil) != (pt.Priority == nil) ||
					first.Priority != nil && *first.Priority != *pt.Priority {
					v.errorf(t, "spec", CodeInvalidValue, "detected multiple priority configurations: every pod group template must have the same priorityClassName and priority")
				}
			}
		}
	}
}

// checkPodGroupMembers checks that each pod that names a pod group finds
// it, with the same priority.
func (v *validator) checkPodGroupMembers(groups map[nsName]*schedulingv1beta1.PodGroup) {
	for _, p := range v.s.Pods {
		if p == nil || p.Spec.SchedulingGroup == nil {
			continue
		}
		t := v.podTarget(p)
		name := p.Spec.SchedulingGroup.PodGroupName
		if name == nil {
			v.errorf(t, t.prefix+"spec.schedulingGroup.podGroupName", CodeRequired, "must specify one of: `podGroupName`")
			continue
		}
		if !v.checkName(t, t.prefix+"spec.schedulingGroup.podGroupName", *name, dnsSubdomain) || p.Spec.NodeName != "" {
			continue
		}
		pg := groups[nsName{p.Namespace, *name}]
		if pg == nil {
			v.warnf(t, t.prefix+"spec.schedulingGroup.podGroupName", CodeMissingPodGroup,
				"PodGroup %q is not in the snapshot: with the GenericWorkload feature gate on, the pod waits for it and is never scheduled", p.Namespace+"/"+*name)
			continue
		}
		if pg.Spec.Priority != nil && p.Spec.Priority != nil && *pg.Spec.Priority != *p.Spec.Priority {
			v.warnf(t, t.prefix+"spec.priority", CodePodGroupMismatch,
				"priority %d differs from its PodGroup's (%d): kube-scheduler fails every attempt of the gang (all pods in a single pod group should have the same priority as the pod group's priority)",
				*p.Spec.Priority, *pg.Spec.Priority)
		}
	}
}

// checkSchedulingPolicy: exactly one of basic and gang, minCount >= 1.
func (v *validator) checkSchedulingPolicy(t target, field string, basic bool, gang *schedulingv1beta1.GangSchedulingPolicy) {
	if basic == (gang != nil) {
		v.errorf(t, field, CodeOneOf, "exactly one of `basic` or `gang` is required")
	}
	if gang != nil && gang.MinCount < 1 {
		v.errorf(t, field+".gang.minCount", CodeInvalidValue, "must be greater than or equal to 1, is %d", gang.MinCount)
	}
}

func (v *validator) checkGroupPriority(t target, field, class string, priority *int32) {
	if priority != nil && *priority > highestUserDefinablePriority {
		v.errorf(t, field+".priority", CodeInvalidValue, "must be less than or equal to %d, is %d", highestUserDefinablePriority, *priority)
	}
	if class != "" && !v.priority[class] && !isBuiltinPriorityClass(class) {
		if priority == nil {
			v.errorf(t, field+".priorityClassName", CodeMissingPriorityClass, "no PriorityClass with name %s was found: admission would reject the object", class)
		} else {
			v.warnf(t, field+".priorityClassName", CodeMissingPriorityClass, "PriorityClass %q is not in the snapshot; spec.priority is used as it stands", class)
		}
	}
}

func (v *validator) checkGroupClaims(t target, field string, claims []schedulingv1beta1.PodGroupResourceClaim) {
	if n := len(claims); n > maxPodGroupResourceClaims {
		v.errorf(t, field, CodeTooMany, "must have at most %d items, has %d", maxPodGroupResourceClaims, n)
	}
	for i, c := range claims {
		fp := idx(field, i)
		v.checkName(t, fp+".name", c.Name, dnsLabel)
		if (c.ResourceClaimName != nil) == (c.ResourceClaimTemplateName != nil) {
			v.errorf(t, fp, CodeOneOf, "exactly one of `resourceClaimName` or `resourceClaimTemplateName` is required")
		}
	}
}
