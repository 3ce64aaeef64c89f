package sweep

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseValues(t *testing.T) {
	sw, err := Parse("s.yaml", []byte(`
apiVersion: drasim.io/v1alpha1
kind: Sweep
metadata: {name: s}
spec:
  command: simulate
  flags:
    a: text
    b: 7
    c: 0.25
    d: true
    e: [x, 2, false]
    f: {Zeta: false, Alpha: true}
    g: null
  seeds: [3, 1]
  metrics: [{name: m, path: summary.scheduled}]
`))
	if err != nil {
		t.Fatalf("Parse: want no error, got %v", err)
	}
	got := map[string]string{}
	for k, v := range sw.Spec.Flags {
		got[k] = string(v)
	}
	want := map[string]string{"a": "text", "b": "7", "c": "0.25", "d": "true", "e": "x,2,false", "f": "Alpha=true,Zeta=false", "g": ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("flag values (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{3, 1}, sw.Spec.Seeds.Values()); diff != "" {
		t.Errorf("seeds (-want +got):\n%s", diff)
	}
}

func TestParseSeeds(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []int64
		err        string
	}{
		{"list", "[5, 6]", []int64{5, 6}, ""},
		{"count", "{count: 3}", []int64{0, 1, 2}, ""},
		{"from and count", "{from: 10, count: 2}", []int64{10, 11}, ""},
		{"no count", "{from: 10}", nil, "needs count"},
		{"unknown key", "{count: 2, step: 5}", nil, `unknown field "step"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sw, err := Parse("s.yaml", []byte("spec:\n  seeds: "+tc.yaml+"\n"))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("want an error containing %q, got %v", tc.err, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("want no error, got %v", err)
			}
			if diff := cmp.Diff(tc.want, sw.Spec.Seeds.Values()); diff != "" {
				t.Errorf("seeds (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseRejectsUnknownFields(t *testing.T) {
	_, err := Parse("typo.yaml", []byte("spec:\n  axs: []\n"))
	if err == nil || !strings.Contains(err.Error(), "typo.yaml") || !strings.Contains(err.Error(), `unknown field "spec.axs"`) {
		t.Errorf("want an error naming typo.yaml and the unknown field spec.axs, got %v", err)
	}
	_, err = Parse("null.yaml", []byte("spec:\n  flags: {a: [x, null]}\n"))
	if err == nil || !strings.Contains(err.Error(), "null is not a value") {
		t.Errorf("want null refused in a list, got %v", err)
	}
}
