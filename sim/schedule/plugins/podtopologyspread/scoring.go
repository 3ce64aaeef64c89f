package podtopologyspread

import (
	"context"
	"errors"
	"fmt"
	"math"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/plugins/internal/helper"
)

const (
	preScoreStateKey = "PreScore" + Name
	invalidScore     = -1
)

type preScoreState struct {
	Constraints []topologySpreadConstraint
	// IgnoredNodes are feasible nodes missing a constraint's topology label;
	// they score 0.
	IgnoredNodes map[string]bool
	// TopologyValueToPodCounts counts matching pods per topology value of
	// the feasible nodes (unused for hostname constraints, counted per
	// node in Score).
	TopologyValueToPodCounts []map[string]int64
	// TopologyNormalizingWeight is log(domains + 2) per constraint, so that
	// constraints over many domains weigh more.
	TopologyNormalizingWeight []float64
}

func (pl *PodTopologySpread) initPreScoreState(s *preScoreState, pod *v1.Pod, filteredNodes []*framework.NodeInfo, requireAllTopologies bool) error {
	var err error
	if s.Constraints, err = pl.constraints(pod, v1.ScheduleAnyway); err != nil {
		return fmt.Errorf("podtopologyspread: pod's soft constraints: %w", err)
	}
	if len(s.Constraints) == 0 {
		return nil
	}
	s.TopologyValueToPodCounts = make([]map[string]int64, len(s.Constraints))
	for i := range s.Constraints {
		s.TopologyValueToPodCounts[i] = make(map[string]int64)
	}
	topoSize := make([]int, len(s.Constraints))
	for _, ni := range filteredNodes {
		node := ni.Node()
		if requireAllTopologies && !nodeLabelsMatchSpreadConstraints(node.Labels, s.Constraints) {
			s.IgnoredNodes[node.Name] = true
			continue
		}
		for i, c := range s.Constraints {
			if c.TopologyKey == v1.LabelHostname {
				continue
			}
			value := node.Labels[c.TopologyKey]
			if _, ok := s.TopologyValueToPodCounts[i][value]; !ok {
				s.TopologyValueToPodCounts[i][value] = 0
				topoSize[i]++
			}
		}
	}
	s.TopologyNormalizingWeight = make([]float64, len(s.Constraints))
	for i, c := range s.Constraints {
		size := topoSize[i]
		if c.TopologyKey == v1.LabelHostname {
			size = len(filteredNodes) - len(s.IgnoredNodes)
		}
		s.TopologyNormalizingWeight[i] = math.Log(float64(size + 2))
	}
	return nil
}

// PreScore counts, over all nodes of the cluster, the pods matching each
// soft constraint in the topology values of the feasible nodes. A pod
// without soft constraints (its own or defaulted) is Skip.
func (pl *PodTopologySpread) PreScore(ctx context.Context, state *framework.CycleState, pod *v1.Pod, filteredNodes []*framework.NodeInfo) *framework.Status {
	allNodes := pl.nodes.List()
	if len(allNodes) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	s := &preScoreState{IgnoredNodes: map[string]bool{}}
	// With kube's system defaults a node missing the zone label is still
	// scored; explicit constraints ignore such nodes.
	requireAllTopologies := len(pod.Spec.TopologySpreadConstraints) > 0 || !pl.systemDefaulted
	if err := pl.initPreScoreState(s, pod, filteredNodes, requireAllTopologies); err != nil {
		return framework.AsStatus(err)
	}
	if len(s.Constraints) == 0 {
		return framework.NewStatus(framework.Skip)
	}

	nc := len(s.Constraints)
	counts := make([]int64, len(allNodes)*nc) // -1: not counted
	require := nodeaffinity.GetRequiredNodeAffinity(pod)
	helper.ParallelizeUntil(ctx, len(allNodes), func(n int) {
		row := counts[n*nc : (n+1)*nc]
		for i := range row {
			row[i] = -1
		}
		node := allNodes[n].Node()
		if requireAllTopologies && !nodeLabelsMatchSpreadConstraints(node.Labels, s.Constraints) {
			return
		}
		for i := range s.Constraints {
			c := &s.Constraints[i]
			if !c.matchNodeInclusionPolicies(pod, node, require) {
				continue
			}
			if _, ok := s.TopologyValueToPodCounts[i][node.Labels[c.TopologyKey]]; !ok {
				continue
			}
			row[i] = int64(countPodsMatchSelector(allNodes[n].Pods, c.Selector, pod.Namespace))
		}
	})
	if err := ctx.Err(); err != nil {
		return framework.AsStatus(err)
	}
	for n := range allNodes {
		for i := 0; i < nc; i++ {
			if c := counts[n*nc+i]; c >= 0 {
				s.TopologyValueToPodCounts[i][allNodes[n].Node().Labels[s.Constraints[i].TopologyKey]] += c
			}
		}
	}
	state.Write(preScoreStateKey, s)
	return nil
}

// Score sums, per soft constraint, matching pods in the node's domain times
// the constraint's weight plus maxSkew-1; lower is better (NormalizeScore
// flips it).
func (pl *PodTopologySpread) Score(_ context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	s, ok := state.Read(preScoreStateKey).(*preScoreState)
	if !ok {
		return 0, framework.AsStatus(errors.New("podtopologyspread: no PreScore state"))
	}
	node := nodeInfo.Node()
	if s.IgnoredNodes[node.Name] {
		return 0, nil
	}
	var score float64
	for i := range s.Constraints {
		c := &s.Constraints[i]
		tpVal, ok := node.Labels[c.TopologyKey]
		if !ok {
			continue
		}
		var cnt int64
		if c.TopologyKey == v1.LabelHostname {
			cnt = int64(countPodsMatchSelector(nodeInfo.Pods, c.Selector, pod.Namespace))
		} else {
			cnt = s.TopologyValueToPodCounts[i][tpVal]
		}
		score += float64(cnt)*s.TopologyNormalizingWeight[i] + float64(c.MaxSkew-1)
	}
	return int64(math.Round(score)), nil
}

// NormalizeScore maps raw scores to [0, 100] with the lowest raw score
// best: 100 * (max + min - score) / max. Ignored nodes get 0.
func (pl *PodTopologySpread) NormalizeScore(_ context.Context, state *framework.CycleState, _ *v1.Pod, scores []framework.NodeScore) *framework.Status {
	s, ok := state.Read(preScoreStateKey).(*preScoreState)
	if !ok {
		return framework.AsStatus(errors.New("podtopologyspread: no PreScore state"))
	}
	var minScore int64 = math.MaxInt64
	var maxScore int64
	for i, sc := range scores {
		if s.IgnoredNodes[sc.Name] {
			scores[i].Score = invalidScore
			continue
		}
		minScore = min(minScore, sc.Score)
		maxScore = max(maxScore, sc.Score)
	}
	for i := range scores {
		if scores[i].Score == invalidScore {
			scores[i].Score = 0
			continue
		}
		if maxScore == 0 {
			scores[i].Score = framework.MaxNodeScore
			continue
		}
		scores[i].Score = framework.MaxNodeScore * (maxScore + minScore - scores[i].Score) / maxScore
	}
	return nil
}

// NodeLabelKeys implements framework.LabelReader: the topology keys of the
// constraints in force. A soft constraint over hostnames counts the pods on
// the node itself, so every node is then evaluated on its own.
func (pl *PodTopologySpread) NodeLabelKeys(state *framework.CycleState, _ *v1.Pod) ([]string, bool) {
	var keys []string
	if s, ok := state.Read(preFilterStateKey).(*preFilterState); ok {
		for i := range s.Constraints {
			keys = append(keys, s.Constraints[i].TopologyKey)
		}
	}
	if s, ok := state.Read(preScoreStateKey).(*preScoreState); ok {
		for i := range s.Constraints {
			if s.Constraints[i].TopologyKey == v1.LabelHostname {
				return nil, false
			}
			keys = append(keys, s.Constraints[i].TopologyKey)
		}
	}
	return keys, true
}
