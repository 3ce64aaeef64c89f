package analysis

import (
	"strings"
	"testing"
)

// TestGatesFileProblemsAtOnce: unknown fields, values of the wrong kind,
// a wrong kind and the gates' own checks are reported together, each with
// the file, its line, the gate and the field, in YAML's words.
func TestGatesFileProblemsAtOnce(t *testing.T) {
	data := `apiVersion: drasim.io/v1alpha1
kind: Gate
gates:
- name: pending
  maxPendingPods: {maxx: 0}
- name: frag
  maxFragmentationRate:
    max: high
    clas: a100
- name: waits
  maxWait: {percentile: 95, max: soon}
- name: util
  maxUtilization: {max: 0.9}
  note: gpus
`
	_, err := ParseGates("g.yaml", []byte(data))
	if err == nil {
		t.Fatal("ParseGates: want errors, got none")
	}
	want := []string{
		`g.yaml:2: kind: want "Gates", got "Gate"`,
		`g.yaml:5: gate "pending" (gates[0]): maxPendingPods: unknown field "maxx" (did you mean max?)`,
		`g.yaml:8: gate "frag" (gates[1]): maxFragmentationRate.max: want a number, got "high"`,
		`g.yaml:9: gate "frag" (gates[1]): maxFragmentationRate: unknown field "clas" (did you mean class?)`,
		`g.yaml:11: gate "waits" (gates[2]): maxWait.max: want a duration such as 90s, 10m or 1h30m, got "soon"`,
		`g.yaml:14: gate "util" (gates[3]): unknown field "note"; the fields are name, maxPendingPods, minHeadroom, maxFragmentationRate, minFirstChoiceShare, maxUtilization, domainLoss, maxPreemptedPods, maxPendingPodGroups, maxWait, maxCost, maxNeverPlaced`,
	}
	got := strings.Split(err.Error(), "\n")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("want every problem, in order:\n%s\ngot:\n%s", strings.Join(want, "\n"), err)
	}
	for _, json := range []string{"JSON", "json:"} {
		if strings.Contains(err.Error(), json) {
			t.Errorf("the errors speak of %s for a YAML file:\n%v", json, err)
		}
	}
}

// TestGatesFileSyntaxAndShape: a file that is not YAML, or not a mapping,
// is one error with its line; a snapshot given as a gates file says so.
func TestGatesFileSyntaxAndShape(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       []string
	}{
		{"not YAML", "apiVersion: drasim.io/v1alpha1\ngates: [\n", []string{"g.yaml:2: not valid YAML: "}},
		{"a list", "- a\n- b\n", []string{`g.yaml:1: want a mapping (field: value), got a list`}},
		{"empty", "", []string{`g.yaml: apiVersion: want "drasim.io/v1alpha1", got ""`, `g.yaml: kind: want "Gates", got ""`, "g.yaml: gates: no gates"}},
		{"a snapshot", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {}\n", []string{
			`g.yaml:1: apiVersion: want "drasim.io/v1alpha1", got "v1"`,
			`g.yaml:2: kind: want "Gates", got "Pod"`,
			`g.yaml:3: unknown field "metadata"`,
			`g.yaml:4: unknown field "spec"`,
			`g.yaml:1: gates: no gates`,
		}},
		{"gates not a list", "apiVersion: drasim.io/v1alpha1\nkind: Gates\ngates: {name: a}\n", []string{`g.yaml:3: gates: want a list, got a mapping`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseGates("g.yaml", []byte(tc.data))
			if err == nil {
				t.Fatalf("want %q, got no error", tc.want)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tc.want) {
				t.Fatalf("want %d problem(s), got %d:\n%v", len(tc.want), len(lines), err)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(lines[i], w) {
					t.Errorf("problem %d: want %q, got %q", i, w, lines[i])
				}
			}
		})
	}
}
