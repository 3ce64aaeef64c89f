package queue

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Nomination says what a scheduling attempt decided about a pod's
// nominated node (kube's NominatingInfo): Override sets it (an empty node
// clears it), a nil Nomination keeps what the pod's status says.
type Nomination struct {
	Override bool
	Node     string
}

// nominator remembers the pods nominated to each node: pods that
// preempted others there and wait for the room to be free. Filters count
// the nominated pods of equal or higher priority as if they ran.
type nominator struct {
	byNode map[string][]*v1.Pod
	node   map[types.UID]string
	// changes counts the nominations made and forgotten.
	changes uint64
}

func newNominator() nominator {
	return nominator{byNode: map[string][]*v1.Pod{}, node: map[types.UID]string{}}
}

// AddNominated records the pod's nomination: n's node with Override,
// otherwise the pod's status.nominatedNodeName. A bound pod is never
// nominated.
func (n *nominator) AddNominated(pod *v1.Pod, nom *Nomination) {
	n.DeleteNominated(pod)
	node := pod.Status.NominatedNodeName
	if nom != nil && nom.Override {
		node = nom.Node
	}
	if node == "" || pod.Spec.NodeName != "" {
		return
	}
	n.changes++
	n.node[pod.UID] = node
	n.byNode[node] = append(n.byNode[node], pod)
}

// DeleteNominated forgets the pod's nomination.
func (n *nominator) DeleteNominated(pod *v1.Pod) {
	node, ok := n.node[pod.UID]
	if !ok {
		return
	}
	n.changes++
	list := n.byNode[node]
	if i := slices.IndexFunc(list, func(p *v1.Pod) bool { return p.UID == pod.UID }); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	if len(list) == 0 {
		delete(n.byNode, node)
	} else {
		n.byNode[node] = list
	}
	delete(n.node, pod.UID)
}

// NominationChanges counts the nominations made and forgotten so far:
// two equal counts mean the same nominations (the scheduler's memo of
// failed cycles relies on it). Clearing a nomination the pod does not
// have changes nothing and counts nothing.
func (n *nominator) NominationChanges() uint64 { return n.changes }

// NominatedPodsForNode returns the pods nominated to the node, in the
// order they were nominated.
func (n *nominator) NominatedPodsForNode(node string) []*v1.Pod {
	return slices.Clone(n.byNode[node])
}

// NominatedNode returns the node the pod is nominated to, or "".
func (n *nominator) NominatedNode(pod *v1.Pod) string { return n.node[pod.UID] }

// HasNominations reports whether any pod is nominated.
func (n *nominator) HasNominations() bool { return len(n.node) > 0 }

// NominatedNodes lists the nodes with nominated pods, sorted.
func (n *nominator) NominatedNodes() []string {
	out := make([]string, 0, len(n.byNode))
	for node := range n.byNode {
		out = append(out, node)
	}
	slices.Sort(out)
	return out
}
