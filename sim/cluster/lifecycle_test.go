package cluster_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/result"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
)

func scenarios(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob("../../scenarios/*.yaml")
	if len(files) == 0 {
		t.Fatal("no scenarios")
	}
	return files
}

func loadScenario(t *testing.T, file string) *snapshot.Snapshot {
	t.Helper()
	res, err := load.Load([]string{file}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Snapshot
}

func export(t *testing.T, c *cluster.Cluster) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := c.WriteSnapshot(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestRemovePodUndoesScheduling: a replay followed by the removal of every
// pod it tried leaves the cluster a snapshot without those pods builds:
// claims made from templates deleted, shared claims deallocated, devices
// free, node classes as before.
func TestRemovePodUndoesScheduling(t *testing.T) {
	for _, f := range scenarios(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			snap := loadScenario(t, f)
			run, err := sim.Simulate(context.Background(), snap, sim.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range run.Result.Pods {
				if p.Phase == result.PhasePreempted {
					t.Skip("preemption deleted running pods")
				}
			}
			tried := map[string]bool{}
			for _, p := range run.Cluster.Queue {
				tried[p.Namespace+"/"+p.Name] = true
			}
			for _, p := range append([]*v1.Pod(nil), run.Cluster.Queue...) {
				if _, err := run.Cluster.RemovePod(p); err != nil {
					t.Fatalf("removing %s/%s: %v", p.Namespace, p.Name, err)
				}
			}
			without := *snap
			without.Pods = nil
			for _, p := range snap.Pods {
				if !tried[p.Namespace+"/"+p.Name] {
					without.Pods = append(without.Pods, p)
				}
			}
			fresh := cluster.Build(&without, dra.DefaultGates())
			if got, want := export(t, run.Cluster), export(t, fresh); !bytes.Equal(got, want) {
				t.Errorf("after removing the %d tried pods the cluster differs from one built without them:\ngot:\n%.3000s\nwant:\n%.3000s", len(tried), got, want)
			}
			if got, want := len(run.Cluster.DRA.AllocatedState().AllocatedDevices), len(fresh.DRA.AllocatedState().AllocatedDevices); got != want {
				t.Errorf("allocated devices: got %d, want %d", got, want)
			}
		})
	}
}

// TestJournalUndo: unscheduling every pod the replay placed, through a
// journal, and undoing it gives the cluster back byte for byte.
func TestJournalUndo(t *testing.T) {
	for _, f := range scenarios(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			run, err := sim.Simulate(context.Background(), loadScenario(t, f), sim.Options{})
			if err != nil {
				t.Fatal(err)
			}
			before := export(t, run.Cluster)
			allocated := len(run.Cluster.DRA.AllocatedState().AllocatedDevices)
			j := run.Cluster.NewJournal()
			for _, p := range run.Cluster.Queue {
				if p.Spec.NodeName == "" {
					continue
				}
				if err := j.Unschedule(p); err != nil {
					t.Fatal(err)
				}
			}
			if j.Len() > 0 && bytes.Equal(before, export(t, run.Cluster)) {
				t.Fatal("unscheduling changed nothing")
			}
			j.Undo()
			if after := export(t, run.Cluster); !bytes.Equal(before, after) {
				t.Errorf("the cluster differs after Undo:\nbefore:\n%.3000s\nafter:\n%.3000s", before, after)
			}
			if got := len(run.Cluster.DRA.AllocatedState().AllocatedDevices); got != allocated {
				t.Errorf("allocated devices after Undo: got %d, want %d", got, allocated)
			}
		})
	}
}
