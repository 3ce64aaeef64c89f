package whatif_test

import (
	"context"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/result"
	"github.com/drasim/drasim/sim/snapshot"
	"github.com/drasim/drasim/sim/whatif"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// loadCluster loads testdata/cluster.yaml and the other testdata files named.
func loadCluster(t *testing.T, extra ...string) *snapshot.Snapshot {
	t.Helper()
	files := []string{"testdata/cluster.yaml"}
	for _, f := range extra {
		files = append(files, "testdata/"+f)
	}
	res, err := load.Load(files, load.Options{})
	if err != nil {
		t.Fatalf("loading %v: %v", files, err)
	}
	return res.Snapshot
}

// parse reads an edits file given as its edits list.
func parse(t *testing.T, edits string) []whatif.Edit {
	t.Helper()
	out, err := whatif.ParseFile("edits.yaml", []byte("apiVersion: drasim.io/v1alpha1\nkind: Edits\nedits:\n"+edits))
	if err != nil {
		t.Fatalf("parsing edits: %v", err)
	}
	return out
}

// run applies the edits, replays, and returns the edited snapshot and the
// result with the edits resolved.
func run(t *testing.T, s *snapshot.Snapshot, edits []whatif.Edit) (*snapshot.Snapshot, *result.Result) {
	t.Helper()
	applied, err := whatif.Apply(s, edits)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	r, err := sim.Simulate(context.Background(), applied.Snapshot, sim.Options{Parallelism: 1})
	if err != nil {
		t.Fatalf("Simulate: %v", err)
	}
	applied.Resolve(r.Result)
	return applied.Snapshot, r.Result
}

func pod(t *testing.T, s *snapshot.Snapshot, name string) *v1.Pod {
	t.Helper()
	for _, p := range s.Pods {
		if p.Name == name {
			return p
		}
	}
	return nil
}

func outcome(r *result.Result, name string) result.Pod {
	for _, p := range r.Pods {
		if p.Name == name {
			return p
		}
	}
	return result.Pod{}
}

// ignoreText leaves out the free-text fields, which other tests check.
var ignoreText = cmpopts.IgnoreFields(result.Edit{}, "Description", "Warnings")

// TestDrainHonoursBudgets: draining n1 cordons it and evicts web-a (the
// budget web-pdb, minAvailable 1 of 2 healthy, allows one eviction) and
// gpu-a (no budget); web-b is refused, agent-n1 (DaemonSet) stays. The
// replay queues batch-0 first (older), then the replacements web-a and
// gpu-a: batch-0 (1500m) goes to n3, the emptiest node (n2 has 1 CPU
// free), web-a (2 CPUs) to n3 too, the only node with room; gpu-a (500m, a
// GPU) fits on n2 (1 CPU free) and n3 (500m free) and goes to n2, the
// less allocated.
func TestDrainHonoursBudgets(t *testing.T) {
	s := loadCluster(t)
	edited, r := run(t, s, parse(t, "- drain: {nodes: [n1]}\n"))

	want := []result.Edit{{
		Index: 1, Source: "edits.yaml edits[0]", Type: whatif.TypeDrain, Nodes: []string{"n1"},
		Evicted: []result.MovedPod{{Pod: "default/web-a", From: "n1", Phase: result.PhaseScheduled, Node: "n3"}, {Pod: "default/gpu-a", From: "n1", Phase: result.PhaseScheduled, Node: "n2"}},
		Blocked: []result.BlockedEviction{{Pod: "default/web-b", Node: "n1", Budget: "default/web-pdb",
			Reason: "Cannot evict pod as it would violate the pod's disruption budget. The disruption budget web-pdb needs 1 healthy pods and has 1 currently"}},
	}}
	if diff := cmp.Diff(want, r.Edits, ignoreText); diff != "" {
		t.Errorf("edits (-want +got):\n%s", diff)
	}
	if got := outcome(r, "batch-0").Node; got != "n3" {
		t.Errorf("batch-0: want n3, got %q", got)
	}
	if got := r.Edits[0].Description; got != "drain n1 (1 node(s))" {
		t.Errorf("description: want %q, got %q", "drain n1 (1 node(s))", got)
	}
	n1 := edited.Nodes[0]
	if !n1.Spec.Unschedulable || len(n1.Spec.Taints) != 1 || n1.Spec.Taints[0].Key != v1.TaintNodeUnschedulable {
		t.Errorf("n1 after the drain: want unschedulable with the unschedulable taint, got unschedulable=%v taints=%v", n1.Spec.Unschedulable, n1.Spec.Taints)
	}
	if got := outcome(r, "web-b"); got.Phase != result.PhaseBound || got.Node != "n1" {
		t.Errorf("web-b: want still bound to n1, got %s on %q", got.Phase, got.Node)
	}
	if got := outcome(r, "agent-n1"); got.Phase != result.PhaseBound || got.Node != "n1" {
		t.Errorf("agent-n1 (DaemonSet): want still bound to n1, got %s on %q", got.Phase, got.Node)
	}
	// The claim made for gpu-a was deleted with the pod; its replacement
	// got a new one from the template, allocated where it landed.
	for _, c := range edited.ResourceClaims {
		if c.Name == "gpu-a-gpu-x7k2p" {
			t.Errorf("claim gpu-a-gpu-x7k2p: want deleted with its pod, still in the edited snapshot")
		}
	}
	gpu := outcome(r, "gpu-a")
	if len(gpu.Claims) != 1 || len(gpu.Claims[0].Devices) != 1 || gpu.Claims[0].Devices[0].Pool != "n2" {
		t.Errorf("gpu-a: want one new claim with one device of pool n2, got %+v", gpu.Claims)
	}
	// The input snapshot is unchanged.
	if p := pod(t, s, "web-a"); p.Spec.NodeName != "n1" || s.Nodes[0].Spec.Unschedulable || len(s.ResourceClaims) != 1 {
		t.Errorf("input snapshot changed by Apply")
	}
}

// TestDrainDisableEviction ignores the budget: web-b goes too.
func TestDrainDisableEviction(t *testing.T) {
	_, r := run(t, loadCluster(t), parse(t, "- drain: {nodes: [n1], disableEviction: true}\n"))
	var evicted []string
	for _, m := range r.Edits[0].Evicted {
		evicted = append(evicted, m.Pod)
	}
	if diff := cmp.Diff([]string{"default/web-a", "default/web-b", "default/gpu-a"}, evicted); diff != "" {
		t.Errorf("evicted (-want +got):\n%s", diff)
	}
	if len(r.Edits[0].Blocked) != 0 {
		t.Errorf("blocked: want none with disableEviction, got %v", r.Edits[0].Blocked)
	}
}

// TestRemoveNodesBySelector removes n1 and n2 (pool=p1): their slices (4
// GPUs) go, the DaemonSet pod goes with n1, every other pod is queued
// again, budgets or not (a node loss is not an eviction). Only n3 is left
// (4 CPUs, 2 GPUs): in queue order batch-0 (1500m), web-a (2) and gpu-a
// (500m) fit, web-b (1) and db-0 (3) do not.
func TestRemoveNodesBySelector(t *testing.T) {
	edited, r := run(t, loadCluster(t), parse(t, "- removeNodes: {selector: {matchLabels: {pool: p1}}}\n"))
	want := []result.Edit{{
		Index: 1, Source: "edits.yaml edits[0]", Type: whatif.TypeRemoveNodes, Nodes: []string{"n1", "n2"}, Devices: 4,
		Evicted: []result.MovedPod{
			{Pod: "default/web-a", From: "n1", Phase: result.PhaseScheduled, Node: "n3"},
			{Pod: "default/web-b", From: "n1", Phase: result.PhaseUnschedulable},
			{Pod: "default/gpu-a", From: "n1", Phase: result.PhaseScheduled, Node: "n3"},
			{Pod: "default/db-0", From: "n2", Phase: result.PhaseUnschedulable},
		},
		Removed: []string{"default/agent-n1"},
	}}
	if diff := cmp.Diff(want, r.Edits, ignoreText); diff != "" {
		t.Errorf("edits (-want +got):\n%s", diff)
	}
	if len(edited.Nodes) != 1 || len(edited.ResourceSlices) != 1 || edited.ResourceSlices[0].Name != "n3-gpu" {
		t.Errorf("edited snapshot: want node n3 and slice n3-gpu only, got %d nodes and %d slices", len(edited.Nodes), len(edited.ResourceSlices))
	}
	if got := outcome(r, "web-b").Message; got != "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod." {
		t.Errorf("web-b: want kube's message for a full node, got %q", got)
	}
}

// TestTaintDevices: NoExecute on n1's pool evicts gpu-a (it uses n1/gpu-0)
// and its replacement avoids the tainted devices; NoSchedule evicts
// nothing.
func TestTaintDevices(t *testing.T) {
	_, r := run(t, loadCluster(t), parse(t, "- taintDevices: {deviceSelector: {driver: gpu.example.com, pool: n1}, taint: {key: bad-driver, effect: NoExecute}}\n"))
	e := r.Edits[0]
	if e.Devices != 2 || len(e.Evicted) != 1 || e.Evicted[0].Pod != "default/gpu-a" || e.Evicted[0].Phase != result.PhaseScheduled || e.Evicted[0].Node == "n1" {
		t.Errorf("NoExecute on pool n1: want 2 devices tainted and gpu-a evicted and placed off n1, got %+v", e)
	}
	if want := "taint 2 device(s) (driver gpu.example.com, pool n1) with bad-driver:NoExecute"; e.Description != want {
		t.Errorf("description: want %q, got %q", want, e.Description)
	}
	_, r = run(t, loadCluster(t), parse(t, "- taintDevices: {name: maint, deviceSelector: {driver: gpu.example.com, pool: n1}, taint: {key: maint, effect: NoSchedule}}\n"))
	if e := r.Edits[0]; e.Devices != 2 || len(e.Evicted) != 0 {
		t.Errorf("NoSchedule: want 2 devices tainted and no eviction, got %+v", e)
	}
}

func TestToleratedTaintKeepsPod(t *testing.T) {
	s := loadCluster(t)
	c := s.ResourceClaims[0].DeepCopy()
	c.Status.Allocation.Devices.Results[0].Tolerations = []resourceToleration{{Key: "bad-driver", Operator: "Exists", Effect: "NoExecute"}}
	s.ResourceClaims[0] = c
	_, r := run(t, s, parse(t, "- taintDevices: {deviceSelector: {driver: gpu.example.com}, taint: {key: bad-driver, effect: NoExecute}}\n"))
	if e := r.Edits[0]; e.Devices != 6 || len(e.Evicted) != 0 {
		t.Errorf("taint tolerated forever: want 6 devices tainted and no eviction, got %+v", e)
	}
}

// TestRemoveDriverPool removes pool n1: gpu-a loses its device and is
// queued again.
func TestRemoveDriverPool(t *testing.T) {
	edited, r := run(t, loadCluster(t), parse(t, "- removeDriver: {driver: gpu.example.com, pools: [n1]}\n"))
	e := r.Edits[0]
	if e.Devices != 2 || len(e.Evicted) != 1 || e.Evicted[0].Pod != "default/gpu-a" || e.Evicted[0].Phase != result.PhaseScheduled {
		t.Errorf("want 2 devices removed and gpu-a queued and placed, got %+v", e)
	}
	if len(edited.ResourceSlices) != 2 {
		t.Errorf("want 2 slices left, got %d", len(edited.ResourceSlices))
	}
}

// TestAddNodes adds two copies of n3 and one node of NodeGroup big, then
// drains n1 and n2 (disableEviction): the new nodes take their pods.
func TestAddNodes(t *testing.T) {
	edited, r := run(t, loadCluster(t, "nodegroup.yaml"), parse(t, `- addNodes: {count: 2, fromNode: n3}
- addNodes: {count: 1, nodeGroup: big}
- drain: {nodes: [n1, n2], disableEviction: true}
`))
	if got := r.Edits[0].Nodes; !cmp.Equal(got, []string{"n3-template-1", "n3-template-2"}) {
		t.Errorf("copies of n3: want n3-template-1 and n3-template-2, got %v", got)
	}
	if r.Edits[0].Devices != 4 || r.Edits[1].Devices != 4 || !cmp.Equal(r.Edits[1].Nodes, []string{"big-template-1"}) {
		t.Errorf("want 2x2 GPUs from the copies and 4 from big-template-1, got %+v and %+v", r.Edits[0], r.Edits[1])
	}
	for _, m := range r.Edits[2].Evicted {
		if m.Phase != result.PhaseScheduled {
			t.Errorf("%s: want scheduled on the added capacity, got %s", m.Pod, m.Phase)
		}
	}
	var slices []string
	for _, sl := range edited.ResourceSlices {
		slices = append(slices, sl.Name+"@"+*sl.Spec.NodeName)
	}
	want := []string{"n1-gpu@n1", "n2-gpu@n2", "n3-gpu@n3", "n3-template-1-gpu@n3-template-1", "n3-template-2-gpu@n3-template-2", "big-template-1-gpu@big-template-1"}
	if diff := cmp.Diff(want, slices); diff != "" {
		t.Errorf("slices (-want +got):\n%s", diff)
	}
}

// TestScale: api 2 -> 4 adds two pending pods; cache 3 -> 1 deletes the
// highest ordinals.
func TestScale(t *testing.T) {
	edited, r := run(t, loadCluster(t, "workloads.yaml"), parse(t, `- scale: {kind: Deployment, name: api, replicas: 4}
- scale: {kind: StatefulSet, name: cache, replicas: 1}
`))
	if got := len(r.Edits[0].Added); got != 2 {
		t.Errorf("api 2 -> 4: want 2 pods added, got %d (%v)", got, r.Edits[0].Added)
	}
	if want := "scale Deployment/default/api from 2 to 4"; r.Edits[0].Description != want {
		t.Errorf("description: want %q, got %q", want, r.Edits[0].Description)
	}
	if diff := cmp.Diff([]string{"default/cache-2", "default/cache-1"}, r.Edits[1].Removed); diff != "" {
		t.Errorf("cache 3 -> 1 removed (-want +got):\n%s", diff)
	}
	api := 0
	for _, p := range edited.Pods {
		if strings.HasPrefix(p.Name, "api-") {
			api++
		}
	}
	if api != 4 {
		t.Errorf("want 4 api pods in the edited snapshot, got %d", api)
	}
}

// TestSetRequestsAndPriority: web-a (bound) gets 3 CPUs and is queued
// again; api's pending pods change in place and get PriorityClass high.
func TestSetRequestsAndPriority(t *testing.T) {
	edited, r := run(t, loadCluster(t, "workloads.yaml"), parse(t, `- setRequests: {kind: Pod, name: web-a, requests: {cpu: "3"}}
- setPriority: {kind: Deployment, name: api, priorityClassName: high}
`))
	if e := r.Edits[0]; len(e.Evicted) != 1 || e.Evicted[0].Pod != "default/web-a" || e.Evicted[0].From != "n1" {
		t.Errorf("setRequests on web-a: want it queued again from n1, got %+v", e)
	}
	if q := pod(t, edited, "web-a").Spec.Containers[0].Resources.Requests.Cpu(); q.String() != "3" {
		t.Errorf("web-a cpu: want 3, got %s", q)
	}
	if e := r.Edits[1]; len(e.Changed) != 2 {
		t.Errorf("setPriority on api: want its 2 pods changed, got %v", e.Changed)
	}
	for _, p := range r.Pods {
		if strings.HasPrefix(p.Name, "api-") && p.Priority != 1000 {
			t.Errorf("%s: want priority 1000, got %d", p.Name, p.Priority)
		}
	}
}

// TestApplyErrors: problems found against the snapshot name the file, the
// edit and the field.
func TestApplyErrors(t *testing.T) {
	cases := []struct {
		name, edits, want string
	}{
		{"unknown node", "- cordon: {nodes: [n1, n9]}\n", `edits.yaml: edits[0] (cordon): cordon.nodes[1]: node "n9" is not in the snapshot`},
		{"unknown group", "- addNodes: {count: 1, nodeGroup: huge}\n", `edits.yaml: edits[0] (addNodes): addNodes.nodeGroup: no NodeGroup "huge" in the snapshot (the snapshot has none)`},
		{"unknown workload", "- scale: {kind: StatefulSet, name: db, replicas: 2}\n", `edits.yaml: edits[0] (scale): scale.name: no StatefulSet "default/db" in the snapshot`},
		{"unknown class", "- setPriority: {kind: Pod, name: web-a, priorityClassName: gold}\n", `edits.yaml: edits[0] (setPriority): setPriority.priorityClassName: no PriorityClass "gold" in the snapshot`},
		{"unknown driver", "- removeDriver: {driver: fpga.example.com}\n", `edits.yaml: edits[0] (removeDriver): removeDriver.driver: no ResourceSlice of driver "fpga.example.com" in the snapshot`},
		{"unknown container", "- setRequests: {kind: Pod, name: web-a, container: sidecar, requests: {cpu: 1}}\n", `edits.yaml: edits[0] (setRequests): setRequests.container: Pod/default/web-a has no container "sidecar"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := whatif.Apply(loadCluster(t), parse(t, tc.edits))
			if err == nil || err.Error() != tc.want {
				t.Errorf("want error %q, got %v", tc.want, err)
			}
		})
	}
}

func TestParseFileErrors(t *testing.T) {
	data := `apiVersion: drasim.io/v1alpha1
kind: Edits
edits:
- drain: {nodes: [a]}
  cordon: {nodes: [a]}
- addNodes: {nodeGroup: g}
- taintDevices: {deviceSelector: {}, taint: {key: k, effect: Evict}}
- scale: {kind: Pod, name: p, replicas: 1}
`
	_, err := whatif.ParseFile("edits.yaml", []byte(data))
	want := []string{
		"edits.yaml: edits[0]: want exactly one of drain, cordon, removeNodes, addNodes, taintDevices, removeDriver, scale, setRequests, setPriority, got 2",
		"edits.yaml: edits[1] (addNodes): addNodes.count: must be at least 1, got 0",
		`edits.yaml: edits[2] (taintDevices): taintDevices.taint.effect: "Evict" is not one of NoSchedule, NoExecute, None`,
		"edits.yaml: edits[2] (taintDevices): taintDevices.deviceSelector: select devices by driver, pool and/or device: an empty selector would taint every device",
		`edits.yaml: edits[3] (scale): scale.kind: "Pod" is not one of Deployment, ReplicaSet, StatefulSet, Job`,
	}
	if err == nil {
		t.Fatalf("want errors, got none")
	}
	if diff := cmp.Diff(want, strings.Split(err.Error(), "\n")); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	_, err = whatif.ParseFile("edits.yaml", []byte("apiVersion: drasim.io/v1alpha1\nkind: Edits\nedits:\n- drain: {nodes: [a], force: true}\n"))
	if err == nil || err.Error() != `edits.yaml: edits[0]: unknown field "force"` {
		t.Errorf("unknown field: want an error naming edits[0] and field force, got %v", err)
	}
}

func TestParseFlag(t *testing.T) {
	cases := []struct {
		flag, value string
		want        whatif.Edit
		err         string
	}{
		{flag: "drain", value: "n1,n2", want: whatif.Edit{Drain: &whatif.Drain{Nodes: whatif.Nodes{Names: []string{"n1", "n2"}}}}},
		{flag: "cordon", value: "pool=p1", want: whatif.Edit{Cordon: &whatif.Nodes{Selector: mustSelector("pool=p1")}}},
		{flag: "add-nodes", value: "big=4", want: whatif.Edit{AddNodes: &whatif.AddNodes{Count: 4, NodeGroup: "big"}}},
		{flag: "clone-node", value: "n3=2", want: whatif.Edit{AddNodes: &whatif.AddNodes{Count: 2, FromNode: "n3"}}},
		{flag: "remove-driver", value: "gpu.example.com/n1", want: whatif.Edit{RemoveDriver: &whatif.RemoveDriver{Driver: "gpu.example.com", Pools: []string{"n1"}}}},
		{flag: "scale", value: "deployment/ml/infer=8", want: whatif.Edit{Scale: &whatif.Scale{Workload: whatif.Workload{Kind: "Deployment", Namespace: "ml", Name: "infer"}, Replicas: int32Ptr(8)}}},
		{flag: "set-priority", value: "Job/train=high", want: whatif.Edit{SetPriority: &whatif.SetPriority{Workload: whatif.Workload{Kind: "Job", Namespace: "default", Name: "train"}, PriorityClassName: "high"}}},
		{flag: "add-nodes", value: "big", err: `--add-nodes "big": not NAME=COUNT; want add nodes from a NodeGroup's template: GROUP=COUNT`},
		{flag: "taint-devices", value: "gpu.example.com:k:Evict", err: `--taint-devices "gpu.example.com:k:Evict": "Evict" is not one of NoSchedule, NoExecute, None; want taint devices (a DeviceTaintRule): DRIVER[/POOL[/DEVICE]]:KEY[=VALUE]:NoSchedule|NoExecute|None`},
	}
	for _, tc := range cases {
		t.Run(tc.flag+" "+tc.value, func(t *testing.T) {
			got, err := whatif.ParseFlag(tc.flag, tc.value)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Errorf("want error %q, got %v", tc.err, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("want no error, got %v", err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(whatif.Edit{}, "Source", "Index")); diff != "" {
				t.Errorf("edit (-want +got):\n%s", diff)
			}
		})
	}
	got, _ := whatif.ParseFlag("taint-devices", "gpu.example.com/n1/gpu-0:health=bad:NoExecute")
	if s := got.TaintDevices; *s.DeviceSelector.Pool != "n1" || *s.DeviceSelector.Device != "gpu-0" || s.Taint.Key != "health" || s.Taint.Value != "bad" {
		t.Errorf("taint-devices: want pool n1, device gpu-0, taint health=bad, got %+v", s)
	}
}

type resourceToleration = resourceapi.DeviceToleration

func int32Ptr(v int32) *int32 { return &v }

func mustSelector(s string) *metav1.LabelSelector {
	sel, err := metav1.ParseToLabelSelector(s)
	if err != nil {
		panic(err)
	}
	return sel
}
