// Package oraclelog reads what the real kube-scheduler v1.37.2 logged and
// wrote while the oracle kit (../shared/oracle) replayed a scenario, and
// reduces it to a Recording: every scheduling cycle in the order the
// scheduler ran them (the pod, every plugin's weighted score on every
// feasible node in the order the filter pass found them, the final scores,
// and the outcome), plus the devices each bound pod got. Recordings are
// checked in as test data; scenarios/steps_test.go holds drasim to them
// cycle by cycle.
//
// The scheduler must run with -v=10 (SCHED_V=10): its log then has
// "Attempting to schedule pod" (V3) at the start of each cycle, "Plugin
// scored node for pod" and "Calculated node's final score for pod" (V10)
// when two or more nodes passed the filters, and the outcome: "Successfully
// bound pod to node" (V2, from the binding goroutine, so possibly after the
// next cycle's first lines), "Unable to schedule pod; no fit; waiting" (V2)
// or "Error scheduling pod; retrying" (an error).
package oraclelog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Outcome is how a scheduling cycle ended.
type Outcome string

const (
	// Bound: the pod was bound to Cycle.Node.
	Bound Outcome = "bound"
	// Unschedulable: no node fit (kube's FitError, Cycle.Message).
	Unschedulable Outcome = "unschedulable"
	// Error: a plugin failed with an error (PodScheduled reason
	// SchedulerError, Cycle.Message).
	Error Outcome = "error"
	// Unknown: the log ends, or the binding failed, before an outcome.
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

// Cycle is one scheduling cycle.
type Cycle struct {
	Pod     string  `json:"pod"`
	Outcome Outcome `json:"outcome"`
	// Node is where the pod was bound (Outcome Bound).
	Node string `json:"node,omitempty"`
	// Message is the PodScheduled message of a failed cycle.
	Message string `json:"message,omitempty"`
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

// ParseSchedulerLog reduces a kube-scheduler -v=10 log to its cycles.
func ParseSchedulerLog(r io.Reader) (plugins []string, cycles []Cycle, err error) {
	type open struct {
		cycle  int            // index into cycles
		column map[string]int // node -> row in Order
	}
	pluginCol := map[string]int{}
	latest := map[string]*open{} // pod -> its latest cycle
	type score struct {
		node, plugin string
		v            int64
	}
	pending := map[int][]score{} // cycle -> scores, placed once plugins are known
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		l, ok := ParseLine(sc.Text())
		if !ok {
			continue
		}
		pod := l.KV["pod"]
		switch l.Msg {
		case "Attempting to schedule pod":
			cycles = append(cycles, Cycle{Pod: pod, Outcome: Unknown})
			latest[pod] = &open{cycle: len(cycles) - 1, column: map[string]int{}}
		case "OpportunisticBatch provided node hint":
			if o := latest[pod]; o != nil {
				cycles[o.cycle].Hinted = true
			}
		case "Plugin scored node for pod":
			o := latest[pod]
			if o == nil {
				continue
			}
			v, err := strconv.ParseInt(l.KV["score"], 10, 64)
			if err != nil {
				return nil, nil, fmt.Errorf("pod %s: score %q: %w", pod, l.KV["score"], err)
			}
			p := l.KV["plugin"]
			if _, ok := pluginCol[p]; !ok {
				pluginCol[p] = len(plugins)
				plugins = append(plugins, p)
			}
			pending[o.cycle] = append(pending[o.cycle], score{l.KV["node"], p, v})
		case "Calculated node's final score for pod":
			o := latest[pod]
			if o == nil {
				continue
			}
			v, err := strconv.ParseInt(l.KV["score"], 10, 64)
			if err != nil {
				return nil, nil, fmt.Errorf("pod %s: final score %q: %w", pod, l.KV["score"], err)
			}
			c := &cycles[o.cycle]
			o.column[l.KV["node"]] = len(c.Order)
			c.Order = append(c.Order, l.KV["node"])
			c.Totals = append(c.Totals, v)
		case "Successfully bound pod to node":
			if o := latest[pod]; o != nil {
				c := &cycles[o.cycle]
				c.Outcome, c.Node = Bound, l.KV["node"]
				c.Evaluated, _ = strconv.Atoi(l.KV["evaluatedNodes"])
				c.Feasible, _ = strconv.Atoi(l.KV["feasibleNodes"])
			}
		case "Unable to schedule pod; no fit; waiting":
			if o := latest[pod]; o != nil {
				cycles[o.cycle].Outcome, cycles[o.cycle].Message = Unschedulable, l.KV["err"]
			}
		case "Error scheduling pod; retrying":
			if o := latest[pod]; o != nil {
				cycles[o.cycle].Outcome, cycles[o.cycle].Message = Error, l.KV["err"]
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	// Scores become a matrix over (Order, plugins).
	for i := range cycles {
		c := &cycles[i]
		if len(c.Order) == 0 {
			continue
		}
		row := map[string]int{}
		for j, n := range c.Order {
			row[n] = j
		}
		c.Scores = make([][]int64, len(c.Order))
		for j := range c.Scores {
			c.Scores[j] = make([]int64, len(plugins))
		}
		for _, s := range pending[i] {
			j, ok := row[s.node]
			if !ok {
				return nil, nil, fmt.Errorf("pod %s: plugin %s scored node %s, which has no final score", c.Pod, s.plugin, s.node)
			}
			c.Scores[j][pluginCol[s.plugin]] = s.v
		}
	}
	return plugins, cycles, nil
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
