package load

import (
	schedulingv1 "k8s.io/api/scheduling/v1"

	"github.com/drasim/drasim/sim/snapshot"
)

// resolvePriorities sets spec.priority from the pod's PriorityClass (or the
// global default class) where the dump does not carry it, as the Priority
// admission plugin does when a pod is created. Pods from a real dump already
// have it; hand-written pods and generated ones often do not.
func resolvePriorities(s *snapshot.Snapshot) {
	classes := map[string]*schedulingv1.PriorityClass{}
	var globalDefault *schedulingv1.PriorityClass
	for _, pc := range s.PriorityClasses {
		classes[pc.Name] = pc
		if pc.GlobalDefault {
			globalDefault = pc
		}
	}
	for _, p := range s.Pods {
		if p.Spec.Priority != nil {
			continue
		}
		// The admission plugin also gives the pod its class's
		// preemptionPolicy when the pod does not say.
		fromClass := func(pc *schedulingv1.PriorityClass) {
			v := pc.Value
			p.Spec.Priority = &v
			if p.Spec.PreemptionPolicy == nil && pc.PreemptionPolicy != nil {
				policy := *pc.PreemptionPolicy
				p.Spec.PreemptionPolicy = &policy
			}
		}
		if pc, ok := classes[p.Spec.PriorityClassName]; ok && p.Spec.PriorityClassName != "" {
			fromClass(pc)
			continue
		}
		switch p.Spec.PriorityClassName {
		case "system-node-critical":
			v := int32(2000001000)
			p.Spec.Priority = &v
		case "system-cluster-critical":
			v := int32(2000000000)
			p.Spec.Priority = &v
		case "":
			if globalDefault != nil {
				fromClass(globalDefault)
			}
		}
	}
}
