package whatif

import (
	"context"
	"testing"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/generate"
	"github.com/drasim/drasim/sim/result"
	"github.com/drasim/drasim/sim/snapshot"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
)

// replayed is the cluster after a run as a snapshot: pods bound where the
// replay put them, claims allocated, pending pods left out.
func replayed(run *sim.Run) *snapshot.Snapshot {
	c := run.Cluster
	s := *c.Snapshot()
	pending := map[string]bool{}
	for _, p := range run.Result.Pods {
		if p.Phase == result.PhaseUnschedulable {
			pending[p.Key()] = true
		}
	}
	s.Pods = nil
	for _, p := range c.Pods() {
		if !pending[key(p.Namespace, p.Name)] {
			s.Pods = append(s.Pods, p)
		}
	}
	s.ResourceClaims = c.DRA().Claims()
	return &s
}

// TestCloneAgreesWithEdits: losing a node on a copy of the replayed
// cluster (the fast path of Domains) decides exactly as removing it with
// a removeNodes edit from the replayed cluster written as a snapshot and
// replaying that (the plain path): the same pods queued, each on the same
// node or pending with the same message. Every node of a generated mixed
// GPU cluster is lost in turn.
func TestCloneAgreesWithEdits(t *testing.T) {
	snap, err := generate.Generate(generate.Options{Seed: 3, Nodes: 24, Pods: 90})
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	opts := sim.Options{Seed: 3, Parallelism: 1}
	run, err := sim.Simulate(context.Background(), snap, opts)
	if err != nil {
		t.Fatalf("Simulate: %v", err)
	}
	base := replayed(run)
	type outcome struct{ Phase, Node, Message string }
	stranded := 0
	for _, n := range run.Cluster.Nodes() {
		name := n.Node().Name
		f, lost := run.Cluster.CloneWithout([]string{name})
		fr, err := sim.SimulateCluster(context.Background(), f, opts)
		if err != nil {
			t.Fatalf("node %s, copy: %v", name, err)
		}
		fast := map[string]outcome{}
		for _, p := range fr.Result.Pods {
			if inList(lost.Requeued, p.Key()) {
				fast[p.Key()] = outcome{p.Phase, p.Node, p.Message}
			}
		}
		applied, err := Apply(base, []Edit{{RemoveNodes: &Nodes{Names: []string{name}}, Source: "test", Index: -1}})
		if err != nil {
			t.Fatalf("node %s, Apply: %v", name, err)
		}
		pr, err := sim.Simulate(context.Background(), applied.Snapshot, opts)
		if err != nil {
			t.Fatalf("node %s, plain: %v", name, err)
		}
		applied.Resolve(pr.Result)
		plain := map[string]outcome{}
		byKey := map[string]result.Pod{}
		for _, p := range pr.Result.Pods {
			byKey[p.Key()] = p
		}
		for _, m := range pr.Result.Edits[0].Evicted {
			p := byKey[m.Pod]
			plain[m.Pod] = outcome{p.Phase, p.Node, p.Message}
			if p.Phase == result.PhaseUnschedulable {
				stranded++
			}
		}
		if diff := cmp.Diff(plain, fast); diff != "" {
			t.Errorf("losing node %s: the copy decided otherwise (-plain +copy):\n%s", name, diff)
		}
	}
	if stranded == 0 {
		t.Errorf("no node's loss stranded a pod: the cluster is too empty to tell the paths apart")
	}
}

func inList(pods []*v1.Pod, k string) bool {
	for _, p := range pods {
		if key(p.Namespace, p.Name) == k {
			return true
		}
	}
	return false
}
