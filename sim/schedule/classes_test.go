package schedule

import (
	"fmt"
	"math/rand/v2"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/drasim/drasim/internal/build"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/feature"
)

// TestClassesFollowTheNodeList holds the classes kept across changes of
// the node list (nodes added at its end and taken back, a node removed
// from the middle, which renews every NodeInfo, pods placed and removed,
// node objects replaced) to those a new classifier computes from
// scratch, for two projections used in turn: a kept class that no
// longer fits its node fails it.
func TestClassesFollowTheNodeList(t *testing.T) {
	b := build.NewCluster()
	for i := range 12 {
		b.Node(fmt.Sprintf("n%02d", i), 4+4*(i%3), 0)
	}
	snap := b.Snapshot()
	for i, n := range snap.Nodes {
		n.Labels["zone"] = fmt.Sprintf("z%d", i%2)
	}
	c := cluster.Build(snap, feature.Defaults())
	kept := newClassifier()
	rng := rand.New(rand.NewPCG(7, 13))
	added := 0
	var placed []*v1.Pod
	projections := []struct {
		keys []string
		name string
	}{{nil, ""}, {[]string{"zone"}, "zone"}}
	for step := range 300 {
		switch op := rng.IntN(6); {
		case op == 0: // an upcoming node joins at the end
			added++
			node := snap.Nodes[rng.IntN(len(snap.Nodes))].DeepCopy()
			node.Name = fmt.Sprintf("up%03d", added)
			c.AddNode(node, nil)
		case op == 1 && len(c.Nodes()) > 4: // the last node goes (renews the list)
			if _, _, err := c.RemoveNode(c.Nodes()[len(c.Nodes())-1].Node().Name); err != nil {
				t.Fatal(err)
			}
		case op == 2 && len(c.Nodes()) > 4: // a node from the middle goes
			if _, _, err := c.RemoveNode(c.Nodes()[rng.IntN(len(c.Nodes())-1)].Node().Name); err != nil {
				t.Fatal(err)
			}
		case op == 3: // a pod is placed
			ni := c.Nodes()[rng.IntN(len(c.Nodes()))]
			p := &v1.Pod{}
			p.Name, p.Namespace = fmt.Sprintf("p%d", step), "default"
			p.Spec.NodeName = ni.Node().Name
			p.Spec.Containers = []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")}}}}
			ni.AddPod(p)
			placed = append(placed, p)
		case op == 4 && len(placed) > 0: // a pod goes
			k := rng.IntN(len(placed))
			p := placed[k]
			placed = append(placed[:k], placed[k+1:]...)
			if ni := c.Node(p.Spec.NodeName); ni != nil {
				_ = ni.RemovePod(p)
			}
		case op == 5: // a node's object is replaced with another zone
			ni := c.Nodes()[rng.IntN(len(c.Nodes()))]
			node := ni.Node().DeepCopy()
			node.Labels["zone"] = fmt.Sprintf("z%d", rng.IntN(3))
			ni.SetNode(node)
		}
		pr := projections[rng.IntN(len(projections))]
		got := kept.classes(c.Nodes(), c, pr.keys, pr.name, nil, nil)
		want := newClassifier().classes(c.Nodes(), c, pr.keys, pr.name, nil, nil)
		if len(got) != len(want) {
			t.Fatalf("step %d: %d classes for %d nodes", step, len(got), len(want))
		}
		for i := range want {
			for j := range want {
				if (got[i] == got[j]) != (want[i] == want[j]) {
					t.Fatalf("step %d, projection %q: nodes %s and %s in the same class: kept %v, from scratch %v",
						step, pr.name, c.Nodes()[i].Node().Name, c.Nodes()[j].Node().Name, got[i] == got[j], want[i] == want[j])
				}
			}
		}
	}
}
