package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fakeTimeline is a timeline's measures: the waits of the placed pods of
// each workload, and the workloads followed.
type fakeTimeline struct {
	waits    map[string][]time.Duration // sorted
	followed map[string]bool
	cost     float64
}

func (f fakeTimeline) Wait(p float64, workload string, _ *int32) (time.Duration, bool, bool) {
	w := f.waits[workload]
	if len(w) == 0 {
		return 0, false, f.followed[workload]
	}
	i := int(p/100*float64(len(w))+0.999999) - 1
	return w[max(0, min(i, len(w)-1))], true, true
}

func (f fakeTimeline) Cost(string) (float64, bool)      { return f.cost, true }
func (f fakeTimeline) NeverPlaced(w string) (int, bool) { return 0, f.followed[w] }
func (f fakeTimeline) FirstChoiceShare() float64        { return 1 }
func gate(name string, g Gate) Gate                     { g.Name = name; return g }
func durationOf(d time.Duration) *metav1.Duration       { return &metav1.Duration{Duration: d} }
func float(v float64) *float64                          { return &v }
func timelineGates(gates ...Gate) *Gates                { return &Gates{File: "g.yaml", Gates: gates} }
func waitGate(p float64, max time.Duration, w string) Gate {
	return Gate{MaxWait: &WaitGate{Percentile: p, Max: durationOf(max), Workload: w}}
}

// TestTimelineGatesVerdicts: a maxWait gate on a workload none of whose
// pods was placed fails (nothing measured), it is not a bad gates file;
// durations and costs keep their units in the verdicts.
func TestTimelineGatesVerdicts(t *testing.T) {
	m := fakeTimeline{
		waits:    map[string][]time.Duration{"infer": {90 * time.Minute}, "": {0, 90 * time.Minute}},
		followed: map[string]bool{"infer": true, "train": true},
		cost:     1234.56789,
	}
	got, err := EvaluateTimelineGates(timelineGates(
		gate("infer waits little", waitGate(95, 2*time.Minute, "infer")),
		gate("train waits little", waitGate(95, 2*time.Minute, "train")),
		gate("budget", Gate{MaxCost: &CostGate{Max: float(5000)}}),
	), m)
	if err != nil {
		t.Fatalf("EvaluateTimelineGates: want verdicts, got error %v", err)
	}
	want := []GateResult{
		{Name: "infer waits little", Type: GateMaxWait, Target: "workload infer", Measured: float(5400), Op: "<=", Bound: 120, Unit: UnitSeconds,
			Message: "workload infer: p95 wait = 1h30m, want <= 2m"},
		{Name: "train waits little", Type: GateMaxWait, Target: "workload train", Op: "<=", Bound: 120, Unit: UnitSeconds,
			Message: "workload train: p95 wait = none (no placed pod), want <= 2m"},
		{Name: "budget", Type: GateMaxCost, Target: "all groups", Passed: true, Measured: float(1234.56789), Op: "<=", Bound: 5000, Unit: UnitCost,
			Message: "all groups: cost = 1234.57, want <= 5000.00"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	for _, r := range got {
		if r.Name == "train waits little" && (r.MeasuredText() != "-" || r.BoundText() != "<= 2m") {
			t.Errorf("no placed pod: want measured - and bound <= 2m, got %q and %q", r.MeasuredText(), r.BoundText())
		}
		if r.Name == "infer waits little" && r.MeasuredText() != "1h30m" {
			t.Errorf("wait: want 1h30m, got %q", r.MeasuredText())
		}
	}

	// A workload the timeline never saw is a typo in the gates file.
	_, err = EvaluateTimelineGates(timelineGates(gate("typo", waitGate(95, time.Minute, "infr"))), m)
	if err == nil || !strings.Contains(err.Error(), `g.yaml: gate "typo" (gates[0]): maxWait.workload: no workload "infr" in the timeline`) {
		t.Errorf("unknown workload: want an error naming file, gate and field, got %v", err)
	}
}

func TestFormatGateValue(t *testing.T) {
	for _, tt := range []struct {
		name, unit string
		v          float64
		want       string
	}{
		{"count", "", 3, "3"},
		{"share", "", 0.6667, "0.6667"},
		{"zero seconds", UnitSeconds, 0, "0s"},
		{"seconds", UnitSeconds, 42.5, "42.5s"},
		{"minutes", UnitSeconds, 120, "2m"},
		{"hours and minutes", UnitSeconds, 5400, "1h30m"},
		{"hours", UnitSeconds, 7200, "2h"},
		{"odd", UnitSeconds, 3725, "1h2m5s"},
		{"cost", UnitCost, 0.4, "0.40"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := FormatGateValue(tt.unit, tt.v); got != tt.want {
				t.Errorf("FormatGateValue(%q, %g): want %q, got %q", tt.unit, tt.v, tt.want, got)
			}
		})
	}
}
