package autoscale

import (
	"context"
	"strings"
	"testing"

	"github.com/drasim/drasim/internal/build"
	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/result"
)

// A gang of three pods of two GPUs on a cluster of one two-GPU node:
// cluster-autoscaler does not know pod groups and scales for the pods one
// by one. With room for two more nodes the gang fits on the three; with
// room for one, CA adds it (a pod would fit there), the gang still does
// not fit, the loop stops for lack of progress and the plan warns.
func TestGangScaleUp(t *testing.T) {
	gates, err := feature.Parse("GenericWorkload=true")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		max    int32
		phase  string
		stop   StopReason
		warned bool
	}{{2, result.PodGroupScheduled, StopNoPending, false}, {1, result.PodGroupUnschedulable, StopNoProgress, true}} {
		snap := build.NewCluster().Node("n1", 8, 2).
			PodGroup("train", 3, 0).
			Pod(build.PodSpec{Name: "train-0", CPU: "1", GPUs: 2, PodGroup: "train"}).
			Pod(build.PodSpec{Name: "train-1", CPU: "1", GPUs: 2, PodGroup: "train"}).
			Pod(build.PodSpec{Name: "train-2", CPU: "1", GPUs: 2, PodGroup: "train"}).
			Snapshot()
		snap.NodeGroups = append(snap.NodeGroups, makeGroup("gpu").Max(tc.max).GPUs(2, 0).Obj())
		out, err := Run(context.Background(), snap, Options{Sim: sim.Options{Gates: gates}})
		if err != nil {
			t.Fatal(err)
		}
		p := out.Plan
		if len(p.Result.PodGroups) != 1 || p.Result.PodGroups[0].Phase != tc.phase {
			t.Errorf("max %d: pod groups %+v, want train %s", tc.max, p.Result.PodGroups, tc.phase)
		}
		if p.Stop.Reason != tc.stop || p.NodesAdded != int(tc.max) {
			t.Errorf("max %d: stopped %s after adding %d nodes, want %s after %d", tc.max, p.Stop.Reason, p.NodesAdded, tc.stop, tc.max)
		}
		warned := false
		for _, w := range p.Warnings {
			warned = warned || strings.Contains(w, "cluster-autoscaler does not know pod groups")
		}
		if warned != tc.warned {
			t.Errorf("max %d: warned %v, want %v: %v", tc.max, warned, tc.warned, p.Warnings)
		}
	}
}
