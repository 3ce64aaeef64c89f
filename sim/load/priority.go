package load

import (
	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"

	"github.com/drasim/drasim/sim/snapshot"
)

// resolvePriorities sets spec.priority from the pod's PriorityClass (or the
// global default class) where the dump does not carry it, as the Priority
// admission plugin does when a pod is created. Pods from a real dump already
// have it; hand-written pods and generated ones often do not. PodGroups
// get theirs the same way (the plugin admits them too, with GenericWorkload).
func resolvePriorities(s *snapshot.Snapshot) {
	classes := map[string]*schedulingv1.PriorityClass{}
	var globalDefault *schedulingv1.PriorityClass
	for _, pc := range s.PriorityClasses {
		classes[pc.Name] = pc
		if pc.GlobalDefault {
			globalDefault = pc
		}
	}
	// class finds the priority a class name stands for, as the plugin's
	// establishPriority does; ok is false for an unknown class.
	class := func(name string) (priority int32, policy *v1.PreemptionPolicy, ok bool) {
		if pc, found := classes[name]; found && name != "" {
			return pc.Value, pc.PreemptionPolicy, true
		}
		switch name {
		case "system-node-critical":
			return 2000001000, nil, true
		case "system-cluster-critical":
			return 2000000000, nil, true
		case "":
			if globalDefault != nil {
				return globalDefault.Value, globalDefault.PreemptionPolicy, true
			}
		}
		return 0, nil, false
	}
	for _, p := range s.Pods {
		if p.Spec.Priority != nil {
			continue
		}
		v, policy, ok := class(p.Spec.PriorityClassName)
		if !ok {
			continue
		}
		p.Spec.Priority = &v
		// The admission plugin also gives the pod its class's
		// preemptionPolicy when the pod does not say.
		if p.Spec.PreemptionPolicy == nil && policy != nil {
			pp := *policy
			p.Spec.PreemptionPolicy = &pp
		}
	}
	for _, pg := range s.PodGroups {
		if pg.Spec.Priority != nil {
			continue
		}
		if v, _, ok := class(pg.Spec.PriorityClassName); ok {
			pg.Spec.Priority = &v
		}
	}
}
