package load

import (
	"github.com/drasim/drasim/sim/snapshot"
)

// resolvePriorities sets spec.priority from the pod's PriorityClass (or the
// global default class) where the dump does not carry it, as the Priority
// admission plugin does when a pod is created. Pods from a real dump already
// have it; hand-written pods and generated ones often do not.
func resolvePriorities(s *snapshot.Snapshot) {
	classes := map[string]int32{}
	var globalDefault *int32
	for _, pc := range s.PriorityClasses {
		classes[pc.Name] = pc.Value
		if pc.GlobalDefault {
			v := pc.Value
			globalDefault = &v
		}
	}
	for _, p := range s.Pods {
		if p.Spec.Priority != nil {
			continue
		}
		if v, ok := classes[p.Spec.PriorityClassName]; ok && p.Spec.PriorityClassName != "" {
			p.Spec.Priority = &v
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
				v := *globalDefault
				p.Spec.Priority = &v
			}
		}
	}
}
