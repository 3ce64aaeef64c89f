package testutil

import (
	"context"
	"sort"

	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/framework"
)

// FilterResult is one node's filter outcome in a form cmp.Diff can show.
type FilterResult struct {
	Code    framework.Code
	Reasons []string
}

// Result converts a status; nil is Success without reasons.
func Result(s *framework.Status) FilterResult {
	return FilterResult{Code: s.Code(), Reasons: s.Reasons()}
}

// RunFilter runs PreFilter (when the plugin has one) over all nodes and then
// Filter on each node, as the scheduler does, honouring Skip. It returns
// the PreFilter status when that is not Success or Skip, else per node name
// the filter result.
func RunFilter(pl framework.FilterPlugin, pod *v1.Pod, nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status, map[string]FilterResult) {
	ctx := context.Background()
	state := framework.NewCycleState()
	var pre *framework.PreFilterResult
	if pf, ok := pl.(framework.PreFilterPlugin); ok {
		var st *framework.Status
		pre, st = pf.PreFilter(ctx, state, pod, nodes)
		if st.IsSkip() {
			state.SkipFilterPlugins[pl.Name()] = true
		} else if !st.IsSuccess() {
			return pre, st, nil
		}
	}
	out := map[string]FilterResult{}
	for _, n := range nodes {
		if state.SkipFilterPlugins[pl.Name()] {
			out[n.Node().Name] = FilterResult{Code: framework.Success}
			continue
		}
		out[n.Node().Name] = Result(pl.Filter(ctx, state, pod, n))
	}
	return pre, nil, out
}

// RunScore runs PreScore (when the plugin has one) over nodes, Score on
// each, and NormalizeScore (when present), as the scheduler does. A Skip
// from PreScore yields nil scores and the Skip status.
func RunScore(pl framework.ScorePlugin, pod *v1.Pod, nodes []*framework.NodeInfo) ([]framework.NodeScore, *framework.Status) {
	ctx := context.Background()
	state := framework.NewCycleState()
	if ps, ok := pl.(framework.PreScorePlugin); ok {
		if st := ps.PreScore(ctx, state, pod, nodes); !st.IsSuccess() {
			return nil, st
		}
	}
	scores := make([]framework.NodeScore, 0, len(nodes))
	for _, n := range nodes {
		s, st := pl.Score(ctx, state, pod, n)
		if !st.IsSuccess() {
			return nil, st
		}
		scores = append(scores, framework.NodeScore{Name: n.Node().Name, Score: s})
	}
	if norm, ok := pl.(framework.ScoreNormalizer); ok {
		if st := norm.NormalizeScore(ctx, state, pod, scores); !st.IsSuccess() {
			return nil, st
		}
	}
	return scores, nil
}

// ScoreMap turns scores into name -> score.
func ScoreMap(scores []framework.NodeScore) map[string]int64 {
	out := make(map[string]int64, len(scores))
	for _, s := range scores {
		out[s.Name] = s.Score
	}
	return out
}

// Names returns the sorted keys of a PreFilterResult (nil for all nodes).
func Names(r *framework.PreFilterResult) []string {
	if r.AllNodes() {
		return nil
	}
	out := make([]string, 0, len(r.NodeNames))
	for n := range r.NodeNames {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
