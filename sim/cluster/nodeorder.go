package cluster

import (
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// NodeOrder says in which order kube-scheduler's informer met the nodes.
// The scheduler's node tree keeps each zone's nodes in that order and
// lists the zones round-robin; the filter walk, its rotating start and
// the heap that breaks ties among equal scores all follow the list. A
// scheduler that starts lists every existing node by name (the API
// server lists by key); a scheduler that runs while nodes join meets
// them as they are created.
type NodeOrder string

const (
	// NodeOrderName is a scheduler started after every node joined:
	// nodes by name. It is the default.
	NodeOrderName NodeOrder = "name"
	// NodeOrderCreation is a scheduler that ran while the nodes joined:
	// nodes by creationTimestamp, nodes created in the same second in
	// file order.
	NodeOrderCreation NodeOrder = "creation"
	// NodeOrderFile is the order of the input files (the oracle creates
	// nodes in file order while its scheduler runs).
	NodeOrderFile NodeOrder = "file"
)

// NodeOrders lists the accepted orders, for help texts and errors.
var NodeOrders = []NodeOrder{NodeOrderName, NodeOrderCreation, NodeOrderFile}

// ParseNodeOrder reads a --node-order value; empty is NodeOrderName.
func ParseNodeOrder(s string) (NodeOrder, error) {
	if s == "" {
		return NodeOrderName, nil
	}
	if slices.Contains(NodeOrders, NodeOrder(s)) {
		return NodeOrder(s), nil
	}
	names := make([]string, len(NodeOrders))
	for i, o := range NodeOrders {
		names[i] = string(o)
	}
	return "", fmt.Errorf("unknown node order %q: use %s", s, strings.Join(names, ", "))
}

// NodeOrder returns the order the cluster lists its nodes in.
func (c *Cluster) NodeOrder() NodeOrder {
	if c.nodeOrder == "" {
		return NodeOrderName
	}
	return c.nodeOrder
}

// joinOrder numbers the nodes in the order the informer met them, for
// the orders other than NodeOrderName: the snapshot's nodes as the order
// says, then every node added later (a scale-up's) after all of them.
type joinOrder struct {
	seq  map[string]int
	next int
}

// startJoins numbers the snapshot's nodes.
func (c *Cluster) startJoins(nodes []*v1.Node) {
	if c.NodeOrder() == NodeOrderName {
		return
	}
	ordered := slices.Clone(nodes)
	if c.nodeOrder == NodeOrderCreation {
		slices.SortStableFunc(ordered, func(a, b *v1.Node) int {
			return a.CreationTimestamp.Time.Compare(b.CreationTimestamp.Time)
		})
	}
	c.joins = joinOrder{seq: make(map[string]int, len(nodes))}
	for _, n := range ordered {
		c.joined(n.Name)
	}
}

// joined numbers a node that joins now, once.
func (c *Cluster) joined(name string) {
	if c.joins.seq == nil {
		return
	}
	if _, ok := c.joins.seq[name]; !ok {
		c.joins.seq[name] = c.joins.next
		c.joins.next++
	}
}

// copy gives a clone its own numbering.
func (j joinOrder) copy() joinOrder {
	if j.seq == nil {
		return j
	}
	seq := make(map[string]int, len(j.seq))
	for k, v := range j.seq {
		seq[k] = v
	}
	return joinOrder{seq: seq, next: j.next}
}

// orderNodes returns the nodes in the order kube-scheduler's snapshot lists
// them: the node tree takes nodes as the informer met them (by name for a
// scheduler that starts now, see NodeOrder) and interleaves zones
// round-robin, zones in order of first appearance.
func (c *Cluster) orderNodes(nodes []*v1.Node) []*v1.Node {
	sorted := slices.Clone(nodes)
	if c.joins.seq == nil {
		slices.SortStableFunc(sorted, func(a, b *v1.Node) int { return strings.Compare(a.Name, b.Name) })
	} else {
		seq := c.joins.seq
		slices.SortStableFunc(sorted, func(a, b *v1.Node) int { return seq[a.Name] - seq[b.Name] })
	}
	var zones []string
	byZone := map[string][]*v1.Node{}
	for _, n := range sorted {
		z := zoneKey(n)
		if _, ok := byZone[z]; !ok {
			zones = append(zones, z)
		}
		byZone[z] = append(byZone[z], n)
	}
	out := make([]*v1.Node, 0, len(nodes))
	for len(out) < len(sorted) {
		for _, z := range zones {
			if list := byZone[z]; len(list) > 0 {
				out = append(out, list[0])
				byZone[z] = list[1:]
			}
		}
	}
	return out
}
