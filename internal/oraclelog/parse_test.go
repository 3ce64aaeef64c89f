package oraclelog

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// klog builds a log in kube-scheduler's text format from (message,
// key=value...) lines; values are quoted unless they are numbers.
func klog(lines ...[]string) string {
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "I1202 20:45:%02d.000000    8393 schedule_one.go:1] %q", i%60, l[0])
		for _, kv := range l[1:] {
			k, v, _ := strings.Cut(kv, "=")
			if _, err := strconv.Atoi(v); err == nil {
				fmt.Fprintf(&b, " %s=%s", k, v)
			} else {
				fmt.Fprintf(&b, " %s=%q", k, v)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func ptr(s string) *string { return &s }

func TestParsePreemption(t *testing.T) {
	log := klog(
		[]string{"pod resource claims", "pod=default/v1", `resourceclaims=["default/v1-gpu-x"]`},
		[]string{"Attempting to schedule pod", "pod=default/p"},
		[]string{"Status after running PostFilter plugins for pod", "pod=default/p", "status=preemption: found a potential placement for pod on node n1, preempting 2 victims"},
		[]string{"Unable to schedule pod; no fit; waiting", "pod=default/p", "err=0/2 nodes are available: 2 Insufficient cpu. preemption: found a potential placement for pod on node n1, preempting 2 victims"},
		[]string{"Updating pod condition and nominated node name", "pod=default/p", "conditionType=PodScheduled", "nominatedNodeName=n1", "nominatingMode=1"},
		[]string{"Victim Pod is already being deleted, skipping the API call for it", "preemptor=default/p", "node=n1", "victim=default/v2"},
		[]string{"Start the preemption asynchronously", "preemptor=default/p", "node=n1", "numVictims=2", "numVictimsToDelete=1"},
		[]string{"Preemptor Pod preempted victim Pod", "preemptor=default/p", "victim=default/v1", "node=n1"},
		[]string{"Delete event for scheduled pod", "pod=default/v1"},
		[]string{"Observed device deallocation", "device=d/p/gpu-0", "claim=default/v1-gpu-x"},
		[]string{"Observed device deallocation", "device=d/p/gpu-1", "claim=default/v1-gpu-x"},
		[]string{"Attempting to schedule pod", "pod=default/p"},
		[]string{"Unable to schedule pod; no fit; waiting", "pod=default/p", "err=0/2 nodes are available: 2 Insufficient cpu. preemption: not eligible due to a terminating pod on the nominated node."},
		[]string{"Updating pod condition and nominated node name", "pod=default/p", "conditionType=PodScheduled"},
		[]string{"Delete event for scheduled pod", "pod=default/v2"},
		[]string{"Attempting to schedule pod", "pod=default/p"},
		[]string{"OpportunisticBatch set cycle state", "pod=default/p", "chosenNode=n1"},
		[]string{"Updating pod condition and nominated node name", "pod=default/p", "nominatedNodeName=n1", "nominatingMode=1"},
		[]string{"Successfully bound pod to node", "pod=default/p", "node=n1", "evaluatedNodes=1", "feasibleNodes=1"},
	)
	_, got, err := ParseSchedulerLog(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	want := []Cycle{
		{Pod: "default/p", Outcome: Unschedulable, Message: "0/2 nodes are available: 2 Insufficient cpu. preemption: found a potential placement for pod on node n1, preempting 2 victims",
			Nominated: ptr("n1"), Preemption: &Preemption{Node: "n1", Victims: []string{"default/v1", "default/v2"}}},
		{Pod: "default/p", Outcome: Unschedulable, Message: "0/2 nodes are available: 2 Insufficient cpu. preemption: not eligible due to a terminating pod on the nominated node.",
			Before: []Event{
				{Kind: EventPreempting, Pod: "default/p", Node: "n1"},
				{Kind: EventTerminating, Pod: "default/v1", Preemptor: "default/p", Node: "n1"},
				{Kind: EventDeleted, Pod: "default/v1"},
				{Kind: EventDeallocated, Claim: "default/v1-gpu-x", Pod: "default/v1"},
			}},
		{Pod: "default/p", Outcome: Bound, Node: "n1", Chosen: "n1", Evaluated: 1, Feasible: 1,
			Before: []Event{{Kind: EventDeleted, Pod: "default/v2"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cycles differ (-want +got):\n%s", diff)
	}
}

func TestParsePodGroupCycles(t *testing.T) {
	group := "podGroup=default/g"
	log := klog(
		// A gang that does not fit: a0 placed in vain, a1 fits nowhere,
		// a2 not reached.
		[]string{"Attempting to schedule pod group", group},
		[]string{"Attempting to schedule a pod belonging to a pod group", group, "pod=default/a0"},
		[]string{"Calculated node's final score for pod", group, "pod=default/a0", "node=n2", "score=10"},
		[]string{"Plugin scored node for pod", group, "pod=default/a0", "plugin=X", "node=n2", "score=10"},
		[]string{"Calculated node's final score for pod", group, "pod=default/a0", "node=n1", "score=20"},
		[]string{"Plugin scored node for pod", group, "pod=default/a0", "plugin=X", "node=n1", "score=20"},
		[]string{"OpportunisticBatch set cycle state", group, "pod=default/a0", "chosenNode=n1"},
		[]string{"Attempting to schedule a pod belonging to a pod group", group, "pod=default/a1"},
		[]string{"Unable to schedule pod belonging to a pod group; waiting", group, "pod=default/a0", "err=pod group is unschedulable, minCount (3) cannot be satisfied: 1 scheduled, 1 remaining, pod group preemption: none"},
		[]string{"Updating pod condition and nominated node name", group, "pod=default/a0", "nominatedNodeName=", "nominatingMode=1"},
		[]string{"Unable to schedule pod; no fit; waiting", group, "pod=default/a1", "err=0/2 nodes are available: 2 Insufficient cpu."},
		[]string{"Updating pod condition and nominated node name", group, "pod=default/a1", "conditionType=PodScheduled"},
		[]string{"Error scheduling pod; retrying", "err=minCount (3) cannot be satisfied: 1 scheduled, 1 remaining", group, "pod=default/a2"},
		[]string{"Unable to schedule a pod group", group, "unschedulablePods=3", "err=minCount (3) cannot be satisfied: 1 scheduled, 1 remaining, pod group preemption: none"},
		// Placed; a1's binding fails, and a cycle starts before a2's
		// binding ends.
		[]string{"Attempting to schedule pod group", group},
		[]string{"Attempting to schedule a pod belonging to a pod group", group, "pod=default/a0"},
		[]string{"OpportunisticBatch set cycle state", group, "pod=default/a0", "chosenNode=n1"},
		[]string{"Attempting to schedule a pod belonging to a pod group", group, "pod=default/a1"},
		[]string{"OpportunisticBatch set cycle state", group, "pod=default/a1", "chosenNode=n1"},
		[]string{"Attempting to schedule a pod belonging to a pod group", group, "pod=default/a2"},
		[]string{"OpportunisticBatch set cycle state", group, "pod=default/a2", "chosenNode=n2"},
		[]string{"Updating pod condition and nominated node name", group, "pod=default/a0", "nominatedNodeName=n1", "nominatingMode=1"},
		[]string{"Successfully scheduled a pod group", group, "scheduledPods=3"},
		[]string{"Updating pod condition and nominated node name", group, "pod=default/a1", "nominatedNodeName=n1", "nominatingMode=1"},
		[]string{"Successfully bound pod to node", group, "pod=default/a0", "node=n1", "evaluatedNodes=2", "feasibleNodes=2"},
		[]string{"Error scheduling pod; retrying", "err=running PreBind plugin: lost", group, "pod=default/a1"},
		[]string{"Updating pod condition and nominated node name", group, "pod=default/a1", "nominatedNodeName=", "nominatingMode=1"},
		[]string{"Update event for unscheduled pod", "pod=default/a1"},
		[]string{"Attempting to schedule pod group", group},
		[]string{"Error scheduling pod; retrying", "err=running PreBind plugin: lost", group, "pod=default/a2"},
		[]string{"Error scheduling pod; retrying", "err=error in \"DynamicResources\" PodGroupPostFilter plugins: not found", group, "pod=default/a1"},
		[]string{"Error scheduling pod group", group, "err=error in \"DynamicResources\" PodGroupPostFilter plugins: not found"},
	)
	plugins, got, err := ParseSchedulerLog(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(plugins, []string{"X"}) {
		t.Errorf("plugins: %v, want [X]", plugins)
	}
	want := []Cycle{
		{Group: "default/g", Outcome: Unschedulable, Message: "minCount (3) cannot be satisfied: 1 scheduled, 1 remaining, pod group preemption: none", Members: []Cycle{
			{Pod: "default/a0", Outcome: Unschedulable, Chosen: "n1", Nominated: ptr(""), Order: []string{"n2", "n1"}, Scores: [][]int64{{10}, {20}}, Totals: []int64{10, 20},
				Message: "pod group is unschedulable, minCount (3) cannot be satisfied: 1 scheduled, 1 remaining, pod group preemption: none"},
			{Pod: "default/a1", Outcome: Unschedulable, Message: "0/2 nodes are available: 2 Insufficient cpu."},
			{Pod: "default/a2", Unreached: true, Outcome: Error, Message: "minCount (3) cannot be satisfied: 1 scheduled, 1 remaining"},
		}},
		{Group: "default/g", Outcome: Bound, Members: []Cycle{
			{Pod: "default/a0", Outcome: Bound, Chosen: "n1", Node: "n1", Evaluated: 2, Feasible: 2},
			{Pod: "default/a1", Outcome: BindingFailed, Chosen: "n1", Message: "running PreBind plugin: lost"},
			{Pod: "default/a2", Outcome: BindingFailed, Chosen: "n2", Message: "running PreBind plugin: lost"},
		}},
		{Group: "default/g", Outcome: Error, Message: `error in "DynamicResources" PodGroupPostFilter plugins: not found`,
			Before: []Event{
				{Kind: EventBindingFailed, Pod: "default/a1", Node: "n1", Message: "running PreBind plugin: lost"},
				{Kind: EventNominatedSeen, Pod: "default/a1"},
			},
			Members: []Cycle{
				{Pod: "default/a1", Unreached: true, Outcome: Error, Message: `error in "DynamicResources" PodGroupPostFilter plugins: not found`},
			}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cycles differ (-want +got):\n%s", diff)
	}
}
