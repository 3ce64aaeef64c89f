package autoscale

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// estimateOf runs the first evaluation of the scale-up and returns the
// group's option (nil when the group has none).
func estimateOf(t *testing.T, opts Options, group string, objs ...any) *Option {
	t.Helper()
	s, err := newScaler(context.Background(), snapshotOf(objs...), opts)
	if err != nil {
		t.Fatalf("newScaler: %v", err)
	}
	p, err := s.evaluate()
	if err != nil {
		t.Fatalf("evaluate: %v", err)
	}
	for _, c := range p.cands {
		if c.group.Name == group {
			return c.opt
		}
	}
	return nil
}

// TestBinpackCounts checks the estimator against node counts computed by
// hand in each case's comment.
func TestBinpackCounts(t *testing.T) {
	type want struct {
		Nodes, Pods int
		Limited     bool
	}
	tests := []struct {
		name string
		opts Options
		objs []any
		want *want
	}{
		{
			// 3 CPU pods on 8 CPU: two per node, five pods -> 3 nodes.
			name: "cpu only",
			objs: []any{makeGroup("g").CPU("8").Obj(), replicas(5, "web", func(b *podBuilder) *podBuilder { return b.CPU("3") })},
			want: &want{Nodes: 3, Pods: 5},
		},
		{
			// 2 GPUs per pod on 8 GPUs: four per node, five pods -> 2 nodes.
			name: "gpu count",
			objs: []any{gpuClass(), gpuTemplate("two", 2, false), makeGroup("g").GPUs(8, 0).Obj(),
				replicas(5, "job", func(b *podBuilder) *podBuilder { return b.Claim("two") })},
			want: &want{Nodes: 2, Pods: 5},
		},
		{
			// 6 GPUs on 2 roots of 3: a pair on one root leaves the third
			// GPU of the root unusable for the next pair, so two pairs per
			// node (three without the constraint): six pods -> 3 nodes.
			name: "matchAttribute",
			objs: []any{gpuClass(), gpuTemplate("pair", 2, true), makeGroup("g").GPUs(6, 3).Obj(),
				replicas(6, "job", func(b *podBuilder) *podBuilder { return b.Claim("pair") })},
			want: &want{Nodes: 3, Pods: 6},
		},
		{
			name: "matchAttribute not needed",
			objs: []any{gpuClass(), gpuTemplate("pair", 2, false), makeGroup("g").GPUs(6, 3).Obj(),
				replicas(6, "job", func(b *podBuilder) *podBuilder { return b.Claim("pair") })},
			want: &want{Nodes: 2, Pods: 6},
		},
		{
			// First-fit decreasing by CPU and memory, as CA's
			// DecreasingPodOrderer: the 7-CPU pods go first (one per
			// node), the 1-CPU GPU pods fill the gaps -> 2 nodes. Packing
			// the GPU pods first would leave 6 CPU on the first node and
			// need 3 (scenarios/autoscale/binpack-order.yaml).
			name: "cpu and memory first, not devices",
			objs: []any{gpuClass(), gpuTemplate("one", 1, false), makeGroup("g").CPU("8").GPUs(2, 0).Obj(),
				replicas(2, "infer", func(b *podBuilder) *podBuilder { return b.Claim("one") }),
				replicas(2, "batch", func(b *podBuilder) *podBuilder { return b.CPU("7") })},
			want: &want{Nodes: 2, Pods: 4},
		},
		{
			// Devices do not count in the order: equal CPU and memory keep
			// the queue order, so the 1-GPU pods share the first node and
			// each 3-GPU pod needs one of its own -> 3 nodes, as CA.
			name: "equal cpu and memory keep the queue order",
			objs: []any{gpuClass(), gpuTemplate("one", 1, false), gpuTemplate("three", 3, false), makeGroup("g").GPUs(4, 0).Obj(),
				replicas(2, "small", func(b *podBuilder) *podBuilder { return b.Claim("one") }),
				replicas(2, "big", func(b *podBuilder) *podBuilder { return b.Claim("three") })},
			want: &want{Nodes: 3, Pods: 4},
		},
		{
			// maxSize 2 bounds the estimate: two nodes of two pods.
			name: "max size",
			objs: []any{makeGroup("g").CPU("8").Max(2).Obj(), replicas(5, "web", func(b *podBuilder) *podBuilder { return b.CPU("3") })},
			want: &want{Nodes: 2, Pods: 4, Limited: true},
		},
		{
			name: "max nodes per scale-up",
			opts: Options{MaxNodesPerScaleUp: 1},
			objs: []any{makeGroup("g").CPU("8").Obj(), replicas(5, "web", func(b *podBuilder) *podBuilder { return b.CPU("3") })},
			want: &want{Nodes: 1, Pods: 2, Limited: true},
		},
		{
			// One node exists: max-nodes-total 3 leaves room for 2.
			name: "max nodes total",
			opts: Options{MaxNodesTotal: 3},
			objs: []any{makeNode("base", nil, "1"), makeGroup("g").CPU("8").Obj(), replicas(5, "web", func(b *podBuilder) *podBuilder { return b.CPU("3") })},
			want: &want{Nodes: 2, Pods: 4, Limited: true},
		},
		{
			// An empty template node does not fit 12 CPU: no option.
			name: "never fits",
			objs: []any{makeGroup("g").CPU("8").Obj(), makePod("big").CPU("12").Obj()},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := estimateOf(t, tt.opts, "g", tt.objs...)
			var got *want
			if opt != nil {
				got = &want{Nodes: opt.Nodes, Pods: opt.Pods, Limited: opt.Limited}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("estimate (-want +got):\n%s", diff)
			}
		})
	}
}
