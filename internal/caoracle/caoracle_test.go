package caoracle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadCases checks the cases file's defaults and that a broken file
// names the case and the field.
func TestReadCases(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		want    []Case
		wantErr string
	}{
		{name: "defaults", yaml: "cases:\n- {name: a, scenario: a.yaml, why: w}\n",
			want: []Case{{Name: "a", Scenario: "a.yaml", Why: "w"}}},
		{name: "two cases of one name", yaml: "cases:\n- {name: a, scenario: a.yaml}\n- {name: a, scenario: b.yaml}\n",
			wantErr: `cases[1].name: "a" is used twice`},
		{name: "no scenario", yaml: "cases:\n- {name: a}\n", wantErr: "cases[0] (a).scenario: required"},
		{name: "unknown expander", yaml: "cases:\n- {name: a, scenario: a.yaml, expanders: [grpc]}\n",
			wantErr: `cases[0] (a).expanders: unknown expander "grpc"`},
		{name: "unknown field", yaml: "cases:\n- {name: a, scenario: a.yaml, seed: 3}\n", wantErr: `unknown field "seed"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "cases.yaml")
			if err := os.WriteFile(path, []byte(tt.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := ReadCases(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ReadCases: error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ReadCases: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("cases (-want +got):\n%s", diff)
			}
			c := got[0]
			if c.PrioritiesFile() != DefaultPriorities || c.Loops() != DefaultMaxLoops || len(c.ExpanderList()) != len(Expanders) {
				t.Errorf("defaults: priorities %q, loops %d, %d expanders; want %q, %d, %d", c.PrioritiesFile(), c.Loops(), len(c.ExpanderList()), DefaultPriorities, DefaultMaxLoops, len(Expanders))
			}
		})
	}
}

// TestCountPods checks that pods count by owner, sorted by owner.
func TestCountPods(t *testing.T) {
	owners := [][3]string{{"ReplicaSet", "ns", "web"}, {"Pod", "ns", "big"}, {"ReplicaSet", "ns", "web"}}
	got := CountPods(len(owners), func(i int) (string, string, string) { return owners[i][0], owners[i][1], owners[i][2] })
	want := []PodCount{{Owner: "Pod/ns/big", Count: 1}, {Owner: "ReplicaSet/ns/web", Count: 2}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
}
