package autoscale

import (
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
)

// NewNodes makes n new nodes of the group as a scale-up would (names
// <group>-template-<i>, slices renamed, daemon pods pinned to their node)
// and reserves their names.
func (g *Group) NewNodes(n int) ([]*v1.Node, []*resourceapi.ResourceSlice, []*v1.Pod) {
	names := g.nextNames(n)
	g.reserve(names)
	var nodes []*v1.Node
	var slices []*resourceapi.ResourceSlice
	var pods []*v1.Pod
	for _, name := range names {
		node, sl, ps := g.newNode(name)
		nodes = append(nodes, node)
		slices = append(slices, sl...)
		pods = append(pods, ps...)
	}
	return nodes, slices, pods
}

// ResolveGroup resolves one NodeGroup against the snapshot as Resolve
// does, without the snapshot's other groups (e.g. a group whose template
// is a copy of one node).
func ResolveGroup(snap *snapshot.Snapshot, ng *snapshot.NodeGroup) (*Group, error) {
	cp := *snap
	cp.NodeGroups = []*snapshot.NodeGroup{ng}
	groups, _, err := Resolve(&cp)
	if err != nil {
		return nil, err
	}
	return groups[0], nil
}
