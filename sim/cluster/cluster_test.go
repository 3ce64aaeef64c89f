package cluster_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/drasim/drasim/internal/build"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/feature"
)

func names(pods []*v1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}

func nodeNames(c *cluster.Cluster) []string {
	out := make([]string, len(c.Nodes()))
	for i, n := range c.Nodes() {
		out[i] = n.Node().Name
	}
	return out
}

func inZone(zone string) func(*v1.Node) {
	return func(n *v1.Node) { n.Labels[v1.LabelTopologyZone] = zone }
}

func createdAt(sec int) func(*v1.Pod) {
	return func(p *v1.Pod) { p.CreationTimestamp = metav1.NewTime(time.Unix(int64(1_700_000_000+sec), 0)) }
}

// The node list is kube's node tree: nodes by name within their zone, the
// zones interleaved round-robin in the order their first node (by name)
// appears, whatever order the snapshot lists them in.
func TestBuildOrdersNodesAsKubesNodeTree(t *testing.T) {
	b := build.NewCluster()
	for _, n := range []struct{ name, zone string }{
		{"c-2", "zc"}, {"a-3", "za"}, {"b-1", "zb"}, {"a-1", "za"}, {"c-1", "zc"}, {"a-2", "za"},
	} {
		b.Node(n.name, 4, 0)
		s := b.Snapshot()
		inZone(n.zone)(s.Nodes[len(s.Nodes)-1])
	}
	c := cluster.Build(b.Snapshot(), feature.Defaults())
	want := []string{"a-1", "b-1", "c-1", "a-2", "c-2", "a-3"}
	if diff := cmp.Diff(want, nodeNames(c)); diff != "" {
		t.Errorf("node order (-want +got):\n%s", diff)
	}
	for i, n := range c.Nodes() {
		if n.Index != i {
			t.Errorf("node %s at position %d has Index %d", n.Node().Name, i, n.Index)
		}
	}
}

// The pending pods are queued as PrioritySort orders them: priority first,
// then the earlier creation timestamp, then the snapshot's order.
func TestBuildQueuesByPriorityThenCreationThenSnapshotOrder(t *testing.T) {
	snap := build.NewCluster().Node("n1", 64, 0).
		Pod(build.PodSpec{Name: "low-early", CPU: "1", Priority: 1, Mutate: createdAt(1)}).
		Pod(build.PodSpec{Name: "high-late", CPU: "1", Priority: 10, Mutate: createdAt(9)}).
		Pod(build.PodSpec{Name: "high-early", CPU: "1", Priority: 10, Mutate: createdAt(2)}).
		Pod(build.PodSpec{Name: "mid-tie-b", CPU: "1", Priority: 5, Mutate: createdAt(4)}).
		Pod(build.PodSpec{Name: "mid-tie-a", CPU: "1", Priority: 5, Mutate: createdAt(4)}).
		Pod(build.PodSpec{Name: "bound", CPU: "1", Priority: 100, Node: "n1"}).
		Pod(build.PodSpec{Name: "gated", CPU: "1", Priority: 100, Mutate: func(p *v1.Pod) {
			p.Spec.SchedulingGates = []v1.PodSchedulingGate{{Name: "wait"}}
		}}).
		Pod(build.PodSpec{Name: "other-scheduler", CPU: "1", Priority: 100, Mutate: func(p *v1.Pod) { p.Spec.SchedulerName = "custom" }}).
		Snapshot()
	c := cluster.Build(snap, feature.Defaults())
	want := []string{"high-early", "high-late", "mid-tie-b", "mid-tie-a", "low-early"}
	if diff := cmp.Diff(want, names(c.Queue())); diff != "" {
		t.Errorf("queue (-want +got):\n%s", diff)
	}
	for _, l := range []struct {
		what string
		got  []*v1.Pod
		want []string
	}{{"Bound", c.Bound(), []string{"bound"}}, {"Gated", c.Gated(), []string{"gated"}}, {"Skipped", c.Skipped(), []string{"other-scheduler"}}} {
		if diff := cmp.Diff(l.want, names(l.got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", l.what, diff)
		}
	}
}

// A clone is independent: what is done to it (a pod placed, a pod
// deleted, a pod queued, a node added, a claim allocated) leaves the
// cluster it was cloned from as it was, and the other way round.
func TestCloneIsIndependent(t *testing.T) {
	snap := build.NewCluster().Node("n1", 8, 2).Node("n2", 8, 2).
		Pod(build.PodSpec{Name: "running", CPU: "2", GPUs: 1, Node: "n1"}).
		Pod(build.PodSpec{Name: "pending", CPU: "1", GPUs: 1}).
		PDB("pdb", "x", 1).
		Snapshot()
	c := cluster.Build(snap, feature.Defaults())
	n1CPU := c.Node("n1").Requested.MilliCPU
	claimsBefore := len(c.DRA().Claims())

	f := c.Clone()
	if f.Node("n1") == c.Node("n1") || f.Queue()[0] == c.Queue()[0] || f.PDBs()[0] == c.PDBs()[0] {
		t.Fatal("the fork shares a node view, a pod or a PDB with the cluster")
	}
	// Place the fork's pending pod on n2 and allocate its claim there.
	pending := f.Queue()[0]
	pending.Spec.NodeName = "n2"
	f.Node("n2").AddPod(pending)
	claimName := *pending.Status.ResourceClaimStatuses[0].ResourceClaimName
	claim, err := f.DRA().Claim("default", claimName)
	if err != nil {
		t.Fatalf("the fork's claim %s: %v", claimName, err)
	}
	alloc := &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{
		{Request: "gpus", Driver: build.Driver, Pool: "n2", Device: "gpu-0"},
	}}}
	if err := f.DRA().Allocate(claim, alloc); err != nil {
		t.Fatalf("allocating %s in the fork: %v", claimName, err)
	}
	f.DeletePod(f.Bound()[0])
	f.AddPending(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: "default"}})
	f.AddNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n3", Labels: map[string]string{}}}, nil)
	f.PDBs()[0].Status.DisruptionsAllowed = 0

	if got := c.Node("n1").Requested.MilliCPU; got != n1CPU {
		t.Errorf("n1 in the cluster: requested %dm CPU after the fork deleted its pod, want %dm", got, n1CPU)
	}
	if n := len(c.Node("n2").Pods); n != 0 {
		t.Errorf("n2 in the cluster holds %d pods after the fork placed one, want 0", n)
	}
	if c.Queue()[0].Spec.NodeName != "" {
		t.Errorf("the cluster's pending pod got node %q from the fork", c.Queue()[0].Spec.NodeName)
	}
	orig, err := c.DRA().Claim("default", claimName)
	if err != nil {
		t.Fatal(err)
	}
	if orig.Status.Allocation != nil || orig == claim {
		t.Errorf("claim %s in the cluster: allocated %v, the fork's copy %v; want unallocated and a copy of its own", claimName, orig.Status.Allocation != nil, orig == claim)
	}
	if len(c.DRA().Claims()) != claimsBefore {
		t.Errorf("the cluster has %d claims after the fork's changes, want %d", len(c.DRA().Claims()), claimsBefore)
	}
	if diff := cmp.Diff([]string{"n1", "n2"}, nodeNames(c)); diff != "" {
		t.Errorf("the cluster's nodes after the fork added one (-want +got):\n%s", diff)
	}
	if c.Node("n3") != nil {
		t.Error("the cluster finds the fork's new node n3")
	}
	if diff := cmp.Diff([]string{"pending"}, names(c.Queue())); diff != "" {
		t.Errorf("the cluster's queue after the fork queued a probe (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"running"}, names(c.Bound())); diff != "" {
		t.Errorf("the cluster's bound pods after the fork deleted one (-want +got):\n%s", diff)
	}
	if c.PDBs()[0].Status.DisruptionsAllowed != 1 {
		t.Errorf("the cluster's PDB allows %d disruptions after the fork changed its copy, want 1", c.PDBs()[0].Status.DisruptionsAllowed)
	}
	// And the fork did change.
	if len(f.Node("n2").Pods) != 1 || len(f.Node("n1").Pods) != 0 || f.Node("n3") == nil {
		t.Errorf("the fork: n1 %d pods, n2 %d pods, n3 %v; want 0, 1 and a node", len(f.Node("n1").Pods), len(f.Node("n2").Pods), f.Node("n3") != nil)
	}
}

// CloneWithout loses nodes on a copy: their pods are queued again as
// replacements created after every pod of the cluster (DaemonSet pods go
// with the node), their template claims are deallocated, the node tree
// interleaves the remaining zones anew, and the cluster is only read.
func TestCloneWithoutRequeuesThePodsOfTheLostNodes(t *testing.T) {
	b := build.NewCluster()
	for _, n := range []struct{ name, zone string }{{"a-1", "za"}, {"a-2", "za"}, {"b-1", "zb"}, {"b-2", "zb"}} {
		b.Node(n.name, 8, 2)
		s := b.Snapshot()
		inZone(n.zone)(s.Nodes[len(s.Nodes)-1])
	}
	snap := b.
		Pod(build.PodSpec{Name: "web", CPU: "1", GPUs: 1, Node: "a-1", Mutate: createdAt(5)}).
		Pod(build.PodSpec{Name: "agent", CPU: "1", Node: "a-1", Mutate: func(p *v1.Pod) {
			createdAt(1)(p)
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", UID: "ds", Controller: ptr.To(true)}}
		}}).
		Pod(build.PodSpec{Name: "db", CPU: "1", Node: "b-1", Mutate: createdAt(3)}).
		Pod(build.PodSpec{Name: "queued", CPU: "1", Mutate: createdAt(7)}).
		Snapshot()
	c := cluster.Build(snap, feature.Defaults())
	webClaim := "web-gpus" // allocated to web, reserved for it alone
	if claim, _ := c.DRA().Claim("default", webClaim); claim == nil || claim.Status.Allocation == nil {
		t.Fatalf("fixture: web's claim %s should be allocated", webClaim)
	}

	f, lost := c.CloneWithout([]string{"a-1"})
	if diff := cmp.Diff([]string{"web"}, names(lost.Requeued)); diff != "" {
		t.Errorf("requeued (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"agent"}, names(lost.Dropped)); diff != "" {
		t.Errorf("dropped (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"web"}, names(f.Queue())); diff != "" {
		t.Errorf("the fork's queue holds only the replacements (-want +got):\n%s", diff)
	}
	web := lost.Requeued[0]
	if web.Spec.NodeName != "" || web.Status.Phase != v1.PodPending {
		t.Errorf("the replacement: node %q, phase %q; want no node, Pending", web.Spec.NodeName, web.Status.Phase)
	}
	if want := time.Unix(1_700_000_000+7+1, 0); !web.CreationTimestamp.Time.Equal(want) {
		t.Errorf("the replacement was created at %v, want a second after the latest pod (%v)", web.CreationTimestamp.Time, want)
	}
	if claim, _ := f.DRA().Claim("default", webClaim); claim == nil || claim.Status.Allocation != nil || len(claim.Status.ReservedFor) != 0 {
		t.Errorf("the fork's claim %s: want it released by the lost pod and deallocated, nobody else using it", webClaim)
	}
	if diff := cmp.Diff([]string{"a-2", "b-1", "b-2"}, nodeNames(f)); diff != "" {
		t.Errorf("the fork's node tree (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"db"}, names(f.Bound())); diff != "" {
		t.Errorf("the fork's bound pods (-want +got):\n%s", diff)
	}
	// The cluster itself is untouched.
	if diff := cmp.Diff([]string{"a-1", "b-1", "a-2", "b-2"}, nodeNames(c)); diff != "" {
		t.Errorf("the cluster's nodes (-want +got):\n%s", diff)
	}
	if c.Bound()[0].Spec.NodeName != "a-1" || len(c.Node("a-1").Pods) != 2 {
		t.Errorf("the cluster's a-1 lost its pods to the fork")
	}
	if claim, _ := c.DRA().Claim("default", webClaim); claim.Status.Allocation == nil || len(claim.Status.ReservedFor) != 1 {
		t.Errorf("the cluster's claim %s was released or deallocated by the fork", webClaim)
	}
	if n := c.Requeued([]string{"a-1"}); n != 1 {
		t.Errorf("Requeued(a-1) = %d, want 1 (the DaemonSet pod goes with its node)", n)
	}
}

// NodeChanges tells a cache kept across cycles which nodes changed since
// it last asked, in order; a position it never had, or one the log no
// longer reaches, means "look at every node".
func TestNodeChanges(t *testing.T) {
	snap := build.NewCluster().Node("n1", 8, 0).Node("n2", 8, 0).Node("n3", 8, 0).
		Pod(build.PodSpec{Name: "p", CPU: "1"}).Snapshot()
	c := cluster.Build(snap, feature.Defaults())
	changed, pos, ok := c.NodeChanges(0)
	if ok || changed != nil {
		t.Fatalf("NodeChanges(0): want (nil, _, false), got (%v, %d, %v)", changed, pos, ok)
	}
	if changed, _, ok := c.NodeChanges(pos); !ok || len(changed) != 0 {
		t.Fatalf("NodeChanges right after asking: want no change, got (%v, %v)", changed, ok)
	}
	p := c.Queue()[0]
	p.Spec.NodeName = "n3"
	c.Node("n3").AddPod(p)
	if err := c.Node("n3").RemovePod(p); err != nil {
		t.Fatal(err)
	}
	c.Node("n1").AddPod(p)
	changed, next, ok := c.NodeChanges(pos)
	if !ok {
		t.Fatal("NodeChanges after three changes: want ok")
	}
	if diff := cmp.Diff([]int32{2, 2, 0}, changed); diff != "" {
		t.Errorf("changed node indexes (-want +got):\n%s", diff)
	}
	if next != pos+3 {
		t.Errorf("next position: want %d, got %d", pos+3, next)
	}
}

// Revert takes back, newest first, every change a fork recorded on the
// live cluster: a node added, a node's object replaced, a pod bound with
// its claim allocated, and what a nested fork recorded and its Commit
// handed over (a pod unscheduled). After Revert the cluster exports the
// same snapshot as before, and no fork is open.
func TestRevertTakesBackEveryKindOfChange(t *testing.T) {
	snap := build.NewCluster().Node("n1", 8, 2).Node("n2", 8, 2).
		Pod(build.PodSpec{Name: "running", CPU: "2", GPUs: 1, Node: "n1"}).
		Pod(build.PodSpec{Name: "pending", CPU: "1", GPUs: 1}).
		Snapshot()
	c := cluster.Build(snap, feature.Defaults())
	before := export(t, c)
	n1 := c.Node("n1").Node()
	allocated := c.DRA().AllocatedState().AllocatedDevices.Len()

	c.Fork()
	c.AddNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n3", Labels: map[string]string{}}}, nil)
	tainted := n1.DeepCopy()
	tainted.Spec.Taints = []v1.Taint{{Key: "k", Effect: v1.TaintEffectNoSchedule}}
	c.SetNode("n1", tainted)
	pending := c.Queue()[0]
	claim, err := c.DRA().Claim("default", *pending.Status.ResourceClaimStatuses[0].ResourceClaimName)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Bind(pending, func() error {
		alloc := &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{
			{Request: "gpus", Driver: build.Driver, Pool: "n2", Device: "gpu-0"},
		}}}
		if err := c.DRA().Allocate(claim, alloc); err != nil {
			return err
		}
		c.DRA().Reserve(claim, pending)
		pending.Spec.NodeName = "n2"
		c.Node("n2").AddPod(pending)
		return nil
	}); err != nil {
		t.Fatalf("Bind: %v", err)
	}
	c.Fork()
	if err := c.Unschedule(c.Bound()[0]); err != nil {
		t.Fatalf("Unschedule: %v", err)
	}
	c.Commit()
	if c.Forks() != 1 {
		t.Fatalf("after the nested fork's Commit: %d forks open, want 1", c.Forks())
	}
	if bytes.Equal(before, export(t, c)) || c.Node("n3") == nil || c.Node("n1").Node() != tainted {
		t.Fatal("fixture: the changes should show in the cluster")
	}

	c.Revert()
	if after := export(t, c); !bytes.Equal(before, after) {
		t.Errorf("the cluster after Revert exports a different snapshot:\n%s", cmp.Diff(string(before), string(after)))
	}
	if c.Node("n3") != nil || c.Node("n1").Node() != n1 {
		t.Errorf("after Revert: node n3 present %v, n1 its old object %v; want false, true", c.Node("n3") != nil, c.Node("n1").Node() == n1)
	}
	if diff := cmp.Diff([]string{"n1", "n2"}, nodeNames(c)); diff != "" {
		t.Errorf("nodes after Revert (-want +got):\n%s", diff)
	}
	if claim.Status.Allocation != nil || len(claim.Status.ReservedFor) != 0 || pending.Spec.NodeName != "" {
		t.Errorf("after Revert: the pending pod's claim allocated %v, reserved for %d, pod on %q; want none", claim.Status.Allocation != nil, len(claim.Status.ReservedFor), pending.Spec.NodeName)
	}
	if got := c.DRA().AllocatedState().AllocatedDevices.Len(); got != allocated {
		t.Errorf("allocated devices after Revert: %d, want %d", got, allocated)
	}
	if c.Bound()[0].Spec.NodeName != "n1" || len(c.Node("n1").Pods) != 1 || len(c.Node("n2").Pods) != 0 {
		t.Errorf("after Revert: running on %q, n1 %d pods, n2 %d pods; want n1, 1, 0", c.Bound()[0].Spec.NodeName, len(c.Node("n1").Pods), len(c.Node("n2").Pods))
	}
	if c.Forks() != 0 {
		t.Errorf("%d forks open after Revert, want 0", c.Forks())
	}
}

// A nested fork's Revert takes back its own changes only.
func TestNestedRevertLeavesTheParentsChanges(t *testing.T) {
	snap := build.NewCluster().Node("n1", 8, 0).Pod(build.PodSpec{Name: "running", CPU: "2", Node: "n1"}).Snapshot()
	c := cluster.Build(snap, feature.Defaults())
	c.Fork()
	c.AddNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n2", Labels: map[string]string{}}}, nil)
	c.Fork()
	if err := c.Unschedule(c.Bound()[0]); err != nil {
		t.Fatal(err)
	}
	c.Revert()
	if c.Bound()[0].Spec.NodeName != "n1" || c.Node("n2") == nil || c.Forks() != 1 {
		t.Errorf("after the nested fork's Revert: running on %q, n2 present %v, %d forks open; want n1, true, 1", c.Bound()[0].Spec.NodeName, c.Node("n2") != nil, c.Forks())
	}
	c.Revert()
	if c.Node("n2") != nil {
		t.Error("after the parent's Revert: n2 is still there")
	}
}

// Committing the outermost fork keeps its changes for good: a later fork's
// Revert does not take them back, nor does a Revert with no fork open.
func TestCommitOfTheOutermostForkKeepsItsChanges(t *testing.T) {
	snap := build.NewCluster().Node("n1", 8, 0).Pod(build.PodSpec{Name: "running", CPU: "2", Node: "n1"}).Snapshot()
	c := cluster.Build(snap, feature.Defaults())
	c.Fork()
	c.AddNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n2", Labels: map[string]string{}}}, nil)
	c.Commit()
	c.Fork()
	if err := c.Unschedule(c.Bound()[0]); err != nil {
		t.Fatal(err)
	}
	c.Revert()
	c.Revert() // no fork open: nothing to take back
	if c.Node("n2") == nil || c.Bound()[0].Spec.NodeName != "n1" || c.Forks() != 0 {
		t.Errorf("n2 present %v, running on %q, %d forks open; want true, n1, 0", c.Node("n2") != nil, c.Bound()[0].Spec.NodeName, c.Forks())
	}
}

// WithForkedCluster closes the fork it opens on every way out: it commits
// when the function asks to and succeeds, and reverts when it declines,
// fails or panics.
func TestWithForkedClusterAlwaysCloses(t *testing.T) {
	addNode := func(c *cluster.Cluster, name string) {
		c.AddNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}}}, nil)
	}
	fail := errors.New("failed")
	for _, tc := range []struct {
		name     string
		commit   bool
		err      error
		panics   bool
		wantNode bool
	}{
		{name: "commit", commit: true, wantNode: true},
		{name: "decline", commit: false},
		{name: "commit, but fail", commit: true, err: fail},
		{name: "panic", commit: true, panics: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cluster.Build(build.NewCluster().Node("n1", 8, 0).Snapshot(), feature.Defaults())
			c.Fork() // an enclosing fork, which WithForkedCluster leaves open
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil && !tc.panics {
						panic(r)
					}
				}()
				err = cluster.WithForkedCluster(c, func() (bool, error) {
					addNode(c, "n2")
					if tc.panics {
						panic("boom")
					}
					return tc.commit, tc.err
				})
			}()
			if !errors.Is(err, tc.err) {
				t.Errorf("error: want %v, got %v", tc.err, err)
			}
			if got := c.Node("n2") != nil; got != tc.wantNode || c.Forks() != 1 {
				t.Errorf("n2 present %v, %d forks open; want %v, 1", got, c.Forks(), tc.wantNode)
			}
			c.Revert()
			if c.Node("n2") != nil {
				t.Error("after the enclosing fork's Revert: n2 is still there")
			}
		})
	}
}

// TestEditsCountOnlyInPlaceEdits: pods that arrive, are bound or are
// deleted change the cluster's Version but not its Edits, which only
// the in-place edits made through EditPod move (caches of what pod
// objects say, such as the autoscaler's emptiness verdicts, follow the
// pods themselves and stay valid through the rest).
func TestEditsCountOnlyInPlaceEdits(t *testing.T) {
	snap := build.NewCluster().Node("n1", 8, 0).Pod(build.PodSpec{Name: "p", CPU: "1"}).Snapshot()
	c := cluster.Build(snap, feature.Defaults())
	edits, version := c.Edits(), c.Version()
	arrived := c.Queue()[0].DeepCopy()
	arrived.Name, arrived.UID = "q", "q"
	c.AddPending(arrived)
	if err := c.AddPod(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "default"}, Spec: v1.PodSpec{NodeName: "n1"}}); err != nil {
		t.Fatal(err)
	}
	c.DeletePod(arrived)
	if c.Edits() != edits {
		t.Errorf("Edits moved from %d to %d without an in-place edit", edits, c.Edits())
	}
	if c.Version() == version {
		t.Error("Version did not move with pods added and deleted")
	}
	c.EditPod(c.Queue()[0], func(p *v1.Pod) { p.DeletionTimestamp = &metav1.Time{} })
	if c.Edits() != edits+1 {
		t.Errorf("EditPod: want Edits %d, got %d", edits+1, c.Edits())
	}
}

// TestUseDisruptionIsRecorded: taking one of a budget's allowed
// disruptions moves Version and Edits; a budget with none left is left as
// it is, and so are the counters.
func TestUseDisruptionIsRecorded(t *testing.T) {
	snap := build.NewCluster().Node("n1", 8, 0).PDB("pdb", "x", 1).Snapshot()
	snap.PodDisruptionBudgets[0].Status.DisruptionsAllowed = 1
	c := cluster.Build(snap, feature.Defaults())
	pdb := c.PDBs()[0]
	edits, version := c.Edits(), c.Version()
	c.UseDisruption(pdb)
	if pdb.Status.DisruptionsAllowed != 0 || c.Edits() != edits+1 || c.Version() != version+1 {
		t.Errorf("after one disruption: %d allowed, Edits +%d, Version +%d; want 0, +1, +1", pdb.Status.DisruptionsAllowed, c.Edits()-edits, c.Version()-version)
	}
	c.UseDisruption(pdb)
	if pdb.Status.DisruptionsAllowed != 0 || c.Edits() != edits+1 || c.Version() != version+1 {
		t.Errorf("with none left: %d allowed, Edits +%d, Version +%d; want 0, +1, +1", pdb.Status.DisruptionsAllowed, c.Edits()-edits, c.Version()-version)
	}
}

// TestRevertRestoresASharedClaimsReservations: taking one of two pods
// that share a claim off its node removes it from the claim's reservedFor
// in place; Revert gives the claim both reservations again, in their
// order, however often the same change is made and taken back.
func TestRevertRestoresASharedClaimsReservations(t *testing.T) {
	snap := build.NewCluster().Node("n1", 8, 2).
		Pod(build.PodSpec{Name: "a", CPU: "1", GPUs: 1, Node: "n1"}).
		Pod(build.PodSpec{Name: "b", CPU: "1", Node: "n1", Mutate: func(p *v1.Pod) {
			p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpus", ResourceClaimName: ptr.To("a-gpus")}}
		}}).
		Snapshot()
	shared := snap.ResourceClaims[0]
	shared.Status.ReservedFor = append(shared.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: "b", UID: "uid-default-b"})
	c := cluster.Build(snap, feature.Defaults())
	before := export(t, c)
	claim, err := c.DRA().Claim("default", "a-gpus")
	if err != nil {
		t.Fatal(err)
	}
	a := c.Bound()[0]
	for round := 1; round <= 2; round++ {
		c.Fork()
		if err := c.Unschedule(a); err != nil {
			t.Fatalf("round %d: Unschedule: %v", round, err)
		}
		if got := len(claim.Status.ReservedFor); got != 1 || claim.Status.Allocation == nil {
			t.Fatalf("round %d: after Unschedule the claim has %d reservation(s), allocated %v; want 1, true", round, got, claim.Status.Allocation != nil)
		}
		c.Revert()
		want := []string{"a", "b"}
		var got []string
		for _, r := range claim.Status.ReservedFor {
			got = append(got, r.Name)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("round %d: reservations after Revert (-want +got):\n%s", round, diff)
		}
		if after := export(t, c); !bytes.Equal(before, after) {
			t.Errorf("round %d: the cluster after Revert exports a different snapshot:\n%s", round, cmp.Diff(string(before), string(after)))
		}
	}
}
