package noderesources

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/plugins/config"
	tu "github.com/drasim/drasim/sim/schedule/plugins/internal/testutil"
)

const gpu = v1.ResourceName("example.com/gpu")

func TestFitFilter(t *testing.T) {
	// n1: 4 cpu, 8Gi, 3 pods max, already 1 pod with 3 cpu / 2Gi.
	// n2: 8 cpu, 8Gi, 2 GPUs, 1 pod slot, already full.
	// n3: 8 cpu, 8Gi, no GPUs advertised.
	nodes := tu.NodeInfos(
		[]*v1.Node{
			tu.MakeNode("n1").CPU("4").Memory("8Gi").Pods("3").Obj(),
			tu.MakeNode("n2").CPU("8").Memory("8Gi").Pods("1").Alloc(gpu, "2").Obj(),
			tu.MakeNode("n3").CPU("8").Memory("8Gi").Obj(),
		},
		[]*v1.Pod{
			tu.MakePod("busy").NodeName("n1").Req("cpu", "3", "memory", "2Gi").Obj(),
			tu.MakePod("full").NodeName("n2").Obj(),
		})
	ok := tu.FilterResult{}
	tests := []struct {
		name string
		args config.NodeResourcesFitArgs
		dra  DRAExtendedResources
		pod  *v1.Pod
		want map[string]tu.FilterResult
	}{
		{
			name: "cpu short on n1 (evictable), pod slot short on n2",
			pod:  tu.MakePod("p").Req("cpu", "2").Obj(),
			want: map[string]tu.FilterResult{
				"n1": {Code: framework.Unschedulable, Reasons: []string{ErrReasonInsufficientCPU}},
				"n2": {Code: framework.Unschedulable, Reasons: []string{ErrReasonTooManyPods}},
				"n3": ok,
			},
		},
		{
			name: "more than allocatable is unresolvable; reasons in kube order",
			pod:  tu.MakePod("p").Req("cpu", "5", "memory", "9Gi").Obj(),
			want: map[string]tu.FilterResult{
				"n1": {Code: framework.UnschedulableAndUnresolvable, Reasons: []string{ErrReasonInsufficientCPU, ErrReasonInsufficientMemory}},
				"n2": {Code: framework.UnschedulableAndUnresolvable, Reasons: []string{ErrReasonTooManyPods, ErrReasonInsufficientMemory}},
				"n3": {Code: framework.UnschedulableAndUnresolvable, Reasons: []string{ErrReasonInsufficientMemory}},
			},
		},
		{
			// 1 cpu container, but a 2 cpu init container: the pod needs 2.
			name: "init container peak counts",
			pod:  tu.MakePod("p").Req("cpu", "1").InitReq("cpu", "2").Obj(),
			want: map[string]tu.FilterResult{
				"n1": {Code: framework.Unschedulable, Reasons: []string{ErrReasonInsufficientCPU}},
				"n2": {Code: framework.Unschedulable, Reasons: []string{ErrReasonTooManyPods}},
				"n3": ok,
			},
		},
		{
			// 500m + 500m sidecar + 100m overhead = 1.1 cpu > 1 free on n1.
			name: "sidecar and overhead count",
			pod:  tu.MakePod("p").Req("cpu", "500m").SidecarReq("cpu", "500m").Overhead("cpu", "100m").Obj(),
			want: map[string]tu.FilterResult{
				"n1": {Code: framework.Unschedulable, Reasons: []string{ErrReasonInsufficientCPU}},
				"n2": {Code: framework.Unschedulable, Reasons: []string{ErrReasonTooManyPods}},
				"n3": ok,
			},
		},
		{
			name: "pod-level request is what counts",
			pod:  tu.MakePod("p").Req("cpu", "100m").PodLevelReq("cpu", "1500m").Obj(),
			want: map[string]tu.FilterResult{
				"n1": {Code: framework.Unschedulable, Reasons: []string{ErrReasonInsufficientCPU}},
				"n2": {Code: framework.Unschedulable, Reasons: []string{ErrReasonTooManyPods}},
				"n3": ok,
			},
		},
		{
			name: "extended resource missing or short",
			pod:  tu.MakePod("p").Req("example.com/gpu", "3").Obj(),
			want: map[string]tu.FilterResult{
				"n1": {Code: framework.UnschedulableAndUnresolvable, Reasons: []string{"Insufficient example.com/gpu"}},
				"n2": {Code: framework.UnschedulableAndUnresolvable, Reasons: []string{ErrReasonTooManyPods, "Insufficient example.com/gpu"}},
				"n3": {Code: framework.UnschedulableAndUnresolvable, Reasons: []string{"Insufficient example.com/gpu"}},
			},
		},
		{
			name: "ignored resource is not checked",
			args: config.NodeResourcesFitArgs{IgnoredResources: []string{"example.com/gpu"}},
			pod:  tu.MakePod("p").Req("example.com/gpu", "3").Obj(),
			want: map[string]tu.FilterResult{
				"n1": ok,
				"n2": {Code: framework.Unschedulable, Reasons: []string{ErrReasonTooManyPods}},
				"n3": ok,
			},
		},
		{
			name: "ignored resource group is not checked",
			args: config.NodeResourcesFitArgs{IgnoredResourceGroups: []string{"example.com"}},
			pod:  tu.MakePod("p").Req("example.com/gpu", "3").Obj(),
			want: map[string]tu.FilterResult{
				"n1": ok,
				"n2": {Code: framework.Unschedulable, Reasons: []string{ErrReasonTooManyPods}},
				"n3": ok,
			},
		},
		{
			// A DeviceClass provides the resource: nodes not advertising it
			// leave it to DynamicResources; n2 advertises it and is checked.
			name: "DRA-backed extended resource skipped where not advertised",
			dra:  ResourceSet{gpu: true},
			pod:  tu.MakePod("p").Req("example.com/gpu", "3").Obj(),
			want: map[string]tu.FilterResult{
				"n1": ok,
				"n2": {Code: framework.UnschedulableAndUnresolvable, Reasons: []string{ErrReasonTooManyPods, "Insufficient example.com/gpu"}},
				"n3": ok,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := NewFit(tc.args, tc.dra, nil)
			if err != nil {
				t.Fatalf("NewFit(%+v) = %v, want no error", tc.args, err)
			}
			_, st, got := tu.RunFilter(pl, tc.pod, nodes)
			if st != nil {
				t.Fatalf("PreFilter status = %q, want success", st.Message())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("filter results (-want +got):\n%s", diff)
			}
		})
	}
}

// gpuCounter backs example.com/gpu with 4 devices per node, 1 allocated.
type gpuCounter struct{ ResourceSet }

func (gpuCounter) DeviceCounts(*v1.Node, v1.ResourceName) (int64, int64, error) { return 4, 1, nil }

func TestFitScore(t *testing.T) {
	// n1: 4 cpu / 8Gi with 1 cpu / 2Gi in use; n2: 8 cpu / 8Gi, empty.
	// The pod asks 1 cpu / 2Gi.
	nodes := tu.NodeInfos(
		[]*v1.Node{tu.MakeNode("n1").CPU("4").Memory("8Gi").Obj(), tu.MakeNode("n2").CPU("8").Memory("8Gi").Obj()},
		[]*v1.Pod{tu.MakePod("used").NodeName("n1").Req("cpu", "1", "memory", "2Gi").Obj()})
	pod := tu.MakePod("p").Req("cpu", "1", "memory", "2Gi").Obj()
	withGPU := []config.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}, {Name: string(gpu), Weight: 1}}
	tests := []struct {
		name string
		args config.NodeResourcesFitArgs
		dra  DRAExtendedResources
		pod  *v1.Pod
		want map[string]int64
	}{
		{
			// n1: cpu (4-2)/4=50, mem (8-4)/8=50 -> 50.
			// n2: cpu 7/8 -> 87, mem 6/8 -> 75 -> (87+75)/2 = 81.
			name: "LeastAllocated is the default",
			pod:  pod,
			want: map[string]int64{"n1": 50, "n2": 81},
		},
		{
			// n1: 50, 50; n2: cpu 1/8 -> 12, mem 2/8 -> 25 -> 18.
			name: "MostAllocated",
			args: config.NodeResourcesFitArgs{ScoringStrategy: &config.ScoringStrategy{Type: config.MostAllocated}},
			pod:  pod,
			want: map[string]int64{"n1": 50, "n2": 18},
		},
		{
			// Shape 0%->10, 100%->0 (scaled x10). n1: 50, 50 -> 50.
			// n2: cpu util 12% -> 88, mem 25% -> 75 -> round(81.5) = 82.
			name: "RequestedToCapacityRatio",
			args: config.NodeResourcesFitArgs{ScoringStrategy: &config.ScoringStrategy{
				Type:                     config.RequestedToCapacityRatio,
				RequestedToCapacityRatio: &config.RequestedToCapacityRatioParam{Shape: []config.UtilizationShapePoint{{Utilization: 0, Score: 10}, {Utilization: 100, Score: 0}}},
			}},
			pod:  pod,
			want: map[string]int64{"n1": 50, "n2": 82},
		},
		{
			// cpu weight 3: n2 (87*3+75)/4 = 84.
			name: "resource weights",
			args: config.NodeResourcesFitArgs{ScoringStrategy: &config.ScoringStrategy{Type: config.LeastAllocated, Resources: []config.ResourceSpec{{Name: "cpu", Weight: 3}, {Name: "memory", Weight: 1}}}},
			pod:  pod,
			want: map[string]int64{"n1": 50, "n2": 84},
		},
		{
			// 100m / 200Mi assumed: n1 cpu (4000-1100)/4000 -> 72,
			// mem (8192-2248)/8192 -> 72; n2 cpu 7900/8000 -> 98, mem
			// 7992/8192 -> 97 -> 97.
			name: "best-effort pod scored with the non-zero defaults",
			pod:  tu.MakePod("p").Req().Obj(),
			want: map[string]int64{"n1": 72, "n2": 97},
		},
		{
			// gpu: 4 devices, 1 allocated, pod asks 1 -> (4-2)/4 = 50.
			// n1 (50+50+50)/3 = 50; n2 (87+75+50)/3 = 70.
			name: "DRA-backed scoring resource counted through DeviceCounts",
			args: config.NodeResourcesFitArgs{ScoringStrategy: &config.ScoringStrategy{Type: config.LeastAllocated, Resources: withGPU}},
			dra:  gpuCounter{ResourceSet{gpu: true}},
			pod:  tu.MakePod("p").Req("cpu", "1", "memory", "2Gi", "example.com/gpu", "1").Obj(),
			want: map[string]int64{"n1": 50, "n2": 70},
		},
		{
			name: "without a device counter the unadvertised resource is left out",
			args: config.NodeResourcesFitArgs{ScoringStrategy: &config.ScoringStrategy{Type: config.LeastAllocated, Resources: withGPU}},
			dra:  ResourceSet{gpu: true},
			pod:  tu.MakePod("p").Req("cpu", "1", "memory", "2Gi", "example.com/gpu", "1").Obj(),
			want: map[string]int64{"n1": 50, "n2": 81},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := NewFit(tc.args, tc.dra, nil)
			if err != nil {
				t.Fatalf("NewFit(%+v) = %v, want no error", tc.args, err)
			}
			scores, st := tu.RunScore(pl, tc.pod, nodes)
			if st != nil {
				t.Fatalf("score status = %q, want success", st.Message())
			}
			if diff := cmp.Diff(tc.want, tu.ScoreMap(scores)); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewFitRejectsBadArgs(t *testing.T) {
	tests := []struct {
		name string
		args config.NodeResourcesFitArgs
	}{
		{name: "unknown strategy", args: config.NodeResourcesFitArgs{ScoringStrategy: &config.ScoringStrategy{Type: "Random"}}},
		{name: "weight above 100", args: config.NodeResourcesFitArgs{ScoringStrategy: &config.ScoringStrategy{Type: config.LeastAllocated, Resources: []config.ResourceSpec{{Name: "cpu", Weight: 101}}}}},
		{name: "ratio without shape", args: config.NodeResourcesFitArgs{ScoringStrategy: &config.ScoringStrategy{Type: config.RequestedToCapacityRatio}}},
		{name: "shape not increasing", args: config.NodeResourcesFitArgs{ScoringStrategy: &config.ScoringStrategy{
			Type:                     config.RequestedToCapacityRatio,
			RequestedToCapacityRatio: &config.RequestedToCapacityRatioParam{Shape: []config.UtilizationShapePoint{{Utilization: 50, Score: 1}, {Utilization: 50, Score: 2}}},
		}}},
		{name: "group with a slash", args: config.NodeResourcesFitArgs{IgnoredResourceGroups: []string{"example.com/gpu"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewFit(tc.args, nil, nil); err == nil {
				t.Errorf("NewFit(%+v) = nil error, want a validation error", tc.args)
			}
		})
	}
}

// TestBuiltinStatusAsFitsRequest: the shared statuses for pods without
// scalar requests say what the general path (fitsRequest) says, code and
// reasons in order, for every combination of short resources, fitting or
// beyond the node's allocatable.
func TestBuiltinStatusAsFitsRequest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() int64 { return []int64{0, 1, 5, 9, 10, 11, 20}[rng.IntN(7)] }
	seen := map[int]bool{}
	for range 20000 {
		ni := &framework.NodeInfo{
			Allocatable: &framework.Resource{MilliCPU: 10, Memory: 10, EphemeralStorage: 10, AllowedPodNumber: 1 + rng.IntN(2)},
			Requested:   &framework.Resource{MilliCPU: pick() / 2, Memory: pick() / 2, EphemeralStorage: pick() / 2},
		}
		if rng.IntN(2) == 0 {
			ni.Pods = []*framework.PodInfo{{}}
		}
		req := &preFilterState{Resource: framework.Resource{MilliCPU: pick(), Memory: pick(), EphemeralStorage: pick()}}
		got := builtinStatus(req, ni)
		var want *framework.Status
		if in := fitsRequest(req, ni, nil); len(in) > 0 {
			code := framework.Unschedulable
			var reasons []string
			for _, r := range in {
				reasons = append(reasons, r.Reason)
				if r.Unresolvable {
					code = framework.UnschedulableAndUnresolvable
				}
			}
			want = framework.NewStatus(code, reasons...)
		}
		if got.Code() != want.Code() || !slices.Equal(got.Reasons(), want.Reasons()) {
			t.Fatalf("node %+v %+v, %d pods, pod %+v: got %v %q, want %v %q", *ni.Allocatable, *ni.Requested, len(ni.Pods), req.Resource, got.Code(), got.Reasons(), want.Code(), want.Reasons())
		}
		if got != nil {
			seen[len(got.Reasons())*2+int(got.Code())] = true
			if got.Plugin() != Name {
				t.Fatalf("shared status names plugin %q, want %q (or callers would write to it)", got.Plugin(), Name)
			}
		}
	}
	if len(seen) < 6 {
		t.Fatalf("only %d kinds of answers drawn: the test proves little", len(seen))
	}
}
