package interpodaffinity

import (
	"maps"

	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/framework"
)

var (
	_ framework.EnqueueExtensions   = (*InterPodAffinity)(nil)
	_ framework.PreFilterExtensions = (*InterPodAffinity)(nil)
	_ framework.StateCloner         = (*preFilterState)(nil)
)

// EventsToRegister implements framework.EnqueueExtensions: a pod the
// incoming pod needs arriving, a pod it (or that) repels going, label
// changes, and nodes that add or move topology domains.
func (pl *InterPodAffinity) EventsToRegister() []framework.ClusterEventWithHint {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Add | framework.UpdatePodLabel | framework.Delete}, Hint: afterAssignedPodChange},
		{Event: framework.ClusterEvent{Resource: framework.TargetPod, ActionType: framework.UpdatePodLabel}, Hint: func(*v1.Pod, any, any) (framework.QueueingHint, error) {
			return framework.Queue, nil
		}},
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeLabel}, Hint: afterNodeChange},
	}
}

func unscheduled(p *v1.Pod) bool { return p.Spec.NodeName == "" && p.Status.NominatedNodeName == "" }

func podMatchesAnyAffinityTerms(terms []framework.AffinityTerm, pod *v1.Pod) bool {
	for i := range terms {
		if terms[i].Matches(pod, nil) {
			return true
		}
	}
	return false
}

func afterAssignedPodChange(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	oldPod, _ := oldObj.(*v1.Pod)
	newPod, _ := newObj.(*v1.Pod)
	if newPod != nil && unscheduled(newPod) || oldPod != nil && unscheduled(oldPod) {
		return framework.QueueSkip, nil
	}
	pi := framework.NewPodInfo(pod)
	terms, antiTerms := pi.RequiredAffinityTerms, pi.RequiredAntiAffinityTerms
	switch {
	case newPod != nil && oldPod != nil:
		if !podMatchesAllAffinityTerms(terms, oldPod) && podMatchesAllAffinityTerms(terms, newPod) ||
			podMatchesAnyAffinityTerms(antiTerms, oldPod) && !podMatchesAnyAffinityTerms(antiTerms, newPod) {
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	case newPod != nil:
		if podMatchesAllAffinityTerms(terms, newPod) {
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	case oldPod != nil:
		if podMatchesAnyAffinityTerms(antiTerms, oldPod) || podMatchesAnyAffinityTerms(framework.NewPodInfo(oldPod).RequiredAntiAffinityTerms, pod) {
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}

func afterNodeChange(pod *v1.Pod, oldObj, newObj any) (framework.QueueingHint, error) {
	oldNode, _ := oldObj.(*v1.Node)
	newNode, ok := newObj.(*v1.Node)
	if !ok {
		return framework.Queue, nil
	}
	pi := framework.NewPodInfo(pod)
	for _, t := range pi.RequiredAffinityTerms {
		newValue, newHas := newNode.Labels[t.TopologyKey]
		if oldNode == nil {
			if newHas {
				return framework.Queue, nil
			}
			continue
		}
		oldValue, oldHas := oldNode.Labels[t.TopologyKey]
		if !oldHas && newHas || oldHas && newHas && oldValue != newValue {
			return framework.Queue, nil
		}
	}
	for _, t := range pi.RequiredAntiAffinityTerms {
		if oldNode == nil {
			return framework.Queue, nil
		}
		oldValue, oldHas := oldNode.Labels[t.TopologyKey]
		newValue, newHas := newNode.Labels[t.TopologyKey]
		if oldHas && !newHas || oldHas && newHas && oldValue != newValue {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

// CloneState implements framework.StateCloner.
func (s *preFilterState) CloneState() any {
	c := *s
	c.existingAntiAffinityCounts = maps.Clone(s.existingAntiAffinityCounts)
	c.affinityCounts = maps.Clone(s.affinityCounts)
	c.antiAffinityCounts = maps.Clone(s.antiAffinityCounts)
	return &c
}

// AddPod implements framework.PreFilterExtensions.
func (pl *InterPodAffinity) AddPod(state *framework.CycleState, _ *v1.Pod, podToAdd *framework.PodInfo, nodeInfo *framework.NodeInfo) *framework.Status {
	if s, _ := state.Read(preFilterStateKey).(*preFilterState); s != nil {
		s.updateWithPod(podToAdd, nodeInfo.Node(), 1)
	}
	return nil
}

// RemovePod implements framework.PreFilterExtensions.
func (pl *InterPodAffinity) RemovePod(state *framework.CycleState, _ *v1.Pod, podToRemove *framework.PodInfo, nodeInfo *framework.NodeInfo) *framework.Status {
	if s, _ := state.Read(preFilterStateKey).(*preFilterState); s != nil {
		s.updateWithPod(podToRemove, nodeInfo.Node(), -1)
	}
	return nil
}

// updateWithPod counts a pod added to (multiplier 1) or removed from (-1)
// node: its anti-affinity against the incoming pod, and the incoming pod's
// terms against it.
func (s *preFilterState) updateWithPod(pi *framework.PodInfo, node *v1.Node, multiplier int64) {
	for i := range pi.RequiredAntiAffinityTerms {
		if t := &pi.RequiredAntiAffinityTerms[i]; t.Matches(s.podInfo.Pod, s.namespaceLabels) {
			s.existingAntiAffinityCounts.update(node, t.TopologyKey, multiplier)
		}
	}
	if terms := s.podInfo.RequiredAffinityTerms; podMatchesAllAffinityTerms(terms, pi.Pod) {
		for i := range terms {
			s.affinityCounts.update(node, terms[i].TopologyKey, multiplier)
		}
	}
	for i := range s.podInfo.RequiredAntiAffinityTerms {
		if t := &s.podInfo.RequiredAntiAffinityTerms[i]; t.Matches(pi.Pod, nil) {
			s.antiAffinityCounts.update(node, t.TopologyKey, multiplier)
		}
	}
}

// update adds value to the count of node's value for key, dropping counts
// that reach zero (kube's topologyToMatchedTermCount.update).
func (m topologyToMatchedTermCount) update(node *v1.Node, key string, value int64) {
	if v, ok := node.Labels[key]; ok {
		pair := topologyPair{key: key, value: v}
		m[pair] += value
		if m[pair] == 0 {
			delete(m, pair)
		}
	}
}
