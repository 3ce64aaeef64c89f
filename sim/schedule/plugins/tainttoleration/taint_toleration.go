package tainttoleration

import (
	"context"
	"errors"

	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/plugins/internal/helper"
)

// Name is the plugin name in kube-scheduler profiles.
const Name = "TaintToleration"

// ErrReasonUntolerated is kube v1.37's Filter reason. (Upstream also keeps
// ErrReasonNotMatch, "node(s) had taints that the pod didn't tolerate", for
// other callers; Filter does not use it.)
const ErrReasonUntolerated = "node(s) had untolerated taint(s)"

const preScoreStateKey = "PreScore" + Name

// TaintToleration is the plugin; it has no state.
type TaintToleration struct{}

var (
	_ framework.FilterPlugin    = (*TaintToleration)(nil)
	_ framework.PreScorePlugin  = (*TaintToleration)(nil)
	_ framework.ScorePlugin     = (*TaintToleration)(nil)
	_ framework.ScoreNormalizer = (*TaintToleration)(nil)
)

// New returns the plugin.
func New() *TaintToleration { return &TaintToleration{} }

// Name returns Name.
func (*TaintToleration) Name() string { return Name }

// Filter rejects a node with a NoSchedule or NoExecute taint the pod does
// not tolerate (UnschedulableAndUnresolvable).
func (*TaintToleration) Filter(_ context.Context, _ *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	if _, untolerated := helper.FindUntoleratedNoScheduleTaint(nodeInfo.Node().Spec.Taints, pod.Spec.Tolerations); untolerated {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonUntolerated)
	}
	return nil
}

type preScoreState struct {
	tolerationsPreferNoSchedule []v1.Toleration
}

// PreScore keeps the tolerations that can match PreferNoSchedule taints
// (effect empty or PreferNoSchedule).
func (*TaintToleration) PreScore(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) *framework.Status {
	var tols []v1.Toleration
	for _, t := range pod.Spec.Tolerations {
		if t.Effect == "" || t.Effect == v1.TaintEffectPreferNoSchedule {
			tols = append(tols, t)
		}
	}
	state.Write(preScoreStateKey, &preScoreState{tolerationsPreferNoSchedule: tols})
	return nil
}

// Score counts the node's PreferNoSchedule taints the pod does not
// tolerate; NormalizeScore turns fewer into better.
func (*TaintToleration) Score(_ context.Context, state *framework.CycleState, _ *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	s, ok := state.Read(preScoreStateKey).(*preScoreState)
	if !ok {
		return 0, framework.AsStatus(errors.New("tainttoleration: no PreScore state"))
	}
	var n int64
	taints := nodeInfo.Node().Spec.Taints
	for i := range taints {
		if taints[i].Effect == v1.TaintEffectPreferNoSchedule && !helper.ToleratesTaint(s.tolerationsPreferNoSchedule, &taints[i]) {
			n++
		}
	}
	return n, nil
}

// NormalizeScore maps the counts to [0, 100] reversed: the node with the
// most untolerated PreferNoSchedule taints gets 0, nodes with none 100.
func (*TaintToleration) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *v1.Pod, scores []framework.NodeScore) *framework.Status {
	return helper.DefaultNormalizeScore(framework.MaxNodeScore, true, scores)
}

// NodeLabelKeys implements framework.LabelReader: the plugin reads only the
// node's taints.
func (*TaintToleration) NodeLabelKeys(*framework.CycleState, *v1.Pod) ([]string, bool) {
	return nil, true
}
