package cluster_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/generate"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/result"
	"github.com/drasim/drasim/sim/schedule"
	"github.com/drasim/drasim/sim/schedule/profile"
	"github.com/drasim/drasim/sim/snapshot"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
			for _, p := range run.Cluster.Queue() {
				tried[p.Namespace+"/"+p.Name] = true
			}
			for _, p := range append([]*v1.Pod(nil), run.Cluster.Queue()...) {
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
			fresh := cluster.Build(&without, feature.Defaults())
			if got, want := export(t, run.Cluster), export(t, fresh); !bytes.Equal(got, want) {
				t.Errorf("after removing the %d tried pods the cluster differs from one built without them:\ngot:\n%.3000s\nwant:\n%.3000s", len(tried), got, want)
			}
			if got, want := len(run.Cluster.DRA().AllocatedState().AllocatedDevices), len(fresh.DRA().AllocatedState().AllocatedDevices); got != want {
				t.Errorf("allocated devices: got %d, want %d", got, want)
			}
		})
	}
}

// TestForkRevert: unscheduling every pod the replay placed, on a fork,
// and reverting it gives the cluster back byte for byte.
func TestForkRevert(t *testing.T) {
	for _, f := range scenarios(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			run, err := sim.Simulate(context.Background(), loadScenario(t, f), sim.Options{})
			if err != nil {
				t.Fatal(err)
			}
			before := export(t, run.Cluster)
			allocated := len(run.Cluster.DRA().AllocatedState().AllocatedDevices)
			run.Cluster.Fork()
			unscheduled := 0
			for _, p := range run.Cluster.Queue() {
				if p.Spec.NodeName == "" {
					continue
				}
				if err := run.Cluster.Unschedule(p); err != nil {
					t.Fatal(err)
				}
				unscheduled++
			}
			if unscheduled > 0 && bytes.Equal(before, export(t, run.Cluster)) {
				t.Fatal("unscheduling changed nothing")
			}
			run.Cluster.Revert()
			if after := export(t, run.Cluster); !bytes.Equal(before, after) {
				t.Errorf("the cluster differs after Revert:\nbefore:\n%.3000s\nafter:\n%.3000s", before, after)
			}
			if got := len(run.Cluster.DRA().AllocatedState().AllocatedDevices); got != allocated {
				t.Errorf("allocated devices after Revert: got %d, want %d", got, allocated)
			}
		})
	}
}

// TestAnswerFromRemovedNode: the allocator's answer for a class of equal
// nodes is computed on one node and translated for the others; after that
// node is removed, answers cached on it must still name the pools of the
// node they are used for.
func TestAnswerFromRemovedNode(t *testing.T) {
	snap, err := generate.Generate(generate.Options{Seed: 1, Nodes: 3, Pods: 2, Profiles: map[string]int{generate.ProfileL4: 1}, Workloads: map[string]int{generate.WorkloadInference: 1}})
	if err != nil {
		t.Fatal(err)
	}
	first, second := snap.Pods[0], snap.Pods[1]
	only := *snap
	only.Pods = []*v1.Pod{first}
	c := cluster.Build(&only, feature.Defaults())
	p := dra.New(c.DRA())
	prof, err := profile.New(c, p, profile.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s := schedule.New(c, prof, schedule.Options{})
	// The nodes are equal: the first cycle asks the allocator on the
	// first node only, and caches the answer for the class.
	asked := c.Nodes()[0].Node().Name
	pod := c.Queue()[0]
	a := s.SchedulePod(context.Background(), pod)
	if a.Node == "" {
		t.Fatalf("the first pod does not fit: %s", a.Message)
	}
	if _, err := c.RemovePod(pod); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.RemoveNode(asked); err != nil {
		t.Fatal(err)
	}
	next := second.DeepCopy()
	if err := c.AddPod(next); err != nil {
		t.Fatal(err)
	}
	b := s.SchedulePod(context.Background(), next)
	if b.Node == "" || b.Node == asked {
		t.Fatalf("the second pod went to %q, want a remaining node", b.Node)
	}
	for _, claim := range c.DRA().ClaimsInUse(next) {
		for _, r := range claim.Status.Allocation.Devices.Results {
			if r.Pool != b.Node {
				t.Errorf("device %s/%s/%s allocated for a pod on node %s: the pool is not the node's", r.Driver, r.Pool, r.Device, b.Node)
			}
		}
	}
}

// TestRevertKeepsPodOrder: after Revert every node lists its pods in the
// order it had.
func TestRevertKeepsPodOrder(t *testing.T) {
	snap, err := generate.Generate(generate.Options{Seed: 2, Nodes: 4, Pods: 60, Profiles: map[string]int{generate.ProfileCPU: 1}, Workloads: map[string]int{generate.WorkloadCPU: 1}})
	if err != nil {
		t.Fatal(err)
	}
	run, err := sim.Simulate(context.Background(), snap, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	order := func() []string {
		var out []string
		for _, ni := range run.Cluster.Nodes() {
			for _, pi := range ni.Pods {
				out = append(out, ni.Node().Name+"/"+pi.Pod.Name)
			}
		}
		return out
	}
	before := order()
	run.Cluster.Fork()
	for _, ni := range run.Cluster.Nodes() {
		// Every other pod, from the front: each removal moves the last
		// pod into the gap.
		for i, pi := range append([]*framework.PodInfo(nil), ni.Pods...) {
			if i%2 == 0 {
				if err := run.Cluster.Unschedule(pi.Pod); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	run.Cluster.Revert()
	if diff := cmp.Diff(before, order()); diff != "" {
		t.Errorf("pod order after Revert (-before +after):\n%s", diff)
	}
}

// TestPodOrderAfterRemovals: a pod added after others were removed comes
// after every pod still in the cluster, and no two pods share a place. A
// place was once the number of pods known, so after removals a new pod
// tied with an old one, and the pods the timeline's autoscaler loop sorts
// by this order came out in map order: the same run gave two outputs.
func TestPodOrderAfterRemovals(t *testing.T) {
	snap := &snapshot.Snapshot{}
	for _, name := range []string{"a", "b", "c"} {
		snap.Pods = append(snap.Pods, &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}})
	}
	c := cluster.Build(snap, feature.Gates{})
	byName := map[string]*v1.Pod{}
	for _, p := range c.Pods() {
		byName[p.Name] = p
	}
	add := func(name string) *v1.Pod {
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}
		if err := c.AddPod(p); err != nil {
			t.Fatal(err)
		}
		byName[name] = p
		return p
	}
	add("d")
	for _, name := range []string{"a", "b"} {
		if _, err := c.RemovePod(byName[name]); err != nil {
			t.Fatal(err)
		}
		delete(byName, name)
	}
	e := add("e")
	f := c.Clone()
	g := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "g", Namespace: "ns"}}
	if err := f.AddPod(g); err != nil {
		t.Fatal(err)
	}
	seen := map[int]string{}
	for name, p := range byName {
		o := c.Order(p)
		if other, ok := seen[o]; ok {
			t.Errorf("pods %s and %s share place %d", name, other, o)
		}
		seen[o] = name
		if p != e && o >= c.Order(e) {
			t.Errorf("pod %s (place %d) is not before the pod added last (place %d)", name, o, c.Order(e))
		}
		if f.Order(g) <= f.Order(p) {
			t.Errorf("on a clone, the pod added last (place %d) is not after %s (place %d)", f.Order(g), name, f.Order(p))
		}
	}
}
