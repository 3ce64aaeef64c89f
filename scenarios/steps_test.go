package scenarios_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/drasim/drasim/internal/oraclelog"
	"github.com/drasim/drasim/internal/stepwise"
	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/kubeversion"
	"github.com/drasim/drasim/sim/load"
)

// stepsDir holds the step-wise recordings: oracle/steps/NAME.json, and
// NAME.2.json, ... for further recordings of the same scenario. Each is
// checked on its own: a recording is one self-consistent run of the real
// scheduler, and drasim must agree with every one of them.
const stepsDir = "oracle/steps"

// Why a recorded cycle is not compared. Every skipped cycle is counted
// under its reason, and docs/fidelity.md lists the reasons with evidence.
const (
	// skipHinted: OpportunisticBatching gave the cycle a node hint, which
	// drasim does not model (none was ever recorded: the default profile
	// makes every pod unsignable).
	skipHinted = "node hint from OpportunisticBatching"
	// skipNoOutcome: the log ends before the cycle's outcome.
	skipNoOutcome = "log ends before the outcome"
)

// stepTotals counts what the step-wise check compared.
type stepTotals struct {
	cycles, scores, tied, tiedExact, bound, unschedulable, errors, errorsExact int
	devices                                                                    int
	// groupCycles are the pod group cycles compared, groupPods the pods
	// they tried (each also counts as a cycle), groupUnreached the pods
	// they did not reach (their message compared), groupsPlaced the
	// cycles that placed their gang.
	groupCycles, groupPods, groupUnreached, groupsPlaced int
	// postFilters are the PostFilter verdicts compared (the "preemption:
	// ..." message), waiting those where the preemptor waited for its
	// victims to terminate, preemptions those where kube preempted,
	// victims the victims compared, preemptionTies the preemptions kube
	// decided by its random last tie-break.
	postFilters, waiting, preemptions, victims, preemptionTies int
	// groupPreemptions are the pod group preemptions compared (also
	// counted in preemptions), rerunPods the pods of their reruns of the
	// pod group algorithm (scores compared as a cycle's).
	groupPreemptions, rerunPods int
	// followed counts what the check did to the cluster because kube did
	// it, by kind: nominations, victims terminating and deleted, claims
	// released, bindings that failed.
	followed map[string]int
	skipped  map[string]int
}

func newStepTotals() stepTotals {
	return stepTotals{followed: map[string]int{}, skipped: map[string]int{}}
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
	t.devices += o.devices
	t.groupCycles += o.groupCycles
	t.groupPods += o.groupPods
	t.groupUnreached += o.groupUnreached
	t.groupsPlaced += o.groupsPlaced
	t.postFilters += o.postFilters
	t.waiting += o.waiting
	t.preemptions += o.preemptions
	t.victims += o.victims
	t.preemptionTies += o.preemptionTies
	t.groupPreemptions += o.groupPreemptions
	t.rerunPods += o.rerunPods
	for k, v := range o.followed {
		t.followed[k] += v
	}
	for k, v := range o.skipped {
		t.skipped[k] += v
	}
}

func (t stepTotals) String() string {
	share := func(a, b int) string {
		if b == 0 {
			return "-"
		}
		return fmt.Sprintf("%.0f%%", 100*float64(a)/float64(b))
	}
	return fmt.Sprintf("%d cycles (%d bound, %d unschedulable, %d errors), %d pod group cycles (%d placed) trying %d pods and not reaching %d, %d plugin scores, %d device allocations; "+
		"%d cycles with a tied top score, drasim's own pick was kube's in %d (%s); error messages word for word in %d of %d; "+
		"%d PostFilter verdicts (%d waiting for victims), %d preemptions with %d victims (%d decided by kube's random tie-break; %d by pod groups, rerunning %d pods); followed: %s; skipped: %s",
		t.cycles, t.bound, t.unschedulable, t.errors, t.groupCycles, t.groupsPlaced, t.groupPods, t.groupUnreached, t.scores, t.devices,
		t.tied, t.tiedExact, share(t.tiedExact, t.tied), t.errorsExact, t.errors,
		t.postFilters, t.waiting, t.preemptions, t.victims, t.preemptionTies, t.groupPreemptions, t.rerunPods, counts(t.followed), counts(t.skipped))
}

// counts prints a map of counts in key order.
func counts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// TestSteps replays every recorded scheduling cycle of the real
// kube-scheduler v1.37.2 (recorded with SCHED_V=10, see README.md) on the
// state kube had just before it: earlier pods bound where kube bound them,
// pods nominated where kube nominated them, preemption victims
// terminating and gone, and claims released, when kube saw it. For every
// cycle it requires the same outcome, the same feasible nodes, every
// plugin's weighted score and the total on every scored node, the same
// devices on kube's node, kube's message word for word for a pod that did
// not fit (with PostFilter's "preemption: ..." verdict), the same
// preemption (node and victims), and kube's node among drasim's
// top-scored nodes (kube's pick among equal scores depends on the order
// its 16 parallel filter workers finish; docs/fidelity.md). A pod group
// cycle is run as kube ran it (its pods in kube's order) and each pod's
// attempt, message and the gang's outcome are compared the same way. It
// also checks the tie rule itself: the root of kube's score heap over
// kube's own filter order is the node kube bound.
func TestSteps(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(stepsDir, "*.json"))
	if len(files) == 0 {
		t.Fatalf("no step-wise recordings in %s", stepsDir)
	}
	sort.Strings(files)
	all := newStepTotals()
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			rec := readRecording(t, file)
			got := checkSteps(t, t, rec, kubeversion.Default())
			t.Logf("%s: %s", name, got)
			all.add(got)
		})
	}
	t.Logf("all recordings: %s", all)
	dirs, _ := filepath.Glob(stepsDir + "-v*")
	sort.Strings(dirs)
	for _, dir := range dirs {
		rel, err := kubeversion.Parse(strings.TrimPrefix(filepath.Base(dir), "steps-"))
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		t.Run("v"+rel.Name, func(t *testing.T) { checkRelease(t, dir, rel) })
	}
}

func readRecording(t *testing.T, file string) *oraclelog.Recording {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := oraclelog.ReadRecording(data)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return rec
}

func checkSteps(t *testing.T, report stepT, rec *oraclelog.Recording, rel *kubeversion.Release) stepTotals {
	t.Helper()
	s := newStepCheck(t, report, rec, rel)
	s.walk()
	return s.n
}

func newStepCheck(t *testing.T, report stepT, rec *oraclelog.Recording, rel *kubeversion.Release) *stepCheck {
	t.Helper()
	res, err := load.Load([]string{rec.Scenario}, load.Options{Strict: true})
	if err != nil {
		t.Fatalf("loading %s: %v", rec.Scenario, err)
	}
	gates, err := rel.ParseGates(scenarioGateSpec(t, rec.Scenario))
	if err != nil {
		t.Fatalf("%s: %v", rec.Scenario, err)
	}
	// The oracle creates the nodes in file order while its scheduler
	// runs, so that is the order the recorded scheduler met them in.
	st, err := stepwise.New(res.Snapshot, sim.Options{KubeVersion: rel, Gates: gates, NodeOrder: cluster.NodeOrderFile})
	if err != nil {
		t.Fatal(err)
	}
	return &stepCheck{t: report, rel: rel, ctx: context.Background(), rec: rec, st: st, n: newStepTotals(), gone: map[string]bool{}}
}

// walk checks every cycle of the recording.
func (s *stepCheck) walk() {
	rec, t := s.rec, s.t
	for _, c := range rec.Cycles {
		for _, ev := range c.Before {
			if ev.Kind == oraclelog.EventDeleted {
				s.gone[ev.Pod] = true
			}
		}
	}
	for i, c := range rec.Cycles {
		s.where = fmt.Sprintf("cycle %d (%s%s)", i+1, c.Pod, c.Group)
		s.follow(c.Before)
		switch {
		case c.Group != "":
			s.group(c)
		case c.Hinted:
			s.n.skipped[skipHinted]++
		case c.Outcome == oraclelog.Unknown:
			if i < len(rec.Cycles)-1 {
				t.Errorf("%s: the log has no outcome for it, and it is not the last cycle", s.where)
			}
			s.n.skipped[skipNoOutcome]++
		default:
			s.pod(c)
		}
	}
}
