// Package oraclelog reads what the real kube-scheduler v1.37.2 logged and
// wrote while the oracle kit (../shared/oracle) replayed a scenario, and
// reduces it to a Recording: every scheduling cycle in the order the
// scheduler ran them (the pod, every plugin's weighted score on every
// feasible node in the order the filter pass found them, the final scores,
// and the outcome), what changed in the cluster between two cycles
// (preemption victims terminating and deleted, claims deallocated, bindings
// that failed), plus the devices each bound pod got. Recordings are checked
// in as test data; scenarios/steps_test.go holds drasim to them cycle by
// cycle.
//
// The scheduler must run with -v=10 (SCHED_V=10): its log then has
// "Attempting to schedule pod" (V3) at the start of each cycle, "Plugin
// scored node for pod" and "Calculated node's final score for pod" (V10)
// when two or more nodes passed the filters, "OpportunisticBatch set cycle
// state" (V4) with the node the cycle chose, and the outcome: "Successfully
// bound pod to node" (V2, from the binding goroutine, so possibly after the
// next cycle's first lines), "Unable to schedule pod; no fit; waiting" (V2)
// or "Error scheduling pod; retrying" (an error), followed by "Updating pod
// condition and nominated node name" (V3) with the nominated node. A pod
// group cycle (GenericWorkload) starts with "Attempting to schedule pod
// group", has one "Attempting to schedule a pod belonging to a pod group"
// per pod it tries, the pods' outcomes ("Unable to schedule pod belonging
// to a pod group; waiting" for pods placed in vain) and ends with
// "Successfully scheduled a pod group", "Unable to schedule a pod group" or
// "Error scheduling pod group". DefaultPreemption logs "Start the
// preemption asynchronously" (the node) and "Preemptor Pod preempted victim
// Pod" (each victim, once it is being deleted); the informers log "Delete
// event for scheduled pod" when a victim is gone and DynamicResources
// "Observed device deallocation" (V6) when a claim lost its devices.
package oraclelog

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
)

// Outcome is how a scheduling cycle ended.
type Outcome string

const (
	// Bound: the pod was bound to Cycle.Node; for a pod group cycle, the
	// gang was placed.
	Bound Outcome = "bound"
	// Unschedulable: no node fit (kube's FitError, Cycle.Message); for a
	// pod of a pod group, also the gang's failure.
	Unschedulable Outcome = "unschedulable"
	// Error: a plugin failed with an error (PodScheduled reason
	// SchedulerError, Cycle.Message).
	Error Outcome = "error"
	// BindingFailed: the cycle placed the pod on Cycle.Chosen, but its
	// binding failed afterwards (Cycle.Message, e.g. PreBind losing a race
	// for a claim); the pod is pending again.
	BindingFailed Outcome = "binding-failed"
	// Unknown: the log ends before an outcome.
	Unknown Outcome = "unknown"
)

// Recording is one scenario as the real scheduler ran it.
type Recording struct {
	// Scenario is the snapshot's file name.
	Scenario string `json:"scenario"`
	// Plugins are the score plugins, in the order of Cycle.Scores' columns.
	Plugins []string `json:"plugins"`
	Cycles  []Cycle  `json:"cycles,omitempty"`
	// Devices are the devices each pod holds at the end of the recording,
	// as "request|driver/pool/device" (the oracle's summarize.py format).
	Devices map[string][]string `json:"devices"`
	// ClaimNames maps each pod to the names of the claims the
	// resource-claim controller made for it ("pod claim name" -> claim
	// name): they carry random suffixes that messages quote.
	ClaimNames map[string]map[string]string `json:"claimNames,omitempty"`
}

// Cycle is one scheduling cycle: a pod's (Pod) or a pod group's (Group,
// with each pod's attempt in Members).
type Cycle struct {
	Pod string `json:"pod,omitempty"`
	// Group is the pod group ("namespace/name") of a pod group cycle;
	// Members are its pods in the order the cycle took them: first those
	// it tried, then those it did not reach (Unreached).
	Group     string  `json:"group,omitempty"`
	Members   []Cycle `json:"members,omitempty"`
	Unreached bool    `json:"unreached,omitempty"`
	// Rerun is, for a pod group cycle whose PodGroupPostFilter preempted
	// (or tried to), DefaultPreemption's rerun of the pod group algorithm
	// on the cluster without the potential victims: the pods it tried,
	// each with the node it chose (none when the pod fit nowhere) and
	// the scores.
	Rerun   []Cycle `json:"rerun,omitempty"`
	Outcome Outcome `json:"outcome"`
	// Node is where the pod was bound (Outcome Bound).
	Node string `json:"node,omitempty"`
	// Chosen is the node the cycle picked for the pod, where kube assumed
	// it: Node for a pod that was then bound, the node a pod of a gang
	// that did not fit stood on until the gang was taken back.
	Chosen string `json:"chosen,omitempty"`
	// Message is the PodScheduled message of a failed cycle, with
	// PostFilter's "preemption: ..." text; for a pod group cycle, the
	// PodGroup's condition message.
	Message string `json:"message,omitempty"`
	// Nominated is the nominated node kube set after a failed cycle ("":
	// cleared); nil when the cycle left it as it was.
	Nominated *string `json:"nominated,omitempty"`
	// Preemption is what DefaultPreemption carried out after the cycle.
	Preemption *Preemption `json:"preemption,omitempty"`
	// Evaluated and Feasible are the counts kube reports on binding.
	Evaluated int `json:"evaluated,omitempty"`
	Feasible  int `json:"feasible,omitempty"`
	// Order lists the scored nodes in the order the filter pass appended
	// them (empty when fewer than two nodes passed: kube does not score).
	Order []string `json:"order,omitempty"`
	// Scores[i][j] is plugin Plugins[j]'s weighted score on node Order[i];
	// Totals[i] is node Order[i]'s final score.
	Scores [][]int64 `json:"scores,omitempty"`
	Totals []int64   `json:"totals,omitempty"`
	// Hinted is set when OpportunisticBatching gave the cycle a node hint.
	Hinted bool `json:"hinted,omitempty"`
	// Before are the changes kube saw after the previous cycle began and
	// before this one, in the order it logged them.
	Before []Event `json:"before,omitempty"`
}

// Preemption is a preemption kube carried out: the node the preemptor
// was nominated to and the pods it deleted there.
type Preemption struct {
	Node string `json:"node"`
	// Victims are the victims ("namespace/name"), sorted: those kube
	// deleted and those it found being deleted already.
	Victims []string `json:"victims"`
}

// EventKind is a change in the cluster between two cycles.
type EventKind string

const (
	// EventPreempting: the preemption for Pod on Node started; the pods
	// of lower priority nominated to Node lose their nomination.
	EventPreempting EventKind = "preempting"
	// EventTerminating: Pod, a victim, is being deleted (a deletion
	// timestamp and a DisruptionTarget condition); it stays on its node
	// until it is gone.
	EventTerminating EventKind = "terminating"
	// EventDeleted: Pod is gone (the oracle force-deletes victims).
	EventDeleted EventKind = "deleted"
	// EventDeallocated: Claim ("namespace/name") lost its devices: the
	// resource-claim controller released the claims of Pod, a deleted
	// pod, or (no Pod) DynamicResources' PostFilter freed a pending pod's.
	EventDeallocated EventKind = "deallocated"
	// EventBindingFailed: Pod, placed by an earlier cycle, did not bind
	// (Message) and is pending again. The scheduler forgets any
	// nomination of it, but the pod object kube queues again still says
	// Node: the nominated node its binding cycle wrote as an expectation.
	EventBindingFailed EventKind = "binding-failed"
	// EventNominatedSeen: the informer delivered a status patch of Pod:
	// its object (what its next cycle tries first) now says nominated
	// node Node. Only logged where it changes what the object said.
	EventNominatedSeen EventKind = "nominated-seen"
)

// Event is one change between two cycles.
type Event struct {
	Kind EventKind `json:"kind"`
	Pod  string    `json:"pod,omitempty"`
	// Preemptor is the pod whose preemption made Pod terminate.
	Preemptor string `json:"preemptor,omitempty"`
	Node      string `json:"node,omitempty"`
	Claim     string `json:"claim,omitempty"`
	Message   string `json:"message,omitempty"`
}

// Line is one parsed klog line: severity, message and key/value pairs.
type Line struct {
	Severity byte
	Msg      string
	KV       map[string]string
}

// ParseLine reads a klog text line such as
//
//	I1202 19:54:59.303812   27216 schedule_one.go:984] "Plugin scored node for pod" pod="default/p" plugin="X" node="n" score=300
//
// It returns false for lines that are not structured log entries.
func ParseLine(s string) (Line, bool) {
	if len(s) < 2 || !strings.ContainsRune("IWEF", rune(s[0])) {
		return Line{}, false
	}
	_, rest, ok := strings.Cut(s, "] ")
	if !ok || !strings.HasPrefix(rest, `"`) {
		return Line{}, false
	}
	msg, rest, ok := quoted(rest)
	if !ok {
		return Line{}, false
	}
	l := Line{Severity: s[0], Msg: msg, KV: map[string]string{}}
	for {
		rest = strings.TrimLeft(rest, " ")
		if rest == "" {
			return l, true
		}
		key, after, ok := strings.Cut(rest, "=")
		if !ok || strings.ContainsAny(key, " \"") {
			return l, true // not key=value any more: keep what was read
		}
		var val string
		if strings.HasPrefix(after, `"`) {
			if val, rest, ok = quoted(after); !ok {
				return l, true
			}
		} else {
			val, rest, _ = strings.Cut(after, " ")
		}
		l.KV[key] = val
	}
}

// quoted reads a Go-quoted string at the start of s.
func quoted(s string) (string, string, bool) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			v, err := strconv.Unquote(s[:i+1])
			if err != nil {
				return "", "", false
			}
			return v, s[i+1:], true
		}
	}
	return "", "", false
}

// WriteJSON writes the recording as JSON with one cycle per line, so that
// a re-recording shows in a diff cycle by cycle.
func (r *Recording) WriteJSON(w io.Writer) error {
	head := *r
	head.Cycles = nil
	b, err := json.Marshal(head)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	out.Write(b[:len(b)-1]) // drop the closing brace
	out.WriteString(",\"cycles\":[\n")
	for i := range r.Cycles {
		c, err := json.Marshal(r.Cycles[i])
		if err != nil {
			return err
		}
		out.Write(c)
		if i < len(r.Cycles)-1 {
			out.WriteByte(',')
		}
		out.WriteByte('\n')
	}
	out.WriteString("]}\n")
	_, err = w.Write(out.Bytes())
	return err
}

// ReadRecording reads a recording written by WriteJSON.
func ReadRecording(data []byte) (*Recording, error) {
	var r Recording
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
