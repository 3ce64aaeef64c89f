package schedule

import (
	"context"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"

	"github.com/drasim/drasim/sim/framework"
)

// Nominator knows which pending pods are nominated to which node: pods
// that preempted others there and wait for the room (the queue's
// nominator implements it).
type Nominator interface {
	// NominatedNodes lists the nodes with nominated pods, sorted.
	NominatedNodes() []string
	// NominatedPodsForNode lists the pods nominated to a node.
	NominatedPodsForNode(node string) []*v1.Pod
}

// SetInFlight names the pods of the pod group cycle under way (nil when
// none): kube's queue does not hold them while their cycle runs, and
// other pods' filters see their nominations without their requests.
func (s *Scheduler) SetInFlight(pods []*v1.Pod) {
	s.inFlight = nil
	for _, p := range pods {
		if s.inFlight == nil {
			s.inFlight = map[*v1.Pod]bool{}
		}
		s.inFlight[p] = true
	}
}

// prepareNominated collects, for the cycle of pod, the nominated pods of
// equal or higher priority on each node: filters treat them as running,
// since pod must not take the room a preemption freed for them.
func (s *Scheduler) prepareNominated(pod *v1.Pod) {
	s.cycleNominated = nil
	if s.opts.Nominator == nil {
		return
	}
	prio := corev1helpers.PodPriority(pod)
	for _, node := range s.opts.Nominator.NominatedNodes() {
		for _, p := range s.opts.Nominator.NominatedPodsForNode(node) {
			if s.inFlight[p] {
				// kube's queue hands out a nominated pod it does not
				// hold (popped with its gang) as a bare object: name and
				// pod group only, so priority 0 and no requests.
				p = &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, UID: p.UID},
					Spec: v1.PodSpec{SchedulingGroup: p.Spec.SchedulingGroup}}
			}
			if p.UID == pod.UID || corev1helpers.PodPriority(p) < prio {
				continue
			}
			if s.cycleNominated == nil {
				s.cycleNominated = map[string][]*framework.PodInfo{}
			}
			s.cycleNominated[node] = append(s.cycleNominated[node], framework.NewPodInfo(p))
		}
	}
}

// filterNode runs the filters on one node, with the nominated pods the
// cycle counts there (framework.RunFilterWithNominated).
func (s *Scheduler) filterNode(ctx context.Context, state *framework.CycleState, pod *v1.Pod, ni *framework.NodeInfo) *framework.Status {
	if len(s.cycleNominated) == 0 {
		// Most cycles: no node's name to read (a cache miss per node).
		return s.profile.RunFilter(ctx, state, pod, ni)
	}
	return s.profile.RunFilterWithNominated(ctx, state, pod, ni, s.cycleNominated[ni.Node().Name])
}

// tryNominatedNode schedules the pod on its nominated node when that node
// passes the filters (kube's evaluateNominatedNode): no other node is
// looked at and nothing is scored.
func (s *Scheduler) tryNominatedNode(ctx context.Context, a *Attempt, pod *v1.Pod) bool {
	name := pod.Status.NominatedNodeName
	if name == "" {
		return false
	}
	ni := s.c.Node(name)
	if ni == nil {
		return false
	}
	if st := s.filterNode(ctx, a.State, pod, ni); !st.IsSuccess() {
		return false
	}
	a.Node, a.Chosen, a.OnNominatedNode = name, &NodeResult{Node: name}, true
	a.FeasibleNodes, a.EvaluatedNodes = 1, 1
	if s.opts.KeepNodeStatuses {
		a.Nodes = append(a.Nodes, *a.Chosen)
	}
	return true
}
