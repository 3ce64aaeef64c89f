package kube

import (
	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"

	"github.com/drasim/drasim/sim/snapshot"
)

// ResolvePriorities sets spec.priority from the pod's PriorityClass (or the
// global default class) where the dump does not carry it, as the Priority
// admission plugin does when a pod is created. Pods from a real dump already
// have it; hand-written pods and generated ones often do not. PodGroups
// get theirs the same way (the plugin admits them too, with GenericWorkload).
func ResolvePriorities(s *snapshot.Snapshot) {
	admit := PriorityAdmission(s)
	for _, p := range s.Pods {
		admit(p)
	}
	class := priorityClasses(s)
	for _, pg := range s.PodGroups {
		if pg.Spec.Priority != nil {
			continue
		}
		if v, _, ok := class(pg.Spec.PriorityClassName); ok {
			pg.Spec.Priority = &v
		}
	}
}

// PriorityAdmission returns what the Priority admission plugin does to a
// pod created in the snapshot's cluster (a DaemonSet's pod on a new node,
// say): spec.priority, and the class's preemptionPolicy, from its
// PriorityClass or the global default, unless the pod carries them.
func PriorityAdmission(s *snapshot.Snapshot) func(*v1.Pod) {
	class := priorityClasses(s)
	return func(p *v1.Pod) {
		if p.Spec.Priority != nil {
			return
		}
		v, policy, ok := class(p.Spec.PriorityClassName)
		if !ok {
			return
		}
		p.Spec.Priority = &v
		// The admission plugin also gives the pod its class's
		// preemptionPolicy when the pod does not say.
		if p.Spec.PreemptionPolicy == nil && policy != nil {
			pp := *policy
			p.Spec.PreemptionPolicy = &pp
		}
	}
}

// priorityClasses finds the priority a class name stands for, as the
// plugin's establishPriority does; ok is false for an unknown class.
func priorityClasses(s *snapshot.Snapshot) func(name string) (int32, *v1.PreemptionPolicy, bool) {
	classes := map[string]*schedulingv1.PriorityClass{}
	var globalDefault *schedulingv1.PriorityClass
	for _, pc := range s.PriorityClasses {
		classes[pc.Name] = pc
		if pc.GlobalDefault {
			globalDefault = pc
		}
	}
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
	return class
}
