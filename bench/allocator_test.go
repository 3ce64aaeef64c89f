package bench

import (
	"context"
	"fmt"
	"testing"

	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/generate"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
)

// allocatorFixture is a generated cluster set up as the DRA plugin sets it
// up: claims made from templates, one allocator over every slice.
type allocatorFixture struct {
	c       *cluster.Cluster
	plugin  *dra.Plugin
	gates   feature.Gates
	celOpts cel.Features
}

func newAllocatorFixture(b *testing.B, nodes int) *allocatorFixture {
	b.Helper()
	snap := mustGenerate(b, generate.Options{Seed: 1, Nodes: nodes, Pods: 200})
	gates := feature.Defaults()
	c := cluster.Build(snap, gates)
	return &allocatorFixture{c: c, plugin: dra.New(c.DRA()), gates: gates,
		celOpts: cel.Features{EnableConsumableCapacity: gates["DRAConsumableCapacity"], EnableListTypeAttributes: gates["DRAListTypeAttributes"]}}
}

// newAllocator does what the plugin's PreFilter does once per pod.
func (f *allocatorFixture) newAllocator(b *testing.B, cache *cel.Cache) structured.Allocator {
	st := f.c.DRA()
	a, err := structured.NewAllocator(context.Background(), f.gates.AllocatorFeatures(), st.AllocatedState(), st, st.Slices(), cache)
	if err != nil {
		b.Fatalf("structured.NewAllocator: %v", err)
	}
	return a
}

// claimOf returns the claims of the first queued pod using the template.
func (f *allocatorFixture) claimOf(b *testing.B, template string) []*resourceapi.ResourceClaim {
	b.Helper()
	for _, pod := range f.c.Queue() {
		for _, pc := range pod.Spec.ResourceClaims {
			if pc.ResourceClaimTemplateName != nil && *pc.ResourceClaimTemplateName == template {
				claims, err := f.plugin.PodClaims(pod)
				if err != nil {
					b.Fatalf("claims of pod %s: %v", pod.Name, err)
				}
				return claims
			}
		}
	}
	b.Fatalf("no pending pod uses template %s", template)
	return nil
}

func (f *allocatorFixture) node(b *testing.B, name string) *v1.Node {
	b.Helper()
	ni := f.c.Node(name)
	if ni == nil {
		b.Fatalf("no node %s in the fixture", name)
	}
	return ni.Node()
}

// BenchmarkAllocatorOnly times one Allocate call, the work Filter does for
// one pod on one node, for each claim shape on each node shape, and
// NewAllocator, the work PreFilter does once per pod. A replay does about
// (pods x evaluated nodes) Allocate calls and one NewAllocator per pod.
func BenchmarkAllocatorOnly(b *testing.B) {
	f := newAllocatorFixture(b, 100)
	cases := []struct {
		template, node string
		wantDevices    int // 0: must not fit
	}{
		{generate.TemplateInference, "dgx-h100-000", 1},
		{generate.TemplateInference, "a100-mig-000", 1},
		{generate.TemplateInference, "l4-000", 1},
		{generate.TemplateInference, "cpu-000", 0},
		{generate.TemplateTraining8, "dgx-h100-000", 8},
		{generate.TemplateTraining4, "dgx-h100-000", 4},
		{generate.TemplateTraining8, "a100-mig-000", 0},
		{generate.TemplateMIG1g, "a100-mig-000", 1},
		{generate.TemplateMIG1g, "dgx-h100-000", 0},
	}
	for _, c := range cases {
		b.Run(fmt.Sprintf("claim=%s,node=%s", c.template, c.node), func(b *testing.B) {
			cache := cel.NewCache(10, f.celOpts)
			alloc := f.newAllocator(b, cache)
			claims := f.claimOf(b, c.template)
			node := f.node(b, c.node)
			ctx := context.Background()
			res, err := alloc.Allocate(ctx, node, claims)
			if err != nil {
				b.Fatalf("Allocate: %v", err)
			}
			got := 0
			if len(res) == 1 {
				got = len(res[0].Devices.Results)
			}
			if got != c.wantDevices {
				b.Fatalf("Allocate %s on %s: want %d devices, got %d (%d results)", c.template, c.node, c.wantDevices, got, len(res))
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := alloc.Allocate(ctx, node, claims); err != nil {
					b.Fatalf("Allocate: %v", err)
				}
			}
		})
	}
	for _, nodes := range []int{100, 1000} {
		b.Run(fmt.Sprintf("new-allocator/nodes=%d", nodes), func(b *testing.B) {
			f := newAllocatorFixture(b, nodes)
			cache := cel.NewCache(10, f.celOpts)
			f.newAllocator(b, cache)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				f.newAllocator(b, cache)
			}
		})
	}
}
