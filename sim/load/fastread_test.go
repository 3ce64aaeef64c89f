package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	yamlv3 "go.yaml.in/yaml/v3"
)

// yamlDocument is what the loader took from one document read by yaml.v3:
// its root mapping as json.Marshal writes the generic map, and the lines of
// the root and of its List items.
type yamlDocument struct {
	JSON      string
	Line      int
	ItemLines []int
}

// readWithYAML reads every document of data with yaml.v3, as the loader
// does when the fast reader gives up. A document that is not a mapping, or
// does not decode or encode, is recorded as an error.
func readWithYAML(data []byte) (docs []*yamlDocument, err error) {
	dec := yamlv3.NewDecoder(bytes.NewReader(data))
	for {
		var node yamlv3.Node
		if err := dec.Decode(&node); errors.Is(err, io.EOF) {
			return docs, nil
		} else if err != nil {
			return docs, err
		}
		root := node.Content[0]
		if root.Kind == yamlv3.ScalarNode && (root.Tag == "!!null" || root.Value == "") {
			docs = append(docs, nil)
			continue
		}
		if root.Kind != yamlv3.MappingNode {
			return docs, fmt.Errorf("document %d is no mapping", len(docs))
		}
		var generic map[string]any
		if err := root.Decode(&generic); err != nil {
			return docs, err
		}
		data, err := json.Marshal(generic)
		if err != nil {
			return docs, err
		}
		d := &yamlDocument{JSON: string(data), Line: root.Line}
		if items := mappingValue(root, "items"); items != nil && items.Kind == yamlv3.SequenceNode {
			for _, it := range items.Content {
				d.ItemLines = append(d.ItemLines, it.Line)
			}
		}
		docs = append(docs, d)
	}
}

// readFast reads the documents the fast reader takes, up to the first it
// gives up on.
func readFast(data []byte) (docs []*yamlDocument, complete bool) {
	r := newFastReader(string(data))
	for {
		root, empty, ok, eof := r.next()
		if eof {
			return docs, true
		}
		if !ok {
			return docs, false
		}
		if empty {
			docs = append(docs, nil)
			continue
		}
		t := &r.tree
		d := &yamlDocument{JSON: string(t.appendJSON(nil, root)), Line: int(t.node(root).line)}
		if items := t.child(root, "items"); items >= 0 && t.node(items).kind == treeSeq {
			for c := t.node(items).first; c >= 0; c = t.node(c).next {
				d.ItemLines = append(d.ItemLines, int(t.node(c).line))
			}
		}
		docs = append(docs, d)
	}
}

// checkFastReader fails when a document the fast reader took differs in
// any way from what yaml.v3 and json.Marshal make of it, or when it read a
// whole file that yaml.v3 rejects. (When it gives up on a file, the loader
// reads the whole file with yaml.v3, which may fail earlier: it reads
// ahead.)
func checkFastReader(t *testing.T, name string, data []byte) (fastDocs int, complete bool) {
	t.Helper()
	fast, complete := readFast(data)
	slow, err := readWithYAML(data)
	if complete {
		if err != nil {
			t.Errorf("%s: the fast reader read the whole file; yaml.v3 fails: %v", name, err)
		} else if len(slow) != len(fast) {
			t.Errorf("%s: the fast reader read %d documents, yaml.v3 %d", name, len(fast), len(slow))
		}
	}
	n := min(len(slow), len(fast))
	if diff := cmp.Diff(slow[:n], fast[:n], cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("%s: fast reader differs from yaml.v3 (-yaml.v3 +fast):\n%s", name, diff)
	}
	return len(fast), complete
}

func TestFastReaderMatchesYAMLOnFiles(t *testing.T) {
	corpus := referenceCorpus(t)
	names := make([]string, 0, len(corpus))
	for n := range corpus {
		names = append(names, n)
	}
	sort.Strings(names)
	docs := 0
	for _, n := range names {
		d, _ := checkFastReader(t, n, corpus[n])
		docs += d
	}
	if docs < 200 {
		t.Errorf("the fast reader read %d documents of the corpus; want at least 200 (the generated and dumped ones)", docs)
	}
}

func TestFastReaderMatchesYAMLOnCases(t *testing.T) {
	for _, tt := range sameAsReferenceCases {
		checkFastReader(t, tt.name, []byte(tt.data))
	}
}

// TestFastReaderReads lists inputs in the shapes kubectl, sigs.k8s.io/yaml
// and drasim generate write, which the fast reader must read itself (not
// leave to yaml.v3), and inputs it must leave to yaml.v3.
func TestFastReaderReads(t *testing.T) {
	tests := []struct {
		name     string
		data     string
		wantFast bool
		wantDocs int
	}{
		{name: "generated", wantFast: true, wantDocs: 2, data: "---\napiVersion: v1\nkind: Node\nmetadata:\n  labels:\n    kubernetes.io/hostname: a\n  name: a\nspec: {}\nstatus:\n  allocatable:\n    cpu: \"95\"\n    memory: 1120Gi\n  daemonEndpoints:\n    kubeletEndpoint:\n      Port: 0\n---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: c\nspec:\n  selectors:\n  - cel:\n      expression: device.driver == \"gpu.example.com\" && device.attributes[\"gpu.example.com\"].model\n        == \"h100\"\n"},
		{name: "kubectl List", wantFast: true, wantDocs: 1, data: "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    annotations:\n      kubectl.kubernetes.io/last-applied-configuration: |\n        {\"apiVersion\":\"v1\",\"kind\":\"Pod\"}\n    creationTimestamp: \"2024-05-01T10:00:00Z\"\n    managedFields:\n    - apiVersion: v1\n      fieldsType: FieldsV1\n      fieldsV1:\n        f:metadata:\n          f:labels:\n            .: {}\n            f:app: {}\n        f:status:\n          f:conditions:\n            k:{\"type\":\"Ready\"}:\n              .: {}\n      manager: kubelet\n    name: p\n    namespace: default\n  spec:\n    containers:\n    - args:\n      - -c\n      - 'echo \"it''s # not a comment\"'\n      image: busybox\n      name: c\n    tolerations:\n    - effect: NoExecute\n      key: node.kubernetes.io/not-ready\n      operator: Exists\n      tolerationSeconds: 300\nkind: List\nmetadata:\n  resourceVersion: \"\"\n"},
		{name: "comments and literals", wantFast: true, wantDocs: 3, data: "# header\n---\n# a node\napiVersion: v1 # the core group\nkind: Node\nmetadata:\n  name: a\n  annotations:\n    keep: |+\n      x\n\n    strip: |-\n      y\n    clip: |\n      z\n\n      w\n---\n---\nkind: List\nitems:\n"},
		{name: "JSON", wantFast: true, wantDocs: 1, data: `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"}}`},
		{name: "kubectl JSON List", wantFast: true, wantDocs: 1, data: "{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n        {\n            \"apiVersion\": \"resource.k8s.io/v1\",\n            \"kind\": \"DeviceClass\",\n            \"metadata\": {\n                \"name\": \"c\",\n                \"generation\": 1\n            },\n            \"spec\": {\n                \"selectors\": [\n                    {\n                        \"cel\": {\n                            \"expression\": \"device.driver == \\\"x\\\" \\u0026\\u0026 true\"\n                        }\n                    }\n                ]\n            }\n        }\n    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n"},
		{name: "JSON numbers and literals", wantFast: true, wantDocs: 2, data: "{\"a\": [0, -0, 1.0, 1.5e3, 1E400, 12345678901234567890, true, false, null, [], {}], \"b\":\"\\t\\u0041\"}\n---\n{}\n"},
		{name: "JSON flow in block YAML", wantFast: true, wantDocs: 1, data: "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - command: [\"bash\", \"-c\"]\n    args: ['sleep 1 & wait', \"it's\"]\n    env: [{\"name\": \"A\", \"value\": \"1\"}] # comment\n"},
		{name: "YAML flow collections", wantFast: false, data: "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n"},
		{name: "plain scalars in a flow sequence", wantFast: false, data: "a: [b, c]\n"},
		{name: "flow over lines in block YAML", wantFast: false, data: "a: [\"b\",\n  \"c\"]\n"},
		{name: "trailing comma", wantFast: false, data: `{"a": [1, 2,]}`},
		{name: "JSON colon on the next line", wantFast: false, data: "{\"a\"\n: 1}"},
		{name: "JSON sequence root", wantFast: false, data: `[{"a": 1}]`},
		{name: "non-ASCII escape", wantFast: false, data: `{"a": "\u00e9"}`},
		{name: "JSON escaped slash", wantFast: false, data: `{"a": "\/"}`},
		{name: "anchors", wantFast: false, data: "a: &x 1\nb: *x\n"},
		{name: "tabs", wantFast: false, data: "a:\tb\n"},
		{name: "CRLF", wantFast: false, data: "a: b\r\n"},
		{name: "folded", wantFast: false, data: "a: >\n  b\n"},
		{name: "multi-line quoted", wantFast: false, data: "a: \"b\n  c\"\n"},
		{name: "duplicate key", wantFast: false, data: "a: 1\na: 2\n"},
		{name: "non-string key", wantFast: false, data: "1: a\n"},
		{name: "NaN", wantFast: false, data: "a: .nan\n"},
		{name: "broken", wantFast: false, data: "a: b: c\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, complete := checkFastReader(t, tt.name, []byte(tt.data))
			if complete != tt.wantFast {
				t.Errorf("fast reader read the whole file: want %v, got %v (after %d documents)", tt.wantFast, complete, docs)
			}
			if tt.wantFast && docs != tt.wantDocs {
				t.Errorf("documents: want %d, got %d", tt.wantDocs, docs)
			}
		})
	}
}

// FuzzFastReader holds the fast reader to yaml.v3 on arbitrary input.
func FuzzFastReader(f *testing.F) {
	for _, tt := range sameAsReferenceCases {
		f.Add([]byte(tt.data))
	}
	f.Add([]byte("a:\n- b\n- c: d\n  e: |\n    f\n  g:\n  - h\n"))
	f.Add([]byte("k: 'x''y'\nl: \"\\t\\x41\\u0042\"\nm: 0x1F\nn: 2024-01-02\no: 1.5e3\n"))
	f.Add([]byte("{\n  \"a\": [1, -0.5e3, true, null, {\"b\": \"c\\\"\"}],\n  \"d\": {}\n}\n---\n{\"e\": []}\n"))
	f.Add([]byte("a:\n- [\"b\", 1, {\"c\": [2]}]\n- {\"d\": 'e'} # f\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFastReader(t, "fuzz.yaml", data)
	})
}

// plainScalars are scalars of every type yaml.v3 resolves.
var plainScalars = []string{
	"", "~", "null", "Null", "NULL", "nULL", "true", "True", "TRUE", "tRUE", "false", "yes", "no", "on", "off", "y", "n",
	"0", "-0", "+0", "7", "-7", "+7", "007", "0755", "0o17", "-0o17", "0x1F", "-0x1F", "0b101", "-0b101", "1_000", "_1",
	"9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616", "-9223372036854775809",
	"1.5", "-1.5", ".5", "-.5", "+.5", "1.", "1e3", "1E3", "1e-7", "1e21", "1e400", ".5e3", ".", "..", ".e1",
	".nan", ".NaN", ".inf", "-.inf", "+.INF", "inf", "nan", "Infinity",
	"2024-01-02", "2024-1-2", "2024-01-02T03:04:05Z", "2024-01-02t03:04:05.5+02:00", "2024-01-02 03:04:05", "2024-01-02T03:04:05,5Z", "2024-13-01", "12024-01-01",
	"80Gi", "1120Gi", "95", "500m", "1e3Mi", "0x", "0o", "0b", "-", "+", "--", "-a", "a-", "<<", "<", "12:30", "1:2:3", "1,000", "0.0.1", "v1", "h100",
}

func TestResolvePlainMatchesYAML(t *testing.T) {
	for _, s := range plainScalars {
		checkResolvePlain(t, s)
	}
}

func FuzzResolvePlain(f *testing.F) {
	for _, s := range plainScalars {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 {
				return // the fast reader admits ASCII only
			}
		}
		checkResolvePlain(t, s)
	})
}

// checkResolvePlain compares resolvePlain with what yaml.v3 decodes the
// untagged plain scalar s into, as json.Marshal writes it.
func checkResolvePlain(t *testing.T, s string) {
	kind, text, ok := resolvePlain(s)
	var v any
	if err := (&yamlv3.Node{Kind: yamlv3.ScalarNode, Value: s}).Decode(&v); err != nil {
		if ok {
			t.Errorf("resolvePlain(%q) = %q; yaml.v3 fails: %v", s, text, err)
		}
		return
	}
	want, err := json.Marshal(v)
	if f, isFloat := v.(float64); s == "<<" || isFloat && (math.IsNaN(f) || math.IsInf(f, 0)) {
		if ok {
			t.Errorf("resolvePlain(%q) = %q; want it left to yaml.v3", s, text)
		}
		return
	}
	if err != nil || !ok {
		t.Errorf("resolvePlain(%q): ok %v; yaml.v3 gives %#v, json %s (%v)", s, ok, v, want, err)
		return
	}
	got := text
	if kind == scalarString {
		got = string(appendJSONString(nil, text))
		if str, isString := v.(string); !isString || str != text {
			t.Errorf("resolvePlain(%q) = string %q; yaml.v3 gives %#v", s, text, v)
		}
	}
	if got != string(want) {
		t.Errorf("resolvePlain(%q) writes %s; json.Marshal writes %s", s, got, want)
	}
}

func FuzzAppendJSONString(f *testing.F) {
	f.Add("plain")
	f.Add("<a & b>\t\"q\"\\\n\r\b\f\x00\x1f\x7f")
	f.Fuzz(func(t *testing.T, s string) {
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 {
				return // the fast reader admits ASCII only
			}
		}
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("appendJSONString(%q) = %s; json.Marshal writes %s", s, got, want)
		}
	})
}

// TestFastReaderOnGenerated reads a generated snapshot: every document must
// take the fast path.
func TestFastReaderOnGenerated(t *testing.T) {
	path := writeGenerated(t, t.TempDir(), 6, 12)
	data := mustReadFile(t, path)
	docs, complete := checkFastReader(t, path, data)
	if !complete || docs < 20 {
		t.Errorf("fast reader: want the whole generated file, got %d documents (complete: %v)", docs, complete)
	}
	checkSameAsReference(t, path, data, Options{})
	if strings.Count(string(data), "\n---\n")+1 != docs {
		t.Errorf("documents: the file has %d, the fast reader read %d", strings.Count(string(data), "\n---\n")+1, docs)
	}
}

func TestPrintableASCII(t *testing.T) {
	for n := 0; n < 20; n++ {
		for at := 0; at < n; at++ {
			for c := 0; c < 256; c++ {
				b := []byte(strings.Repeat("~", n))
				b[at] = byte(c)
				want := c >= 0x20 && c <= 0x7e
				if got := printableASCII(string(b)); got != want {
					t.Fatalf("printableASCII(%q) = %v, want %v", b, got, want)
				}
			}
		}
	}
}

func TestCommentAt(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"a", -1}, {"#a", -1}, {"a#b", -1}, {"a #b", 1}, {"a#b #c", 3}, {"a##  #", 4},
	}
	for _, tt := range tests {
		if got := commentAt(tt.in); got != tt.want {
			t.Errorf("commentAt(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
