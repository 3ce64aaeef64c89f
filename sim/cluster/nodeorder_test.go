package cluster_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/drasim/drasim/internal/build"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/feature"
)

// A fleet whose creation order is neither its name order nor its file
// order: node-10 is older than node-9, and the file lists them shuffled.
func orderFleet(t *testing.T) *build.Cluster {
	t.Helper()
	b := build.NewCluster()
	for _, n := range []struct {
		name, zone string
		created    int
	}{
		{"node-9", "za", 30}, {"node-10", "zb", 10}, {"node-2", "za", 20}, {"node-1", "zb", 20}, {"node-11", "za", 5},
	} {
		b.Node(n.name, 4, 0)
		s := b.Snapshot()
		node := s.Nodes[len(s.Nodes)-1]
		inZone(n.zone)(node)
		node.CreationTimestamp = metav1.NewTime(time.Unix(int64(1_700_000_000+n.created), 0))
	}
	return b
}

// Each order lists the nodes as kube's node tree would after meeting them
// in that order: zones interleaved round-robin in the order their first
// node came.
func TestNodeOrders(t *testing.T) {
	for _, tc := range []struct {
		order cluster.NodeOrder
		want  []string
	}{
		// by name: node-1 (zb), node-10 (zb), node-11 (za), node-2 (za), node-9 (za)
		{cluster.NodeOrderName, []string{"node-1", "node-11", "node-10", "node-2", "node-9"}},
		// by creation: node-11 (5, za), node-10 (10, zb), node-2 (20, za; before node-1 in the file), node-1 (20, zb), node-9 (30, za)
		{cluster.NodeOrderCreation, []string{"node-11", "node-10", "node-2", "node-1", "node-9"}},
		// as the file lists them: node-9 (za), node-10 (zb), node-2 (za), node-1 (zb), node-11 (za)
		{cluster.NodeOrderFile, []string{"node-9", "node-10", "node-2", "node-1", "node-11"}},
	} {
		t.Run(string(tc.order), func(t *testing.T) {
			c := cluster.BuildOrdered(orderFleet(t).Snapshot(), feature.Defaults(), tc.order)
			if diff := cmp.Diff(tc.want, nodeNames(c)); diff != "" {
				t.Errorf("node order (-want +got):\n%s", diff)
			}
			if c.NodeOrder() != tc.order {
				t.Errorf("NodeOrder() = %q, want %q", c.NodeOrder(), tc.order)
			}
		})
	}
}

// A node that joins later comes after every node of the snapshot in the
// orders that follow the informer (as kube's node tree appends it), and by
// name in NodeOrderName (a scheduler that starts now); a clone keeps its
// own numbering, so a node added to it does not move in the original.
func TestJoinedNodesComeLast(t *testing.T) {
	add := func(c *cluster.Cluster, name, zone string) {
		n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelTopologyZone: zone}}}
		c.AddNode(n, nil)
		c.Reorder()
	}
	c := cluster.BuildOrdered(orderFleet(t).Snapshot(), feature.Defaults(), cluster.NodeOrderCreation)
	f := c.Clone()
	add(f, "node-0", "zb")
	add(c, "node-3", "za")
	add(c, "node-0", "zb")
	want := []string{"node-11", "node-10", "node-2", "node-1", "node-9", "node-0", "node-3"}
	if diff := cmp.Diff(want, nodeNames(c)); diff != "" {
		t.Errorf("after two nodes joined (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"node-11", "node-10", "node-2", "node-1", "node-9", "node-0"}, nodeNames(f)); diff != "" {
		t.Errorf("clone (-want +got):\n%s", diff)
	}
	without, _ := c.CloneWithout([]string{"node-11"})
	if diff := cmp.Diff([]string{"node-10", "node-2", "node-1", "node-9", "node-0", "node-3"}, nodeNames(without)); diff != "" {
		t.Errorf("without node-11 (-want +got):\n%s", diff)
	}

	byName := cluster.Build(orderFleet(t).Snapshot(), feature.Defaults())
	add(byName, "node-0", "zb")
	if diff := cmp.Diff([]string{"node-0", "node-11", "node-1", "node-2", "node-10", "node-9"}, nodeNames(byName)); diff != "" {
		t.Errorf("by name (-want +got):\n%s", diff)
	}
}

func TestParseNodeOrder(t *testing.T) {
	for in, want := range map[string]cluster.NodeOrder{"": cluster.NodeOrderName, "name": cluster.NodeOrderName, "creation": cluster.NodeOrderCreation, "file": cluster.NodeOrderFile} {
		if got, err := cluster.ParseNodeOrder(in); err != nil || got != want {
			t.Errorf("ParseNodeOrder(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := cluster.ParseNodeOrder("age"); err == nil || err.Error() != `unknown node order "age": use name, creation, file` {
		t.Errorf("ParseNodeOrder(age) error = %v", err)
	}
}
