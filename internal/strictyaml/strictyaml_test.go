package strictyaml

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type inner struct {
	Max  *int             `json:"max,omitempty"`
	Wait *metav1.Duration `json:"wait,omitempty"`
}

type embedded struct {
	Kind string `json:"kind"`
}

type doc struct {
	embedded
	Name   string            `json:"name"`
	Share  float64           `json:"share"`
	On     bool              `json:"on"`
	Items  []inner           `json:"items"`
	Labels map[string]string `json:"labels"`
	Hidden string            `json:"-"`
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []Problem
	}{
		{"valid", "kind: X\nname: a\nshare: 0.5\non: true\nitems:\n- max: 3\n  wait: 10m\nlabels: {a: b}\n", nil},
		{"null and case-insensitive keys, as encoding/json", "Name: a\nitems: ~\n", nil},
		{"every problem, in order", "nmae: a\nshare: lots\nitems:\n- maxx: 3\n- max: 1.5\n  wait: soon\n- 7\nlabels: [a]\non: 2\nhidden: x\nname: b\nname: c\n", []Problem{
			{Line: 1, Msg: `unknown field "nmae" (did you mean name?)`},
			{Line: 2, Path: "share", Msg: `want a number, got "lots"`},
			{Line: 4, Path: "items[0]", Msg: `unknown field "maxx" (did you mean max?)`},
			{Line: 5, Path: "items[1].max", Msg: `want a whole number, got 1.5`},
			{Line: 6, Path: "items[1].wait", Msg: `want a duration such as 90s, 10m or 1h30m, got "soon"`},
			{Line: 7, Path: "items[2]", Msg: `want a mapping (field: value), got 7`},
			{Line: 8, Path: "labels", Msg: `want a mapping, got a list`},
			{Line: 9, Path: "on", Msg: `want true or false, got 2`},
			{Line: 10, Msg: `unknown field "hidden"; the fields are kind, name, share, on, items, labels`},
			{Line: 12, Path: "name", Msg: `given twice (also line 11)`},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, perr := Parse([]byte(tc.yaml))
			if perr != nil {
				t.Fatalf("Parse: %v", perr)
			}
			got := Check(root, reflect.TypeFor[doc](), "")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseSyntaxError(t *testing.T) {
	_, p := Parse([]byte("a: b\nc: [\n"))
	if p == nil || p.Line == 0 || p.Msg == "" {
		t.Fatalf("want a syntax problem with its line, got %+v", p)
	}
}

func TestLocate(t *testing.T) {
	root, _ := Parse([]byte("gates:\n- name: a\n  max: {x: 1}\n- name: b\n"))
	for path, line := range map[string]int{"": 1, "gates[1].name": 4, "gates[0].max.x": 3, "gates[0].max.missing": 3, "gates[5]": 2} {
		if got := Locate(root, path).Line; got != line {
			t.Errorf("Locate(%q): want line %d, got %d", path, line, got)
		}
	}
}
