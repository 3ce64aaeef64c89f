package autoscale

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/drasim/drasim/internal/caoracle"
	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/snapshot"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// caDir holds the cases, cluster-autoscaler's recordings of them
// (tools/ca-recorder) and the differences drasim keeps on purpose.
const caDir = "testdata/ca"

// TestCAOracle runs drasim's autoscaler on every recorded case with every
// expander cluster-autoscaler was recorded with and requires, loop by
// loop, what CA did: the same expansion options (group, node count, pods
// of the estimate), the same options kept by the expander, the same group
// chosen and grown by the same number of nodes. Where CA broke a tie at
// random (or ran the random expander), drasim is made to pick what CA
// picked, so that the loops after it stay comparable. A run CA recorded
// differently on different attempts passes when drasim matches one of
// them. Differences listed in expected-differences.yaml must show exactly
// where listed, and must still exist.
func TestCAOracle(t *testing.T) {
	cases, err := caoracle.ReadCases(filepath.Join(caDir, "cases.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	diffs, err := caoracle.ReadDifferences(filepath.Join(caDir, "expected-differences.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	expected := map[string]caoracle.Difference{}
	for _, d := range diffs {
		expected[d.Case+"/"+d.Expander] = d
	}
	listed := map[string]bool{}
	// Per expander: runs, CA loops matched (a run with an expected
	// difference counts the loops before it) and runs that differ as
	// expected.
	runs, matched, differing := map[string]int{}, map[string]int{}, map[string]int{}
	for _, c := range cases {
		rec, err := caoracle.ReadRecording(caoracle.Path(caDir, c.Name))
		if err != nil {
			t.Errorf("case %s: %v (record it: tools/ca-recorder/README.md)", c.Name, err)
			continue
		}
		if diff := cmp.Diff(c, rec.Case); diff != "" {
			t.Errorf("case %s changed since it was recorded; record it again (tools/ca-recorder/README.md) (-cases.yaml +recording):\n%s", c.Name, diff)
			continue
		}
		prio := casePriorities(t, c)
		for _, run := range rec.Runs {
			key := c.Name + "/" + run.Expander
			listed[key] = true
			t.Run(key, func(t *testing.T) {
				var report []string
				firstLoop := 0
				for i, want := range run.Variants {
					got := drasimOutcome(t, c, run, want, prio)
					loop, diff := firstDifference(want, got)
					if loop == 0 {
						report = nil
						matched[run.Expander] += len(want.Loops)
						break
					}
					if i == 0 || loop > firstLoop {
						firstLoop = loop
					}
					report = append(report, fmt.Sprintf("variant %d of %d (-cluster-autoscaler +drasim), loop %d:\n%s", i+1, len(run.Variants), loop, diff))
				}
				runs[run.Expander]++
				d, isExpected := expected[key]
				if len(report) > 0 && isExpected {
					differing[run.Expander]++
					matched[run.Expander] += firstLoop - 1
				}
				switch {
				case len(report) == 0 && isExpected:
					t.Errorf("expected difference %q no longer shows: drasim now does what CA does; remove it from expected-differences.yaml", d.What)
				case len(report) == 0:
				case isExpected && d.Loop == firstLoop:
					t.Logf("expected difference in loop %d: %s (%s)", d.Loop, d.What, d.Why)
				case isExpected:
					t.Errorf("expected difference %q is listed for loop %d, but the first difference is in loop %d:\n%s", d.What, d.Loop, firstLoop, strings.Join(report, "\n"))
				default:
					t.Errorf("drasim differs from cluster-autoscaler:\n%s", strings.Join(report, "\n"))
				}
			})
		}
	}
	for key := range expected {
		if !listed[key] {
			t.Errorf("expected-differences.yaml lists %s, which no recording has", key)
		}
	}
	var parts []string
	for _, e := range caoracle.Expanders {
		parts = append(parts, fmt.Sprintf("%s: %d runs, %d loops matched, %d runs differ as expected", e, runs[e], matched[e], differing[e]))
	}
	t.Logf("%d cases; per expander: %s", len(cases), strings.Join(parts, "; "))
}

func casePriorities(t *testing.T, c caoracle.Case) *Priorities {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(scenarioDir, c.PrioritiesFile()))
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParsePriorities(data)
	if err != nil {
		t.Fatalf("%s: %v", c.PrioritiesFile(), err)
	}
	return p
}

// followCA stands in for the random expander: it picks the group the
// recorded cluster-autoscaler chose in the same loop.
type followCA struct{ picks []string }

var _ expander = (*followCA)(nil)

func (f *followCA) name() string { return ExpanderRandom }
func (f *followCA) best(cands []*candidate, e env) ([]*candidate, string) {
	if e.loop >= 1 && e.loop <= len(f.picks) {
		for _, c := range cands {
			if c.group.Name == f.picks[e.loop-1] {
				return []*candidate{c}, "picked " + c.group.Name + ", as cluster-autoscaler did"
			}
		}
	}
	return cands[:1], "cluster-autoscaler picked none of these; the first one"
}

// drasimOutcome runs drasim's autoscaler on a case with one expander,
// following the given recording's random picks, and describes it as a
// recording does.
func drasimOutcome(t *testing.T, c caoracle.Case, run caoracle.Run, follow caoracle.Outcome, prio *Priorities) caoracle.Outcome {
	t.Helper()
	f := &followCA{}
	for _, l := range follow.Loops {
		f.picks = append(f.picks, l.Chosen)
	}
	opts := Options{
		Expanders: []string{run.Expander}, Priorities: prio,
		MaxNodesTotal: c.MaxNodesTotal, MaxNodesPerScaleUp: c.MaxNodesPerScaleUp, MaxLoops: c.Loops(),
		Sim:      sim.Options{Seed: run.Seed},
		tieBreak: f,
	}
	snap := loadScenario(t, c.Scenario)
	owners := map[string][3]string{}
	for _, p := range snap.Pods {
		o := [3]string{"Pod", p.Namespace, p.Name}
		if ref := metav1.GetControllerOf(p); ref != nil {
			o = [3]string{ref.Kind, p.Namespace, ref.Name}
		}
		owners[p.Namespace+"/"+p.Name] = o
	}
	virtualOwners(snap, owners)
	out, err := Run(context.Background(), snap, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	sizes := map[string]int{}
	for _, g := range out.Plan.Groups {
		sizes[g.Name] = g.Size
	}
	got := caoracle.Outcome{Loops: []caoracle.Loop{}}
	for _, l := range out.Plan.Loops {
		if l.Decision == nil || l.Decision.Chosen == "" || len(l.Added) == 0 {
			continue // no scale-up: CA records no loop
		}
		loop := caoracle.Loop{Chosen: l.Decision.Chosen, Kept: []string{}}
		for _, o := range l.Options {
			pods := caoracle.CountPods(len(o.PodKeys), func(i int) (string, string, string) {
				o := owners[o.PodKeys[i]]
				return o[0], o[1], o[2]
			})
			loop.Options = append(loop.Options, caoracle.Option{Group: o.Group, Nodes: o.Nodes, Pods: pods})
		}
		sort.Slice(loop.Options, func(i, j int) bool { return loop.Options[i].Group < loop.Options[j].Group })
		if len(l.Decision.Steps) > 0 {
			loop.Kept = append(loop.Kept, l.Decision.Steps[0].Kept...)
			sort.Strings(loop.Kept)
		}
		sizes[l.Decision.Chosen] += len(l.Added)
		loop.Added = []caoracle.GroupSize{{Group: l.Decision.Chosen, Nodes: len(l.Added)}}
		loop.Sizes = sortedSizes(sizes)
		got.Loops = append(got.Loops, loop)
	}
	got.Final = sortedSizes(sizes)
	for _, pr := range out.Plan.ProvisioningRequests {
		r := caoracle.ProvReq{Name: pr.Name, Conditions: []caoracle.Condition{}}
		for _, c := range pr.Conditions {
			// The recorder's fake clientset has no CRD schema: the atomic
			// class's server-side apply of Provisioned replaces the whole
			// condition list, so the recording has no Accepted (an API
			// server merges by type and keeps it; see
			// tools/ca-recorder/autoscaling.go provReqClientset).
			if c.Type == CondAccepted && pr.Class == snapshot.ProvisioningClassBestEffortAtomicScaleUp {
				continue
			}
			r.Conditions = append(r.Conditions, caoracle.Condition{Type: c.Type, Status: c.Status, Reason: c.Reason})
		}
		got.ProvisioningRequests = append(got.ProvisioningRequests, r)
	}
	caoracle.SortProvReqs(got.ProvisioningRequests)
	return got
}

// virtualOwners adds the owners of the pods cluster-autoscaler makes in
// memory: a ProvisioningRequest's (<request>-<set>-<index>) and a
// CapacityBuffer's (capacity-buffer-<buffer>-<index>).
func virtualOwners(snap *snapshot.Snapshot, owners map[string][3]string) {
	for _, pr := range snap.ProvisioningRequests {
		for i, ps := range pr.Spec.PodSets {
			for j := 0; j < int(ps.Count); j++ {
				owners[fmt.Sprintf("%s/%s-%d-%d", pr.Namespace, pr.Name, i, j)] = [3]string{"ProvisioningRequest", pr.Namespace, pr.Name}
			}
		}
	}
	for _, b := range snap.CapacityBuffers {
		for i := 1; i <= 1000; i++ {
			owners[fmt.Sprintf("%s/capacity-buffer-%s-%d", b.Namespace, b.Name, i)] = [3]string{"CapacityBuffer", b.Namespace, b.Name}
		}
	}
}

func sortedSizes(m map[string]int) []caoracle.GroupSize {
	out := make([]caoracle.GroupSize, 0, len(m))
	for g, n := range m {
		out = append(out, caoracle.GroupSize{Group: g, Nodes: n})
	}
	caoracle.SortSizes(out)
	return out
}

// firstDifference returns the first loop (1-based) where drasim's outcome
// differs from CA's, with the difference; 0 when they agree. A loop one
// side has and the other has not is a difference in that loop.
func firstDifference(want, got caoracle.Outcome) (int, string) {
	for i := 0; i < max(len(want.Loops), len(got.Loops)); i++ {
		var w, g *caoracle.Loop
		if i < len(want.Loops) {
			w = &want.Loops[i]
		}
		if i < len(got.Loops) {
			g = &got.Loops[i]
		}
		if !reflect.DeepEqual(w, g) {
			return i + 1, cmp.Diff(w, g)
		}
	}
	if !reflect.DeepEqual(want.Final, got.Final) {
		return len(want.Loops) + 1, cmp.Diff(want.Final, got.Final)
	}
	if !reflect.DeepEqual(want.ProvisioningRequests, got.ProvisioningRequests) {
		return len(want.Loops) + 1, "ProvisioningRequest conditions:\n" + cmp.Diff(want.ProvisioningRequests, got.ProvisioningRequests)
	}
	return 0, ""
}
