package nodeaffinity

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/plugins/config"
	"github.com/drasim/drasim/sim/schedule/plugins/internal/helper"
)

// Name is the plugin name in kube-scheduler profiles.
const Name = "NodeAffinity"

// Kube's reasons.
const (
	// ErrReasonPod: the node fails the pod's nodeSelector or required node
	// affinity.
	ErrReasonPod = "node(s) didn't match Pod's node affinity/selector"
	// ErrReasonEnforced: the node fails args.addedAffinity.
	ErrReasonEnforced = "node(s) didn't match scheduler-enforced node affinity"
	// ErrReasonConflict: the metadata.name matchFields of the terms leave no
	// node at all.
	ErrReasonConflict = "pod affinity terms conflict"
)

const (
	preFilterStateKey = "PreFilter" + Name
	preScoreStateKey  = "PreScore" + Name
)

// NodeAffinity is the plugin.
type NodeAffinity struct {
	addedNodeSelector   *nodeaffinity.NodeSelector
	addedPrefSchedTerms *nodeaffinity.PreferredSchedulingTerms
	// addedKeys are the label keys args.addedAffinity reads; addedByName
	// is set when it also reads node fields (metadata.name).
	addedKeys   []string
	addedByName bool
}

var (
	_ framework.PreFilterPlugin = (*NodeAffinity)(nil)
	_ framework.FilterPlugin    = (*NodeAffinity)(nil)
	_ framework.PreScorePlugin  = (*NodeAffinity)(nil)
	_ framework.ScorePlugin     = (*NodeAffinity)(nil)
	_ framework.ScoreNormalizer = (*NodeAffinity)(nil)
	_ framework.LabelReader     = (*NodeAffinity)(nil)
)

// New returns the plugin; it fails when args.AddedAffinity does not parse.
func New(args config.NodeAffinityArgs) (*NodeAffinity, error) {
	pl := &NodeAffinity{}
	if a := args.AddedAffinity; a != nil {
		var err error
		if ns := a.RequiredDuringSchedulingIgnoredDuringExecution; ns != nil {
			if pl.addedNodeSelector, err = nodeaffinity.NewNodeSelector(ns); err != nil {
				return nil, fmt.Errorf("nodeaffinity: addedAffinity.requiredDuringSchedulingIgnoredDuringExecution: %w", err)
			}
			pl.addedKeys, pl.addedByName = termKeys(pl.addedKeys, ns.NodeSelectorTerms...)
		}
		if terms := a.PreferredDuringSchedulingIgnoredDuringExecution; len(terms) != 0 {
			if pl.addedPrefSchedTerms, err = nodeaffinity.NewPreferredSchedulingTerms(terms); err != nil {
				return nil, fmt.Errorf("nodeaffinity: addedAffinity.preferredDuringSchedulingIgnoredDuringExecution: %w", err)
			}
			for _, t := range terms {
				var byName bool
				pl.addedKeys, byName = termKeys(pl.addedKeys, t.Preference)
				pl.addedByName = pl.addedByName || byName
			}
		}
	}
	return pl, nil
}

// Name returns Name.
func (*NodeAffinity) Name() string { return Name }

type preFilterState struct {
	required nodeaffinity.RequiredNodeAffinity
}

// PreFilter parses nodeSelector and required affinity once (Skip when there
// is neither, nor an added affinity). When every term pins metadata.name
// with In, the union of those names is returned as the candidate set; an
// empty union fails the pod with ErrReasonConflict.
func (pl *NodeAffinity) PreFilter(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	affinity := pod.Spec.Affinity
	noNodeAffinity := affinity == nil || affinity.NodeAffinity == nil ||
		affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil
	if noNodeAffinity && pl.addedNodeSelector == nil && pod.Spec.NodeSelector == nil {
		return nil, framework.NewStatus(framework.Skip)
	}
	state.Write(preFilterStateKey, &preFilterState{required: nodeaffinity.GetRequiredNodeAffinity(pod)})

	if noNodeAffinity || len(affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms) == 0 {
		return nil, nil
	}
	// Terms are ORed, so narrowing is only possible when every term names
	// its nodes; within a term, several metadata.name In requirements AND.
	var nodeNames sets.Set[string]
	for _, t := range affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		var termNames sets.Set[string]
		for _, r := range t.MatchFields {
			if r.Key == metav1.ObjectNameField && r.Operator == v1.NodeSelectorOpIn {
				s := sets.New(r.Values...)
				if termNames == nil {
					termNames = s
				} else {
					termNames = termNames.Intersection(s)
				}
			}
		}
		if termNames == nil {
			return nil, nil
		}
		// kube's Union copies the set for every term; added in place,
		// the same set costs one insert per name (a probe pod of the
		// analysis is pinned to a term per node, a thousand and more).
		if nodeNames == nil {
			nodeNames = sets.New[string]()
		}
		for n := range termNames {
			nodeNames.Insert(n)
		}
	}
	if nodeNames != nil && len(nodeNames) == 0 {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonConflict)
	}
	if len(nodeNames) > 0 {
		res := &framework.PreFilterResult{NodeNames: make(map[string]bool, len(nodeNames))}
		for n := range nodeNames {
			res.NodeNames[n] = true
		}
		return res, nil
	}
	return nil, nil
}

// Filter rejects a node failing args.addedAffinity or the pod's
// nodeSelector/required affinity (UnschedulableAndUnresolvable).
func (pl *NodeAffinity) Filter(_ context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	node := nodeInfo.Node()
	if pl.addedNodeSelector != nil && !pl.addedNodeSelector.Match(node) {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonEnforced)
	}
	s, ok := state.Read(preFilterStateKey).(*preFilterState)
	if !ok {
		// Like kube, tolerate a missing PreFilter (e.g. a skipped one).
		s = &preFilterState{required: nodeaffinity.GetRequiredNodeAffinity(pod)}
	}
	if match, _ := s.required.Match(node); !match {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonPod)
	}
	return nil
}

type preScoreState struct {
	preferred *nodeaffinity.PreferredSchedulingTerms
}

// PreScore parses the preferred terms; Skip when neither the pod nor
// args.addedAffinity has any.
func (pl *NodeAffinity) PreScore(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) *framework.Status {
	preferred, err := podPreferredNodeAffinity(pod)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("nodeaffinity: %w", err))
	}
	if preferred == nil && pl.addedPrefSchedTerms == nil {
		return framework.NewStatus(framework.Skip)
	}
	state.Write(preScoreStateKey, &preScoreState{preferred: preferred})
	return nil
}

// Score sums the weights of the matching preferred terms (the pod's and
// args.addedAffinity's).
func (pl *NodeAffinity) Score(_ context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	node := nodeInfo.Node()
	var count int64
	if pl.addedPrefSchedTerms != nil {
		count += pl.addedPrefSchedTerms.Score(node)
	}
	s, ok := state.Read(preScoreStateKey).(*preScoreState)
	if !ok {
		preferred, err := podPreferredNodeAffinity(pod)
		if err != nil {
			return 0, framework.AsStatus(fmt.Errorf("nodeaffinity: %w", err))
		}
		s = &preScoreState{preferred: preferred}
	}
	if s.preferred != nil {
		count += s.preferred.Score(node)
	}
	return count, nil
}

// NormalizeScore scales the sums so that the best node gets 100.
func (*NodeAffinity) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *v1.Pod, scores []framework.NodeScore) *framework.Status {
	return helper.DefaultNormalizeScore(framework.MaxNodeScore, false, scores)
}

func podPreferredNodeAffinity(pod *v1.Pod) (*nodeaffinity.PreferredSchedulingTerms, error) {
	a := pod.Spec.Affinity
	if a != nil && a.NodeAffinity != nil && a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution != nil {
		return nodeaffinity.NewPreferredSchedulingTerms(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	return nil, nil
}

// NodeLabelKeys implements framework.LabelReader: the keys of the pod's
// nodeSelector, of its required and preferred node affinity terms and of
// args.addedAffinity. A term on node fields (metadata.name) reads the
// node's name, so every node must then be evaluated on its own.
func (pl *NodeAffinity) NodeLabelKeys(_ *framework.CycleState, pod *v1.Pod) ([]string, bool) {
	if pl.addedByName {
		return nil, false
	}
	keys := append([]string(nil), pl.addedKeys...)
	for k := range pod.Spec.NodeSelector {
		keys = append(keys, k)
	}
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil {
		return keys, true
	}
	var byName bool
	if req := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution; req != nil {
		if keys, byName = termKeys(keys, req.NodeSelectorTerms...); byName {
			return nil, false
		}
	}
	for _, t := range a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
		if keys, byName = termKeys(keys, t.Preference); byName {
			return nil, false
		}
	}
	return keys, true
}

// termKeys appends the label keys the terms' match expressions read, and
// reports whether any term also matches node fields.
func termKeys(keys []string, terms ...v1.NodeSelectorTerm) ([]string, bool) {
	byName := false
	for _, t := range terms {
		for _, r := range t.MatchExpressions {
			keys = append(keys, r.Key)
		}
		if len(t.MatchFields) > 0 {
			byName = true
		}
	}
	return keys, byName
}
