package framework

import (
	v1 "k8s.io/api/core/v1"
)

// ActionType is what happened to an object in a cluster event, as a bit in
// kube-scheduler's ActionType set (k8s.io/kube-scheduler/framework): the
// specific Update kinds are their own bits, so that a plugin can register
// for a node's label changes only.
type ActionType int64

// The action types of kube-scheduler v1.37, in its bit order.
const (
	Add ActionType = 1 << iota
	Delete
	UpdateNodeAllocatable
	UpdateNodeLabel
	UpdateNodeTaint
	UpdateNodeCondition
	UpdateNodeAnnotation
	UpdateNodeDeclaredFeature
	UpdateNodePreemptionPolicy
	UpdatePodLabel
	UpdatePodScaleDown
	UpdatePodScaleUp
	UpdatePodToleration
	UpdatePodSchedulingGatesEliminated
	UpdatePodGeneratedResourceClaim
	// All matches every action.
	All ActionType = 1<<iota - 1
	// Update is any of the specific updates.
	Update = UpdateNodeAllocatable | UpdateNodeLabel | UpdateNodeTaint | UpdateNodeCondition | UpdateNodeAnnotation |
		UpdateNodeDeclaredFeature | UpdateNodePreemptionPolicy | UpdatePodLabel | UpdatePodScaleDown | UpdatePodScaleUp |
		UpdatePodToleration | UpdatePodSchedulingGatesEliminated | UpdatePodGeneratedResourceClaim
)

// EventResource is the kind of object a cluster event is about.
type EventResource string

// The resources drasim delivers events for. AssignedPod is a bound pod,
// UnscheduledPod a pending one, TargetPod the pending pod the event is
// evaluated for; Pod matches all three.
const (
	Pod            EventResource = "Pod"
	AssignedPod    EventResource = "AssignedPod"
	UnscheduledPod EventResource = "UnscheduledPod"
	TargetPod      EventResource = "TargetPod"
	Node           EventResource = "Node"
	ResourceClaim  EventResource = "resource.k8s.io/ResourceClaim"
	ResourceSlice  EventResource = "resource.k8s.io/ResourceSlice"
	DeviceClass    EventResource = "resource.k8s.io/DeviceClass"
	PodGroup       EventResource = "scheduling.k8s.io/PodGroup"
	// WildCard matches every resource; with All it moves every pod.
	WildCard EventResource = "*"
)

// ClusterEvent is one change in the cluster that may make pending pods
// schedulable. Label names special events (the unschedulable timeout).
type ClusterEvent struct {
	Resource   EventResource
	ActionType ActionType
	Label      string
}

// The cluster events the scheduler itself raises.
var (
	EventAssignedPodAdd    = ClusterEvent{Resource: AssignedPod, ActionType: Add}
	EventAssignedPodDelete = ClusterEvent{Resource: AssignedPod, ActionType: Delete}
	EventUnscheduledPodAdd = ClusterEvent{Resource: UnscheduledPod, ActionType: Add}
	// EventUnschedulableTimeout is the periodic flush of pods that stayed
	// unschedulable too long.
	EventUnschedulableTimeout = ClusterEvent{Resource: WildCard, ActionType: All, Label: "UnschedulableTimeout"}
	// EventForceActivate moves pods regardless of their rejectors.
	EventForceActivate = ClusterEvent{Resource: WildCard, ActionType: All, Label: "ForceActivate"}
)

// IsWildCard reports the wildcard event that moves every pod.
func (e ClusterEvent) IsWildCard() bool { return e.Resource == WildCard && e.ActionType == All }

// String names the event as kube's metrics label does.
func (e ClusterEvent) String() string {
	if e.Label != "" {
		return e.Label
	}
	return string(e.Resource) + "/" + e.ActionType.String()
}

func (a ActionType) String() string {
	switch a {
	case Add:
		return "Add"
	case Delete:
		return "Delete"
	case All:
		return "All"
	}
	if a&Update == a {
		return "Update"
	}
	return "Mixed"
}

// Matches reports whether the registered event e covers the incoming
// event: the same or a more specific action on the same resource (Pod
// covering the three pod resources), or e is the wildcard. An incoming
// wildcard only matches a registered wildcard. This is kube's
// MatchClusterEvents.
func (e ClusterEvent) Matches(incoming ClusterEvent) bool {
	if e.IsWildCard() {
		return true
	}
	resourceMatches := e.Resource == WildCard || e.Resource == incoming.Resource ||
		e.Resource == Pod && (incoming.Resource == AssignedPod || incoming.Resource == UnscheduledPod || incoming.Resource == TargetPod)
	return resourceMatches && e.ActionType&incoming.ActionType != 0 && incoming.ActionType <= e.ActionType
}

// QueueingHint is a plugin's verdict on whether an event may make a pod it
// rejected schedulable.
type QueueingHint int

// QueueSkip: the event cannot help; Queue: retry the pod.
const (
	QueueSkip QueueingHint = iota
	Queue
)

// QueueingHintFn decides, for a pod the plugin rejected, whether an event
// (oldObj -> newObj; nil for add or delete) may make it schedulable. An
// error counts as Queue.
type QueueingHintFn func(pod *v1.Pod, oldObj, newObj any) (QueueingHint, error)

// ClusterEventWithHint is one event a plugin registers, with its hint; a
// nil hint always queues.
type ClusterEventWithHint struct {
	Event ClusterEvent
	Hint  QueueingHintFn
}

// EnqueueExtensions is implemented by plugins that can reject a pod: the
// events that may make such a pod schedulable. A plugin that rejects pods
// without implementing it is woken by every event, as in kube.
type EnqueueExtensions interface {
	Plugin
	EventsToRegister() []ClusterEventWithHint
}

// PreFilterExtensions is implemented by plugins whose PreFilter state
// depends on the other pods: the preemption dry run and nominated pods add
// and remove pods on a node, and the plugin updates its state to match.
type PreFilterExtensions interface {
	Plugin
	AddPod(state *CycleState, podToSchedule *v1.Pod, podToAdd *PodInfo, nodeInfo *NodeInfo) *Status
	RemovePod(state *CycleState, podToSchedule *v1.Pod, podToRemove *PodInfo, nodeInfo *NodeInfo) *Status
}

// StateCloner is implemented by cycle state values that a plugin changes
// in its PreFilterExtensions: CycleState.Clone copies them, and shares
// every other value.
type StateCloner interface {
	CloneState() any
}
