package podtopologyspread

import (
	"context"
	"errors"
	"fmt"
	"math"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/plugins/internal/helper"
)

const preFilterStateKey = "PreFilter" + Name

// preFilterState holds, per hard constraint, the matching pod count of each
// topology value and the two least loaded values.
type preFilterState struct {
	Constraints       []topologySpreadConstraint
	CriticalPaths     []*criticalPaths
	TpValueToMatchNum []map[string]int
}

// minMatchNum is the global minimum of the constraint, or 0 while there are
// fewer domains than minDomains.
func (s *preFilterState) minMatchNum(i int, minDomains int32) int {
	if len(s.TpValueToMatchNum[i]) < int(minDomains) {
		return 0
	}
	return s.CriticalPaths[i][0].MatchNum
}

// criticalPaths keeps the two topology values with the fewest matching pods,
// [0] holding the minimum.
type criticalPaths [2]struct {
	TopologyValue string
	MatchNum      int
}

func newCriticalPaths() *criticalPaths {
	return &criticalPaths{{MatchNum: math.MaxInt32}, {MatchNum: math.MaxInt32}}
}

func (p *criticalPaths) update(tpVal string, num int) {
	i := -1
	if tpVal == p[0].TopologyValue {
		i = 0
	} else if tpVal == p[1].TopologyValue {
		i = 1
	}
	if i >= 0 {
		p[i].MatchNum = num
		if p[0].MatchNum > p[1].MatchNum {
			p[0], p[1] = p[1], p[0]
		}
		return
	}
	if num < p[0].MatchNum {
		p[1] = p[0]
		p[0].TopologyValue, p[0].MatchNum = tpVal, num
	} else if num < p[1].MatchNum {
		p[1].TopologyValue, p[1].MatchNum = tpVal, num
	}
}

// PreFilter counts, over nodes (all nodes of the cluster, as kube passes),
// the pods matching each hard constraint per topology value. A pod without
// hard constraints is Skip.
func (pl *PodTopologySpread) PreFilter(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	s, err := pl.calPreFilterState(ctx, pod, nodes)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	if len(s.Constraints) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	state.Write(preFilterStateKey, s)
	return nil, nil
}

func (pl *PodTopologySpread) calPreFilterState(ctx context.Context, pod *v1.Pod, nodes []*framework.NodeInfo) (*preFilterState, error) {
	constraints, err := pl.constraints(pod, v1.DoNotSchedule)
	if err != nil {
		return nil, fmt.Errorf("podtopologyspread: pod's hard constraints: %w", err)
	}
	if len(constraints) == 0 {
		return &preFilterState{}, nil
	}
	s := &preFilterState{
		Constraints:       constraints,
		CriticalPaths:     make([]*criticalPaths, len(constraints)),
		TpValueToMatchNum: make([]map[string]int, len(constraints)),
	}
	for i, c := range constraints {
		size := 0
		if c.TopologyKey == v1.LabelHostname {
			size = len(nodes)
		}
		s.TpValueToMatchNum[i] = make(map[string]int, size)
	}

	// counts[n*len(constraints)+i] is node n's count for constraint i, or -1
	// when the node does not take part.
	nc := len(constraints)
	counts := make([]int, len(nodes)*nc)
	require := nodeaffinity.GetRequiredNodeAffinity(pod)
	helper.ParallelizeUntil(ctx, len(nodes), func(n int) {
		row := counts[n*nc : (n+1)*nc]
		for i := range row {
			row[i] = -1
		}
		node := nodes[n].Node()
		if !nodeLabelsMatchSpreadConstraints(node.Labels, constraints) {
			return
		}
		for i := range constraints {
			c := &constraints[i]
			if !c.matchNodeInclusionPolicies(pod, node, require) {
				continue
			}
			row[i] = countPodsMatchSelector(nodes[n].Pods, c.Selector, pod.Namespace)
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for n := range nodes {
		for i := 0; i < nc; i++ {
			if c := counts[n*nc+i]; c >= 0 {
				s.TpValueToMatchNum[i][nodes[n].Node().Labels[constraints[i].TopologyKey]] += c
			}
		}
	}
	for i := range constraints {
		s.CriticalPaths[i] = newCriticalPaths()
		for value, num := range s.TpValueToMatchNum[i] {
			s.CriticalPaths[i].update(value, num)
		}
	}
	return s, nil
}

// Filter rejects a node that lacks a constraint's topology label
// (UnschedulableAndUnresolvable) or where placing the pod would exceed a
// constraint's maxSkew over the least loaded domain (Unschedulable).
func (pl *PodTopologySpread) Filter(_ context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	s, ok := state.Read(preFilterStateKey).(*preFilterState)
	if !ok {
		return framework.AsStatus(errors.New("podtopologyspread: no PreFilter state"))
	}
	if len(s.Constraints) == 0 {
		return nil
	}
	node := nodeInfo.Node()
	podLabels := labels.Set(pod.Labels)
	for i := range s.Constraints {
		c := &s.Constraints[i]
		tpVal, ok := node.Labels[c.TopologyKey]
		if !ok {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonNodeLabelNotMatch)
		}
		selfMatch := 0
		if c.Selector.Matches(podLabels) {
			selfMatch = 1
		}
		skew := s.TpValueToMatchNum[i][tpVal] + selfMatch - s.minMatchNum(i, c.MinDomains)
		if skew > int(c.MaxSkew) {
			return framework.NewStatus(framework.Unschedulable, ErrReasonConstraintsNotMatch)
		}
	}
	return nil
}
