package podtopologyspread

import (
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/plugins/config"
	"github.com/drasim/drasim/sim/schedule/plugins/internal/helper"
)

// Name is the plugin name in kube-scheduler profiles.
const Name = "PodTopologySpread"

// Kube's Filter reasons.
const (
	ErrReasonConstraintsNotMatch = "node(s) didn't match pod topology spread constraints"
	ErrReasonNodeLabelNotMatch   = ErrReasonConstraintsNotMatch + " (missing required label)"
)

// systemDefaultConstraints are kube's built-in soft constraints.
func systemDefaultConstraints() []v1.TopologySpreadConstraint {
	return []v1.TopologySpreadConstraint{
		{TopologyKey: v1.LabelHostname, WhenUnsatisfiable: v1.ScheduleAnyway, MaxSkew: 3},
		{TopologyKey: v1.LabelTopologyZone, WhenUnsatisfiable: v1.ScheduleAnyway, MaxSkew: 5},
	}
}

// PodTopologySpread is the plugin.
type PodTopologySpread struct {
	systemDefaulted    bool
	defaultConstraints []v1.TopologySpreadConstraint
	nodes              framework.NodeLister
	workloads          WorkloadLister
}

var (
	_ framework.PreFilterPlugin = (*PodTopologySpread)(nil)
	_ framework.FilterPlugin    = (*PodTopologySpread)(nil)
	_ framework.PreScorePlugin  = (*PodTopologySpread)(nil)
	_ framework.ScorePlugin     = (*PodTopologySpread)(nil)
	_ framework.ScoreNormalizer = (*PodTopologySpread)(nil)
)

// New returns the plugin for args (defaulted, then validated). nodes gives
// PreScore the whole cluster; workloads (may be nil) feeds default
// constraints' selectors.
func New(args config.PodTopologySpreadArgs, nodes framework.NodeLister, workloads WorkloadLister) (*PodTopologySpread, error) {
	if nodes == nil {
		return nil, errors.New("podtopologyspread: nil NodeLister")
	}
	args = config.DefaultPodTopologySpreadArgs(args)
	if err := config.ValidatePodTopologySpreadArgs(args); err != nil {
		return nil, fmt.Errorf("podtopologyspread: PodTopologySpreadArgs: %w", err)
	}
	pl := &PodTopologySpread{defaultConstraints: args.DefaultConstraints, nodes: nodes, workloads: workloads}
	if args.DefaultingType == config.SystemDefaulting {
		pl.defaultConstraints = systemDefaultConstraints()
		pl.systemDefaulted = true
	}
	return pl, nil
}

// Name returns Name.
func (*PodTopologySpread) Name() string { return Name }

// topologySpreadConstraint is a constraint with its selector parsed and its
// optional fields resolved to v1.37 defaults.
type topologySpreadConstraint struct {
	MaxSkew            int32
	TopologyKey        string
	Selector           labels.Selector
	MinDomains         int32
	NodeAffinityPolicy v1.NodeInclusionPolicy
	NodeTaintsPolicy   v1.NodeInclusionPolicy
}

// matchNodeInclusionPolicies reports whether the node's pods count towards
// the constraint: with Honor, only nodes passing the pod's node
// affinity/selector (resp. tolerating all NoSchedule/NoExecute taints).
func (c *topologySpreadConstraint) matchNodeInclusionPolicies(pod *v1.Pod, node *v1.Node, require nodeaffinity.RequiredNodeAffinity) bool {
	if c.NodeAffinityPolicy == v1.NodeInclusionPolicyHonor {
		if match, _ := require.Match(node); !match {
			return false
		}
	}
	if c.NodeTaintsPolicy == v1.NodeInclusionPolicyHonor {
		if _, untolerated := helper.FindUntoleratedNoScheduleTaint(node.Spec.Taints, pod.Spec.Tolerations); untolerated {
			return false
		}
	}
	return true
}

// constraints returns the pod's constraints with the given action, or the
// default ones when the pod has none.
func (pl *PodTopologySpread) constraints(pod *v1.Pod, action v1.UnsatisfiableConstraintAction) ([]topologySpreadConstraint, error) {
	if len(pod.Spec.TopologySpreadConstraints) > 0 {
		return filterTopologySpreadConstraints(pod.Spec.TopologySpreadConstraints, pod.Labels, action)
	}
	cs, err := filterTopologySpreadConstraints(pl.defaultConstraints, pod.Labels, action)
	if err != nil || len(cs) == 0 {
		return nil, err
	}
	selector := DefaultSelector(pod, pl.workloads)
	if selector.Empty() {
		return nil, nil
	}
	for i := range cs {
		cs[i].Selector = selector
	}
	return cs, nil
}

func filterTopologySpreadConstraints(constraints []v1.TopologySpreadConstraint, podLabels map[string]string, action v1.UnsatisfiableConstraintAction) ([]topologySpreadConstraint, error) {
	var out []topologySpreadConstraint
	for _, c := range constraints {
		if c.WhenUnsatisfiable != action {
			continue
		}
		selector, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
		if err != nil {
			return nil, err
		}
		// matchLabelKeys (MatchLabelKeysInPodTopologySpread, beta-on): the
		// pod's values for those keys join the selector.
		if len(c.MatchLabelKeys) > 0 {
			matchLabels := make(labels.Set)
			for _, k := range c.MatchLabelKeys {
				if v, ok := podLabels[k]; ok {
					matchLabels[k] = v
				}
			}
			if len(matchLabels) > 0 {
				selector = mergeLabelSetWithSelector(matchLabels, selector)
			}
		}
		tsc := topologySpreadConstraint{
			MaxSkew:            c.MaxSkew,
			TopologyKey:        c.TopologyKey,
			Selector:           selector,
			MinDomains:         1,
			NodeAffinityPolicy: v1.NodeInclusionPolicyHonor,
			NodeTaintsPolicy:   v1.NodeInclusionPolicyIgnore,
		}
		if c.MinDomains != nil {
			tsc.MinDomains = *c.MinDomains
		}
		if c.NodeAffinityPolicy != nil {
			tsc.NodeAffinityPolicy = *c.NodeAffinityPolicy
		}
		if c.NodeTaintsPolicy != nil {
			tsc.NodeTaintsPolicy = *c.NodeTaintsPolicy
		}
		out = append(out, tsc)
	}
	return out, nil
}

func mergeLabelSetWithSelector(matchLabels labels.Set, s labels.Selector) labels.Selector {
	merged := labels.SelectorFromSet(matchLabels)
	reqs, ok := s.Requirements()
	if !ok {
		return s
	}
	for _, r := range reqs {
		merged = merged.Add(r)
	}
	return merged
}

func nodeLabelsMatchSpreadConstraints(nodeLabels map[string]string, constraints []topologySpreadConstraint) bool {
	for _, c := range constraints {
		if _, ok := nodeLabels[c.TopologyKey]; !ok {
			return false
		}
	}
	return true
}

// countPodsMatchSelector counts live pods of namespace ns matching selector;
// an empty selector counts nothing.
func countPodsMatchSelector(pods []*framework.PodInfo, selector labels.Selector, ns string) int {
	if selector.Empty() {
		return 0
	}
	n := 0
	for _, p := range pods {
		if p.Pod.DeletionTimestamp != nil || p.Pod.Namespace != ns {
			continue
		}
		if selector.Matches(labels.Set(p.Pod.Labels)) {
			n++
		}
	}
	return n
}
