package nodename

import "github.com/drasim/drasim/sim/framework"

var _ framework.EnqueueExtensions = (*NodeName)(nil)

// EventsToRegister implements framework.EnqueueExtensions: only a new node
// can be the one the pod names.
func (*NodeName) EventsToRegister() []framework.ClusterEventWithHint {
	return []framework.ClusterEventWithHint{{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add}}}
}
