package podtopologyspread

import (
	"maps"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/drasim/drasim/sim/framework"
)

var (
	_ framework.EnqueueExtensions   = (*PodTopologySpread)(nil)
	_ framework.PreFilterExtensions = (*PodTopologySpread)(nil)
	_ framework.StateCloner         = (*preFilterState)(nil)
)

// EventsToRegister implements framework.EnqueueExtensions: pods that count
// for the pod's constraints coming, going or relabelled, the pod's own
// labels or tolerations, and nodes that change the topology domains.
func (pl *PodTopologySpread) EventsToRegister() []framework.ClusterEventWithHint {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Add | framework.UpdatePodLabel | framework.Delete}, Hint: pl.afterAssignedPodChange},
		{Event: framework.ClusterEvent{Resource: framework.TargetPod, ActionType: framework.UpdatePodToleration | framework.UpdatePodLabel}, Hint: pl.afterTargetPodChange},
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.Delete | framework.UpdateNodeLabel | framework.UpdateNodeTaint}, Hint: pl.afterNodeChange},
	}
}

// involved reports whether a pod counts for the spreading of podWithSpreading:
// bound or nominated, in the same namespace.
func involved(incoming, podWithSpreading *v1.Pod) bool {
	if incoming.Spec.NodeName == "" && incoming.Status.NominatedNodeName == "" {
		return false
	}
	return incoming.Namespace == podWithSpreading.Namespace
}

func (pl *PodTopologySpread) afterAssignedPodChange(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	oldPod, _ := oldObj.(*v1.Pod)
	newPod, _ := newObj.(*v1.Pod)
	if newPod != nil && !involved(newPod, pod) || oldPod != nil && !involved(oldPod, pod) {
		return framework.QueueSkip, nil
	}
	constraints, err := pl.constraints(pod, v1.DoNotSchedule)
	if err != nil {
		return framework.Queue, err
	}
	switch {
	case newPod != nil && oldPod != nil:
		return labelChangeHint(oldPod, newPod, constraints), nil
	case newPod != nil:
		return hintIf(labelsMatchConstraints(constraints, newPod.Labels)), nil
	case oldPod != nil:
		return hintIf(labelsMatchConstraints(constraints, oldPod.Labels)), nil
	}
	return framework.Queue, nil
}

func (pl *PodTopologySpread) afterTargetPodChange(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	oldPod, ok1 := oldObj.(*v1.Pod)
	newPod, ok2 := newObj.(*v1.Pod)
	if !ok1 || !ok2 {
		return framework.Queue, nil
	}
	constraints, err := pl.constraints(pod, v1.DoNotSchedule)
	if err != nil {
		return framework.Queue, err
	}
	if !equality.Semantic.DeepEqual(newPod.Spec.Tolerations, oldPod.Spec.Tolerations) {
		for _, c := range constraints {
			if c.NodeTaintsPolicy == v1.NodeInclusionPolicyHonor {
				return framework.Queue, nil
			}
		}
	}
	return labelChangeHint(oldPod, newPod, constraints), nil
}

func labelChangeHint(oldPod, newPod *v1.Pod, constraints []topologySpreadConstraint) framework.QueueingHint {
	if equality.Semantic.DeepEqual(newPod.Labels, oldPod.Labels) {
		return framework.QueueSkip
	}
	for _, c := range constraints {
		if c.Selector.Matches(labels.Set(oldPod.Labels)) != c.Selector.Matches(labels.Set(newPod.Labels)) {
			return framework.Queue
		}
	}
	return framework.QueueSkip
}

func labelsMatchConstraints(constraints []topologySpreadConstraint, podLabels map[string]string) bool {
	for _, c := range constraints {
		if c.Selector.Matches(labels.Set(podLabels)) {
			return true
		}
	}
	return false
}

func hintIf(queue bool) framework.QueueingHint {
	if queue {
		return framework.Queue
	}
	return framework.QueueSkip
}

func (pl *PodTopologySpread) afterNodeChange(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	oldNode, _ := oldObj.(*v1.Node)
	newNode, _ := newObj.(*v1.Node)
	constraints, err := pl.constraints(pod, v1.DoNotSchedule)
	if err != nil {
		return framework.Queue, err
	}
	var oldMatching, newMatching bool
	if oldNode != nil {
		oldMatching = nodeLabelsMatchSpreadConstraints(oldNode.Labels, constraints)
	}
	if newNode != nil {
		newMatching = nodeLabelsMatchSpreadConstraints(newNode.Labels, constraints)
	}
	switch {
	case oldNode != nil && newNode != nil:
		if oldMatching != newMatching {
			return framework.Queue, nil
		}
		if newMatching && (topologyKeyLabelsChanged(oldNode.Labels, newNode.Labels, constraints) || !equality.Semantic.DeepEqual(oldNode.Spec.Taints, newNode.Spec.Taints)) {
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	case newNode != nil:
		return hintIf(newMatching), nil
	default:
		return hintIf(oldMatching), nil
	}
}

func topologyKeyLabelsChanged(oldLabels, newLabels map[string]string, constraints []topologySpreadConstraint) bool {
	for _, c := range constraints {
		if oldLabels[c.TopologyKey] != newLabels[c.TopologyKey] {
			return true
		}
	}
	return false
}

// CloneState implements framework.StateCloner: the counts change when the
// preemption dry run or a nominated pod adds or removes pods.
func (s *preFilterState) CloneState() any {
	c := &preFilterState{
		Constraints:       s.Constraints,
		CriticalPaths:     make([]*criticalPaths, len(s.CriticalPaths)),
		TpValueToMatchNum: make([]map[string]int, len(s.TpValueToMatchNum)),
	}
	for i, p := range s.CriticalPaths {
		cp := *p
		c.CriticalPaths[i] = &cp
	}
	for i, m := range s.TpValueToMatchNum {
		c.TpValueToMatchNum[i] = maps.Clone(m)
	}
	return c
}

// AddPod implements framework.PreFilterExtensions.
func (pl *PodTopologySpread) AddPod(state *framework.CycleState, podToSchedule *v1.Pod, podToAdd *framework.PodInfo, nodeInfo *framework.NodeInfo) *framework.Status {
	updateWithPod(state, podToAdd.Pod, podToSchedule, nodeInfo.Node(), 1)
	return nil
}

// RemovePod implements framework.PreFilterExtensions.
func (pl *PodTopologySpread) RemovePod(state *framework.CycleState, podToSchedule *v1.Pod, podToRemove *framework.PodInfo, nodeInfo *framework.NodeInfo) *framework.Status {
	updateWithPod(state, podToRemove.Pod, podToSchedule, nodeInfo.Node(), -1)
	return nil
}

// updateWithPod changes the counts by delta for a pod added to or removed
// from node, where it counts for the constraints.
func updateWithPod(state *framework.CycleState, updated, preemptor *v1.Pod, node *v1.Node, delta int) {
	s, _ := state.Read(preFilterStateKey).(*preFilterState)
	if s == nil || updated.Namespace != preemptor.Namespace || node == nil {
		return
	}
	if !nodeLabelsMatchSpreadConstraints(node.Labels, s.Constraints) {
		return
	}
	require := nodeaffinity.GetRequiredNodeAffinity(preemptor)
	podLabels := labels.Set(updated.Labels)
	for i := range s.Constraints {
		c := &s.Constraints[i]
		if !c.Selector.Matches(podLabels) || !c.matchNodeInclusionPolicies(preemptor, node, require) {
			continue
		}
		v := node.Labels[c.TopologyKey]
		s.TpValueToMatchNum[i][v] += delta
		s.CriticalPaths[i].update(v, s.TpValueToMatchNum[i][v])
	}
}
