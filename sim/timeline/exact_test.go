package timeline

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/drasim/drasim/internal/seams"
	"github.com/drasim/drasim/scenarios"
	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/generate"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/snapshot"
	"github.com/google/go-cmp/cmp"
)

// decision is what a scheduling cycle decided for its pod.
type decision struct {
	Node    string
	Devices []string
	Message string
}

// moment is one exported moment of a timeline and its cycle's decision.
type moment struct {
	at       time.Duration
	pod      string
	snapshot []byte
	resume   seams.Checkpoint
	got      decision
}

// replay decides the moment's pod with drasim simulate's engine, resumed
// where the timeline's scheduler stood.
func (m *moment) replay(t *testing.T, opts sim.Options) decision {
	t.Helper()
	res, err := load.LoadBytes(fmt.Sprintf("moment-%s", m.at), m.snapshot, load.Options{})
	if err != nil {
		t.Fatalf("moment %s (%s): loading the export: %v", m.at, m.pod, err)
	}
	opts.Resume = &m.resume
	run, err := sim.Simulate(context.Background(), res.Snapshot, opts)
	if err != nil {
		t.Fatalf("moment %s (%s): %v", m.at, m.pod, err)
	}
	for _, p := range run.Result.Pods {
		if p.Namespace+"/"+p.Name != m.pod {
			continue
		}
		d := decision{Node: p.Node}
		if p.Node == "" {
			d.Message = p.Message
		}
		for _, c := range p.Claims {
			for _, dev := range c.Devices {
				d.Devices = append(d.Devices, dev.Driver+"/"+dev.Pool+"/"+dev.Device)
			}
		}
		sort.Strings(d.Devices)
		return d
	}
	t.Fatalf("moment %s: pod %s is not in the replay's result", m.at, m.pod)
	return decision{}
}

// sampleMoments runs the timeline and exports about want of its
// scheduling cycles, picked by a seeded source.
func sampleMoments(t *testing.T, in *Input, opts Options, cycles, want int) []*moment {
	t.Helper()
	rng := rand.New(rand.NewPCG(42, 7))
	pick := map[int]bool{}
	for len(pick) < want && len(pick) < cycles {
		pick[rng.IntN(cycles)] = true
	}
	var out []*moment
	var cur *moment
	n := 0
	hooks := &seams.TimelineHooks{}
	hooks.Before = func(m *seams.Moment) {
		cur = nil
		if pick[n] {
			var b bytes.Buffer
			if err := m.WriteSnapshotJSON(&b); err != nil {
				t.Fatal(err)
			}
			cur = &moment{at: m.Time, pod: m.Pod.Namespace + "/" + m.Pod.Name, snapshot: b.Bytes(), resume: m.Checkpoint}
			out = append(out, cur)
		}
		n++
	}
	hooks.After = func(m *seams.Moment) {
		if cur == nil {
			return
		}
		cur.got = decision{Node: m.Node, Devices: m.Devices()}
		if m.Node == "" {
			cur.got.Message, cur.got.Devices = m.Message, nil
		}
		sort.Strings(cur.got.Devices)
	}
	opts.Hooks = hooks
	run(t, in, opts)
	if n < want/2 {
		t.Fatalf("only %d scheduling cycles: the fixture is too small to sample %d", n, want)
	}
	return out
}

func checkMoments(t *testing.T, moments []*moment, opts sim.Options) {
	t.Helper()
	placed := 0
	for _, m := range moments {
		want := m.replay(t, opts)
		if diff := cmp.Diff(want, m.got); diff != "" {
			t.Errorf("at %s, pod %s: the timeline decided otherwise than drasim simulate on that moment's snapshot (-simulate +timeline):\n%s", m.at, m.pod, diff)
		}
		if m.got.Node != "" {
			placed++
		}
	}
	if placed == 0 {
		t.Errorf("no sampled cycle placed its pod: the test would not see a wrong placement")
	}
}

// generatedArrivals makes a generated cluster's pending pods arrive one
// every 20s, each running 5 to 35 minutes.
func generatedArrivals(t *testing.T, nodes, pods int, seed int64) *Input {
	t.Helper()
	snap, err := generate.Generate(generate.Options{Seed: seed, Nodes: nodes, Pods: pods})
	if err != nil {
		t.Fatal(err)
	}
	cp := *snap
	cp.Pods = nil
	for i, p := range snap.Pods {
		p = p.DeepCopy()
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[AnnotationArrival] = fmt.Sprintf("%ds", 20*i)
		p.Annotations[AnnotationDuration] = fmt.Sprintf("%dm", 5+5*(i%7))
		cp.Pods = append(cp.Pods, p)
	}
	if cp.Sources == nil {
		cp.Sources = map[snapshot.Ref]snapshot.Source{}
	}
	in, err := Prepare(&cp, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestExactnessGenerated: moments of a timeline on 110 generated GPU nodes
// (kube samples nodes above 100: the rotating start matters), replayed by
// drasim simulate's engine, decide pod for pod and device for device as
// the timeline did.
func TestExactnessGenerated(t *testing.T) {
	moments := 15
	if testing.Short() {
		moments = 4
	}
	in := generatedArrivals(t, 110, 200, 3)
	opts := Options{Sim: sim.Options{Seed: 5}}
	checkMoments(t, sampleMoments(t, in, opts, 200, moments), opts.Sim)
}

// TestExactnessAutoscaled: the same on the embedded demo, where the
// autoscaler adds and deletes nodes, pods are evicted and prioritized
// lists choose between GPU models.
func TestExactnessAutoscaled(t *testing.T) {
	res, err := load.LoadBytes("demo", scenarios.TimelineDemo(), load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in, err := Prepare(res.Snapshot, nil, []TraceFile{{Name: "demo-trace.csv", Data: scenarios.TimelineDemoTrace()}})
	if err != nil {
		t.Fatal(err)
	}
	opts := withAutoscaler(Options{Sim: sim.Options{Seed: 1}})
	checkMoments(t, sampleMoments(t, in, opts, 50, 25), opts.Sim)
}
