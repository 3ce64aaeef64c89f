package autoscale

import (
	"math"
	"testing"

	"github.com/drasim/drasim/sim/nodegroup"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// cand is an option of a group whose template has cpu CPUs.
func cand(group string, cpu string, price *float64, opt Option) *candidate {
	opt.Group = group
	rl := v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse("16Gi")}
	return &candidate{opt: &opt, group: &nodegroup.Group{Name: group, PricePerHour: price, Template: &v1.Node{Status: v1.NodeStatus{Capacity: rl, Allocatable: rl}}}}
}

func price(p float64) *float64 { return &p }

func TestExpanders(t *testing.T) {
	prio, err := ParsePriorities([]byte("priorities: |-\n  10:\n    - .*\n  50:\n    - ^a100\n    - h100\n"))
	if err != nil {
		t.Fatalf("ParsePriorities: %v", err)
	}
	tests := []struct {
		name  string
		e     expander
		cands []*candidate
		want  []string
	}{
		{name: "most-pods", e: mostPods{}, cands: []*candidate{cand("a", "4", nil, Option{Pods: 3}), cand("b", "4", nil, Option{Pods: 5}), cand("c", "4", nil, Option{Pods: 5})}, want: []string{"b", "c"}},
		{name: "least-nodes", e: leastNodes{}, cands: []*candidate{cand("a", "4", nil, Option{Nodes: 3}), cand("b", "4", nil, Option{Nodes: 1})}, want: []string{"b"}},
		{name: "least-waste", e: leastWasteExpander{}, cands: []*candidate{
			cand("a", "4", nil, Option{CPUWaste: 0.5, MemoryWaste: 0.25, DeviceWaste: 0}),
			cand("b", "4", nil, Option{CPUWaste: 0.25, MemoryWaste: 0.25, DeviceWaste: 0.9}),
		}, want: []string{"b"}},
		{name: "least-waste-dra", e: leastWasteDRA{}, cands: []*candidate{
			cand("a", "4", nil, Option{CPUWaste: 0.5, MemoryWaste: 0.25, DeviceWaste: 0}),
			cand("b", "4", nil, Option{CPUWaste: 0.25, MemoryWaste: 0.25, DeviceWaste: 0.9}),
		}, want: []string{"a"}},
		{name: "first-available mean", e: firstAvailable{}, cands: []*candidate{
			cand("h100", "4", nil, Option{PrioritizedListScore: 16, PrioritizedListPods: 2}),
			cand("l4", "4", nil, Option{PrioritizedListScore: 21, PrioritizedListPods: 3}),
			cand("cpu", "4", nil, Option{}),
		}, want: []string{"h100"}},
		{name: "priority highest wins", e: &priorityExpander{cfg: prio}, cands: []*candidate{cand("a100-spot", "4", nil, Option{}), cand("l4", "4", nil, Option{}), cand("xh100", "4", nil, Option{})}, want: []string{"a100-spot", "xh100"}},
		{name: "priority regexps unanchored", e: &priorityExpander{cfg: prio}, cands: []*candidate{cand("l4", "4", nil, Option{}), cand("big-h100-x", "4", nil, Option{})}, want: []string{"big-h100-x"}},
		{name: "price drops unpriced", e: priceExpander{}, cands: []*candidate{cand("a", "4", nil, Option{Nodes: 1}), cand("b", "4", price(1), Option{Nodes: 1})}, want: []string{"b"}},
		{name: "price avoids nvidia.com/gpu nodes", e: priceExpander{}, cands: []*candidate{
			func() *candidate {
				c := cand("gpu", "4", price(1), Option{Nodes: 1})
				c.group.Template.Status.Allocatable["nvidia.com/gpu"] = resource.MustParse("1")
				return c
			}(),
			cand("cpu-big", "64", price(1), Option{Nodes: 1}),
		}, want: []string{"cpu-big"}},
		{name: "priority below -1 never wins", e: &priorityExpander{cfg: func() *Priorities { p, _ := ParsePriorities([]byte("-5:\n  - a\n0:\n  - b\n")); return p }()},
			cands: []*candidate{cand("a", "4", nil, Option{}), cand("b", "4", nil, Option{})}, want: []string{"b"}},
		{name: "priority -1 wins over unnamed groups", e: &priorityExpander{cfg: func() *Priorities { p, _ := ParsePriorities([]byte("-1:\n  - a\n")); return p }()},
			cands: []*candidate{cand("a", "4", nil, Option{}), cand("b", "4", nil, Option{})}, want: []string{"a"}},
		{name: "priority -2 counts as no match", e: &priorityExpander{cfg: func() *Priorities { p, _ := ParsePriorities([]byte("-2:\n  - a\n")); return p }()},
			cands: []*candidate{cand("a", "4", nil, Option{}), cand("b", "4", nil, Option{})}, want: []string{"a", "b"}},
		{name: "price none priced", e: priceExpander{}, cands: []*candidate{cand("a", "4", nil, Option{Nodes: 1})}, want: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := tt.e.best(tt.cands, env{nodes: 3})
			if diff := cmp.Diff(tt.want, groupNames(got)); diff != "" {
				t.Errorf("kept (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPriceScore checks CA's price formula against a hand computation:
// 2 nodes of 4 CPU at 0.20/h for 4 pods of 1.5 CPU and 4Gi, in a cluster
// of 2 nodes (preferred node: 1 CPU).
func TestPriceScore(t *testing.T) {
	c := cand("small", "4", price(0.20), Option{Nodes: 2})
	for i := 0; i < 4; i++ {
		c.pods = append(c.pods, makePod("web").CPU("1500m").Obj())
		c.pods[i].Spec.Containers[0].Resources.Requests[v1.ResourceMemory] = resource.MustParse("4Gi")
	}
	priceExpander{}.best([]*candidate{c}, env{nodes: 2})
	pods := 4 * (1.5*0.033174 + 4*0.004446)
	stab := 0.5*0.033174 + 500.0/1024*0.004446
	want := ((4.0-1)*(1-math.Tanh(1.0/15)) + 1) * (0.40 + stab) / (pods + stab)
	if c.opt.PriceScore == nil || math.Abs(*c.opt.PriceScore-want) > 1e-9 {
		t.Errorf("price score: want %.6f, got %v", want, c.opt.PriceScore)
	}
	if math.Abs(want-5.5078) > 1e-3 {
		t.Errorf("hand computation in price.yaml says 5.5078, the formula gives %.4f", want)
	}
}

// TestPodRequests: the expanders and the binpacking order count what a pod
// requests as kube-scheduler and CA do (init containers and overhead
// included), not its app containers alone.
func TestPodRequests(t *testing.T) {
	overhead := makePod("overhead").CPU("1").Obj()
	overhead.Spec.Overhead = v1.ResourceList{v1.ResourceCPU: resource.MustParse("250m")}
	tests := []struct {
		name    string
		pod     *v1.Pod
		wantCPU int64
	}{
		{name: "containers", pod: makePod("p").CPU("2").Obj(), wantCPU: 2000},
		{name: "init container larger", pod: makePod("p").CPU("500m").Init("3").Obj(), wantCPU: 3000},
		{name: "init container smaller", pod: makePod("p").CPU("2").Init("1").Obj(), wantCPU: 2000},
		{name: "overhead", pod: overhead, wantCPU: 1250},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if cpu, _ := podRequests(tt.pod); cpu != tt.wantCPU {
				t.Errorf("podRequests: cpu %dm, want %dm", cpu, tt.wantCPU)
			}
		})
	}
	// least-waste on one 4-CPU node: a pod that counts 3 CPU wastes 1/4.
	cpu, _ := leastWaste(makeNode("n", nil, "4"), 1, []*v1.Pod{makePod("p").CPU("500m").Init("3").Obj()})
	if cpu != 0.25 {
		t.Errorf("leastWaste: cpu waste %g, want 0.25 (the init container's 3 CPU count)", cpu)
	}
}

func TestPreferredNode(t *testing.T) {
	for _, tt := range []struct{ nodes, want int }{{0, 1}, {2, 1}, {3, 2}, {6, 2}, {7, 4}, {20, 4}, {21, 8}, {60, 8}, {61, 16}, {200, 16}, {201, 32}, {6001, 32}} {
		if got := preferredNodeMilliCPU(tt.nodes) / 1000; got != int64(tt.want) {
			t.Errorf("%d nodes: want a preferred node of %d CPU, got %d", tt.nodes, tt.want, got)
		}
	}
}

// TestChain checks CA's chain: ties fall through to the next expander,
// one option left ends the chain, random breaks what remains, and the
// first expander runs even for a single option.
func TestChain(t *testing.T) {
	tests := []struct {
		name      string
		expanders []string
		cands     []*candidate
		chosen    string
		by        string
	}{
		{
			name: "tie falls through", expanders: []string{ExpanderMostPods, ExpanderLeastNodes},
			cands:  []*candidate{cand("a", "4", nil, Option{Pods: 4, Nodes: 2}), cand("b", "4", nil, Option{Pods: 4, Nodes: 1}), cand("c", "4", nil, Option{Pods: 2, Nodes: 1})},
			chosen: "b", by: ExpanderLeastNodes,
		},
		{
			name: "first decides", expanders: []string{ExpanderLeastNodes, ExpanderMostPods},
			cands:  []*candidate{cand("a", "4", nil, Option{Pods: 4, Nodes: 2}), cand("c", "4", nil, Option{Pods: 2, Nodes: 1})},
			chosen: "c", by: ExpanderLeastNodes,
		},
		{
			name: "random ends ties", expanders: []string{ExpanderMostPods},
			cands:  []*candidate{cand("a", "4", nil, Option{Pods: 4}), cand("b", "4", nil, Option{Pods: 4})},
			chosen: "b", by: ExpanderRandom,
		},
		{
			name: "single unpriced option", expanders: []string{ExpanderPrice},
			cands: []*candidate{cand("a", "4", nil, Option{Pods: 4, Nodes: 1})},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch, err := newChain(Options{Expanders: tt.expanders})
			if err != nil {
				t.Fatalf("newChain: %v", err)
			}
			c, d := ch.choose(tt.cands, env{nodes: 1})
			got := [2]string{d.Chosen, d.By}
			if c == nil {
				got = [2]string{}
			}
			if diff := cmp.Diff([2]string{tt.chosen, tt.by}, got); diff != "" {
				t.Errorf("chosen, by (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParsePriorities(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		group   string
		want    int
		wantErr string
	}{
		{name: "configmap", data: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-autoscaler-priority-expander}\ndata:\n  priorities: |-\n    10:\n      - .*\n    20:\n      - gpu\n", group: "gpu-a", want: 20},
		{name: "bare map", data: "5:\n  - cpu\n", group: "cpu", want: 5},
		{name: "bad regexp", data: "5:\n  - 'cpu('\n", wantErr: "priority 5: cannot compile \"cpu(\": error parsing regexp: missing closing ): `cpu(`"},
		{name: "configmap without priorities", data: "kind: ConfigMap\nmetadata: {name: x}\ndata: {other: y}\n", wantErr: `ConfigMap "x" has no data.priorities`},
		{name: "empty", data: "{}", wantErr: "no priorities given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePriorities([]byte(tt.data))
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tt.wantErr {
				t.Fatalf("error: want %q, got %q", tt.wantErr, gotErr)
			}
			if err != nil {
				return
			}
			if got, ok := p.Of(tt.group); !ok || got != tt.want {
				t.Errorf("priority of %s: want %d, got %d (matched %t)", tt.group, tt.want, got, ok)
			}
		})
	}
}
