package plugins

import (
	"context"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/framework"
	tu "github.com/drasim/drasim/sim/schedule/plugins/internal/testutil"
)

// BenchmarkFilterScore measures one pod's Filter+Score per node for each
// plugin on clusters of growing size (PreFilter/PreScore run once, outside
// the timed loop).
func BenchmarkFilterScore(b *testing.B) {
	for _, size := range []int{100, 1000, 5000} {
		var nodes []*v1.Node
		var pods []*v1.Pod
		for i := range size {
			name := fmt.Sprintf("n%05d", i)
			nodes = append(nodes, tu.MakeNode(name).CPU("32").Memory("128Gi").Label(v1.LabelTopologyZone, fmt.Sprintf("z%d", i%8)).
				Taint("soft", "", v1.TaintEffectPreferNoSchedule).Obj())
			for j := range 10 {
				pods = append(pods, tu.MakePod(fmt.Sprintf("%s-%d", name, j)).Label("app", fmt.Sprintf("a%d", j%3)).NodeName(name).Req("cpu", "1", "memory", "2Gi").Obj())
			}
		}
		infos := tu.NodeInfos(nodes, pods)
		lister := tu.NewLister(infos)
		pod := tu.MakePod("incoming").Label("app", "a1").Req("cpu", "2", "memory", "4Gi").
			Spread(2, v1.LabelTopologyZone, v1.DoNotSchedule, "app", "a1").
			Spread(1, v1.LabelHostname, v1.ScheduleAnyway, "app", "a1").
			PodAntiAffinity(tu.LabelTerm(v1.LabelHostname, "app", "a9")).Obj()
		ctx := context.Background()
		for _, pl := range defaultPlugins(b, lister) {
			state := framework.NewCycleState()
			filter, _ := pl.(framework.FilterPlugin)
			score, _ := pl.(framework.ScorePlugin)
			if pf, ok := pl.(framework.PreFilterPlugin); ok {
				if _, st := pf.PreFilter(ctx, state, pod, infos); st.IsSkip() {
					filter = nil
				} else if !st.IsSuccess() {
					b.Fatalf("%s PreFilter = %q, want success", pl.Name(), st.Message())
				}
			}
			if ps, ok := pl.(framework.PreScorePlugin); ok {
				if st := ps.PreScore(ctx, state, pod, infos); st.IsSkip() {
					score = nil
				} else if !st.IsSuccess() {
					b.Fatalf("%s PreScore = %q, want success", pl.Name(), st.Message())
				}
			}
			if filter == nil && score == nil {
				continue
			}
			// The timed loop must measure real work, not error paths.
			for _, ni := range infos {
				if filter != nil {
					if st := filter.Filter(ctx, state, pod, ni); st.Code() == framework.Error {
						b.Fatalf("%s Filter(%s) = error %q", pl.Name(), ni.Node().Name, st.Message())
					}
				}
				if score != nil {
					if _, st := score.Score(ctx, state, pod, ni); !st.IsSuccess() {
						b.Fatalf("%s Score(%s) = %q", pl.Name(), ni.Node().Name, st.Message())
					}
				}
			}
			b.Run(fmt.Sprintf("%s/nodes=%d", pl.Name(), size), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					ni := infos[i%len(infos)]
					if filter != nil {
						_ = filter.Filter(ctx, state, pod, ni)
					}
					if score != nil {
						_, _ = score.Score(ctx, state, pod, ni)
					}
				}
			})
		}
	}
}
