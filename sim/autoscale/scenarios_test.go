package autoscale

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/drasim/drasim/internal/golden"
	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/snapshot"
	"github.com/google/go-cmp/cmp"
)

const scenarioDir = "../../scenarios/autoscale"

func loadScenario(t *testing.T, name string) *snapshot.Snapshot {
	t.Helper()
	res, err := load.Load([]string{filepath.Join(scenarioDir, name)}, load.Options{Strict: true})
	if err != nil {
		t.Fatalf("loading %s: %v", name, err)
	}
	return res.Snapshot
}

func priorities(t *testing.T) *Priorities {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(scenarioDir, "config/priority-expander.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParsePriorities(data)
	if err != nil {
		t.Fatalf("priority-expander.yaml: %v", err)
	}
	return p
}

// outcome is what a scenario's comment says will happen.
type outcome struct {
	// Loops are "group+nodes by expander (placed N)".
	Loops     []string
	Stop      StopReason
	Pending   []string
	NeverFits []string
}

func outcomeOf(p *Plan) outcome {
	var o outcome
	for _, l := range p.Loops {
		s := "no choice"
		if l.Decision != nil && l.Decision.Chosen != "" {
			s = l.Decision.Chosen + "+" + strconv.Itoa(len(l.Added)) + " by " + l.Decision.By + " (placed " + strconv.Itoa(l.Placed) + ")"
		}
		o.Loops = append(o.Loops, s)
	}
	o.Stop = p.Stop.Reason
	for _, pp := range p.Pending {
		o.Pending = append(o.Pending, pp.Pod)
		if pp.NeverFits {
			o.NeverFits = append(o.NeverFits, pp.Pod)
		}
	}
	sort.Strings(o.Pending)
	return o
}

// TestScenarios runs each scenario of scenarios/autoscale with the
// expanders its comment discusses and compares with the outcome computed
// there by hand. Every run is also checked against its limits and
// recorded as a golden plan.
func TestScenarios(t *testing.T) {
	prio := priorities(t)
	tests := []struct {
		name     string
		scenario string
		opts     Options
		want     outcome
	}{
		{name: "first-available/first-available", scenario: "first-available.yaml", opts: Options{Expanders: []string{ExpanderFirstAvailable}},
			want: outcome{Loops: []string{"h100+1 by first-available (placed 2)"}, Stop: StopNoPending}},
		{name: "first-available/price", scenario: "first-available.yaml", opts: Options{Expanders: []string{ExpanderPrice}},
			want: outcome{Loops: []string{"l4+1 by price (placed 2)"}, Stop: StopNoPending}},
		{name: "first-available/least-waste-dra", scenario: "first-available.yaml", opts: Options{Expanders: []string{ExpanderLeastWasteDRA}},
			want: outcome{Loops: []string{"l4+1 by least-waste-dra (placed 2)"}, Stop: StopNoPending}},
		{name: "first-available/least-waste", scenario: "first-available.yaml", opts: Options{Expanders: []string{ExpanderLeastWaste}},
			want: outcome{Loops: []string{"l4+1 by random (placed 2)"}, Stop: StopNoPending}},
		{name: "least-waste-dra/least-waste", scenario: "least-waste-dra.yaml", opts: Options{Expanders: []string{ExpanderLeastWaste}},
			want: outcome{Loops: []string{"gpu8+2 by least-waste (placed 3)"}, Stop: StopNoPending}},
		{name: "least-waste-dra/least-waste-dra", scenario: "least-waste-dra.yaml", opts: Options{Expanders: []string{ExpanderLeastWasteDRA}},
			want: outcome{Loops: []string{"gpu4+3 by least-waste-dra (placed 3)"}, Stop: StopNoPending}},
		{name: "least-waste-dra/least-nodes", scenario: "least-waste-dra.yaml", opts: Options{Expanders: []string{ExpanderLeastNodes}},
			want: outcome{Loops: []string{"gpu8+2 by least-nodes (placed 3)"}, Stop: StopNoPending}},
		{name: "price/price", scenario: "price.yaml", opts: Options{Expanders: []string{ExpanderPrice}},
			want: outcome{Loops: []string{"small+2 by price (placed 4)"}, Stop: StopNoPending}},
		{name: "price/least-nodes", scenario: "price.yaml", opts: Options{Expanders: []string{ExpanderLeastNodes, ExpanderPrice}},
			want: outcome{Loops: []string{"medium+1 by price (placed 4)"}, Stop: StopNoPending}},
		{name: "match-attribute", scenario: "match-attribute.yaml", opts: Options{},
			want: outcome{Loops: []string{"pcie+3 by random (placed 5)"}, Stop: StopNoOption,
				Pending: []string{"default/huge", "default/too-many"}, NeverFits: []string{"default/huge", "default/too-many"}}},
		{name: "partitionable", scenario: "partitionable.yaml", opts: Options{},
			want: outcome{Loops: []string{"mig+2 by random (placed 10)"}, Stop: StopNoPending}},
		{name: "loops/priority", scenario: "loops.yaml", opts: Options{Expanders: []string{ExpanderPriority}, Priorities: prio},
			want: outcome{Loops: []string{"cpu+3 by priority (placed 6)", "gpu+2 by priority (placed 2)"}, Stop: StopNoOption, Pending: []string{"default/big"}}},
		{name: "loops/max-nodes-total", scenario: "loops.yaml", opts: Options{Expanders: []string{ExpanderPriority}, Priorities: prio, MaxNodesTotal: 4},
			want: outcome{Loops: []string{"cpu+3 by priority (placed 6)"}, Stop: StopNoOption,
				Pending: []string{"default/big", "default/train-hc8bn", "default/train-rqb8r"}}},
		{name: "loops/max-nodes-per-scaleup", scenario: "loops.yaml", opts: Options{Expanders: []string{ExpanderPriority}, Priorities: prio, MaxNodesPerScaleUp: 1},
			want: outcome{Loops: []string{
				"cpu+1 by priority (placed 2)", "cpu+1 by priority (placed 2)", "cpu+1 by priority (placed 2)",
				"gpu+1 by priority (placed 1)", "gpu+1 by priority (placed 1)",
			}, Stop: StopNoOption, Pending: []string{"default/big"}}},
		{name: "loops/max-loops", scenario: "loops.yaml", opts: Options{Expanders: []string{ExpanderPriority}, Priorities: prio, MaxLoops: 1},
			want: outcome{Loops: []string{"cpu+3 by priority (placed 6)"}, Stop: StopMaxLoops,
				Pending: []string{"default/big", "default/train-hc8bn", "default/train-rqb8r"}}},
		{name: "template-from", scenario: "template-from.yaml", opts: Options{},
			want: outcome{Loops: []string{"gpu+3 by random (placed 7)"}, Stop: StopNoPending}},
		{name: "loops/most-pods", scenario: "loops.yaml", opts: Options{Expanders: []string{ExpanderMostPods}},
			want: outcome{Loops: []string{"gpu+3 by most-pods (placed 8)"}, Stop: StopNoOption, Pending: []string{"default/big"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap := loadScenario(t, tt.scenario)
			before := snapshotJSON(t, snap)
			out, err := Run(context.Background(), snap, tt.opts)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if diff := cmp.Diff(tt.want, outcomeOf(out.Plan)); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
			checkLimits(t, out.Plan, tt.opts.withDefaults())
			if after := snapshotJSON(t, snap); after != before {
				t.Errorf("Run changed the input snapshot")
			}
			checkPlanGolden(t, filepath.Join("testdata", strings.ReplaceAll(tt.name, "/", "_")+".json"), out.Plan)
		})
	}
}

// checkLimits checks the bounds every plan must respect.
func checkLimits(t *testing.T, p *Plan, opts Options) {
	t.Helper()
	if len(p.Loops) > opts.MaxLoops {
		t.Errorf("%d loops, more than --max-loops %d", len(p.Loops), opts.MaxLoops)
	}
	for _, l := range p.Loops {
		if len(l.Added) > opts.MaxNodesPerScaleUp {
			t.Errorf("loop %d added %d nodes, more than --max-nodes-per-scaleup %d", l.Index, len(l.Added), opts.MaxNodesPerScaleUp)
		}
	}
	for _, su := range p.ScaleUp {
		if su.To > su.Max {
			t.Errorf("group %s grows to %d, above its maxSize %d", su.Group, su.To, su.Max)
		}
	}
	if opts.MaxNodesTotal > 0 && p.Inputs.Nodes+p.NodesAdded > opts.MaxNodesTotal {
		t.Errorf("%d nodes after the scale-up, more than --max-nodes-total %d", p.Inputs.Nodes+p.NodesAdded, opts.MaxNodesTotal)
	}
}

func snapshotJSON(t *testing.T, s *snapshot.Snapshot) string {
	t.Helper()
	data, err := json.Marshal([]any{s.Nodes, s.ResourceSlices, s.NodeGroups, s.Pods, s.ResourceClaims})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// checkPlanGolden checks v, as indented JSON, against its golden file.
func checkPlanGolden(t *testing.T, path string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, path, append(got, '\n'))
}

// TestNeverFitsReason checks the one-sentence reason for pods no template
// can run: the numbers of the best template.
func TestNeverFitsReason(t *testing.T) {
	out, err := Run(context.Background(), loadScenario(t, "match-attribute.yaml"), Options{})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	got := map[string]string{}
	for _, pp := range out.Plan.Pending {
		got[pp.Pod] = pp.Reason
	}
	want := map[string]string{
		"default/huge":     "no group's template fits: claim gpus needs 8 devices with matchAttribute resource.kubernetes.io/pcieRoot; the largest template (group pcie) offers 4 per value",
		"default/too-many": "no group's template fits: claim gpus, request gpus needs 9 device(s) of class gpu.example.com; the largest template (group pcie) offers 8",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reasons (-want +got):\n%s", diff)
	}
}

// TestOutputSnapshot writes the cluster after the scale-up, loads it back
// and replays it: the new nodes and their slices are there and every pod
// the scale-up placed is bound.
func TestOutputSnapshot(t *testing.T) {
	out, err := Run(context.Background(), loadScenario(t, "partitionable.yaml"), Options{})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	var buf bytes.Buffer
	if err := out.Cluster.WriteSnapshot(&buf); err != nil {
		t.Fatalf("WriteSnapshot: %v", err)
	}
	res, err := load.LoadBytes("after.yaml", buf.Bytes(), load.Options{})
	if err != nil {
		t.Fatalf("loading the written snapshot: %v", err)
	}
	var nodes []string
	for _, n := range res.Snapshot.Nodes {
		nodes = append(nodes, n.Name)
	}
	if diff := cmp.Diff([]string{"mig-template-1", "mig-template-2"}, nodes); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	if len(res.Snapshot.ResourceSlices) != 4 {
		t.Errorf("want 4 ResourceSlices (2 per new node), got %d", len(res.Snapshot.ResourceSlices))
	}
	run, err := sim.Simulate(context.Background(), res.Snapshot, sim.Options{})
	if err != nil {
		t.Fatalf("Simulate: %v", err)
	}
	if s := run.Result.Summary; s.AlreadyBound != 10 || s.Unschedulable != 0 {
		t.Errorf("replaying the written snapshot: want 10 pods bound and none pending, got %+v", s)
	}
}

func TestRunErrors(t *testing.T) {
	tests := []struct {
		name string
		snap *snapshot.Snapshot
		opts Options
		want string
	}{
		{name: "no groups", snap: snapshotOf(makePod("p").Obj()), want: ErrNoNodeGroups.Error()},
		{name: "unknown expander", snap: snapshotOf(makeGroup("g").Obj()), opts: Options{Expanders: []string{"cheapest"}},
			want: `unknown expander "cheapest": use one of random, most-pods, least-nodes, least-waste, price, priority, least-waste-dra, first-available`},
		{name: "priority without config", snap: snapshotOf(makeGroup("g").Obj()), opts: Options{Expanders: []string{ExpanderPriority}},
			want: "the priority expander needs a priority configuration (--expander-priority-config)"},
		{name: "invalid group", snap: snapshotOf(makeGroup("g").Min(2).Max(1).Obj()),
			want: `groups.yaml (document 1): NodeGroup "g": spec.minSize: 2 is larger than spec.maxSize 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(context.Background(), tt.snap, tt.opts)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("error: want %q, got %q", tt.want, got)
			}
		})
	}
}

// TestExcludedPods checks CA's pod list processing: DaemonSet pods and
// expendable pods never trigger a scale-up.
func TestExcludedPods(t *testing.T) {
	snap := snapshotOf(makeGroup("g").CPU("8").Obj(),
		makePod("low").CPU("2").Priority(-100).Obj(),
		makePod("ds").CPU("2").OwnedBy("DaemonSet", "agent").Obj(),
	)
	out, err := Run(context.Background(), snap, Options{})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	got := map[string]string{}
	for _, pp := range out.Plan.Pending {
		got[pp.Pod] = pp.Reason
	}
	want := map[string]string{
		"default/low": "expendable: priority -100 is below the cutoff -10; cluster-autoscaler does not scale up for it",
		"default/ds":  "DaemonSet pod: it runs on the node it is made for; cluster-autoscaler does not scale up for it",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pending (-want +got):\n%s", diff)
	}
	if out.Plan.NodesAdded != 0 {
		t.Errorf("want no node added, got %d", out.Plan.NodesAdded)
	}
}
