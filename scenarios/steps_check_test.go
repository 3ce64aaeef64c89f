package scenarios_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/drasim/drasim/internal/oraclelog"
	"github.com/drasim/drasim/internal/stepwise"
	"github.com/drasim/drasim/sim/kubeversion"
	"github.com/drasim/drasim/sim/result"
	"github.com/drasim/drasim/sim/schedule"
	v1 "k8s.io/api/core/v1"
)

// stepT is what the check reports to: the test, or for an older
// release's recordings a releaseDiffs that collects the differences.
type stepT interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Fatal(args ...any)
}

var _ stepT = (*testing.T)(nil)

// stepCheck walks one recording.
type stepCheck struct {
	t     stepT
	rel   *kubeversion.Release
	ctx   context.Context
	rec   *oraclelog.Recording
	st    *stepwise.Stepper
	n     stepTotals
	where string
	// gone are the pods kube deleted (victims): the recording has no
	// devices of theirs to compare with.
	gone map[string]bool
}

// follow does to the cluster what kube saw happen before the cycle.
func (s *stepCheck) follow(events []oraclelog.Event) {
	s.t.Helper()
	for _, ev := range events {
		var err error
		switch ev.Kind {
		case oraclelog.EventPreempting:
			err = s.st.Preempting(ev.Pod, ev.Node)
		case oraclelog.EventTerminating:
			err = s.st.Terminating(ev.Pod, ev.Preemptor)
		case oraclelog.EventDeleted:
			err = s.st.Deleted(ev.Pod)
		case oraclelog.EventDeallocated:
			if ev.Pod != "" {
				err = s.st.Released(ev.Pod)
			} else {
				err = s.st.Deallocated(s.claimName(ev.Claim))
			}
		case oraclelog.EventBindingFailed:
			err = s.st.BindingFailed(ev.Pod, ev.Node)
		case oraclelog.EventNominatedSeen:
			err = s.st.NominatedSeen(ev.Pod, ev.Node)
		default:
			s.t.Fatalf("%s: unknown event %q", s.where, ev.Kind)
		}
		if err != nil {
			s.t.Fatalf("%s: following kube (%s %s%s): %v", s.where, ev.Kind, ev.Pod, ev.Claim, err)
		}
		s.n.followed[string(ev.Kind)]++
	}
}

// claimName maps a claim kube's resource-claim controller made
// ("namespace/name", with a random suffix) to drasim's name for it;
// other claims keep their names.
func (s *stepCheck) claimName(claim string) string {
	ns, name, _ := strings.Cut(claim, "/")
	for pod, names := range s.rec.ClaimNames {
		for podClaim, kube := range names {
			if kube == name && strings.HasPrefix(pod, ns+"/") {
				if d, ok := s.st.ClaimNames(pod)[podClaim]; ok {
					return ns + "/" + d
				}
			}
		}
	}
	return claim
}

// nominate sets the pod's nominated node as kube did after its cycle.
func (s *stepCheck) nominate(pod string, node *string) {
	s.t.Helper()
	if node == nil {
		return
	}
	before := s.st.NominatedNode(pod)
	if err := s.st.Nominate(pod, *node); err != nil {
		s.t.Fatalf("%s: %v", s.where, err)
	}
	switch {
	case *node != "":
		s.n.followed["nominated"]++
	case before != "":
		s.n.followed["nomination cleared"]++
	}
}

// pod checks a pod's own scheduling cycle.
func (s *stepCheck) pod(c oraclelog.Cycle) {
	t := s.t
	t.Helper()
	a, err := s.st.Evaluate(s.ctx, c.Pod)
	if err != nil {
		t.Fatalf("%s: %v", s.where, err)
	}
	s.n.cycles++
	switch c.Outcome {
	case oraclelog.Unschedulable:
		s.n.unschedulable++
		if a.Node != "" || a.Error != nil {
			t.Errorf("%s: kube found no node (%q); drasim: node %q, error %v", s.where, c.Message, a.Node, a.Error)
			return
		}
		pf, err := s.st.PostFilter(s.ctx, c.Pod, a)
		if err != nil {
			t.Fatalf("%s: %v", s.where, err)
		}
		s.postFilter(c, pf)
		s.nominate(c.Pod, c.Nominated)
	case oraclelog.Error:
		s.n.errors++
		if a.Error == nil {
			t.Errorf("%s: kube failed with an error (%q); drasim: node %q, message %q", s.where, c.Message, a.Node, a.Message)
		} else {
			s.errorMessage(c, a.Message)
		}
		s.nominate(c.Pod, c.Nominated)
	case oraclelog.Bound, oraclelog.BindingFailed:
		// BindingFailed: placed, then the binding failed; the failure is
		// an event before a later cycle.
		node := c.Chosen
		if c.Outcome == oraclelog.Bound {
			s.n.bound++
			node = c.Node
		}
		s.checkBound(c, node, a)
		if err := s.st.Bind(s.ctx, c.Pod, a, node); err != nil {
			t.Fatalf("%s: binding where kube bound: %v", s.where, err)
		}
		if c.Outcome == oraclelog.Bound {
			s.checkDevices(c.Pod)
		}
	default:
		t.Fatalf("%s: unknown outcome %q", s.where, c.Outcome)
	}
}

// postFilter compares drasim's PostFilter verdict with kube's: the whole
// message, and the preemption kube carried out.
func (s *stepCheck) postFilter(c oraclelog.Cycle, pf *schedule.PostFilterResult) {
	t := s.t
	t.Helper()
	s.n.postFilters++
	msg := pf.Message
	pre := pf.Preemption
	if c.Preemption != nil {
		s.n.preemptions++
		s.n.victims += len(c.Preemption.Victims)
		if pre == nil || pre.Node == "" {
			t.Errorf("%s: kube preempted %v on %s; drasim did not preempt: %q", s.where, c.Preemption.Victims, c.Preemption.Node, msg)
			return
		}
		victims := podNames(pre.Victims)
		if pre.Node != c.Preemption.Node {
			// kube's last tie-break among candidates equal on every rule
			// is a map's order: random. drasim's must be among them.
			tied := false
			for _, cand := range pre.Candidates {
				if cand.Node == c.Preemption.Node && cand.LostOn == "random" {
					tied, victims = true, podNames(cand.Victims)
				}
			}
			if !tied {
				t.Errorf("%s: kube preempted on %s, drasim on %s (kube's node is not a candidate tied on every rule: %+v)", s.where, c.Preemption.Node, pre.Node, pre.Candidates)
				return
			}
			s.n.preemptionTies++
			msg = strings.Replace(msg, "on node "+pre.Node+",", "on node "+c.Preemption.Node+",", 1)
		}
		if !slices.Equal(victims, c.Preemption.Victims) {
			t.Errorf("%s: victims on %s differ:\n  kube-scheduler: %v\n  drasim:         %v", s.where, c.Preemption.Node, c.Preemption.Victims, victims)
		}
	} else if pre != nil && pre.Node != "" {
		t.Errorf("%s: drasim preempted %v on %s; kube did not (%q)", s.where, podNames(pre.Victims), pre.Node, c.Message)
	}
	if msg != c.Message {
		t.Errorf("%s: message differs:\n  kube-scheduler: %q\n  drasim:         %q", s.where, c.Message, msg)
	}
	if strings.HasSuffix(msg, " preemption: not eligible due to a terminating pod on the nominated node.") {
		s.n.waiting++
	}
	// The nomination kube wrote is the one DefaultPreemption decided (a
	// nil decision leaves it as it was, and kube's log then has none).
	var want *string
	if pre != nil && pre.Nomination != nil {
		node := pre.Nomination.Node
		if c.Preemption != nil && node == pre.Node {
			node = c.Preemption.Node // the tie accepted above
		}
		want = &node
	}
	if (want == nil) != (c.Nominated == nil) || want != nil && *want != *c.Nominated {
		t.Errorf("%s: nominated node: kube-scheduler %s, drasim %s", s.where, show(c.Nominated), show(want))
	}
}

// errorMessage compares a SchedulerError message.
func (s *stepCheck) errorMessage(c oraclelog.Cycle, got string) {
	s.t.Helper()
	kube := renameClaims(c.Message, s.rec.ClaimNames[c.Pod], s.st.ClaimNames(c.Pod))
	switch {
	case got == kube:
		s.n.errorsExact++
	case maskDevice(got) == maskDevice(kube):
		// The same error met on another node's device: kube reports
		// whichever of its parallel filter workers failed first.
	default:
		s.t.Errorf("%s: error differs:\n  kube-scheduler: %q\n  drasim:         %q", s.where, kube, got)
	}
}

// group checks a pod group cycle: drasim runs it with the pods kube's
// cycle took, in kube's order, each on kube's node among equal scores;
// each pod's attempt, each pod's message and the gang's outcome must be
// kube's.
func (s *stepCheck) group(c oraclelog.Cycle) {
	t := s.t
	t.Helper()
	s.n.groupCycles++
	pods := make([]string, len(c.Members))
	member := map[string]oraclelog.Cycle{}
	for i, m := range c.Members {
		pods[i] = m.Pod
		member[m.Pod] = m
	}
	rerun := map[string]oraclelog.Cycle{}
	for _, m := range c.Rerun {
		rerun[m.Pod] = m
	}
	where := s.where
	gc, err := s.st.ScheduleGroup(s.ctx, c.Group, pods, func(pod string, a *schedule.Attempt) string {
		m := member[pod]
		s.where = where + ", pod " + pod
		if m.Chosen == "" {
			return a.Node // kube found none: reported below
		}
		s.checkBound(m, m.Chosen, a)
		return m.Chosen
	}, func(pod string, a *schedule.Attempt) string {
		// PodGroupPostFilter's rerun on the cluster without the victims.
		m, ok := rerun[pod]
		s.where = where + ", preemption rerun, pod " + pod
		if !ok || m.Chosen == "" {
			t.Errorf("%s: drasim's rerun placed the pod on %s; kube's did not", s.where, a.Node)
			return a.Node
		}
		s.n.rerunPods++
		s.checkBound(m, m.Chosen, a)
		return m.Chosen
	})
	s.where = where
	if err != nil {
		t.Fatalf("%s: %v", s.where, err)
	}
	s.groupPreemption(c, gc)
	for i, m := range c.Members {
		s.where = where + ", pod " + m.Pod
		a := gc.Attempts[i]
		if m.Unreached != (a == nil) {
			t.Errorf("%s: kube's pod group cycle tried the pod: %v; drasim's: %v", s.where, !m.Unreached, a != nil)
			continue
		}
		if a == nil {
			s.n.groupUnreached++
		} else {
			s.n.groupPods++
			s.n.cycles++
			if found := a.Node != "" && a.Error == nil; found != (m.Chosen != "") {
				t.Errorf("%s: kube found a node: %q; drasim: %q (%s)", s.where, m.Chosen, a.Node, a.Message)
			}
		}
		out := gc.Results[i]
		switch m.Outcome {
		case oraclelog.Bound, oraclelog.BindingFailed:
			if !gc.Placed {
				continue // reported below
			}
			if m.Outcome == oraclelog.Bound {
				s.n.bound++
				if m.Node != m.Chosen {
					t.Errorf("%s: kube chose %s, then bound the pod to %s", s.where, m.Chosen, m.Node)
				}
				if m.Feasible != a.FeasibleNodes || m.Evaluated != a.EvaluatedNodes {
					t.Errorf("%s: kube evaluated %d nodes, %d feasible; drasim %d and %d", s.where, m.Evaluated, m.Feasible, a.EvaluatedNodes, a.FeasibleNodes)
				}
				s.checkDevices(m.Pod)
			}
		case oraclelog.Unschedulable, oraclelog.Error:
			switch {
			case a == nil:
				// Not reached: the gang's status (kube logs it as an
				// error, the reason stays Unschedulable).
			case a.Error != nil:
				s.n.errors++
			default:
				s.n.unschedulable++
			}
			if out == nil || out.Phase != result.PhaseUnschedulable {
				t.Errorf("%s: kube left the pod pending (%q); drasim did not", s.where, m.Message)
				continue
			}
			if got := renameClaims(m.Message, s.rec.ClaimNames[m.Pod], s.st.ClaimNames(m.Pod)); out.Message != got {
				t.Errorf("%s: message differs:\n  kube-scheduler: %q\n  drasim:         %q", s.where, got, out.Message)
			}
			if gp := gc.Preemption; gp != nil && gp.Success && m.Nominated != nil {
				if node, ok := nominationOf(gp, m.Pod); !ok || node != *m.Nominated {
					t.Errorf("%s: nominated node after the pod group's preemption: kube-scheduler %q, drasim %q", s.where, *m.Nominated, node)
				}
			}
			s.nominate(m.Pod, m.Nominated)
		default:
			t.Errorf("%s: kube's log has no outcome for the pod", s.where)
		}
	}
	s.where = where
	switch placed := c.Outcome == oraclelog.Bound; {
	case placed != gc.Placed:
		t.Errorf("%s: kube placed the gang: %v; drasim: %v (%s)", s.where, placed, gc.Placed, gc.Message)
	case placed:
		s.n.groupsPlaced++
	case gc.Message != c.Message:
		t.Errorf("%s: the pod group cycle's status differs:\n  kube-scheduler: %q\n  drasim:         %q", s.where, c.Message, gc.Message)
	}
}

// groupPreemption compares drasim's PodGroupPostFilter decision with
// kube's: that the rerun tried the same pods, the victims kube deleted
// (each pod of the gang's nomination is compared with its message).
func (s *stepCheck) groupPreemption(c oraclelog.Cycle, gc *schedule.GroupCycle) {
	t := s.t
	t.Helper()
	gp := gc.Preemption
	if len(c.Rerun) > 0 {
		if gp == nil || len(gp.Rerun) != len(c.Rerun) {
			n := 0
			if gp != nil {
				n = len(gp.Rerun)
			}
			t.Errorf("%s: kube's preemption reran the pod group algorithm on %d pods; drasim's on %d", s.where, len(c.Rerun), n)
		}
	}
	if c.Preemption == nil {
		if gp != nil && len(gp.Victims) > 0 {
			t.Errorf("%s: drasim's pod group preemption deleted %v; kube's did not (%q)", s.where, podNames(gp.Victims), c.Message)
		}
		return
	}
	s.n.preemptions++
	s.n.groupPreemptions++
	s.n.victims += len(c.Preemption.Victims)
	if gp == nil || !gp.Success {
		t.Errorf("%s: kube's pod group preemption deleted %v; drasim's did not preempt (%q)", s.where, c.Preemption.Victims, gc.Message)
		return
	}
	if victims := podNames(gp.Victims); !slices.Equal(victims, c.Preemption.Victims) {
		t.Errorf("%s: the pod group's victims differ:\n  kube-scheduler: %v\n  drasim:         %v", s.where, c.Preemption.Victims, victims)
	}
}

// checkBound compares an attempt that found a node with kube's cycle,
// which put the pod on node.
func (s *stepCheck) checkBound(c oraclelog.Cycle, node string, a *schedule.Attempt) {
	t, where, n := s.t, s.where, &s.n
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
		t.Errorf("%s: kube put the pod on %s; drasim found no node: %s", where, node, a.Message)
		return
	}
	if c.Outcome == oraclelog.Bound && (c.Feasible != a.FeasibleNodes || c.Evaluated != a.EvaluatedNodes) {
		t.Errorf("%s: kube evaluated %d nodes, %d feasible; drasim %d and %d", where, c.Evaluated, c.Feasible, a.EvaluatedNodes, a.FeasibleNodes)
	}
	if len(c.Order) == 0 {
		// One feasible node: kube does not score.
		if len(names) != 1 || names[0] != node {
			t.Errorf("%s: kube's only feasible node was %s; drasim's feasible nodes: %v", where, node, names)
		}
		return
	}
	kubeNames := slices.Clone(c.Order)
	sort.Strings(kubeNames)
	if !slices.Equal(kubeNames, names) {
		t.Errorf("%s: feasible nodes differ:\n  kube-scheduler: %v\n  drasim:         %v", where, kubeNames, names)
		return
	}
	best := int64(-1)
	for i, nodeName := range c.Order {
		got := feasible[nodeName]
		for j, plugin := range s.rec.Plugins {
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
				t.Errorf("%s: node %s, plugin %s: kube-scheduler scored %d, drasim %d (found %v)", where, nodeName, plugin, want, have, found)
			}
		}
		if got.Total != c.Totals[i] {
			t.Errorf("%s: node %s: kube's total %d, drasim's %d", where, nodeName, c.Totals[i], got.Total)
		}
		best = max(best, c.Totals[i])
	}
	// The tie rule, on kube's own order: the heap's root is kube's node
	// (kube-scheduler 1.34 draws among equal top scores instead).
	if pick := c.Order[schedule.KubeHostIndex(len(c.Order), func(i int) int64 { return c.Totals[i] })]; pick != node && !s.rel.RandomTies {
		t.Errorf("%s: the score heap over kube's filter order %v (totals %v) gives %s, but kube put the pod on %s", where, c.Order, c.Totals, pick, node)
	}
	tied := 0
	for _, v := range c.Totals {
		if v == best {
			tied++
		}
	}
	if tied > 1 {
		n.tied++
		if a.Node == node {
			n.tiedExact++
		}
	}
	if kubeNode := feasible[node]; kubeNode == nil || kubeNode.Total != best {
		t.Errorf("%s: kube's node %s is not among the top-scored nodes", where, node)
	} else if a.Node != node && feasible[a.Node].Total != best {
		t.Errorf("%s: drasim chose %s (total %d) over kube's %s (total %d)", where, a.Node, feasible[a.Node].Total, node, best)
	}
}

// checkDevices compares the devices the pod holds after binding where kube
// bound it with the devices kube's pod holds at the end of the recording.
func (s *stepCheck) checkDevices(pod string) {
	s.t.Helper()
	want, got := s.rec.Devices[pod], s.st.PodDevices(pod)
	if s.gone[pod] || len(want) == 0 && len(got) == 0 {
		return
	}
	s.n.devices++
	if !slices.Equal(want, got) {
		s.t.Errorf("%s: devices differ:\n  kube-scheduler: %v\n  drasim:         %v", s.where, want, got)
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

// podNames lists pods as sorted "namespace/name" keys.
// nominationOf is the node a pod group's preemption nominated the pod to.
func nominationOf(gp *schedule.GroupPreemption, pod string) (string, bool) {
	for p, node := range gp.Nominations {
		if p.Namespace+"/"+p.Name == pod {
			return node, true
		}
	}
	return "", false
}

func podNames(pods []*v1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Namespace + "/" + p.Name
	}
	sort.Strings(out)
	return out
}

// show prints an optional node name.
func show(node *string) string {
	if node == nil {
		return "(unchanged)"
	}
	return fmt.Sprintf("%q", *node)
}
