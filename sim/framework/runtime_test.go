package framework

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fakePostFilter answers PostFilter with a fixed result and status.
type fakePostFilter struct {
	name string
	res  *PostFilterResult
	st   *Status
	ran  *[]string
}

func (f fakePostFilter) Name() string { return f.name }
func (f fakePostFilter) PostFilter(context.Context, *CycleState, *v1.Pod, *Diagnosis) (*PostFilterResult, *Status) {
	*f.ran = append(*f.ran, f.name)
	return f.res, f.st
}
func (f fakePostFilter) PodGroupPostFilter(context.Context, []*CycleState, []*v1.Pod) (*PostFilterResult, *Status) {
	*f.ran = append(*f.ran, f.name)
	return f.res, f.st
}

// TestRunPostFilter holds RunPostFilter and RunPodGroupPostFilter to
// kube's RunPostFilterPlugins and RunPodGroupPostFilterPlugins: a plugin
// that succeeds or finds the pod unresolvable has the last word and the
// plugins after it do not run; otherwise the reasons are joined under
// the first rejecting plugin, and the results of every plugin that ran
// are kept.
func TestRunPostFilter(t *testing.T) {
	claim := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "c"}}
	freed := &PostFilterResult{Deallocate: []*resourceapi.ResourceClaim{claim}}
	tests := []struct {
		name        string
		first, last *Status
		wantCode    Code
		wantMsg     string
		wantPlugin  string
		wantRan     []string
		wantFreed   int
	}{
		{name: "both reject: reasons joined, the first named", first: NewStatus(Unschedulable, "freed"), last: NewStatus(Unschedulable, "no victims"),
			wantCode: Unschedulable, wantMsg: "freed, no victims", wantPlugin: "A", wantRan: []string{"A", "B"}, wantFreed: 1},
		{name: "a rejection without reasons adds none", first: NewStatus(Unschedulable), last: NewStatus(Unschedulable, "no victims"),
			wantCode: Unschedulable, wantMsg: "no victims", wantPlugin: "A", wantRan: []string{"A", "B"}, wantFreed: 1},
		{name: "the last succeeds: its word only", first: NewStatus(Unschedulable, "freed"), last: NewStatus(Success, "preempted"),
			wantCode: Success, wantMsg: "preempted", wantRan: []string{"A", "B"}, wantFreed: 1},
		{name: "the first is unresolvable: the last does not run", first: NewStatus(UnschedulableAndUnresolvable, "never"), last: nil,
			wantCode: UnschedulableAndUnresolvable, wantMsg: "never", wantPlugin: "A", wantRan: []string{"A"}, wantFreed: 1},
	}
	for _, tt := range tests {
		for _, group := range []bool{false, true} {
			t.Run(tt.name, func(t *testing.T) {
				var ran []string
				a := fakePostFilter{"A", freed, tt.first, &ran}
				b := fakePostFilter{"B", nil, tt.last, &ran}
				var res *PostFilterResult
				var st *Status
				if group {
					f := &Framework{PodGroupPostFilter: []PodGroupPostFilterPlugin{a}}
					res, st = f.RunPodGroupPostFilter(context.Background(), nil, nil, b)
				} else {
					f := &Framework{PostFilter: []PostFilterPlugin{a}}
					res, st = f.RunPostFilter(context.Background(), NewCycleState(), &v1.Pod{}, &Diagnosis{}, b)
				}
				if st.Code() != tt.wantCode || st.Message() != tt.wantMsg || (tt.wantPlugin != "" && st.Plugin() != tt.wantPlugin) {
					t.Errorf("group %v: want %s %q by %q, got %s %q by %q", group, tt.wantCode, tt.wantMsg, tt.wantPlugin, st.Code(), st.Message(), st.Plugin())
				}
				if diff := cmp.Diff(tt.wantRan, ran); diff != "" {
					t.Errorf("group %v: plugins run (-want +got):\n%s", group, diff)
				}
				if len(res.Deallocate) != tt.wantFreed {
					t.Errorf("group %v: want %d claims freed, got %d", group, tt.wantFreed, len(res.Deallocate))
				}
			})
		}
	}
}

// TestRunPodGroupPostFilterError words a failing plugin as kube does.
func TestRunPodGroupPostFilterError(t *testing.T) {
	var ran []string
	f := &Framework{PodGroupPostFilter: []PodGroupPostFilterPlugin{fakePostFilter{"A", nil, AsStatus(errors.New("not found")), &ran}}}
	_, st := f.RunPodGroupPostFilter(context.Background(), nil, nil, fakePostFilter{"B", nil, nil, &ran})
	var pe *PluginError
	if st.Code() != Error || !errors.As(st.Err(), &pe) || pe.Plugin != "A" || st.Err().Error() != `error in "A" PodGroupPostFilter plugins: not found` {
		t.Errorf(`want A's error "error in \"A\" PodGroupPostFilter plugins: not found", got %s %v`, st.Code(), st.Err())
	}
	if len(ran) != 1 {
		t.Errorf("want the plugins after a failure not run, ran %v", ran)
	}
}

// fakeScore scores nodes by a table, optionally normalizing by halving.
type fakeScore struct {
	name   string
	scores map[string]int64
	halve  bool
}

func (f *fakeScore) Name() string { return f.name }
func (f *fakeScore) Score(_ context.Context, _ *CycleState, _ *v1.Pod, ni *NodeInfo) (int64, *Status) {
	return f.scores[ni.Node().Name], nil
}

type halvingScore struct{ fakeScore }

func (f *halvingScore) NormalizeScore(_ context.Context, _ *CycleState, _ *v1.Pod, scores []NodeScore) *Status {
	for i := range scores {
		scores[i].Score /= 2
	}
	return nil
}

// TestRunScore normalizes each plugin's scores, weighs them and adds
// them up per node; a plugin skipped by PreScore does not score, and a
// score out of [0, 100] after normalizing is an error.
func TestRunScore(t *testing.T) {
	nodes := []*NodeInfo{NewNodeInfo(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}), NewNodeInfo(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n2"}})}
	a := &fakeScore{name: "A", scores: map[string]int64{"n1": 10, "n2": 40}}
	b := &halvingScore{fakeScore{name: "B", scores: map[string]int64{"n1": 200, "n2": 100}}}
	skipped := &fakeScore{name: "C", scores: map[string]int64{"n1": 1000}}
	f := &Framework{Score: []WeightedScore{{Plugin: a, Weight: 1}, {Plugin: b, Weight: 3}, {Plugin: skipped, Weight: 1}}}
	state := NewCycleState()
	state.SkipScorePlugins["C"] = true
	serial := func(n int, f func(int)) {
		for i := range n {
			f(i)
		}
	}
	var buf ScoreBuffers
	got, err := f.RunScore(context.Background(), state, &v1.Pod{}, nodes, serial, &buf)
	if err != nil {
		t.Fatalf("want no error, got %v", err)
	}
	want := NodeScores{Totals: []int64{10 + 300, 40 + 150}, Scores: [][]PluginScore{
		{{Plugin: "A", Score: 10, Weighted: 10}, {Plugin: "B", Score: 100, Weighted: 300}},
		{{Plugin: "A", Score: 40, Weighted: 40}, {Plugin: "B", Score: 50, Weighted: 150}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scores (-want +got):\n%s", diff)
	}
	delete(state.SkipScorePlugins, "C")
	if _, err := f.RunScore(context.Background(), state, &v1.Pod{}, nodes, serial, &buf); err == nil || err.Error() != `plugin "C" returns an invalid score 1000 on node n1, it should be in [0, 100]` {
		t.Errorf("want C's score out of range, got %v", err)
	}
}
