package noderesources

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/plugins/config"
)

// BalancedAllocationName is the plugin name in kube-scheduler profiles.
const BalancedAllocationName = "NodeResourcesBalancedAllocation"

const balancedAllocationPreScoreStateKey = "PreScore" + BalancedAllocationName

// BalancedAllocation is the NodeResourcesBalancedAllocation plugin.
type BalancedAllocation struct {
	scorer *resourceAllocationScorer
}

var (
	_ framework.PreScorePlugin = (*BalancedAllocation)(nil)
	_ framework.ScorePlugin    = (*BalancedAllocation)(nil)
	_ framework.PodForgetter   = (*BalancedAllocation)(nil)
)

// ForgetPod drops the pod's requests.
func (ba *BalancedAllocation) ForgetPod(pod *v1.Pod) { ba.scorer.requests.Forget(pod) }

// NewBalancedAllocation returns the plugin for args (defaulted, then
// validated). dra may be nil; so may requests (the pods' requests are
// then added up here alone).
func NewBalancedAllocation(args config.NodeResourcesBalancedAllocationArgs, dra DRAExtendedResources, requests *framework.PodRequestCache) (*BalancedAllocation, error) {
	args = config.DefaultNodeResourcesBalancedAllocationArgs(args)
	if err := config.ValidateNodeResourcesBalancedAllocationArgs(args); err != nil {
		return nil, fmt.Errorf("noderesources: NodeResourcesBalancedAllocationArgs: %w", err)
	}
	kind := balancedAllocation
	if args.WithPodOnly {
		kind = balancedWithPodOnly
	}
	return &BalancedAllocation{scorer: newResourceAllocationScorer(kind, args.Resources, nil, true, dra, requests)}, nil
}

// Name returns BalancedAllocationName.
func (*BalancedAllocation) Name() string { return BalancedAllocationName }

// PreScore computes the pod's requests; a pod requesting none of the
// scoring resources (BestEffort for cpu/memory) is Skip.
func (ba *BalancedAllocation) PreScore(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) *framework.Status {
	reqs := ba.scorer.podRequests(pod)
	if isBestEffort(reqs) {
		return framework.NewStatus(framework.Skip)
	}
	state.Write(balancedAllocationPreScoreStateKey, &fitPreScoreState{podRequests: reqs, draBacked: ba.scorer.anyDRABacked()})
	return nil
}

// Score rates how evenly the node's resources would be used with the pod.
func (ba *BalancedAllocation) Score(_ context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	s, ok := state.Read(balancedAllocationPreScoreStateKey).(*fitPreScoreState)
	if !ok {
		s = &fitPreScoreState{podRequests: ba.scorer.podRequests(pod)}
		if isBestEffort(s.podRequests) {
			return 0, nil
		}
		s.draBacked = ba.scorer.anyDRABacked()
	}
	return ba.scorer.score(nodeInfo, s.podRequests, s.draBacked)
}

func isBestEffort(podRequests []int64) bool {
	for _, r := range podRequests {
		if r != 0 {
			return false
		}
	}
	return true
}

// NodeLabelKeys implements framework.LabelReader, as Fit's.
func (ba *BalancedAllocation) NodeLabelKeys(*framework.CycleState, *v1.Pod) ([]string, bool) {
	return nil, !ba.scorer.anyDRABacked()
}
