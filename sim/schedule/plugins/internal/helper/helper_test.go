package helper

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/framework"
)

func TestDefaultNormalizeScore(t *testing.T) {
	tests := []struct {
		name    string
		reverse bool
		in      []int64
		want    []int64
	}{
		{name: "scaled to the maximum", in: []int64{0, 3, 6}, want: []int64{0, 50, 100}},
		{name: "reversed", reverse: true, in: []int64{0, 3, 6}, want: []int64{100, 50, 0}},
		{name: "integer division", in: []int64{1, 3}, want: []int64{33, 100}},
		{name: "all zero stays zero", in: []int64{0, 0}, want: []int64{0, 0}},
		{name: "all zero reversed becomes max", reverse: true, in: []int64{0, 0}, want: []int64{100, 100}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			scores := make([]framework.NodeScore, len(tc.in))
			for i, s := range tc.in {
				scores[i].Score = s
			}
			DefaultNormalizeScore(framework.MaxNodeScore, tc.reverse, scores)
			got := make([]int64, len(scores))
			for i := range scores {
				got[i] = scores[i].Score
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("normalized (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParallelizeUntilVisitsEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 1000, 10007} {
		seen := make([]int, n)
		ParallelizeUntil(context.Background(), n, func(i int) { seen[i]++ })
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("n=%d: index %d visited %d times, want once", n, i, c)
			}
		}
	}
}

func TestFindUntoleratedNoScheduleTaint(t *testing.T) {
	taints := []v1.Taint{
		{Key: "soft", Effect: v1.TaintEffectPreferNoSchedule},
		{Key: "a", Value: "1", Effect: v1.TaintEffectNoSchedule},
		{Key: "b", Effect: v1.TaintEffectNoExecute},
	}
	tols := []v1.Toleration{{Key: "a", Operator: v1.TolerationOpEqual, Value: "1"}}
	got, ok := FindUntoleratedNoScheduleTaint(taints, tols)
	if !ok || got.Key != "b" {
		t.Errorf("FindUntoleratedNoScheduleTaint() = %v, %v; want taint b, true", got, ok)
	}
	// Lt/Gt need the alpha TaintTolerationComparisonOperators gate (off).
	lt := []v1.Toleration{{Key: "a", Operator: v1.TolerationOpLt, Value: "5"}, {Key: "b", Operator: v1.TolerationOpExists}}
	if got, ok := FindUntoleratedNoScheduleTaint(taints, lt); !ok || got.Key != "a" {
		t.Errorf("with an Lt toleration: got %v, %v; want taint a, true (comparison operators are off in v1.37)", got, ok)
	}
}
