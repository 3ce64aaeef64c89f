// Package caoracle is the contract between the real cluster-autoscaler and
// drasim's autoscaler: the cases (a scenario of scenarios/autoscale and the
// options it runs with), the recordings tools/ca-recorder writes from CA's
// production scale-up loop, and the differences drasim keeps on purpose.
// sim/autoscale's fidelity test reads all three; the recorder writes the
// recordings. Both sides read the same cases, so the inputs cannot drift.
package caoracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"sigs.k8s.io/yaml"
)

// Expanders are cluster-autoscaler's expanders, in the order recordings
// list them. The gRPC expander needs a server and is not recorded.
var Expanders = []string{"least-waste", "most-pods", "least-nodes", "price", "priority", "random"}

// DefaultPriorities is the priority expander's ConfigMap (relative to the
// scenario directory) for cases that name none.
const DefaultPriorities = "config/priority-expander.yaml"

// DefaultSeed seeds CA's random expander (math/rand's global source) and
// drasim's.
const DefaultSeed = 1

// DefaultMaxLoops bounds a recording, as drasim's --max-loops default.
const DefaultMaxLoops = 10

// Case is one scenario with the options both autoscalers run it with.
type Case struct {
	// Name names the recording file (<name>.json).
	Name string `json:"name"`
	// Scenario is the snapshot, relative to the scenario directory.
	Scenario string `json:"scenario"`
	// Why says what the case checks.
	Why string `json:"why"`
	// Priorities is the priority expander's ConfigMap (default
	// DefaultPriorities).
	Priorities string `json:"priorities,omitempty"`
	// MaxNodesTotal is --max-nodes-total (0: no bound).
	MaxNodesTotal int `json:"maxNodesTotal,omitempty"`
	// MaxNodesPerScaleUp is --max-nodes-per-scaleup (0: CA's 1000).
	MaxNodesPerScaleUp int `json:"maxNodesPerScaleUp,omitempty"`
	// MaxLoops bounds the scale-ups (default DefaultMaxLoops).
	MaxLoops int `json:"maxLoops,omitempty"`
	// Expanders to record (default: Expanders).
	Expanders []string `json:"expanders,omitempty"`
}

// PrioritiesFile returns the case's priority ConfigMap, defaulted.
func (c Case) PrioritiesFile() string {
	if c.Priorities == "" {
		return DefaultPriorities
	}
	return c.Priorities
}

// ExpanderList returns the expanders to record, defaulted.
func (c Case) ExpanderList() []string {
	if len(c.Expanders) == 0 {
		return Expanders
	}
	return c.Expanders
}

// Loops returns the scale-up bound, defaulted.
func (c Case) Loops() int {
	if c.MaxLoops <= 0 {
		return DefaultMaxLoops
	}
	return c.MaxLoops
}

// Cases is the cases file.
type Cases struct {
	Cases []Case `json:"cases"`
}

// readYAML reads a YAML file into v; unknown fields are errors.
func readYAML(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := yaml.UnmarshalStrict(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// ReadCases reads a cases file and checks it.
func ReadCases(path string) ([]Case, error) {
	var cs Cases
	if err := readYAML(path, &cs); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, c := range cs.Cases {
		switch {
		case c.Name == "":
			return nil, fmt.Errorf("%s: cases[%d].name: required", path, i)
		case seen[c.Name]:
			return nil, fmt.Errorf("%s: cases[%d].name: %q is used twice", path, i, c.Name)
		case c.Scenario == "":
			return nil, fmt.Errorf("%s: cases[%d] (%s).scenario: required", path, i, c.Name)
		}
		for _, e := range c.Expanders {
			if !known(e) {
				return nil, fmt.Errorf("%s: cases[%d] (%s).expanders: unknown expander %q", path, i, c.Name, e)
			}
		}
		seen[c.Name] = true
	}
	return cs.Cases, nil
}

func known(e string) bool {
	for _, k := range Expanders {
		if k == e {
			return true
		}
	}
	return false
}

// Recording is what cluster-autoscaler did on one case, per expander.
type Recording struct {
	Case Case `json:"case"`
	// CA says which cluster-autoscaler made the recording.
	CA Source `json:"ca"`
	// Runs holds one run per expander, in the case's expander order.
	Runs []Run `json:"runs"`
}

// Source identifies the recorded cluster-autoscaler.
type Source struct {
	// Commit is the kubernetes-sigs/cluster-autoscaler commit.
	Commit string `json:"commit"`
	// Kubernetes is the k8s.io module version CA was built with.
	Kubernetes string `json:"kubernetes"`
}

// Run is CA's loop with one expander until it stopped scaling up.
type Run struct {
	Expander string `json:"expander"`
	// Seed seeded math/rand's global source (CA's random expander).
	Seed int64 `json:"seed"`
	// Attempts is how many times the run was recorded; Variants holds
	// each distinct outcome (one when CA was deterministic here).
	Attempts int `json:"attempts"`
	// Variants are the distinct outcomes, in the order first seen.
	Variants []Outcome `json:"variants"`
}

// Unstable reports whether repeated recordings disagreed.
func (r Run) Unstable() bool { return len(r.Variants) > 1 }

// Outcome is one recorded sequence of scale-ups.
type Outcome struct {
	Loops []Loop `json:"loops"`
	// Final is every group's target size at the end, by group name.
	Final []GroupSize `json:"final"`
	// ProvisioningRequests are the requests' conditions at the end, by
	// namespace/name (only in cases with ProvisioningRequests).
	ProvisioningRequests []ProvReq `json:"provisioningRequests,omitempty"`
}

// ProvReq is a ProvisioningRequest's conditions, sorted by type.
type ProvReq struct {
	Name       string      `json:"name"`
	Conditions []Condition `json:"conditions"`
}

// Condition is one condition's type, status and reason (times and
// messages are left out: they are CA's clock and wording).
type Condition struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	Reason string `json:"reason"`
}

// SortProvReqs sorts requests by name and their conditions by type.
func SortProvReqs(prs []ProvReq) {
	sort.Slice(prs, func(i, j int) bool { return prs[i].Name < prs[j].Name })
	for _, pr := range prs {
		sort.Slice(pr.Conditions, func(i, j int) bool { return pr.Conditions[i].Type < pr.Conditions[j].Type })
	}
}

// Loop is one RunOnce that scaled up.
type Loop struct {
	// Options are the expansion options CA computed, by group name.
	Options []Option `json:"options"`
	// Kept are the groups the expander kept (before the random tie-break),
	// sorted.
	Kept []string `json:"kept"`
	// Chosen is the group the strategy chose.
	Chosen string `json:"chosen"`
	// Added are the target size increases, by group name.
	Added []GroupSize `json:"added"`
	// Sizes are every group's target size after the loop, by group name.
	Sizes []GroupSize `json:"sizes"`
}

// Option is one expansion option: the group, the estimate's node count and
// how many pods of each owner the estimate placed. Pods count by owner,
// not by name: when an estimate stops at a limit, which of a controller's
// identical pods it took depends on the order CA lists them in, which
// changes from run to run and does not matter.
type Option struct {
	Group string     `json:"group"`
	Nodes int        `json:"nodes"`
	Pods  []PodCount `json:"pods"`
}

// PodCount is a number of pods of one owner: "Kind/namespace/name" of the
// controller, or "Pod/namespace/name" for a pod without one.
type PodCount struct {
	Owner string `json:"owner"`
	Count int    `json:"count"`
}

// CountPods counts pods by owner, sorted by owner. owner(i) returns the
// controller's kind, the namespace and the controller's name (kind "Pod"
// and the pod's name for a pod without a controller).
func CountPods(n int, owner func(i int) (kind, namespace, name string)) []PodCount {
	counts := map[string]int{}
	for i := 0; i < n; i++ {
		kind, ns, name := owner(i)
		counts[kind+"/"+ns+"/"+name]++
	}
	out := make([]PodCount, 0, len(counts))
	for o, c := range counts {
		out = append(out, PodCount{Owner: o, Count: c})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Owner < out[j].Owner })
	return out
}

// GroupSize is a node count of a group.
type GroupSize struct {
	Group string `json:"group"`
	Nodes int    `json:"nodes"`
}

// SortSizes orders sizes by group name.
func SortSizes(s []GroupSize) {
	sort.Slice(s, func(i, j int) bool { return s[i].Group < s[j].Group })
}

// Path is where the recording of a case lives in dir.
func Path(dir, name string) string { return filepath.Join(dir, name+".json") }

// ReadRecording reads a recording.
func ReadRecording(path string) (*Recording, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Recording
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// WriteRecording writes a recording as indented JSON.
func WriteRecording(path string, r *Recording) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// Difference is a difference between drasim and CA that drasim keeps: the
// run (case and expander) and loop where it shows, and why.
type Difference struct {
	Case     string `json:"case"`
	Expander string `json:"expander"`
	// Loop is the first loop (1-based) that differs.
	Loop int `json:"loop"`
	// What is drasim's decision against CA's, in a few words.
	What string `json:"what"`
	// Why drasim keeps it, and the docs/autoscaler.md row that explains it.
	Why string `json:"why"`
}

// Differences is the expected-differences file.
type Differences struct {
	Differences []Difference `json:"differences"`
}

// ReadDifferences reads the expected-differences file.
func ReadDifferences(path string) ([]Difference, error) {
	var d Differences
	if err := readYAML(path, &d); err != nil {
		return nil, err
	}
	for i, x := range d.Differences {
		if x.Case == "" || x.Expander == "" || x.Loop < 1 || x.Why == "" {
			return nil, fmt.Errorf("%s: differences[%d]: case, expander, loop (>= 1) and why are required", path, i)
		}
	}
	return d.Differences, nil
}
