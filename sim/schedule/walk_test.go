package schedule

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/profile"
)

// verdictFilter answers Filter from a table by node index, as a plugin
// named name; one status value per verdict, as plugins may return.
type verdictFilter struct {
	name    string
	verdict map[*framework.NodeInfo]*framework.Status
	calls   int // Filter calls (one worker only: not atomic)
}

func (p *verdictFilter) Name() string { return p.name }

func (p *verdictFilter) Filter(_ context.Context, _ *framework.CycleState, _ *v1.Pod, ni *framework.NodeInfo) *framework.Status {
	p.calls++
	return p.verdict[ni]
}

// diagnosingFilter is a verdictFilter that explains its rejections node
// by node, as DynamicResources does.
type diagnosingFilter struct{ verdictFilter }

func (p *diagnosingFilter) DiagnoseNode(context.Context, *framework.CycleState, *v1.Node) []framework.NodeFinding {
	return nil
}

// walkOutcome is what a filter pass found, in the order found.
type walkOutcome struct {
	Feasible       []int
	Processed      int
	Rejected       map[string]int // by plugin and message
	Potential      []string
	DeviceRejected []string
	Listed         []string // KeepNodeStatuses: the rejected nodes
	Err            string
}

// TestFilterWalkIsNodeByNode holds the filter pass's walk (the class
// table, the look-ahead, the counts per slot, the special nodes) to a
// plain node-by-node loop written here from kube's findNodesThatPassFilters:
// from the start index, each node's status, feasible nodes in order
// until enough are found, rejections counted by status, Unschedulable
// nodes kept for preemption, the first MaxDiagnosedNodes nodes that
// DynamicResources rejected, and a plugin error stopping the pass at its
// node. Nodes of a class answer alike; the classes come in runs and
// interleaved, with many feasible nodes and few, on random start indexes.
func TestFilterWalkIsNodeByNode(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 16))
	for round := range 60 {
		n := []int{40, 150, 700, 2000}[round%4]
		numClasses := 1 + rng.IntN(40)
		c := samplingCluster(n, 0)
		nodes := c.Nodes()
		// Each class's verdict: feasible, or one of a few statuses (two
		// classes may share one), one in a few rounds a plugin error.
		statuses := []*framework.Status{
			framework.NewStatus(framework.Unschedulable, "too full"),
			framework.NewStatus(framework.UnschedulableAndUnresolvable, "wrong zone"),
			framework.NewStatus(framework.UnschedulableAndUnresolvable, "no device"),
			framework.NewStatus(framework.Unschedulable, "devices in use"),
		}
		fake := &verdictFilter{name: "Fake", verdict: map[*framework.NodeInfo]*framework.Status{}}
		fakeDRA := &diagnosingFilter{verdictFilter{name: dra.Name, verdict: map[*framework.NodeInfo]*framework.Status{}}}
		feasibleShare := rng.Float64()
		classVerdict := make([]int, numClasses) // -1 feasible, -2 error, else a status
		for k := range classVerdict {
			classVerdict[k] = -1
			if rng.Float64() > feasibleShare {
				classVerdict[k] = rng.IntN(len(statuses))
			}
			if round%7 == 3 && rng.IntN(20) == 0 {
				classVerdict[k] = -2
			}
		}
		errStatus := framework.AsStatus(fmt.Errorf("broken"))
		classes := make([]uint32, n)
		for i := 0; i < n; {
			run := 1 + rng.IntN(1+rng.IntN(40))
			k := uint32(rng.IntN(numClasses))
			for ; run > 0 && i < n; run, i = run-1, i+1 {
				classes[i] = k
			}
		}
		for i, ni := range nodes {
			switch v := classVerdict[classes[i]]; {
			case v == -2:
				fake.verdict[ni] = errStatus
			case v >= 2:
				fakeDRA.verdict[ni] = statuses[v]
			case v >= 0:
				fake.verdict[ni] = statuses[v]
			}
		}
		start := rng.IntN(n)
		for _, keep := range []bool{false, true} {
			for _, withClasses := range []bool{true, false} {
				name := fmt.Sprintf("round %d: %d nodes, %d classes, start %d, keep %v, classes %v", round, n, numClasses, start, keep, withClasses)
				s := newTestScheduler(t, c, profile.Config{}, Options{KeepNodeStatuses: keep})
				s.opts.Parallelism = 1 + round%3
				s.profile.Filter = []framework.FilterPlugin{fake, fakeDRA}
				// The scheduler's own classifier must know as many
				// classes as the table uses.
				for k := range numClasses {
					s.classifier.ids[classTriple{uint32(k), 0, 0}] = uint32(k)
				}
				s.nextStart = start
				var cl []uint32
				if withClasses {
					cl = classes
				}
				// Twice: the second pass reuses the first's buffers.
				for pass := range 2 {
					fake.calls = 0
					var walk nodeWalk = &s.plain
					if cl != nil {
						walk = &s.classes
					}
					f, err := walk.walk(ctx, &walkInput{state: framework.NewCycleState(), pod: c.Queue()[0], candidates: nodes, classes: cl, start: start, want: s.numFeasibleNodesToFind(n)})
					calls := fake.calls
					got := outcomeOf(f, err, nodes)
					want := nodeByNode(s, nodes, []framework.FilterPlugin{fake, fakeDRA}, start, keep)
					if diff := cmp.Diff(want, got); diff != "" {
						t.Fatalf("%s, pass %d: the walk differs from the node-by-node loop (-want +got):\n%s", name, pass, diff)
					}
					if s.opts.Parallelism == 1 && withClasses {
						// One worker looks no further than the walk goes:
						// it filters the classes of the nodes walked, and
						// of the node that failed.
						met := map[uint32]bool{}
						for k := 0; k < min(n, got.Processed+1); k++ {
							if k < got.Processed || err != nil {
								met[classes[(start+k)%n]] = true
							}
						}
						if calls != len(met) {
							t.Errorf("%s, pass %d: one worker filtered %d classes, want the %d of the nodes walked", name, pass, calls, len(met))
						}
					}
				}
			}
		}
	}
}

func outcomeOf(f *filterResult, err error, nodes []*framework.NodeInfo) walkOutcome {
	o := walkOutcome{Feasible: append([]int(nil), f.feasibleIdx...), Processed: f.processed, Rejected: map[string]int{}}
	if err != nil {
		o.Err = err.Error()
	}
	for j, ni := range f.feasible {
		if ni != nodes[f.feasibleIdx[j]] {
			o.Err = fmt.Sprintf("feasible node %d is %s, its index says %s", j, ni.Node().Name, nodes[f.feasibleIdx[j]].Node().Name)
		}
	}
	for k, st := range f.rejected {
		if f.rejectedNodes[k] > 0 {
			o.Rejected[st.Plugin()+": "+st.Message()] += f.rejectedNodes[k]
		}
	}
	for _, ni := range f.potential {
		o.Potential = append(o.Potential, ni.Node().Name)
	}
	for _, ni := range f.diagnosed {
		o.DeviceRejected = append(o.DeviceRejected, ni.Node().Name)
	}
	for _, r := range f.rejectedList {
		o.Listed = append(o.Listed, r.Node)
	}
	return o
}

// nodeByNode is the plain filter pass: every node through the plugins,
// one after the other.
func nodeByNode(s *Scheduler, nodes []*framework.NodeInfo, plugins []framework.FilterPlugin, start int, keep bool) walkOutcome {
	n := len(nodes)
	want := s.numFeasibleNodesToFind(n)
	o := walkOutcome{Rejected: map[string]int{}}
	for k := 0; k < n && len(o.Feasible) < want; k++ {
		i := (start + k) % n
		var st *framework.Status
		for _, p := range plugins {
			if st = p.Filter(context.Background(), nil, nil, nodes[i]); st != nil {
				st = st.WithPlugin(p.Name())
				break
			}
		}
		switch {
		case st == nil:
			o.Feasible = append(o.Feasible, i)
		case st.Code() == framework.Error:
			o.Processed = k
			o.Err = pluginError(st.Plugin(), nodes[i].Node().Name, fmt.Errorf("running %q filter plugin: %w", st.Plugin(), framework.StatusError(st))).Error()
			return o
		default:
			o.Rejected[st.Plugin()+": "+st.Message()]++
			if st.Code() == framework.Unschedulable {
				o.Potential = append(o.Potential, nodes[i].Node().Name)
			}
			if st.Plugin() == dra.Name && len(o.DeviceRejected) < MaxDiagnosedNodes {
				o.DeviceRejected = append(o.DeviceRejected, nodes[i].Node().Name)
			}
			if keep {
				o.Listed = append(o.Listed, nodes[i].Node().Name)
			}
		}
		o.Processed = k + 1
	}
	return o
}

// inNodeOrder puts any list of nodes in index order, rotations of the
// node order (the filter walk's) and other orders alike.
func TestInNodeOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for round := range 500 {
		n := rng.IntN(12)
		var nodes []*framework.NodeInfo
		for i := range 3 * n {
			if rng.IntN(3) == 0 {
				ni := framework.NewNodeInfo(nil)
				ni.Index = i
				nodes = append(nodes, ni)
			}
		}
		switch rng.IntN(3) {
		case 0: // a rotation, as the walk meets them
			if len(nodes) > 0 {
				k := rng.IntN(len(nodes))
				nodes = append(nodes[k:], nodes[:k]...)
			}
		case 1:
			rng.Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
		}
		var before []int
		for _, ni := range nodes {
			before = append(before, ni.Index)
		}
		inNodeOrder(nodes)
		for i := 1; i < len(nodes); i++ {
			if nodes[i-1].Index >= nodes[i].Index {
				var got []int
				for _, ni := range nodes {
					got = append(got, ni.Index)
				}
				t.Fatalf("round %d: %v ordered as %v", round, before, got)
			}
		}
	}
}
