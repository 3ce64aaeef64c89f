package interpodaffinity

import (
	"context"
	"errors"
	"math"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/plugins/internal/helper"
)

const preScoreStateKey = "PreScore" + Name

// scoreMap is topology key -> topology value -> score.
type scoreMap map[string]map[string]int64

type preScoreState struct {
	topologyScore   scoreMap
	podInfo         *framework.PodInfo
	namespaceLabels labels.Set
}

func (m scoreMap) processTerm(term *framework.AffinityTerm, weight int32, pod *v1.Pod, nsLabels labels.Set, node *v1.Node, multiplier int32) {
	if !term.Matches(pod, nsLabels) {
		return
	}
	if v, ok := node.Labels[term.TopologyKey]; ok {
		if m[term.TopologyKey] == nil {
			m[term.TopologyKey] = make(map[string]int64)
		}
		m[term.TopologyKey][v] += int64(weight * multiplier)
	}
}

func (m scoreMap) processTerms(terms []framework.WeightedAffinityTerm, pod *v1.Pod, nsLabels labels.Set, node *v1.Node, multiplier int32) {
	for i := range terms {
		m.processTerm(&terms[i].AffinityTerm, terms[i].Weight, pod, nsLabels, node, multiplier)
	}
}

func (m scoreMap) append(other scoreMap) {
	for key, oScores := range other {
		scores := m[key]
		if scores == nil {
			m[key] = oScores
			continue
		}
		for k, v := range oScores {
			scores[k] += v
		}
	}
}

func (pl *InterPodAffinity) processExistingPod(s *preScoreState, existing *framework.PodInfo, node *v1.Node, incoming *v1.Pod, topoScore scoreMap) {
	if len(node.Labels) == 0 {
		return
	}
	// The incoming pod's preferred terms against the placed pod.
	topoScore.processTerms(s.podInfo.PreferredAffinityTerms, existing.Pod, nil, node, 1)
	topoScore.processTerms(s.podInfo.PreferredAntiAffinityTerms, existing.Pod, nil, node, -1)
	// The placed pod's required affinity, weighted by hardPodAffinityWeight,
	// and its preferred terms against the incoming pod.
	if pl.hardPodAffinityWeight > 0 {
		for i := range existing.RequiredAffinityTerms {
			topoScore.processTerm(&existing.RequiredAffinityTerms[i], pl.hardPodAffinityWeight, incoming, s.namespaceLabels, node, 1)
		}
	}
	topoScore.processTerms(existing.PreferredAffinityTerms, incoming, s.namespaceLabels, node, 1)
	topoScore.processTerms(existing.PreferredAntiAffinityTerms, incoming, s.namespaceLabels, node, -1)
}

// PreScore sums, per topology, the weights of matching preferred terms in
// both directions and of placed pods' required affinity terms. It is Skip
// when nothing matched anywhere (or, with
// IgnorePreferredTermsOfExistingPods, when the pod has no preferred terms).
func (pl *InterPodAffinity) PreScore(ctx context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) *framework.Status {
	aff := pod.Spec.Affinity
	hasPreferredAffinity := aff != nil && aff.PodAffinity != nil && len(aff.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0
	hasPreferredAnti := aff != nil && aff.PodAntiAffinity != nil && len(aff.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0
	hasConstraints := hasPreferredAffinity || hasPreferredAnti
	if pl.ignorePreferredTermsOfExistingPods && !hasConstraints {
		return framework.NewStatus(framework.Skip)
	}
	var allNodes []*framework.NodeInfo
	if hasConstraints {
		allNodes = pl.nodes.List()
	} else {
		allNodes = pl.nodes.HavePodsWithAffinityList()
		if len(allNodes) == 0 && !hasPodAffinity(pod) {
			// Nothing would match and no term to parse: the Skip below,
			// sooner.
			return framework.NewStatus(framework.Skip)
		}
	}

	pi := framework.NewPodInfo(pod)
	if err := pi.ParseError(); err != nil {
		return framework.AsStatus(errors.Join(errors.New("interpodaffinity: parsing pod"), err))
	}
	for i := range pi.PreferredAffinityTerms {
		pl.mergeAffinityTermNamespaces(&pi.PreferredAffinityTerms[i].AffinityTerm)
	}
	for i := range pi.PreferredAntiAffinityTerms {
		pl.mergeAffinityTermNamespaces(&pi.PreferredAntiAffinityTerms[i].AffinityTerm)
	}
	s := &preScoreState{topologyScore: make(scoreMap), podInfo: pi, namespaceLabels: pl.namespaceLabels(pod.Namespace)}

	perNode := make([]scoreMap, len(allNodes))
	helper.ParallelizeUntil(ctx, len(allNodes), func(i int) {
		pods := allNodes[i].PodsWithAffinity
		if hasConstraints {
			pods = allNodes[i].Pods
		}
		topoScore := make(scoreMap)
		node := allNodes[i].Node()
		for _, existing := range pods {
			pl.processExistingPod(s, existing, node, pod, topoScore)
		}
		if len(topoScore) > 0 {
			perNode[i] = topoScore
		}
	})
	if err := ctx.Err(); err != nil {
		return framework.AsStatus(err)
	}
	found := false
	for _, m := range perNode {
		if m != nil {
			s.topologyScore.append(m)
			found = true
		}
	}
	if !found {
		return framework.NewStatus(framework.Skip)
	}
	state.Write(preScoreStateKey, s)
	return nil
}

// Score sums the topology scores of the node's labels; it may be negative.
func (pl *InterPodAffinity) Score(_ context.Context, state *framework.CycleState, _ *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	s, ok := state.Read(preScoreStateKey).(*preScoreState)
	if !ok {
		return 0, framework.AsStatus(errors.New("interpodaffinity: no PreScore state"))
	}
	node := nodeInfo.Node()
	var score int64
	for key, values := range s.topologyScore {
		if v, ok := node.Labels[key]; ok {
			score += values[v]
		}
	}
	return score, nil
}

// NormalizeScore maps raw scores linearly onto [0, 100] between the lowest
// and the highest (all 0 when they are equal).
func (pl *InterPodAffinity) NormalizeScore(_ context.Context, state *framework.CycleState, _ *v1.Pod, scores []framework.NodeScore) *framework.Status {
	s, ok := state.Read(preScoreStateKey).(*preScoreState)
	if !ok {
		return framework.AsStatus(errors.New("interpodaffinity: no PreScore state"))
	}
	if len(s.topologyScore) == 0 {
		return nil
	}
	var minCount int64 = math.MaxInt64
	var maxCount int64 = math.MinInt64
	for i := range scores {
		minCount = min(minCount, scores[i].Score)
		maxCount = max(maxCount, scores[i].Score)
	}
	diff := maxCount - minCount
	for i := range scores {
		f := float64(0)
		if diff > 0 {
			f = float64(framework.MaxNodeScore) * (float64(scores[i].Score-minCount) / float64(diff))
		}
		scores[i].Score = int64(f)
	}
	return nil
}

// NodeLabelKeys implements framework.LabelReader: the topology keys of the
// incoming pod's required terms, of the placed pods' anti-affinity that
// matches it, and of every scored topology.
func (pl *InterPodAffinity) NodeLabelKeys(state *framework.CycleState, _ *v1.Pod) ([]string, bool) {
	seen := map[string]bool{}
	if s, ok := state.Read(preFilterStateKey).(*preFilterState); ok {
		for pair := range s.existingAntiAffinityCounts {
			seen[pair.key] = true
		}
		for i := range s.podInfo.RequiredAffinityTerms {
			seen[s.podInfo.RequiredAffinityTerms[i].TopologyKey] = true
		}
		for i := range s.podInfo.RequiredAntiAffinityTerms {
			seen[s.podInfo.RequiredAntiAffinityTerms[i].TopologyKey] = true
		}
	}
	if s, ok := state.Read(preScoreStateKey).(*preScoreState); ok {
		for key := range s.topologyScore {
			seen[key] = true
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	return keys, true
}
