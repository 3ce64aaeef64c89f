package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const pathDoc = `{
  "summary": {"scheduled": 17, "unschedulable": 3, "ok": true, "name": "x"},
  "costPerHour": 12.5,
  "scaleUp": [{"group": "h100", "to": 3}, {"group": "l4", "to": 5}],
  "classes": [{"name": "gpu.example.com", "share": 0.25}, {"name": "a]b", "share": 1}],
  "pods": [{"phase": "Scheduled", "claims": [{"devices": [{"rank": 1}, {"rank": 2}]}, {"devices": [{"rank": 1}]}]},
           {"phase": "Unschedulable"},
           {"phase": "Scheduled", "claims": [{"devices": [{"rank": 1}, {}]}, {"devices": []}]},
           {"node": "n"}],
  "empty": null
}`

func TestPathEval(t *testing.T) {
	for _, tc := range []struct {
		path    string
		want    float64
		err     string
		missing bool
	}{
		{path: "summary.scheduled", want: 17},
		{path: "summary.ok", want: 1},
		{path: "costPerHour", want: 12.5},
		{path: "scaleUp[1].to", want: 5},
		{path: "scaleUp[-1].to", want: 5},
		{path: "scaleUp[group=h100].to", want: 3},
		{path: "scaleUp[group!=h100].to", want: 5},
		{path: "classes[name=gpu.example.com].share", want: 0.25},
		{path: `classes[name="a]b"].share`, want: 1},
		{path: "pods.#", want: 4},
		{path: "summary.#", want: 4},
		{path: "pods.#[phase=Scheduled]", want: 2},
		{path: "pods.#[phase!=Scheduled]", want: 1},
		{path: "pods[*].#", want: 6}, // the pods' key counts: 2+1+2+1
		{path: "scaleUp[*].to", want: 8},
		{path: "classes[*].share", want: 1.25},
		{path: "pods[*].claims[*].devices.#[rank=1]", want: 3},
		{path: "pods[*].claims[*].devices.#[rank!=0]", want: 4},
		{path: "pods[*].phase", err: `pods[0].phase is a string ("Scheduled"), not a number`},
		{path: "summary.gated", err: `summary has no field "gated" (fields: name, ok, scheduled, unschedulable)`, missing: true},
		{path: "empty", err: `the output has no field "empty"`, missing: true},
		{path: "scaleUp[group=tpu].to", err: "no element of scaleUp has group=tpu", missing: true},
		{path: "scaleUp[7].to", err: "scaleUp has 2 element(s), no [7]", missing: true},
		{path: "summary.name", err: `summary.name is a string ("x"), not a number`},
		{path: "summary", err: "summary is an object, not a number"},
		{path: "costPerHour.x", err: "costPerHour is a number, not an object"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			p, err := ParsePath(tc.path)
			if err != nil {
				t.Fatalf("ParsePath(%q): want no error, got %v", tc.path, err)
			}
			got, err := p.eval(newDocument([]byte(pathDoc)))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("want an error containing %q, got %v (value %v)", tc.err, err, got)
				}
				if errors.Is(err, errMissing) != tc.missing {
					t.Errorf("errMissing: want %v, got %v", tc.missing, errors.Is(err, errMissing))
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("want %v, got %v (error %v)", tc.want, got, err)
			}
		})
	}
}

func TestParsePathErrors(t *testing.T) {
	for _, tc := range []struct{ path, err string }{
		{"", "empty path"},
		{"a.", "ends with '.'"},
		{"a[", "is not closed"},
		{"a[x]", "want an index or key=value"},
		{"a.#.b", "# must be the last step"},
		{"a.#[3]", "#[...] counts the elements that match key=value"},
		{"a b", "unexpected ' '"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			if _, err := ParsePath(tc.path); err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParsePath(%q): want an error containing %q, got %v", tc.path, tc.err, err)
			}
		})
	}
}

func TestMetricPer(t *testing.T) {
	path := func(s string) *Path {
		p, err := ParsePath(s)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	share := PlanMetric{Name: "first", Path: path("pods[*].claims[*].devices.#[rank=1]"), Per: path("pods[*].claims[*].devices.#[rank!=0]")}
	got, err := share.value(newDocument([]byte(pathDoc)))
	if err != nil || got != 0.75 {
		t.Errorf("3 first choices of 4 ranked devices: want 0.75, got %v (%v)", got, err)
	}
	none := PlanMetric{Name: "x", Path: path("costPerHour"), Per: path("pods.#[zzz=1]")}
	if _, err := none.value(newDocument([]byte(pathDoc))); err == nil || !errors.Is(err, errMissing) {
		t.Errorf("a zero divisor: want a missing value (the default applies), got %v", err)
	}
}

// TestFieldAgreesWithUnmarshal holds the fast key lookup to
// encoding/json's decoding of the whole object.
func TestFieldAgreesWithUnmarshal(t *testing.T) {
	objects := []string{
		`{}`,
		`{"a":1,"b":"x"}`,
		` { "a" : [1, {"b": "}"}] ,"b":{"c":"\"{["}, "d" : null , "e":true}`,
		`{"a\u0062":"escaped key","ab":2}`,
		`{"s":"a \\ b","t":-1.5e3}`,
		`{"nested":{"a":{"a":{"a":1}}},"a":"top"}`,
	}
	for _, obj := range objects {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(obj), &m); err != nil {
			t.Fatalf("%s: %v", obj, err)
		}
		for _, key := range []string{"a", "b", "ab", "d", "e", "s", "t", "nested", "missing"} {
			want, wantOK := m[key]
			got, ok, err := field([]byte(obj), key)
			if err != nil {
				t.Errorf("%s, key %s: want no error, got %v", obj, key, err)
				continue
			}
			if ok != wantOK || (ok && string(got) != string(bytes.TrimSpace(want))) {
				t.Errorf("%s, key %s: want %q (%v), got %q (%v)", obj, key, want, wantOK, got, ok)
			}
		}
	}
}

func TestPathEvalRefusesWhatIsNotJSON(t *testing.T) {
	p, _ := ParsePath("summary.scheduled")
	if _, err := p.eval(newDocument([]byte("Replayed 3 pods.\n"))); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("a table instead of JSON: want an error saying so, got %v", err)
	}
	var want []json.RawMessage
	list := ` [ 1 , "a,]" , {"b": [2, 3]}, [ ] ,null ] `
	if err := json.Unmarshal([]byte(list), &want); err != nil {
		t.Fatal(err)
	}
	got, err := scanList([]byte(list))
	if err != nil || len(got) != len(want) {
		t.Fatalf("scanList: want %d elements, got %d (%v)", len(want), len(got), err)
	}
	for i := range want {
		if string(got[i]) != string(want[i]) {
			t.Errorf("element %d: want %s, got %s", i, want[i], got[i])
		}
	}
}
