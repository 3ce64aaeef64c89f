package plugins

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/plugins/config"
	"github.com/drasim/drasim/sim/schedule/plugins/imagelocality"
	tu "github.com/drasim/drasim/sim/schedule/plugins/internal/testutil"
	"github.com/drasim/drasim/sim/schedule/plugins/interpodaffinity"
	"github.com/drasim/drasim/sim/schedule/plugins/nodeaffinity"
	"github.com/drasim/drasim/sim/schedule/plugins/nodename"
	"github.com/drasim/drasim/sim/schedule/plugins/nodeports"
	"github.com/drasim/drasim/sim/schedule/plugins/noderesources"
	"github.com/drasim/drasim/sim/schedule/plugins/nodeunschedulable"
	"github.com/drasim/drasim/sim/schedule/plugins/podtopologyspread"
	"github.com/drasim/drasim/sim/schedule/plugins/tainttoleration"
)

// defaultPlugins builds every plugin of this tree with default args.
func defaultPlugins(t testing.TB, lister framework.NodeLister) []framework.Plugin {
	t.Helper()
	must := func(p framework.Plugin, err error) framework.Plugin {
		if err != nil {
			t.Fatalf("building plugin: %v", err)
		}
		return p
	}
	return []framework.Plugin{
		nodename.New(), nodeunschedulable.New(), tainttoleration.New(),
		must(nodeaffinity.New(config.NodeAffinityArgs{})),
		nodeports.New(),
		must(noderesources.NewFit(config.NodeResourcesFitArgs{}, nil, nil)),
		must(podtopologyspread.New(config.PodTopologySpreadArgs{}, lister, nil)),
		must(interpodaffinity.New(config.InterPodAffinityArgs{}, lister, nil)),
		must(noderesources.NewBalancedAllocation(config.NodeResourcesBalancedAllocationArgs{}, nil, nil)),
		must(imagelocality.New(lister)),
	}
}

// TestFilterAndScoreConcurrently runs Filter and Score for all nodes at once
// (run with -race) and checks the outcome equals a sequential run.
func TestFilterAndScoreConcurrently(t *testing.T) {
	var nodes []*v1.Node
	var pods []*v1.Pod
	for i := range 300 {
		name := fmt.Sprintf("n%03d", i)
		w := tu.MakeNode(name).CPU("8").Memory("16Gi").Label(v1.LabelTopologyZone, fmt.Sprintf("z%d", i%5))
		if i%3 == 0 {
			w.Image(300<<20, "app:1")
		}
		if i%7 == 0 {
			w.Taint("dedicated", "x", v1.TaintEffectNoSchedule)
		}
		if i%11 == 0 {
			w.Taint("soft", "", v1.TaintEffectPreferNoSchedule)
		}
		nodes = append(nodes, w.Obj())
		for j := range i % 4 {
			p := tu.MakePod(fmt.Sprintf("%s-p%d", name, j)).Label("app", "web").NodeName(name).Req("cpu", "2", "memory", "3Gi")
			if j == 1 {
				p.PodAntiAffinity(tu.LabelTerm(v1.LabelHostname, "app", "db"))
			}
			pods = append(pods, p.Obj())
		}
	}
	infos := tu.NodeInfos(nodes, pods)
	lister := tu.NewLister(infos)
	pod := tu.MakePod("incoming").Label("app", "db").Req("cpu", "3", "memory", "4Gi").Image("app:1").
		Spread(3, v1.LabelTopologyZone, v1.DoNotSchedule, "app", "db").
		Spread(1, v1.LabelHostname, v1.ScheduleAnyway, "app", "web").
		PreferredPodAntiAffinity(5, tu.LabelTerm(v1.LabelHostname, "app", "web")).
		PreferredNodeAffinity(3, v1.LabelTopologyZone, "z1").Obj()

	// Plugins the scenario leaves with nothing to decide.
	inert := map[string]bool{nodename.Name: true, nodeunschedulable.Name: true, nodeports.Name: true}
	ctx := context.Background()
	for _, pl := range defaultPlugins(t, lister) {
		t.Run(pl.Name(), func(t *testing.T) {
			state := framework.NewCycleState()
			if pf, ok := pl.(framework.PreFilterPlugin); ok {
				if _, st := pf.PreFilter(ctx, state, pod, infos); st.IsSkip() {
					state.SkipFilterPlugins[pl.Name()] = true
				} else if !st.IsSuccess() {
					t.Fatalf("PreFilter = %q", st.Message())
				}
			}
			if ps, ok := pl.(framework.PreScorePlugin); ok {
				if st := ps.PreScore(ctx, state, pod, infos); st.IsSkip() {
					state.SkipScorePlugins[pl.Name()] = true
				} else if !st.IsSuccess() {
					t.Fatalf("PreScore = %q", st.Message())
				}
			}
			type outcome struct {
				Filter tu.FilterResult
				Score  int64
			}
			run := func(ni *framework.NodeInfo) outcome {
				var o outcome
				if f, ok := pl.(framework.FilterPlugin); ok && !state.SkipFilterPlugins[pl.Name()] {
					o.Filter = tu.Result(f.Filter(ctx, state, pod, ni))
				}
				if s, ok := pl.(framework.ScorePlugin); ok && !state.SkipScorePlugins[pl.Name()] {
					sc, st := s.Score(ctx, state, pod, ni)
					if !st.IsSuccess() {
						t.Errorf("Score(%s) = %q", ni.Node().Name, st.Message())
					}
					o.Score = sc
				}
				return o
			}
			sequential := make([]outcome, len(infos))
			for i, ni := range infos {
				sequential[i] = run(ni)
			}
			concurrent := make([]outcome, len(infos))
			var wg sync.WaitGroup
			for i, ni := range infos {
				wg.Add(1)
				go func() {
					defer wg.Done()
					concurrent[i] = run(ni)
				}()
			}
			wg.Wait()
			if diff := cmp.Diff(sequential, concurrent); diff != "" {
				t.Errorf("concurrent run differs from sequential (-sequential +concurrent):\n%s", diff)
			}
			if inert[pl.Name()] {
				return
			}
			varied := false
			for _, o := range sequential {
				if o.Filter.Code != framework.Success || o.Score != sequential[0].Score {
					varied = true
					break
				}
			}
			if !varied {
				t.Errorf("every node passed with the same score %d; the scenario should exercise %s", sequential[0].Score, pl.Name())
			}
		})
	}
}
