package schedule

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/drasim/drasim/internal/build"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/profile"
	"github.com/drasim/drasim/sim/schedule/queue"
	"github.com/drasim/drasim/sim/snapshot"
)

// memoReplayer is a replayer as sim/timeline sets one up, with the memo of
// failed cycles on or off.
func memoReplayer(t *testing.T, snap *snapshot.Snapshot, memo bool) *Replayer {
	t.Helper()
	c := cluster.Build(snap, feature.Defaults())
	d := dra.New(c.DRA())
	p, err := profile.New(c, d, profile.Config{})
	if err != nil {
		t.Fatal(err)
	}
	r := NewReplayer(c, p, Options{Parallelism: 1, NoParking: true})
	r.NoDiagnosis, r.MemoizeFailures = true, memo
	return r
}

// sharedTemplate points the pod's claim at another pod's template, so that
// pods asking for the same devices are equivalent.
func sharedTemplate(name string) func(*v1.Pod) {
	return func(p *v1.Pod) { p.Spec.ResourceClaims[0].ResourceClaimTemplateName = ptr.To(name) }
}

// onNodes gives the pod a required node affinity on node names, which
// NodeAffinity's PreFilter narrows the nodes to: a failed pass over fewer
// nodes than the cluster has moves the rotating start index on.
func onNodes(names ...string) func(*v1.Pod) {
	return func(p *v1.Pod) {
		p.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: names}}}},
		}}}
	}
}

// busyCluster is a full cluster with many pending equivalent pods: GPU
// pods that DynamicResources rejects everywhere, CPU pods that fit
// nowhere and find no victims (the preemption dry run visits every node
// and draws its offset), CPU pods limited to two nodes, and urgent pods
// that preempt.
func busyCluster() *build.Cluster {
	b := build.NewCluster()
	for i := range 6 {
		n := fmt.Sprintf("n%d", i)
		b.Node(n, 8, 4).
			Pod(build.PodSpec{Name: "gpu-" + n, CPU: "1", GPUs: 4, Node: n, Priority: 5, StartTime: i, Labels: map[string]string{"app": "gpu"}}).
			Pod(build.PodSpec{Name: "cpu-" + n, CPU: "4", Node: n, Priority: 5, StartTime: 10 + i, Labels: map[string]string{"app": "cpu"}}).
			Pod(build.PodSpec{Name: "low-" + n, CPU: "2", Node: n, Priority: 1, StartTime: 20 + i, Labels: map[string]string{"app": "low"}})
	}
	for i := range 8 {
		spec := build.PodSpec{Name: fmt.Sprintf("train-%d", i), CPU: "1", GPUs: 2, Priority: 5, Labels: map[string]string{"app": "train"}}
		if i > 0 {
			spec.Mutate = sharedTemplate("train-0-gpus")
		}
		b.Pod(spec)
	}
	for i := range 8 {
		b.Pod(build.PodSpec{Name: fmt.Sprintf("batch-%d", i), CPU: "5", Priority: 5, Labels: map[string]string{"app": "batch"}})
	}
	for i := range 4 {
		b.Pod(build.PodSpec{Name: fmt.Sprintf("pinned-%d", i), CPU: "5", Priority: 5, Labels: map[string]string{"app": "pinned"}, Mutate: onNodes("n1", "n4")})
	}
	return b.PDB("low", "low", 1)
}

// cycleLog is what every cycle of a replay decided and left behind.
type cycleLog struct {
	Pod, Node, Message, Outcome string
	Rejections                  []Rejection
	Unschedulable               []string
	Feasible, Evaluated, All    int
	Preemption                  string
	StartBefore                 int
}

// driveBusy runs busyCluster through an hour of changes, a step a minute:
// nodes tainted and untainted, a pod finishing, a node added, urgent pods
// arriving, and returns every cycle, the result and the preemption
// source's next draw.
func driveBusy(t *testing.T, memo bool) ([]cycleLog, string, uint64, *Replayer) {
	t.Helper()
	ctx := context.Background()
	r := memoReplayer(t, busyCluster().Snapshot(), memo)
	c := r.c
	var log []cycleLog
	var last *v1.Pod
	flush := func() {
		if last != nil {
			log[len(log)-1].Outcome = r.Outcome(last).Message
		}
	}
	r.BeforeAttempt = func(pod *v1.Pod) {
		flush()
		log = append(log, cycleLog{Pod: pod.Name, StartBefore: r.s.nextStart})
		last = pod
	}
	r.OnAttempt = func(pod *v1.Pod, a *Attempt) {
		l := &log[len(log)-1]
		l.Node, l.Message, l.Rejections, l.Unschedulable = a.Node, a.Message, a.Rejections, a.UnschedulablePlugins
		l.Feasible, l.Evaluated, l.All = a.FeasibleNodes, a.EvaluatedNodes, a.NumAllNodes
	}
	r.OnPreemption = func(pod *v1.Pod, p *Preemption) {
		l := &log[len(log)-1]
		l.Preemption = fmt.Sprintf("%s %s %d rejected, %d candidates, draw %d", p.Message, p.Node, len(p.Rejected), len(p.Candidates), p.offsetDraw)
		for _, v := range p.Victims {
			l.Preemption += " " + v.Name
		}
	}
	for _, pod := range c.Queue() {
		r.Add(pod, 0)
	}
	setTaint := func(name string, taints []v1.Taint, at queue.Time) {
		ni := c.Node(name)
		old := ni.Node()
		n := old.DeepCopy()
		n.Spec.Taints = taints
		ni.SetNode(n)
		r.q.Event(at, framework.ClusterEvent{Resource: framework.Node, ActionType: framework.UpdateNodeTaint}, old, n, nil)
	}
	finish := func(name string, at queue.Time) {
		for _, p := range c.Pods() {
			if p.Name == name {
				changes, err := c.RemovePod(p)
				if err != nil {
					t.Fatal(err)
				}
				for _, ch := range changes {
					if ch.New != nil {
						r.q.Event(at, framework.ClusterEvent{Resource: framework.ResourceClaim, ActionType: framework.Update}, ch.Old, ch.New, nil)
					} else {
						r.q.Event(at, framework.ClusterEvent{Resource: framework.ResourceClaim, ActionType: framework.Delete}, ch.Old, nil, nil)
					}
				}
				r.q.Event(at, framework.EventAssignedPodDelete, p, nil, nil)
				return
			}
		}
		t.Fatalf("no pod %s to finish", name)
	}
	urgent := build.NewCluster()
	for i := range 3 {
		urgent.Pod(build.PodSpec{Name: fmt.Sprintf("urgent-%d", i), CPU: "3", Priority: 100, Labels: map[string]string{"app": "urgent"}})
	}
	for step := range 60 {
		at := queue.Time(step) * queue.Time(time.Minute)
		switch step {
		case 7:
			setTaint("n2", []v1.Taint{{Key: "maintenance", Effect: v1.TaintEffectNoSchedule}}, at)
		case 13:
			finish("gpu-n3", at)
		case 19, 29, 41:
			pod := urgent.Snapshot().Pods[(step-19)/10].DeepCopy()
			if err := c.AddPod(pod); err != nil {
				t.Fatal(err)
			}
			r.Add(pod, at)
		case 23:
			setTaint("n2", nil, at)
		case 31:
			added := build.NewCluster().Node("n6", 4, 2).Snapshot()
			c.AddNode(added.Nodes[0], added.ResourceSlices)
			r.q.Event(at, framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add}, nil, added.Nodes[0], nil)
		case 37:
			finish("cpu-n4", at)
		case 47:
			finish("gpu-n0", at)
		}
		if err := r.Run(ctx, at); err != nil {
			t.Fatal(err)
		}
	}
	flush()
	res, err := json.Marshal(r.Result())
	if err != nil {
		t.Fatal(err)
	}
	return log, string(res), r.s.preemptionRand().Uint64(), r
}

// The memo gives nothing but what the cycles it answers would have
// given: a busy hour with many equivalent pods retried, taints, pods
// finishing, a node added and preemptions decides the same, cycle by
// cycle, with the memo and without it, and leaves the rotating start
// index and the preemption source where they would have been.
func TestFailureMemoChangesNothing(t *testing.T) {
	want, wantRes, wantDraw, _ := driveBusy(t, false)
	got, gotRes, gotDraw, r := driveBusy(t, true)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cycles with the memo (-without +with):\n%s", diff)
	}
	if gotRes != wantRes {
		t.Errorf("result with the memo:\n%s\nwithout:\n%s", gotRes, wantRes)
	}
	if gotDraw != wantDraw {
		t.Errorf("preemption source after the run: %d with the memo, %d without", gotDraw, wantDraw)
	}
	hits, misses := r.MemoStats()
	t.Logf("%d cycles, memo: %d hits, %d misses", len(got), hits, misses)
	if hits < 50 || misses == 0 {
		t.Errorf("memo: %d hits, %d misses; the scenario must retry many equivalent pods", hits, misses)
	}
	moved := false
	for _, l := range got {
		moved = moved || l.StartBefore != 0
	}
	if !strings.Contains(wantRes, `"preemptedBy"`) || !moved {
		t.Errorf("the scenario must preempt and move the start index (moved: %v)", moved)
	}
}

// gpuCluster has one node whose GPUs a running pod holds, a node without
// GPUs, and pending pods asking for two GPUs: train-0 and train-1 are
// equivalent, other-labels and three-gpus differ from them in their
// labels and their claim.
func gpuCluster() *snapshot.Snapshot {
	return build.NewCluster().Node("n0", 4, 4).Node("n1", 4, 0).
		Pod(build.PodSpec{Name: "holder", CPU: "1", GPUs: 4, Node: "n0", Labels: map[string]string{"app": "holder"}}).
		Pod(build.PodSpec{Name: "train-0", CPU: "1", GPUs: 2, Labels: map[string]string{"app": "train"}}).
		Pod(build.PodSpec{Name: "train-1", CPU: "1", GPUs: 2, Labels: map[string]string{"app": "train"}, Mutate: sharedTemplate("train-0-gpus")}).
		Pod(build.PodSpec{Name: "other-labels", CPU: "1", GPUs: 2, Labels: map[string]string{"app": "other"}, Mutate: sharedTemplate("train-0-gpus")}).
		Pod(build.PodSpec{Name: "three-gpus", CPU: "1", GPUs: 3, Labels: map[string]string{"app": "train"}}).
		PDB("holder", "holder", 1).
		Snapshot()
}

func queued(t *testing.T, r *Replayer, name string) *v1.Pod {
	t.Helper()
	for _, p := range r.c.Queue() {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no pending pod %s", name)
	return nil
}

// failTrain0 runs train-0's cycle, which fails and is kept.
func failTrain0(t *testing.T, memo bool) *Replayer {
	t.Helper()
	r := memoReplayer(t, gpuCluster(), memo)
	r.Add(queued(t, r, "train-0"), 0)
	if err := r.Run(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	if out := r.Outcome(queued(t, r, "train-0")); out == nil || out.Node != "" {
		t.Fatalf("train-0: %+v, want a failed cycle", out)
	}
	return r
}

// An equivalent pod's cycle in the same state is answered by the memo,
// with what its own cycle gives.
func TestFailureMemoHitIsTheCycle(t *testing.T) {
	var attempts [2]*Attempt
	var messages [2]string
	for i, memo := range []bool{false, true} {
		r := failTrain0(t, memo)
		pod := queued(t, r, "train-1")
		if memo {
			if c := r.memoLookup(pod); c == nil || c.hit == nil {
				t.Fatalf("train-1 after train-0 failed in the same state: no answer in the memo")
			}
		}
		r.OnAttempt = func(_ *v1.Pod, a *Attempt) { attempts[i] = a }
		r.Add(pod, 0)
		if err := r.Run(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		messages[i] = r.Outcome(pod).Message
	}
	fresh, hit := *attempts[0], *attempts[1]
	if hit.State != nil {
		t.Errorf("a failure given again has a cycle state")
	}
	fresh.State = nil
	if diff := cmp.Diff(fresh, hit, cmp.AllowUnexported(Attempt{}, framework.Status{}), cmp.Comparer(func(a, b *framework.NodeInfo) bool { return a.Node().Name == b.Node().Name })); diff != "" {
		t.Errorf("attempt (-fresh +memo):\n%s", diff)
	}
	if messages[0] != messages[1] || messages[0] == "" {
		t.Errorf("message %q from the memo, %q from the cycle", messages[1], messages[0])
	}
}

// Every change a cycle may read forgets the failures; pods that differ in
// what the plugins read of them do not share them.
func TestFailureMemoForgets(t *testing.T) {
	tests := []struct {
		name   string
		pod    string
		change func(t *testing.T, r *Replayer)
	}{
		{name: "nothing changed", pod: "train-1"},
		{name: "the claim of the pod holding the GPUs deallocated", pod: "train-1", change: func(t *testing.T, r *Replayer) {
			claim, err := r.c.DRA().Claim("default", "holder-gpus")
			if err != nil {
				t.Fatal(err)
			}
			r.Deallocate(claim, 0)
		}},
		{name: "a pod bound elsewhere", pod: "train-1", change: func(t *testing.T, r *Replayer) {
			r.c.Node("n1").AddPod(&v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "elsewhere", Namespace: "default", UID: "uid-elsewhere"}, Spec: v1.PodSpec{NodeName: "n1"}})
		}},
		{name: "a node tainted", pod: "train-1", change: func(t *testing.T, r *Replayer) {
			n := r.c.Node("n1").Node().DeepCopy()
			n.Spec.Taints = []v1.Taint{{Key: "ToBeDeletedByClusterAutoscaler", Effect: v1.TaintEffectNoSchedule}}
			r.c.Node("n1").SetNode(n)
		}},
		{name: "a pod nominated", pod: "train-1", change: func(t *testing.T, r *Replayer) {
			r.Nominate(queued(t, r, "three-gpus"), "n1", 0)
		}},
		{name: "a disruption budget used", pod: "train-1", change: func(t *testing.T, r *Replayer) {
			r.countDisruption(r.c.Node("n0").Pods[0].Pod)
		}},
		{name: "other labels", pod: "other-labels"},
		{name: "other claim contents", pod: "three-gpus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := failTrain0(t, true)
			if tt.change != nil {
				tt.change(t, r)
			}
			c := r.memoLookup(queued(t, r, tt.pod))
			wantHit := tt.change == nil && tt.pod == "train-1"
			if c == nil || (c.hit != nil) != wantHit {
				t.Fatalf("%s's cycle: memo %+v, want an answer: %v", tt.pod, c, wantHit)
			}
			if !wantHit {
				return
			}
			// The same pod's own failure stays as well.
			if c := r.memoLookup(queued(t, r, "train-0")); c == nil || c.hit == nil {
				t.Errorf("train-0 again in the same state: no answer in the memo")
			}
		})
	}
	// The deallocation is a change that matters: train-1 fits then.
	r := failTrain0(t, true)
	claim, _ := r.c.DRA().Claim("default", "holder-gpus")
	r.Deallocate(claim, 0)
	pod := queued(t, r, "train-1")
	r.Add(pod, 0)
	if err := r.Run(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	if out := r.Outcome(pod); out.Node != "n0" {
		t.Errorf("train-1 after the deallocation: %q on %q, want n0", out.Message, out.Node)
	}
}

// Pods whose answer is their own are left out: a nominated pod, a pod
// whose claim is allocated, and answers whose messages name the pod or
// its claims.
func TestFailureMemoLeavesOut(t *testing.T) {
	r := failTrain0(t, true)
	pod := queued(t, r, "train-1")
	pod.Status.NominatedNodeName = "n1"
	if c := r.memoLookup(pod); c != nil {
		t.Errorf("nominated pod: memo %+v, want none", c)
	}
	pod.Status.NominatedNodeName = ""
	claims, err := r.c.DRA().PodClaims(pod)
	if err != nil || len(claims) != 1 {
		t.Fatalf("train-1's claims: %v, %v", claims, err)
	}
	if namesPod(pod, claims, &Attempt{Message: "0/2 nodes are available: 2 cannot allocate all claims."}, &PostFilterResult{}) {
		t.Errorf("a message naming neither the pod nor its claims is taken for the pod's own")
	}
	for _, msg := range []string{"resource claim default/" + claims[0].Name + ", request gpus: unknown", "pod train-1 waits"} {
		if !namesPod(pod, claims, &Attempt{Message: msg}, &PostFilterResult{}) {
			t.Errorf("message %q names the pod or its claim, but is not taken for its own", msg)
		}
	}
}

// TestPodClassKeyTellsWhatPluginsRead: pods that differ in their name only
// share a key; any difference in what the plugins read (namespace,
// labels, annotations, spec, a claim's spec) gives another.
func TestPodClassKeyTellsWhatPluginsRead(t *testing.T) {
	base := func() (*v1.Pod, []*resourceapi.ResourceClaim) {
		p := &v1.Pod{}
		p.Name, p.Namespace = "a", "ns"
		p.Labels = map[string]string{"app": "x", "tier": "y"}
		p.Annotations = map[string]string{"note": "1"}
		p.Spec.Containers = []v1.Container{{Name: "c", Image: "img"}}
		c := &resourceapi.ResourceClaim{}
		c.Name = "a-gpu"
		c.Spec.Devices.Requests = []resourceapi.DeviceRequest{{Name: "gpu", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: "gpu.example.com", Count: 1}}}
		return p, []*resourceapi.ResourceClaim{c}
	}
	key := func(p *v1.Pod, cs []*resourceapi.ResourceClaim) string {
		t.Helper()
		k, err := podClassKey(p, cs)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	p0, c0 := base()
	k0 := key(p0, c0)
	renamed, rc := base()
	renamed.Name, rc[0].Name = "b", "b-gpu"
	if key(renamed, rc) != k0 {
		t.Errorf("pods that differ in their names only have different keys")
	}
	changes := map[string]func(p *v1.Pod, cs []*resourceapi.ResourceClaim){
		"namespace":       func(p *v1.Pod, _ []*resourceapi.ResourceClaim) { p.Namespace = "other" },
		"a label":         func(p *v1.Pod, _ []*resourceapi.ResourceClaim) { p.Labels["app"] = "z" },
		"a label's split": func(p *v1.Pod, _ []*resourceapi.ResourceClaim) { p.Labels = map[string]string{"ap": "px", "tier": "y"} },
		"an annotation":   func(p *v1.Pod, _ []*resourceapi.ResourceClaim) { p.Annotations = nil },
		"a toleration":    func(p *v1.Pod, _ []*resourceapi.ResourceClaim) { p.Spec.Tolerations = []v1.Toleration{{Key: "k"}} },
		"the image":       func(p *v1.Pod, _ []*resourceapi.ResourceClaim) { p.Spec.Containers[0].Image = "other" },
		"a claim's count": func(_ *v1.Pod, cs []*resourceapi.ResourceClaim) { cs[0].Spec.Devices.Requests[0].Exactly.Count = 2 },
		"no claim":        func(_ *v1.Pod, cs []*resourceapi.ResourceClaim) { cs[0] = &resourceapi.ResourceClaim{} },
	}
	for name, change := range changes {
		p, cs := base()
		change(p, cs)
		if key(p, cs) == k0 {
			t.Errorf("%s changed, the key did not", name)
		}
	}
}
