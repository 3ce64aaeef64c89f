package scenarios_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/drasim/drasim/internal/oraclelog"
	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/schedule"
)

// stepsDir holds the step-wise recordings: oracle/steps/NAME.json, and
// NAME.2.json, ... for further recordings of the same scenario. Each is
// checked on its own: a recording is one self-consistent run of the real
// scheduler, and drasim must agree with every one of them.
const stepsDir = "oracle/steps"

// stepTotals counts what the step-wise check compared.
type stepTotals struct {
	cycles, scores, tied, tiedExact, bound, unschedulable, errors, errorsExact, skipped int
	devices                                                                             int
}

func (t *stepTotals) add(o stepTotals) {
	t.cycles += o.cycles
	t.scores += o.scores
	t.tied += o.tied
	t.tiedExact += o.tiedExact
	t.bound += o.bound
	t.unschedulable += o.unschedulable
	t.errors += o.errors
	t.errorsExact += o.errorsExact
	t.skipped += o.skipped
	t.devices += o.devices
}

func (t stepTotals) String() string {
	share := func(a, b int) string {
		if b == 0 {
			return "-"
		}
		return fmt.Sprintf("%.0f%%", 100*float64(a)/float64(b))
	}
	return fmt.Sprintf("%d cycles (%d bound, %d unschedulable, %d errors), %d plugin scores, %d device allocations; "+
		"%d cycles with a tied top score, drasim's own pick was kube's in %d (%s); error messages word for word in %d of %d; %d skipped",
		t.cycles, t.bound, t.unschedulable, t.errors, t.scores, t.devices, t.tied, t.tiedExact, share(t.tiedExact, t.tied),
		t.errorsExact, t.errors, t.skipped)
}

// TestSteps replays every recorded scheduling cycle of the real
// kube-scheduler v1.37.2 (recorded with SCHED_V=10, see README.md) on the
// state kube had just before it: earlier pods bound where kube bound them.
// For every cycle it requires the same outcome, the same feasible nodes,
// every plugin's weighted score and the total on every scored node, the
// same devices on kube's node, kube's message word for word for a pod that
// did not fit, and kube's node among drasim's top-scored nodes (kube's pick
// among equal scores depends on the order its 16 parallel filter workers
// finish; docs/fidelity.md). It also checks the tie rule itself: the root
// of kube's score heap over kube's own filter order is the node kube bound.
func TestSteps(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(stepsDir, "*.json"))
	if len(files) == 0 {
		t.Fatalf("no step-wise recordings in %s", stepsDir)
	}
	sort.Strings(files)
	var all stepTotals
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := oraclelog.ReadRecording(data)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			got := checkSteps(t, rec)
			t.Logf("%s: %s", name, got)
			all.add(got)
		})
	}
	t.Logf("all recordings: %s", all)
}

func checkSteps(t *testing.T, rec *oraclelog.Recording) stepTotals {
	t.Helper()
	res, err := load.Load([]string{rec.Scenario}, load.Options{Strict: true})
	if err != nil {
		t.Fatalf("loading %s: %v", rec.Scenario, err)
	}
	st, err := sim.NewStepper(res.Snapshot, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var n stepTotals
	for i, c := range rec.Cycles {
		where := fmt.Sprintf("cycle %d (pod %s)", i+1, c.Pod)
		if c.Outcome == oraclelog.Unknown || c.Hinted {
			n.skipped++
			continue
		}
		a, err := st.Evaluate(ctx, c.Pod)
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		n.cycles++
		switch c.Outcome {
		case oraclelog.Unschedulable:
			n.unschedulable++
			if a.Node != "" || a.Error != nil {
				t.Errorf("%s: kube found no node (%q); drasim: node %q, error %v", where, c.Message, a.Node, a.Error)
				continue
			}
			kube, _, _ := strings.Cut(c.Message, " preemption:")
			if a.Message != kube {
				t.Errorf("%s: message differs:\n  kube-scheduler: %q\n  drasim:         %q", where, kube, a.Message)
			}
		case oraclelog.Error:
			n.errors++
			if a.Error == nil {
				t.Errorf("%s: kube failed with an error (%q); drasim: node %q, message %q", where, c.Message, a.Node, a.Message)
				continue
			}
			kube := renameClaims(c.Message, rec.ClaimNames[c.Pod], st.ClaimNames(c.Pod))
			switch {
			case a.Message == kube:
				n.errorsExact++
			case maskDevice(a.Message) == maskDevice(kube):
				// The same error met on another node's device: kube reports
				// whichever of its parallel filter workers failed first.
			default:
				t.Errorf("%s: error differs:\n  kube-scheduler: %q\n  drasim:         %q", where, kube, a.Message)
			}
		case oraclelog.Bound:
			n.bound++
			checkBound(t, where, rec, c, a, &n)
			if err := st.Bind(ctx, c.Pod, a, c.Node); err != nil {
				t.Fatalf("%s: binding where kube bound: %v", where, err)
			}
			checkDevices(t, where, rec.Devices[c.Pod], st.PodDevices(c.Pod), &n)
		}
	}
	return n
}

func checkBound(t *testing.T, where string, rec *oraclelog.Recording, c oraclelog.Cycle, a *schedule.Attempt, n *stepTotals) {
	t.Helper()
	feasible := map[string]*schedule.NodeResult{}
	var names []string
	for i := range a.Nodes {
		if a.Nodes[i].Status == nil {
			feasible[a.Nodes[i].Node] = &a.Nodes[i]
			names = append(names, a.Nodes[i].Node)
		}
	}
	sort.Strings(names)
	if a.Error != nil || len(feasible) == 0 {
		t.Errorf("%s: kube bound the pod to %s; drasim found no node: %s", where, c.Node, a.Message)
		return
	}
	if c.Feasible != a.FeasibleNodes || c.Evaluated != a.EvaluatedNodes {
		t.Errorf("%s: kube evaluated %d nodes, %d feasible; drasim %d and %d", where, c.Evaluated, c.Feasible, a.EvaluatedNodes, a.FeasibleNodes)
	}
	if len(c.Order) == 0 {
		// One feasible node: kube does not score.
		if len(names) != 1 || names[0] != c.Node {
			t.Errorf("%s: kube's only feasible node was %s; drasim's feasible nodes: %v", where, c.Node, names)
		}
	} else {
		kubeNames := slices.Clone(c.Order)
		sort.Strings(kubeNames)
		if !slices.Equal(kubeNames, names) {
			t.Errorf("%s: feasible nodes differ:\n  kube-scheduler: %v\n  drasim:         %v", where, kubeNames, names)
			return
		}
		best := int64(-1)
		for i, node := range c.Order {
			got := feasible[node]
			for j, plugin := range rec.Plugins {
				want := c.Scores[i][j]
				var have int64
				found := false
				for _, ps := range got.Scores {
					if ps.Plugin == plugin {
						have, found = ps.Weighted, true
					}
				}
				n.scores++
				if !found && want == 0 {
					continue // a plugin drasim does not run (VolumeBinding) and that scored 0
				}
				if !found || have != want {
					t.Errorf("%s: node %s, plugin %s: kube-scheduler scored %d, drasim %d (found %v)", where, node, plugin, want, have, found)
				}
			}
			if got.Total != c.Totals[i] {
				t.Errorf("%s: node %s: kube's total %d, drasim's %d", where, node, c.Totals[i], got.Total)
			}
			best = max(best, c.Totals[i])
		}
		// The tie rule, on kube's own order: the heap's root is kube's node.
		if pick := c.Order[schedule.KubeHostIndex(len(c.Order), func(i int) int64 { return c.Totals[i] })]; pick != c.Node {
			t.Errorf("%s: the score heap over kube's filter order %v (totals %v) gives %s, but kube bound the pod to %s", where, c.Order, c.Totals, pick, c.Node)
		}
		tied := 0
		for _, v := range c.Totals {
			if v == best {
				tied++
			}
		}
		if tied > 1 {
			n.tied++
			if a.Node == c.Node {
				n.tiedExact++
			}
		}
		if kubeNode := feasible[c.Node]; kubeNode == nil || kubeNode.Total != best {
			t.Errorf("%s: kube's node %s is not among the top-scored nodes", where, c.Node)
		} else if a.Node != c.Node && feasible[a.Node].Total != best {
			t.Errorf("%s: drasim chose %s (total %d) over kube's %s (total %d)", where, a.Node, feasible[a.Node].Total, c.Node, best)
		}
	}
}

// checkDevices compares the devices the pod holds after binding where kube
// bound it with the devices kube's pod holds at the end of the recording.
func checkDevices(t *testing.T, where string, want, got []string, n *stepTotals) {
	t.Helper()
	if len(want) == 0 && len(got) == 0 {
		return
	}
	n.devices++
	if !slices.Equal(want, got) {
		t.Errorf("%s: devices differ:\n  kube-scheduler: %v\n  drasim:         %v", where, want, got)
	}
}

// deviceRef matches the device a CEL runtime error names.
var deviceRef = regexp.MustCompile(`on device [^ :]+`)

// maskDevice hides the device a CEL error names, which depends on the node
// the error was met on.
func maskDevice(msg string) string { return deviceRef.ReplaceAllString(msg, "on device ...") }

// renameClaims replaces the claim names kube's resource-claim controller
// drew (random suffixes) by the ones drasim derived, per pod claim.
func renameClaims(msg string, kube, drasim map[string]string) string {
	for podClaim, name := range kube {
		if d, ok := drasim[podClaim]; ok {
			msg = strings.ReplaceAll(msg, name, d)
		}
	}
	return msg
}
