package analysis

import (
	"context"
	"fmt"
	"testing"

	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/feature"
	"github.com/google/go-cmp/cmp"
	resourceapi "k8s.io/api/resource/v1"
)

// TestSamplerAcrossChanges: a sampler keeps its probes' scheduler and its
// inventory from one sample to the next; after every change of the
// cluster it must measure what a new sampler measures on the same state.
// Pods leaving free their GPUs one node at a time, so every sample meets
// nodes whose allocation state the kept scheduler has seen otherwise.
func TestSamplerAcrossChanges(t *testing.T) {
	b := newCluster()
	for i := range 6 {
		node := fmt.Sprintf("n%d", i)
		b.Node(node, "pool", 32, 4)
		b.Bound(node+"-a", node, 4, 1+i%3)
		if i%2 == 0 {
			b.Bound(node+"-b", node, 4, 1)
		}
	}
	probes := probeSnapshot(probeShape{name: "one", replicas: 1, cpu: 1, gpus: 1}, probeShape{name: "four", replicas: 3, cpu: 1, gpus: 4})
	snap := b.Snapshot()
	snap.ResourceClaimTemplates = probes.ResourceClaimTemplates
	for _, cl := range snap.ResourceClaims {
		// Deallocated when their pod goes, as the scheduler's claims are.
		cl.Finalizers = []string{resourceapi.Finalizer}
	}
	mix := probes.Pods
	c := cluster.Build(snap, feature.Gates{})
	kept := NewSampler(context.Background(), c, mix, Options{})
	measure := func(s *Sampler) (Fragmentation, []ClassDevices) {
		t.Helper()
		devices := s.Devices(c)
		f, err := s.Fragmentation(c)
		if err != nil {
			t.Fatal(err)
		}
		return f, devices
	}
	rates := map[float64]bool{}
	for step, pod := range append(snap.Pods[:len(snap.Pods):len(snap.Pods)], nil) {
		gotF, gotD := measure(kept)
		wantF, wantD := measure(NewSampler(context.Background(), c, mix, Options{}))
		if diff := cmp.Diff(wantF, gotF); diff != "" {
			t.Errorf("step %d: the kept sampler's fragmentation differs from a new sampler's (-new +kept):\n%s", step, diff)
		}
		if diff := cmp.Diff(wantD, gotD); diff != "" {
			t.Errorf("step %d: the kept sampler's devices differ from a new sampler's (-new +kept):\n%s", step, diff)
		}
		rates[gotF.Rate] = true
		if pod == nil {
			break
		}
		if _, err := c.RemovePod(pod); err != nil {
			t.Fatal(err)
		}
	}
	if len(rates) < 2 {
		t.Errorf("the fragmentation rate never changed (%v): the changes do not reach what the samples measure", rates)
	}
}

// TestSamplerUnchangedCluster: a cluster that did not change since the
// last measurement has the same fragmentation rate; the sampler gives it
// again without probing (a probe adds claims and takes them away, which
// moves the cluster's version), so a timeline of months pays for its
// changes, not for its samples.
func TestSamplerUnchangedCluster(t *testing.T) {
	b := newCluster()
	for i := range 3 {
		node := fmt.Sprintf("n%d", i)
		b.Node(node, "pool", 32, 4)
		b.Bound(node+"-a", node, 4, 1+i)
	}
	probes := probeSnapshot(probeShape{name: "two", replicas: 1, cpu: 1, gpus: 2})
	snap := b.Snapshot()
	snap.ResourceClaimTemplates = probes.ResourceClaimTemplates
	c := cluster.Build(snap, feature.Gates{})
	s := NewSampler(context.Background(), c, probes.Pods, Options{})
	first, err := s.Fragmentation(c)
	if err != nil {
		t.Fatal(err)
	}
	version := c.Version()
	again, err := s.Fragmentation(c)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("the unchanged cluster measured otherwise (-first +again):\n%s", diff)
	}
	if got := c.Version(); got != version {
		t.Errorf("measuring the unchanged cluster again moved its version from %d to %d: it probed again", version, got)
	}
	// The device counts of the unchanged cluster are given again, each
	// time as a list of the caller's own.
	devices := s.Devices(c)
	devices[0].Allocated = -1
	if got := s.Devices(c); got[0].Allocated < 0 {
		t.Errorf("Devices gave the list a caller changed: %+v", got)
	}
	fresh, err := NewSampler(context.Background(), c, probes.Pods, Options{}).Fragmentation(c)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fresh, again); diff != "" {
		t.Errorf("the rate given again differs from a new sampler's (-new +again):\n%s", diff)
	}
}
