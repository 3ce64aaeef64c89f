package whatif_test

import (
	"context"
	"testing"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/whatif"
	"github.com/google/go-cmp/cmp"
)

func replay(t *testing.T, extra ...string) *sim.Run {
	t.Helper()
	run, err := sim.Simulate(context.Background(), loadCluster(t, extra...), sim.Options{Parallelism: 1})
	if err != nil {
		t.Fatalf("Simulate: %v", err)
	}
	return run
}

// TestDomainsByNode, computed by hand: after the replay batch-0 (1500m)
// runs on n3. Losing n1 queues web-a (2), web-b (1) and gpu-a (500m, a
// GPU): n3 has 2.5 CPUs free and n2 1, room for all three. Losing n2
// queues db-0 (3 CPUs): n1 has 250m free, n3 2.5: db-0 is stranded.
// Losing n3 queues batch-0, for which n2's 1 CPU is too little.
func TestDomainsByNode(t *testing.T) {
	r, err := whatif.Domains(context.Background(), replay(t), whatif.DomainOptions{Workers: 2})
	if err != nil {
		t.Fatalf("Domains: %v", err)
	}
	want := &whatif.Resilience{Domain: "node", Domains: 3, Stranding: 2, Losses: []whatif.DomainLoss{
		{Domain: "n2", Nodes: 1, Pods: 1, Stranded: 1, Priorities: []whatif.PriorityCount{{Priority: 0, Pods: 1}},
			StrandedPods: []whatif.StrandedPod{{Pod: "default/db-0", Message: "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."}}},
		{Domain: "n3", Nodes: 1, Pods: 1, Stranded: 1, Priorities: []whatif.PriorityCount{{Priority: 0, Pods: 1}},
			StrandedPods: []whatif.StrandedPod{{Pod: "default/batch-0", Message: "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."}}},
		{Domain: "n1", Nodes: 1, Pods: 3},
	}}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("resilience (-want +got):\n%s", diff)
	}
	if got := r.StrandsAbove(0); got != 0 {
		t.Errorf("StrandsAbove(0): db-0 has priority 0, want 0 domains, got %d", got)
	}
	if got := r.StrandsAbove(-1); got != 2 {
		t.Errorf("StrandsAbove(-1): want 2 domains, got %d", got)
	}
}

// TestDomainsByZone: losing zone a (n1 and n2) queues web-a, web-b, gpu-a
// and db-0 on n3 (2.5 CPUs free): web-a and gpu-a fit, web-b and db-0 do
// not; losing zone b strands batch-0 (n2 has 1 CPU free). One spare node
// of group big (8 CPUs, 4 GPUs) absorbs either loss.
func TestDomainsByZone(t *testing.T) {
	run := replay(t, "nodegroup.yaml")
	r, err := whatif.Domains(context.Background(), run, whatif.DomainOptions{Domain: "topology.kubernetes.io/zone"})
	if err != nil {
		t.Fatalf("Domains: %v", err)
	}
	got := map[string]int{}
	for _, l := range r.Losses {
		got[l.Domain] = l.Stranded
	}
	if diff := cmp.Diff(map[string]int{"a": 2, "b": 1}, got); diff != "" {
		t.Errorf("stranded per zone (-want +got):\n%s", diff)
	}
	spared, err := whatif.Domains(context.Background(), run, whatif.DomainOptions{Domain: "topology.kubernetes.io/zone", SpareGroup: "big", Spares: 1})
	if err != nil {
		t.Fatalf("Domains with a spare: %v", err)
	}
	if spared.Stranding != 0 || spared.Losses[0].Pods != 4 {
		t.Errorf("with one spare of big: want no zone stranding pods (zone a queues 4), got %+v", spared.Losses)
	}
	_, err = whatif.Domains(context.Background(), run, whatif.DomainOptions{Domain: "rack"})
	if err == nil || err.Error() != `no node has the label "rack": no failure domain to remove` {
		t.Errorf("unknown label: want an error, got %v", err)
	}
	_, err = whatif.Domains(context.Background(), run, whatif.DomainOptions{Domain: "node", SpareGroup: "huge", Spares: 1})
	if err == nil {
		t.Errorf("unknown spare group: want an error, got none")
	}
}
