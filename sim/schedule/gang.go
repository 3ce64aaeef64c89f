package schedule

import (
	"context"

	v1 "k8s.io/api/core/v1"
)

// Assume reserves the pod on the node its attempt chose and places it
// there, as SchedulePod does after a successful cycle: in a pod group
// cycle each pod is assumed before the next is tried, and Forget takes
// them back when the gang does not fit.
func (s *Scheduler) Assume(ctx context.Context, pod *v1.Pod, a *Attempt) error {
	return s.reserveAndBind(ctx, pod, a, a.Node)
}

// Forget undoes Assume (kube's unreserveAndForget in a pod group cycle):
// the Reserve plugins unreserve, in reverse order, the pod leaves its
// node, and gets back the nomination it had.
func (s *Scheduler) Forget(ctx context.Context, pod *v1.Pod, a *Attempt, nominated string) {
	node := pod.Spec.NodeName
	s.profile.RunUnreserve(ctx, a.State, pod, node)
	if ni := s.c.Node(node); ni != nil {
		_ = ni.RemovePod(pod)
	}
	pod.Spec.NodeName = ""
	pod.Status.NominatedNodeName = nominated
}
