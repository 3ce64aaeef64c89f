package whatif

import (
	"fmt"
	"strings"

	"github.com/drasim/drasim/sim/nodegroup"
	"github.com/drasim/drasim/sim/snapshot"
)

// addNodes adds nodes from a NodeGroup's template, or copies of a node,
// the way cluster-autoscaler builds new nodes: sanitized, with their own
// ResourceSlices and the DaemonSet pods that would run on them.
func (e *editor) addNodes(ed *Edit) error {
	a := ed.AddNodes
	var group *nodegroup.Group
	if a.NodeGroup != "" {
		var ng *snapshot.NodeGroup
		var names []string
		for _, g := range e.s.NodeGroups {
			names = append(names, g.Name)
			if g.Name == a.NodeGroup {
				ng = g
			}
		}
		if ng == nil {
			known := "the snapshot has none"
			if len(names) > 0 {
				known = "groups: " + strings.Join(names, ", ")
			}
			return ed.errorf("nodeGroup", "no NodeGroup %q in the snapshot (%s)", a.NodeGroup, known)
		}
		g, err := nodegroup.ResolveGroup(e.s, ng)
		if err != nil {
			return ed.errorf("nodeGroup", "NodeGroup %q: %v", a.NodeGroup, err)
		}
		group = g
		e.out.Description = fmt.Sprintf("add %d node(s) of NodeGroup %s", a.Count, a.NodeGroup)
		if size := len(g.Nodes) + a.Count; size > g.MaxSize {
			e.warnf("NodeGroup %s would have %d node(s), more than its maxSize %d", a.NodeGroup, size, g.MaxSize)
		}
	} else {
		found := false
		for _, n := range e.s.Nodes {
			found = found || n.Name == a.FromNode
		}
		if !found {
			return ed.errorf("fromNode", "node %q is not in the snapshot", a.FromNode)
		}
		ng := &snapshot.NodeGroup{Spec: snapshot.NodeGroupSpec{MaxSize: int32(a.Count), TemplateFrom: a.FromNode}}
		ng.Name = a.FromNode
		g, err := nodegroup.ResolveGroup(e.s, ng)
		if err != nil {
			return ed.errorf("fromNode", "copying node %q: %v", a.FromNode, err)
		}
		group = g
		e.out.Description = fmt.Sprintf("add %d copy(ies) of node %s", a.Count, a.FromNode)
	}
	added := group.AddNodes(e.s, a.Count, false)
	for _, n := range added.Nodes {
		e.owned[n] = true
		e.addSource(snapshot.Ref{Kind: "Node", Name: n.Name}, false)
		e.out.Nodes = append(e.out.Nodes, n.Name)
	}
	for _, sl := range added.Slices {
		e.owned[sl] = true
		e.addSource(snapshot.Ref{Kind: "ResourceSlice", Name: sl.Name}, false)
		e.out.Devices += len(sl.Spec.Devices)
	}
	for _, p := range added.Pods {
		e.owned[p] = true
		e.addSource(snapshot.Ref{Kind: "Pod", Namespace: p.Namespace, Name: p.Name}, true)
		e.out.Added = append(e.out.Added, movedPod(p))
	}
	return nil
}
