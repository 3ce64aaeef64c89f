package interpodaffinity

import (
	"context"
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/plugins/internal/helper"
)

const preFilterStateKey = "PreFilter" + Name

// Kube's Filter reasons.
const (
	ErrReasonExistingAntiAffinityRulesNotMatch = "node(s) didn't satisfy existing pods anti-affinity rules"
	ErrReasonAffinityRulesNotMatch             = "node(s) didn't match pod affinity rules"
	ErrReasonAntiAffinityRulesNotMatch         = "node(s) didn't match pod anti-affinity rules"
)

type topologyPair struct {
	key   string
	value string
}

// topologyToMatchedTermCount counts matches per topology key and value.
type topologyToMatchedTermCount map[topologyPair]int64

type topologyPairCount struct {
	pair  topologyPair
	count int64
}

func recordMatch(list []topologyPairCount, node *v1.Node, key string) []topologyPairCount {
	if v, ok := node.Labels[key]; ok {
		list = append(list, topologyPairCount{pair: topologyPair{key: key, value: v}, count: 1})
	}
	return list
}

func (m topologyToMatchedTermCount) mergeWithList(list []topologyPairCount) {
	for _, c := range list {
		m[c.pair] += c.count
	}
}

type preFilterState struct {
	// existingAntiAffinityCounts: topologies where a placed pod's required
	// anti-affinity term matches the incoming pod.
	existingAntiAffinityCounts topologyToMatchedTermCount
	// affinityCounts: topologies with pods matching all of the incoming
	// pod's required affinity terms.
	affinityCounts topologyToMatchedTermCount
	// antiAffinityCounts: topologies with pods matching one of the incoming
	// pod's required anti-affinity terms.
	antiAffinityCounts topologyToMatchedTermCount
	podInfo            *framework.PodInfo
	namespaceLabels    labels.Set
}

func podMatchesAllAffinityTerms(terms []framework.AffinityTerm, pod *v1.Pod) bool {
	if len(terms) == 0 {
		return false
	}
	for i := range terms {
		if !terms[i].Matches(pod, nil) {
			return false
		}
	}
	return true
}

// PreFilter counts, once per pod, the topologies that the incoming pod's
// required terms and the placed pods' required anti-affinity terms touch.
// A pod with no required terms, in a cluster where no placed pod's
// anti-affinity matches it, is Skip.
func (pl *InterPodAffinity) PreFilter(ctx context.Context, state *framework.CycleState, pod *v1.Pod, allNodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	withAnti := pl.nodes.HavePodsWithRequiredAntiAffinityList()
	if len(withAnti) == 0 && !hasPodAffinity(pod) {
		// Nothing to count and no term to parse: the Skip below, sooner.
		return nil, framework.NewStatus(framework.Skip)
	}
	pi := framework.NewPodInfo(pod)
	if err := pi.ParseError(); err != nil {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("parsing pod: %+v", err))
	}
	for i := range pi.RequiredAffinityTerms {
		pl.mergeAffinityTermNamespaces(&pi.RequiredAffinityTerms[i])
	}
	for i := range pi.RequiredAntiAffinityTerms {
		pl.mergeAffinityTermNamespaces(&pi.RequiredAntiAffinityTerms[i])
	}
	s := &preFilterState{podInfo: pi, namespaceLabels: pl.namespaceLabels(pod.Namespace)}
	s.existingAntiAffinityCounts = existingAntiAffinityCounts(ctx, pod, s.namespaceLabels, withAnti)
	s.affinityCounts, s.antiAffinityCounts = incomingAffinityAntiAffinityCounts(ctx, pi.RequiredAffinityTerms, pi.RequiredAntiAffinityTerms, allNodes)
	if err := ctx.Err(); err != nil {
		return nil, framework.AsStatus(err)
	}
	if len(s.existingAntiAffinityCounts) == 0 && len(pi.RequiredAffinityTerms) == 0 && len(pi.RequiredAntiAffinityTerms) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	state.Write(preFilterStateKey, s)
	return nil, nil
}

func existingAntiAffinityCounts(ctx context.Context, pod *v1.Pod, nsLabels labels.Set, nodes []*framework.NodeInfo) topologyToMatchedTermCount {
	perNode := make([][]topologyPairCount, len(nodes))
	helper.ParallelizeUntil(ctx, len(nodes), func(i int) {
		node := nodes[i].Node()
		var list []topologyPairCount
		for _, existing := range nodes[i].PodsWithRequiredAntiAffinity {
			for j := range existing.RequiredAntiAffinityTerms {
				t := &existing.RequiredAntiAffinityTerms[j]
				if t.Matches(pod, nsLabels) {
					list = recordMatch(list, node, t.TopologyKey)
				}
			}
		}
		perNode[i] = list
	})
	out := make(topologyToMatchedTermCount)
	for _, l := range perNode {
		out.mergeWithList(l)
	}
	return out
}

func incomingAffinityAntiAffinityCounts(ctx context.Context, affinityTerms, antiAffinityTerms []framework.AffinityTerm, allNodes []*framework.NodeInfo) (topologyToMatchedTermCount, topologyToMatchedTermCount) {
	affinity := make(topologyToMatchedTermCount)
	anti := make(topologyToMatchedTermCount)
	if len(affinityTerms) == 0 && len(antiAffinityTerms) == 0 {
		return affinity, anti
	}
	affPerNode := make([][]topologyPairCount, len(allNodes))
	antiPerNode := make([][]topologyPairCount, len(allNodes))
	helper.ParallelizeUntil(ctx, len(allNodes), func(i int) {
		node := allNodes[i].Node()
		var aff, an []topologyPairCount
		for _, existing := range allNodes[i].Pods {
			if podMatchesAllAffinityTerms(affinityTerms, existing.Pod) {
				for j := range affinityTerms {
					aff = recordMatch(aff, node, affinityTerms[j].TopologyKey)
				}
			}
			for j := range antiAffinityTerms {
				if antiAffinityTerms[j].Matches(existing.Pod, nil) {
					an = recordMatch(an, node, antiAffinityTerms[j].TopologyKey)
				}
			}
		}
		affPerNode[i], antiPerNode[i] = aff, an
	})
	for i := range allNodes {
		affinity.mergeWithList(affPerNode[i])
		anti.mergeWithList(antiPerNode[i])
	}
	return affinity, anti
}

// Filter rejects, all as kube does: a node whose topology has no pod
// matching all required affinity terms (UnschedulableAndUnresolvable,
// unless no such pod exists anywhere and the pod matches its own terms);
// a node in a topology holding a pod the incoming pod's anti-affinity
// matches (Unschedulable); a node in a topology where a placed pod's
// anti-affinity matches the incoming pod (Unschedulable).
func (pl *InterPodAffinity) Filter(_ context.Context, state *framework.CycleState, _ *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	s, ok := state.Read(preFilterStateKey).(*preFilterState)
	if !ok {
		return framework.AsStatus(errors.New("interpodaffinity: no PreFilter state"))
	}
	node := nodeInfo.Node()
	if !satisfyPodAffinity(s, node) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch)
	}
	if !satisfyPodAntiAffinity(s, node) {
		return framework.NewStatus(framework.Unschedulable, ErrReasonAntiAffinityRulesNotMatch)
	}
	if !satisfyExistingPodsAntiAffinity(s, node) {
		return framework.NewStatus(framework.Unschedulable, ErrReasonExistingAntiAffinityRulesNotMatch)
	}
	return nil
}

func satisfyExistingPodsAntiAffinity(s *preFilterState, node *v1.Node) bool {
	if len(s.existingAntiAffinityCounts) > 0 {
		for k, v := range node.Labels {
			if s.existingAntiAffinityCounts[topologyPair{key: k, value: v}] > 0 {
				return false
			}
		}
	}
	return true
}

func satisfyPodAntiAffinity(s *preFilterState, node *v1.Node) bool {
	if len(s.antiAffinityCounts) > 0 {
		for i := range s.podInfo.RequiredAntiAffinityTerms {
			t := &s.podInfo.RequiredAntiAffinityTerms[i]
			if v, ok := node.Labels[t.TopologyKey]; ok {
				if s.antiAffinityCounts[topologyPair{key: t.TopologyKey, value: v}] > 0 {
					return false
				}
			}
		}
	}
	return true
}

func satisfyPodAffinity(s *preFilterState, node *v1.Node) bool {
	terms := s.podInfo.RequiredAffinityTerms
	if len(terms) == 0 {
		return true
	}
	podsExist := true
	for i := range terms {
		v, ok := node.Labels[terms[i].TopologyKey]
		if !ok {
			// Every term's topology key must be on the node.
			return false
		}
		if s.affinityCounts[topologyPair{key: terms[i].TopologyKey, value: v}] <= 0 {
			podsExist = false
		}
	}
	if !podsExist {
		// The first pod of a group that selects itself may go anywhere
		// (that has the keys), as long as no matching pod exists at all.
		return len(s.affinityCounts) == 0 && podMatchesAllAffinityTerms(terms, s.podInfo.Pod)
	}
	return true
}

// hasPodAffinity reports whether the pod has any inter-pod (anti-)affinity.
func hasPodAffinity(pod *v1.Pod) bool {
	a := pod.Spec.Affinity
	return a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil)
}
