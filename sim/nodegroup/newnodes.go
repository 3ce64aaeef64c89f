package nodegroup

import (
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
)

// Added are the objects AddNodes put into a snapshot, each list in the
// order it was appended.
type Added struct {
	Nodes  []*v1.Node
	Slices []*resourceapi.ResourceSlice
	Pods   []*v1.Pod
}

// AddNodes makes n new nodes of the group as a scale-up would (names
// <group>-template-<i>, reserved; slices renamed; daemon pods pinned to
// their node) and appends them,
// their ResourceSlices and their daemon pods to the snapshot: the steps
// every user that grows a snapshot takes (what-if edits, a group's size
// as a sweep axis). With running, the daemon pods start bound to their
// node and Running, as on a node that is up; without, they are pending,
// pinned to it. Where the objects come from (snapshot.Sources) is the
// caller's to record.
func (g *Group) AddNodes(s *snapshot.Snapshot, n int, running bool) Added {
	var out Added
	names := g.NextNames(n)
	g.Reserve(names)
	for _, name := range names {
		node, slices, pods := g.NewNode(name)
		if running {
			for _, p := range pods {
				p.Spec.NodeName = name
				p.Status.Phase = v1.PodRunning
			}
		}
		out.Nodes = append(out.Nodes, node)
		out.Slices = append(out.Slices, slices...)
		out.Pods = append(out.Pods, pods...)
	}
	s.Nodes = append(s.Nodes, out.Nodes...)
	s.ResourceSlices = append(s.ResourceSlices, out.Slices...)
	s.Pods = append(s.Pods, out.Pods...)
	return out
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
