package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// APIVersion and Kind of a sweep file.
const (
	APIVersion = "drasim.io/v1alpha1"
	Kind       = "Sweep"
)

// Sweep (drasim.io/v1alpha1) is an experiment: one drasim command run over
// the cross product of its axes (or a listed set of points) and seeds,
// keeping the metrics of each run.
type Sweep struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec"`
}

// Spec is what a sweep runs and keeps.
type Spec struct {
	// Command is the drasim command every run executes (simulate, report,
	// autoscale, ...: any command that writes -o json).
	Command string `json:"command"`
	// Inputs are the snapshot files and directories (-f), relative to the
	// sweep file. They are loaded once and shared by every run.
	Inputs []string `json:"inputs,omitempty"`
	// Flags are set on every run, by flag name (without dashes).
	Flags map[string]Value `json:"flags,omitempty"`
	// Seeds are the values of --seed; every point runs once per seed.
	// Default: the single seed 0.
	Seeds *Seeds `json:"seeds,omitempty"`
	// Axes are the settings that vary. Runs are their cross product, first
	// axis outermost, unless Runs lists the points.
	Axes []Axis `json:"axes,omitempty"`
	// Runs, when given, are the points to run instead of the cross
	// product: each names a value for every axis.
	Runs []map[string]Value `json:"runs,omitempty"`
	// Metrics are the numbers kept from each run's JSON output.
	Metrics []Metric `json:"metrics"`
}

// Axis is one setting that varies between runs. Exactly one of Flag,
// FeatureGate, NodeGroup and Replicas says what it sets.
type Axis struct {
	// Name is the axis' column in the results.
	Name string `json:"name"`
	// Flag sets a flag of the command (its name without dashes). Any flag
	// the command has can be an axis: --expander, --scheduler-config,
	// --max-nodes-total, ...
	Flag string `json:"flag,omitempty"`
	// FeatureGate sets one Kubernetes feature gate (values true or false);
	// gate axes and spec.flags["feature-gates"] make one --feature-gates.
	FeatureGate string `json:"featureGate,omitempty"`
	// NodeGroup sets the size or a bound of one of the inputs' NodeGroups.
	NodeGroup *NodeGroupAxis `json:"nodeGroup,omitempty"`
	// Replicas multiplies the replicas of workload controllers.
	Replicas *ReplicasAxis `json:"replicas,omitempty"`
	// Values are the axis' values, in the order results show them.
	Values []Value `json:"values,omitempty"`
}

// NodeGroup axis fields.
const (
	// NodeGroupSize: the group has exactly this many nodes before the
	// replay; nodes are added from its template as the autoscaler adds
	// them (it never removes nodes).
	NodeGroupSize = "size"
	// NodeGroupMinSize and NodeGroupMaxSize set spec.minSize and
	// spec.maxSize (the autoscaler's bounds).
	NodeGroupMinSize = "minSize"
	NodeGroupMaxSize = "maxSize"
)

// NodeGroupAxis names a NodeGroup of the inputs and what the axis sets.
type NodeGroupAxis struct {
	Name string `json:"name"`
	// Field is NodeGroupSize (the default), NodeGroupMinSize or
	// NodeGroupMaxSize.
	Field string `json:"field,omitempty"`
}

// ReplicasAxis selects workload controllers (Deployments, ReplicaSets,
// StatefulSets; Jobs by parallelism) whose replicas the axis' values
// multiply. Empty fields select every controller.
type ReplicasAxis struct {
	Kind      string                `json:"kind,omitempty"`
	Namespace string                `json:"namespace,omitempty"`
	Name      string                `json:"name,omitempty"`
	Selector  *metav1.LabelSelector `json:"selector,omitempty"`
}

// Metric is one number kept from every run: Path points into the
// command's JSON output (docs/sweeps.md defines the syntax).
type Metric struct {
	Name string `json:"name"`
	Path string `json:"path"`
	// Per, when set, divides the value by the number at this path: a
	// share, such as first-choice devices per device with alternatives.
	Per string `json:"per,omitempty"`
	// Default is used when the path leads to a field the output does not
	// have (fields that are omitted when zero); without it, a missing
	// field fails the run.
	Default *float64 `json:"default,omitempty"`
}

// Seeds are the seeds of a sweep: a list, or Count seeds from From.
type Seeds struct {
	List  []int64
	From  int64
	Count int
}

// Values returns the seeds in order.
func (s *Seeds) Values() []int64 {
	if s == nil {
		return []int64{0}
	}
	if s.List != nil {
		return s.List
	}
	out := make([]int64, s.Count)
	for i := range out {
		out[i] = s.From + int64(i)
	}
	return out
}

// UnmarshalJSON accepts a list of seeds or {from, count}.
func (s *Seeds) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var list []int64
		if err := json.Unmarshal(b, &list); err != nil {
			return fmt.Errorf("seeds: want a list of integers or {from, count}: %w", err)
		}
		*s = Seeds{List: list}
		if list == nil {
			s.List = []int64{}
		}
		return nil
	}
	var r struct {
		From  int64 `json:"from"`
		Count *int  `json:"count"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return fmt.Errorf("seeds: want a list of integers or {from, count}: %w", err)
	}
	if r.Count == nil {
		return fmt.Errorf("seeds: {from, count} needs count")
	}
	*s = Seeds{From: r.From, Count: *r.Count}
	return nil
}

// MarshalJSON writes the form UnmarshalJSON read.
func (s Seeds) MarshalJSON() ([]byte, error) {
	if s.List != nil {
		return json.Marshal(s.List)
	}
	return json.Marshal(struct {
		From  int64 `json:"from"`
		Count int   `json:"count"`
	}{s.From, s.Count})
}

// Value is one setting as the sweep file writes it, turned into the text a
// flag takes: a string, number or bool as written; a list joined with
// commas; a map as key=value pairs sorted by key and joined with commas
// (as --feature-gates and --device-class-weights take them). null is the
// empty value, which leaves the flag out.
type Value string

// UnmarshalJSON reads null, a scalar, a list of scalars or a map of
// scalars.
func (v *Value) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return fmt.Errorf("empty value")
	}
	if string(b) == "null" {
		*v = ""
		return nil
	}
	switch b[0] {
	case '[':
		var list []json.RawMessage
		if err := json.Unmarshal(b, &list); err != nil {
			return err
		}
		parts := make([]string, len(list))
		for i, item := range list {
			s, err := scalar(item)
			if err != nil {
				return fmt.Errorf("list item %d: %w", i, err)
			}
			parts[i] = s
		}
		*v = Value(strings.Join(parts, ","))
		return nil
	case '{':
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			s, err := scalar(m[k])
			if err != nil {
				return fmt.Errorf("key %s: %w", k, err)
			}
			parts[i] = k + "=" + s
		}
		*v = Value(strings.Join(parts, ","))
		return nil
	}
	s, err := scalar(b)
	if err != nil {
		return err
	}
	*v = Value(s)
	return nil
}

// scalar renders a JSON string, number or bool as a flag's text.
func scalar(b json.RawMessage) (string, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "", fmt.Errorf("empty value")
	}
	switch {
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return "", err
		}
		return s, nil
	case string(b) == "true" || string(b) == "false":
		return string(b), nil
	case string(b) == "null":
		return "", fmt.Errorf("null is not a value")
	case b[0] == '[' || b[0] == '{':
		return "", fmt.Errorf("want a string, number or bool, got %s", b)
	}
	if _, err := strconv.ParseFloat(string(b), 64); err != nil {
		return "", fmt.Errorf("want a string, number or bool, got %s", b)
	}
	return string(b), nil
}

// Parse reads a sweep file. Unknown fields are errors: a typo in a sweep
// would otherwise silently run a different experiment.
func Parse(file string, data []byte) (*Sweep, error) {
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fileError(file, "%s", cleanYAMLError(err))
	}
	var sw Sweep
	strict, err := kjson.UnmarshalStrict(js, &sw, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
	if err != nil {
		return nil, fileError(file, "%s", cleanYAMLError(err))
	}
	if len(strict) > 0 {
		errs := &errorList{file: file}
		for _, e := range strict {
			errs.add("", "", "%s", cleanYAMLError(e))
		}
		return nil, errs.err()
	}
	return &sw, nil
}

// cleanYAMLError drops the decoder's layers of "error unmarshaling JSON:
// while decoding JSON:" that say nothing to a user.
func cleanYAMLError(err error) string {
	msg := err.Error()
	for _, prefix := range []string{"error converting YAML to JSON: ", "error unmarshaling JSON: ", "while decoding JSON: ", "json: "} {
		msg = strings.TrimPrefix(msg, prefix)
	}
	return msg
}
