package framework

import (
	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
)

// PodGroupLister is what a plugin reads of the scheduler's pod groups
// (kube hands plugins its workload manager through the framework's
// handle).
type PodGroupLister interface {
	// PodGroup returns the pod group, nil when it does not exist.
	PodGroup(namespace, name string) *schedulingv1beta1.PodGroup
	// AllPodsCount counts the group's pods the scheduler knows: bound,
	// or pending and arrived.
	AllPodsCount(namespace, name string) int
}

// GangPlugin is GangScheduling as the replay's pod group cycle runs it
// (GenericWorkload): PreEnqueue keeps a gang's pods out of the activeQ
// until minCount of them exist, and PlacementFeasible ends a pod group
// cycle once minCount can no longer be met (Unschedulable), while it is
// not met yet (Wait), or says it is (nil).
type GangPlugin interface {
	Plugin
	PreEnqueue(pod *v1.Pod) *Status
	PlacementFeasible(minCount, scheduled, remaining int) *Status
}

// GangFactory builds GangScheduling on the scheduler's pod groups: the
// replay calls it with its own view of them, as kube's registry builds a
// plugin with the framework's handle.
type GangFactory func(groups PodGroupLister) GangPlugin
