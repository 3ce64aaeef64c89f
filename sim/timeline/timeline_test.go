package timeline

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/autoscale"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/load"
	"github.com/google/go-cmp/cmp"
)

func loadInput(t *testing.T, files ...string) *Input {
	t.Helper()
	var paths []string
	for _, f := range files {
		paths = append(paths, filepath.Join("testdata", f))
	}
	return loadInputPaths(t, paths...)
}

// loadInputPaths loads snapshots by their paths.
func loadInputPaths(t *testing.T, paths ...string) *Input {
	t.Helper()
	res, err := load.Load(paths, load.Options{Strict: true})
	if err != nil {
		t.Fatalf("loading %v: %v", paths, err)
	}
	in, err := Prepare(res.Snapshot, res.Files, nil)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func run(t *testing.T, in *Input, opts Options) *Result {
	t.Helper()
	r, err := Run(context.Background(), in, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// withAutoscaler turns the autoscaler on with CA's defaults.
func withAutoscaler(o Options) Options {
	o.Autoscale = &autoscale.Options{}
	o.ScaleDown = autoscale.DefaultScaleDownOptions()
	return o
}

// podLine is what a test checks of a pod record, as seconds.
type podLine struct {
	Bound, Finished string
	Attempts        int
	Wait            Seconds
	Evictions       int
}

func secs(s *Seconds) string {
	if s == nil {
		return "-"
	}
	return fmt.Sprint(float64(*s))
}

func lines(r *Result, names ...string) map[string]podLine {
	out := map[string]podLine{}
	for _, p := range r.Pods {
		out[p.Name] = podLine{Bound: secs(p.Bound), Finished: secs(p.Finished), Attempts: p.Attempts, Wait: p.Wait, Evictions: p.Evictions}
	}
	return out
}

// sortedLines are the pod lines without names, sorted (for pods whose
// generated names the test does not care about).
func sortedLines(r *Result) []podLine {
	var out []podLine
	for _, l := range lines(r) {
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]) < fmt.Sprint(out[j]) })
	return out
}

// TestQueueHandComputed: testdata/queue.yaml's comment works the times out.
func TestQueueHandComputed(t *testing.T) {
	r := run(t, loadInput(t, "queue.yaml"), Options{})
	want := []podLine{
		{Bound: "0", Finished: "600", Attempts: 1},
		{Bound: "0", Finished: "600", Attempts: 1},
		{Bound: "600", Finished: "1200", Attempts: 3, Wait: 600},
	}
	if diff := cmp.Diff(want, sortedLines(r)); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	if secs(r.Summary.Wait.P50) != "0" || secs(r.Summary.Wait.P99) != "600" || r.Summary.NeverPlaced != 0 {
		t.Errorf("summary wait p50 %v p99 %v never placed %d, want 0, 600, 0", secs(r.Summary.Wait.P50), secs(r.Summary.Wait.P99), r.Summary.NeverPlaced)
	}
	// Open end: 30 minutes after the last completion.
	if r.Inputs.End != 1200+1800 {
		t.Errorf("end %v, want 3000", r.Inputs.End)
	}
}

// TestBackoffHandComputed: testdata/backoff.yaml's comment, with and
// without SchedulerPopFromBackoffQ.
func TestBackoffHandComputed(t *testing.T) {
	for _, tc := range []struct {
		name string
		pop  bool
		want podLine
	}{
		{name: "backoff only", pop: false, want: podLine{Bound: "2", Finished: "62", Attempts: 2, Wait: 2}},
		{name: "pop from backoffQ", pop: true, want: podLine{Bound: "1.5", Finished: "61.5", Attempts: 3, Wait: 1.5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gates := feature.Defaults()
			gates["SchedulerPopFromBackoffQ"] = tc.pop
			r := run(t, loadInput(t, "backoff.yaml"), Options{Sim: sim.Options{Gates: gates}})
			got := lines(r)
			want := map[string]podLine{
				"short":  {Bound: "0", Finished: "0.5", Attempts: 1},
				"medium": {Bound: "0", Finished: "1.5", Attempts: 1},
				"wide":   tc.want,
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("pods (-want +got):\n%s", diff)
			}
		})
	}
}

// TestScaleUpHandComputed: testdata/scaleup.yaml's comment: the loop waits
// for pods older than 0s, the node is Ready after the group's 3m, the
// empty node is deleted after 10m unneeded, billed from the scale-up.
func TestScaleUpHandComputed(t *testing.T) {
	r := run(t, loadInput(t, "scaleup.yaml"), withAutoscaler(Options{}))
	want := []podLine{
		{Bound: "190", Finished: "790", Attempts: 2, Wait: 190},
		{Bound: "190", Finished: "790", Attempts: 2, Wait: 190},
	}
	if diff := cmp.Diff(want, sortedLines(r)); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	wantUps := []ScaleUpRecord{{Time: 10, Group: "gpu", Nodes: []string{"gpu-template-1"}, Ready: 190, By: "random", Options: []string{"gpu"}, Triggered: 2}}
	if diff := cmp.Diff(wantUps, r.ScaleUps); diff != "" {
		t.Errorf("scale-ups (-want +got):\n%s", diff)
	}
	wantDowns := []ScaleDownRecord{{Time: 1400, Node: "gpu-template-1", Group: "gpu", UnneededFor: 610}}
	if diff := cmp.Diff(wantDowns, r.ScaleDowns); diff != "" {
		t.Errorf("scale-downs (-want +got):\n%s", diff)
	}
	// 1390s at 1.00/h.
	if got := r.Summary.Cost; got != 0.386111 {
		t.Errorf("cost %v, want 0.386111 (1390s at 1.00/h)", got)
	}
	var provisioning []int
	for _, s := range r.Series {
		provisioning = append(provisioning, s.Provisioning)
	}
	if provisioning[0] != 0 || provisioning[1] != 0 {
		t.Errorf("provisioning at 0s and 5m: %v, want none (the node is Ready at 190s)", provisioning[:2])
	}
}

// TestScaleDownRules: the scale-down settings move the deletion of
// testdata/scaleup.yaml's node as worked out by hand.
func TestScaleDownRules(t *testing.T) {
	for _, tc := range []struct {
		name     string
		set      func(*autoscale.ScaleDownOptions, *Input)
		duration time.Duration
		want     []Seconds // deletion times
	}{
		{name: "defaults", set: func(*autoscale.ScaleDownOptions, *Input) {}, want: []Seconds{1400}},
		// unneeded since 790s; 790 + 120 < 920.
		{name: "unneeded time 2m", set: func(o *autoscale.ScaleDownOptions, _ *Input) { o.UnneededTime = 2 * time.Minute }, want: []Seconds{920}},
		// unneeded long enough at 1400s, but no deletion until 10s + 30m.
		{name: "delay after add 30m", set: func(o *autoscale.ScaleDownOptions, _ *Input) { o.DelayAfterAdd = 30 * time.Minute }, want: []Seconds{1810}},
		// the empty node's utilization, 0, is at most any threshold.
		{name: "threshold 0", set: func(o *autoscale.ScaleDownOptions, _ *Input) { o.UtilizationThreshold = 0 }, want: []Seconds{1400}},
		{name: "disabled", set: func(o *autoscale.ScaleDownOptions, _ *Input) { o.Enabled = false }, want: nil},
		{name: "min size 1", set: func(_ *autoscale.ScaleDownOptions, in *Input) {
			ng := in.Snapshot.NodeGroups[0].DeepCopy()
			ng.Spec.MinSize = 1
			in.Snapshot.NodeGroups = append(in.Snapshot.NodeGroups[:0:0], ng)
		}, want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := loadInput(t, "scaleup.yaml")
			o := withAutoscaler(Options{})
			tc.set(&o.ScaleDown, in)
			r := run(t, in, o)
			var got []Seconds
			for _, d := range r.ScaleDowns {
				got = append(got, d.Time)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("deletions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDrainHandComputed: testdata/drain.yaml's comment: a node at the
// utilization threshold whose pod fits elsewhere is drained; the evicted
// pod is made again and bound on the other node.
func TestDrainHandComputed(t *testing.T) {
	r := run(t, loadInput(t, "drain.yaml"), withAutoscaler(Options{}))
	if len(r.ScaleDowns) != 1 {
		t.Fatalf("scale-downs %+v, want one", r.ScaleDowns)
	}
	d := r.ScaleDowns[0]
	if d.Time != 1210 || d.Evicted != 1 || d.Group != "gpu" {
		t.Errorf("scale-down %+v, want at 1210s, 1 pod evicted, group gpu", d)
	}
	other := "gpu-1"
	if d.Node == "gpu-1" {
		other = "gpu-2"
	}
	evicted := 0
	for _, p := range r.Pods {
		if p.Evictions == 0 {
			continue
		}
		evicted++
		if secs(p.Bound) != "1210" || p.Node != other || p.Wait != 0 || p.Phase != PhaseRunning {
			t.Errorf("evicted pod %s: bound %s on %s, wait %v, phase %s; want bound at 1210 on %s with no wait, running", p.Name, secs(p.Bound), p.Node, p.Wait, p.Phase, other)
		}
	}
	if evicted != 1 || r.Summary.Evictions != 1 {
		t.Errorf("%d pod(s) evicted (summary %d), want 1", evicted, r.Summary.Evictions)
	}
}

// TestDrainBlockedByBarePods: a pod without a controller keeps its node
// (cluster-autoscaler's NotReplicated rule), so nothing is deleted.
func TestDrainBlockedByBarePods(t *testing.T) {
	in := loadInput(t, "drain.yaml")
	for i := range in.Snapshot.Pods {
		p := in.Snapshot.Pods[i].DeepCopy()
		p.OwnerReferences = nil
		for k, v := range in.Initial {
			if k == in.Snapshot.Pods[i] {
				delete(in.Initial, k)
				in.Initial[p] = v
			}
		}
		in.Snapshot.Pods[i] = p
	}
	r := run(t, in, withAutoscaler(Options{}))
	if len(r.ScaleDowns) != 0 {
		t.Errorf("scale-downs %+v, want none: bare pods block the drain", r.ScaleDowns)
	}
}

// TestDrainThreshold: with the threshold below the nodes' utilization
// (one of two GPUs, 0.5), no node of testdata/drain.yaml is a candidate.
func TestDrainThreshold(t *testing.T) {
	o := withAutoscaler(Options{})
	o.ScaleDown.UtilizationThreshold = 0.49
	r := run(t, loadInput(t, "drain.yaml"), o)
	if len(r.ScaleDowns) != 0 {
		t.Errorf("scale-downs %+v, want none: utilization 0.5 is above 0.49", r.ScaleDowns)
	}
}

// TestPreemptionHandComputed: testdata/preempt.yaml's comment works the
// times out.
func TestPreemptionHandComputed(t *testing.T) {
	r := run(t, loadInput(t, "preempt.yaml"), Options{})
	got := map[string]string{}
	for _, p := range r.Pods {
		got[p.Name] = fmt.Sprintf("%s bound %s finished %s attempts %d wait %v preemptions %d", p.Phase, secs(p.Bound), secs(p.Finished), p.Attempts, p.Wait, p.Preemptions)
	}
	var batch string
	for name := range got {
		if name != "scratch" && name != "urgent" {
			batch = name
		}
	}
	want := map[string]string{
		batch:     "Finished bound 360 finished 960 attempts 3 wait 300 preemptions 1",
		"scratch": "Preempted bound 0 finished 60 attempts 1 wait 0 preemptions 1",
		"urgent":  "Finished bound 60 finished 360 attempts 2 wait 0 preemptions 0",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	if s := r.Summary; s.Preemptions != 2 || s.Preempted != 1 || s.Placed != 3 {
		t.Errorf("summary: %d preemptions, %d preempted, %d placed; want 2, 1, 3", s.Preemptions, s.Preempted, s.Placed)
	}
}
