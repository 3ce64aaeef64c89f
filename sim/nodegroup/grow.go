package nodegroup

import (
	"fmt"

	"github.com/drasim/drasim/sim/snapshot"
)

// Grow returns a copy of the snapshot in which the NodeGroup named group
// has size nodes: the missing ones are made from its template as a
// scale-up makes them (names, ResourceSlices, and daemon pods bound to
// them), before any replay. It never removes nodes: a size below the
// group's current size is an error, as is a group without a nodeSelector
// (its nodes could not be told from the others). A size above the group's
// maxSize raises maxSize to it. The snapshot is not changed.
func Grow(snap *snapshot.Snapshot, group string, size int) (*snapshot.Snapshot, error) {
	work := snap.Copy()
	idx := -1
	for i, ng := range work.NodeGroups {
		if ng.Name == group {
			idx = i
		}
	}
	if idx < 0 {
		return nil, fmt.Errorf("no NodeGroup %q in the snapshot", group)
	}
	ng := work.NodeGroups[idx]
	if ng.Spec.NodeSelector == nil || (len(ng.Spec.NodeSelector.MatchLabels) == 0 && len(ng.Spec.NodeSelector.MatchExpressions) == 0) {
		return nil, fmt.Errorf("NodeGroup %q has no spec.nodeSelector: its size cannot be set, because its nodes cannot be told from the others", group)
	}
	if size < 0 {
		return nil, fmt.Errorf("NodeGroup %q: size must not be negative, got %d", group, size)
	}
	if int32(size) > ng.Spec.MaxSize {
		raised := ng.DeepCopy()
		raised.Spec.MaxSize = int32(size)
		work.NodeGroups[idx] = raised
	}
	g, err := ResolveGroup(work, work.NodeGroups[idx])
	if err != nil {
		return nil, err
	}
	if size < g.Size() {
		return nil, fmt.Errorf("NodeGroup %q already has %d node(s): drasim adds nodes to reach a size, it does not remove them (asked for %d)", group, g.Size(), size)
	}
	src := work.Sources[snapshot.Ref{Kind: "NodeGroup", Name: group}]
	// A new node starts with its daemon pods running, as the autoscaler's
	// template node info has them.
	added := g.AddNodes(work, size-g.Size(), true)
	for _, n := range added.Nodes {
		work.Sources[snapshot.Ref{Kind: "Node", Name: n.Name}] = src
	}
	for _, sl := range added.Slices {
		work.Sources[snapshot.Ref{Kind: "ResourceSlice", Name: sl.Name}] = src
	}
	for _, p := range added.Pods {
		ref := snapshot.Ref{Kind: "Pod", Namespace: p.Namespace, Name: p.Name}
		work.Sources[ref] = src
		work.Generated[ref] = true
	}
	return work, nil
}
