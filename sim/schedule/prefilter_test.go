package schedule

import (
	"context"
	"testing"

	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fakePreFilter answers PreFilter with a fixed result and status.
type fakePreFilter struct {
	name  string
	nodes map[string]bool // nil: all nodes
	st    *framework.Status
	calls *[]string
}

func (f fakePreFilter) Name() string { return f.name }
func (f fakePreFilter) PreFilter(context.Context, *framework.CycleState, *v1.Pod, []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	*f.calls = append(*f.calls, f.name)
	return &framework.PreFilterResult{NodeNames: f.nodes}, f.st
}

// TestPreFilterVerdicts holds the PreFilter phase to kube's
// RunPreFilterPlugins and findNodesThatFitPod: their order, when they stop,
// and their wording.
func TestPreFilterVerdicts(t *testing.T) {
	nodes := []*v1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, {ObjectMeta: metav1.ObjectMeta{Name: "n2"}}, {ObjectMeta: metav1.ObjectMeta{Name: "n3"}}}
	set := func(names ...string) map[string]bool {
		m := map[string]bool{}
		for _, n := range names {
			m[n] = true
		}
		return m
	}
	tests := []struct {
		name      string
		plugins   func(calls *[]string) []framework.PreFilterPlugin
		wantMsg   string
		wantCalls []string
	}{
		{
			name: "one plugin narrows to nothing",
			plugins: func(c *[]string) []framework.PreFilterPlugin {
				return []framework.PreFilterPlugin{fakePreFilter{"A", set(), nil, c}, fakePreFilter{"B", nil, nil, c}}
			},
			wantMsg:   "0/3 nodes are available: node(s) didn't satisfy plugin A.",
			wantCalls: []string{"A"},
		},
		{
			name: "two plugins narrow to disjoint nodes",
			plugins: func(c *[]string) []framework.PreFilterPlugin {
				return []framework.PreFilterPlugin{fakePreFilter{"B", set("n1"), nil, c}, fakePreFilter{"A", set("n2"), nil, c}, fakePreFilter{"C", nil, nil, c}}
			},
			wantMsg:   "0/3 nodes are available: node(s) didn't satisfy plugin(s) [A B] simultaneously.",
			wantCalls: []string{"B", "A"},
		},
		{
			name: "a plugin keeps only nodes the cluster does not have",
			plugins: func(c *[]string) []framework.PreFilterPlugin {
				return []framework.PreFilterPlugin{fakePreFilter{"A", set("ghost"), nil, c}}
			},
			wantMsg:   "0/3 nodes are available: 3 node(s) didn't satisfy plugin(s) [A].",
			wantCalls: []string{"A"},
		},
		{
			name: "Unschedulable lets the other plugins run, UnschedulableAndUnresolvable wins",
			plugins: func(c *[]string) []framework.PreFilterPlugin {
				return []framework.PreFilterPlugin{
					fakePreFilter{"A", nil, framework.NewStatus(framework.Unschedulable, "a says no"), c},
					fakePreFilter{"B", nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, "b says never"), c},
					fakePreFilter{"C", nil, nil, c},
				}
			},
			wantMsg:   "0/3 nodes are available: b says never.",
			wantCalls: []string{"A", "B"},
		},
		{
			// kube's RunPreFilterPlugins keeps the last Unschedulable
			// status (drasim kept the first until the framework runtime).
			name: "of two Unschedulable verdicts the last one is the cycle's",
			plugins: func(c *[]string) []framework.PreFilterPlugin {
				return []framework.PreFilterPlugin{
					fakePreFilter{"A", nil, framework.NewStatus(framework.Unschedulable, "a says no"), c},
					fakePreFilter{"B", nil, framework.NewStatus(framework.Unschedulable, "b says no"), c},
					fakePreFilter{"C", nil, nil, c},
				}
			},
			wantMsg:   "0/3 nodes are available: b says no.",
			wantCalls: []string{"A", "B", "C"},
		},
		{
			// kube turns any other status into an error of the plugin.
			name: "Wait from PreFilter is an error",
			plugins: func(c *[]string) []framework.PreFilterPlugin {
				return []framework.PreFilterPlugin{
					fakePreFilter{"A", nil, framework.NewStatus(framework.Wait, "a waits"), c},
					fakePreFilter{"B", nil, nil, c},
				}
			},
			wantMsg:   `running PreFilter plugin "A": a waits`,
			wantCalls: []string{"A"},
		},
		{
			name: "Unschedulable alone is the verdict after every plugin ran",
			plugins: func(c *[]string) []framework.PreFilterPlugin {
				return []framework.PreFilterPlugin{
					fakePreFilter{"A", nil, framework.NewStatus(framework.Unschedulable, "a says no"), c},
					fakePreFilter{"B", nil, nil, c},
				}
			},
			wantMsg:   "0/3 nodes are available: a says no.",
			wantCalls: []string{"A", "B"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cluster.Build(&snapshot.Snapshot{Nodes: nodes}, feature.Defaults())
			var calls []string
			s := New(c, &framework.Profile{Framework: framework.Framework{PreFilter: tt.plugins(&calls)}}, Options{Parallelism: 1})
			pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", UID: "p"}}
			a := s.Evaluate(context.Background(), pod)
			if a.Node != "" || a.Message != tt.wantMsg {
				t.Errorf("want no node and %q; got node %q, message %q", tt.wantMsg, a.Node, a.Message)
			}
			if len(calls) != len(tt.wantCalls) || (len(calls) > 0 && calls[len(calls)-1] != tt.wantCalls[len(tt.wantCalls)-1]) {
				t.Errorf("PreFilter calls: want %v, got %v", tt.wantCalls, calls)
			}
		})
	}
}
