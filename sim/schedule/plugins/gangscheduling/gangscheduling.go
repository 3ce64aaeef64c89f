// Package gangscheduling is kube-scheduler v1.37.2's GangScheduling plugin
// (pkg/scheduler/framework/plugins/gangscheduling), enabled with the
// GenericWorkload gate: PreEnqueue keeps a gang out of the activeQ until
// minCount of its pods exist, and PlacementFeasible ends a pod group's
// cycle once minCount can no longer be met. kube's Permit stage (pods
// waiting for the quorum) has nothing to do in drasim, whose pod group
// cycle places the whole gang or none of it before anything binds.
package gangscheduling

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/drasim/drasim/sim/framework"
)

// Name is the plugin's name in kube's registry.
const Name = "GangScheduling"

// Plugin is GangScheduling.
type Plugin struct{ groups framework.PodGroupLister }

var _ framework.GangPlugin = (*Plugin)(nil)

// New returns the plugin reading the given pod group state.
func New(groups framework.PodGroupLister) *Plugin { return &Plugin{groups: groups} }

// Factory builds the plugin for a profile (framework.Profile.Gang).
func Factory(groups framework.PodGroupLister) framework.GangPlugin { return New(groups) }

// Name implements framework.Plugin.
func (p *Plugin) Name() string { return Name }

func groupName(pod *v1.Pod) string {
	if sg := pod.Spec.SchedulingGroup; sg != nil && sg.PodGroupName != nil {
		return *sg.PodGroupName
	}
	return ""
}

// PreEnqueue lets a gang's pod into the activeQ once minCount pods of the
// gang exist (kube's preEnqueueHierarchiesDisabled, with kube's messages).
func (p *Plugin) PreEnqueue(pod *v1.Pod) *framework.Status {
	name := groupName(pod)
	if name == "" {
		return nil
	}
	pg := p.groups.PodGroup(pod.Namespace, name)
	if pg == nil {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("waiting for pods's pod group %q to appear in scheduling queue", name))
	}
	gang := pg.Spec.SchedulingPolicy.Gang
	if gang == nil {
		return nil
	}
	if p.groups.AllPodsCount(pod.Namespace, name) < int(gang.MinCount) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, WaitingMessage)
	}
	return nil
}

// WaitingMessage is PreEnqueue's status for a gang short of minCount pods.
const WaitingMessage = "waiting for minCount pods from a gang to appear in scheduling queue"

// EventsToRegister: a pod of the same group appearing (pending or bound),
// the PodGroup appearing, or its minCount decreasing.
func (p *Plugin) EventsToRegister() []framework.ClusterEventWithHint {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.UnscheduledPod, ActionType: framework.Add}, Hint: podAdded},
		{Event: framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Add}, Hint: podAdded},
		{Event: framework.ClusterEvent{Resource: framework.PodGroup, ActionType: framework.Add}, Hint: groupAdded},
		{Event: framework.ClusterEvent{Resource: framework.PodGroup, ActionType: framework.Update}, Hint: groupUpdated},
	}
}

func podAdded(pod *v1.Pod, _, newObj any) (framework.QueueingHint, error) {
	added, ok := newObj.(*v1.Pod)
	if !ok {
		return framework.Queue, fmt.Errorf("unexpected object %T", newObj)
	}
	name := groupName(pod)
	if name == "" || groupName(added) == "" {
		return framework.QueueSkip, nil
	}
	if added.Namespace == pod.Namespace && groupName(added) == name {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

func groupAdded(pod *v1.Pod, _, newObj any) (framework.QueueingHint, error) {
	pg, ok := newObj.(*schedulingv1beta1.PodGroup)
	if !ok {
		return framework.Queue, fmt.Errorf("unexpected object %T", newObj)
	}
	if name := groupName(pod); name != "" && pg.Namespace == pod.Namespace && pg.Name == name {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

func groupUpdated(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	oldPG, ok1 := oldObj.(*schedulingv1beta1.PodGroup)
	newPG, ok2 := newObj.(*schedulingv1beta1.PodGroup)
	if !ok1 || !ok2 {
		return framework.Queue, fmt.Errorf("unexpected objects %T, %T", oldObj, newObj)
	}
	if name := groupName(pod); name == "" || newPG.Namespace != pod.Namespace || newPG.Name != name {
		return framework.QueueSkip, nil
	}
	o, n := oldPG.Spec.SchedulingPolicy.Gang, newPG.Spec.SchedulingPolicy.Gang
	if o == nil || n == nil || n.MinCount >= o.MinCount {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}

// PlacementFeasible implements framework.GangPlugin.
func (p *Plugin) PlacementFeasible(minCount, scheduled, remaining int) *framework.Status {
	return PlacementFeasible(minCount, scheduled, remaining)
}

// PlacementFeasible is kube's check after each pod of a pod group cycle:
// Unschedulable once minCount cannot be met any more, Wait while it is
// not met yet, success once it is.
func PlacementFeasible(minCount, scheduled, remaining int) *framework.Status {
	if remaining+scheduled < minCount {
		return framework.NewStatus(framework.Unschedulable, fmt.Sprintf("minCount (%d) cannot be satisfied: %d scheduled, %d remaining", minCount, scheduled, remaining))
	}
	if scheduled < minCount {
		return framework.NewStatus(framework.Wait, fmt.Sprintf("minCount (%d) is not yet satisfied: %d scheduled, %d remaining", minCount, scheduled, remaining))
	}
	return nil
}
