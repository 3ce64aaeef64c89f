package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sameAsReferenceCases are inputs that exercise every way a file can be
// read: multi-document YAML, JSON, Lists, empty documents, and every kind of
// broken input, with the messages those give.
var sameAsReferenceCases = []struct {
	name string
	data string
}{
	{name: "multi-document YAML", data: "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ns\nspec:\n  containers:\n  - name: c\n    image: x\n    resources:\n      limits:\n        cpu: \"2\"\n        memory: 1Gi\n"},
	{name: "leading and trailing separators", data: "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: a\n---\n"},
	{name: "comments and empty documents", data: "# a dump\n---\n# nothing here\n---\n\n---\napiVersion: v1 # trailing\nkind: Node\nmetadata:\n  # the name\n  name: a\n...\n"},
	{name: "flow style", data: "apiVersion: v1\nkind: Node\nmetadata: {name: a, labels: {x: \"1\"}}\nspec: {taints: [{key: k, effect: NoSchedule}]}\n"},
	{name: "JSON", data: `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a", "labels": {"n": "1"}}, "status": {"capacity": {"cpu": "4"}}}`},
	{name: "JSON documents", data: "{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"a\"}}\n---\n{\"apiVersion\": \"v1\",\n \"kind\": \"Node\",\n \"metadata\": {\"name\": \"b\"}}\n"},
	{name: "JSON List", data: "{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n        {\n            \"apiVersion\": \"v1\",\n            \"kind\": \"Node\",\n            \"metadata\": {\n                \"name\": \"a\"\n            }\n        },\n        {\n            \"apiVersion\": \"v1\",\n            \"kind\": \"Pod\",\n            \"metadata\": {\n                \"name\": \"p\"\n            },\n            \"spec\": {\"containers\": [{\"name\": \"c\"}]}\n        }\n    ],\n    \"kind\": \"List\"\n}\n"},
	{name: "List", data: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: a\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: b\n"},
	{name: "typed List", data: "apiVersion: v1\nkind: PodList\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p\n  spec:\n    containers:\n    - name: c\n"},
	{name: "items without kind", data: "items:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: a\n"},
	{name: "items not a list", data: "kind: List\nitems: 3\n"},
	{name: "items null", data: "kind: List\nitems:\n"},
	{name: "list item not an object", data: "kind: List\nitems:\n- a\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: b\n- [1]\n"},
	{name: "not an object", data: "- a\n- b\n---\njust text\n---\n[]\n"},
	{name: "broken document after good ones", data: "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: Node\nmetadata: {name: [\n"},
	{name: "broken right after a document", data: "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\nspec:\n  colour: blue\n---\n\"unterminated\n"},
	{name: "control character after a document", data: "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\nspec:\n  colour: blue\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: b\n  labels:\n    x: \"\x01\"\n"},
	{name: "empty documents then a broken one", data: "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  bogus: 1\n---\n---\n---\n: : :\n"},
	{name: "broken first document", data: "a: b: c\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: a\n"},
	{name: "duplicate key", data: "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  name: b\n"},
	{name: "anchors, aliases and merge keys", data: "apiVersion: v1\nkind: Node\nmetadata:\n  labels: &l\n    a: b\n  annotations:\n    <<: *l\n    c: d\n  name: n\n"},
	{name: "non-string keys", data: "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  labels:\n    1: x\n    true: y\n    ~: z\n"},
	{name: "scalars of every type", data: "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  labels:\n    int: 12\n    hex: 0x1F\n    octal: 0o17\n    old-octal: 0755\n    float: 1.5\n    exp: 1e3\n    bool: true\n    yes: yes\n    null: null\n    tilde: ~\n    stamp: 2024-01-02T03:04:05Z\n    date: 2024-1-2\n    big: 123456789012345678901234567890\n    under: 1_000\n    quoted: \"12\"\n    single: 'it''s'\n    minus: -3\n    plus: +3\n    dot: .5\n"},
	{name: "NaN and infinity", data: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: .nan\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  labels:\n    x: .inf\n"},
	{name: "block scalars", data: "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  annotations:\n    lit: |\n      line 1\n\n      line 3\n    strip: |-\n      x\n    keep: |+\n      y\n\n    folded: >\n      a\n      b\n\n      c\n    indented: |2\n        z\n"},
	{name: "multi-line scalars", data: "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  annotations:\n    plain: a long\n      plain value\n    double: \"a long\n      quoted \\\"value\\\" \\u00e9\"\n    single: 'a long\n\n      single'\n"},
	{name: "CRLF line ends", data: "apiVersion: v1\r\nkind: Node\r\nmetadata:\r\n  name: a\r\n"},
	{name: "tabs", data: "apiVersion:\tv1\nkind: Node\nmetadata:\n  name: \"a\tb\"\n"},
	{name: "byte order mark", data: "\ufeffapiVersion: v1\nkind: Node\nmetadata:\n  name: a\n"},
	{name: "non-ASCII", data: "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  annotations:\n    note: café ☕ 😀\n"},
	{name: "missing apiVersion", data: "apiversion: v1\nkind: Pod\nmetadata:\n  name: p\n"},
	{name: "missing kind", data: "apiVersion: v1\nmetadata:\n  name: p\n"},
	{name: "kind not a string", data: "apiVersion: v1\nkind: 5\nmetadata:\n  name: p\n"},
	{name: "skipped kinds", data: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: r\n---\napiVersion: apps/v1beta1\nkind: Deployment\nmetadata:\n  name: d\n"},
	{name: "wrong field type", data: "apiVersion: v1\nkind: Node\nmetadata:\n  name: n\nstatus:\n  allocatable:\n  - 1\n  - 2\n"},
	{name: "unknown and case-mismatched fields", data: "apiVersion: v1\nkind: Node\nmetadata:\n  name: n\n  Labels:\n    a: b\nspec:\n  colour: blue\n  zeta: 1\n  alpha: 2\n"},
	{name: "number where a string belongs", data: "apiVersion: v1\nkind: Node\nmetadata:\n  name: 1.5\n"},
	{name: "generateName", data: "apiVersion: v1\nkind: Pod\nmetadata:\n  generateName: web-\nspec:\n  containers:\n  - name: c\n"},
	{name: "duplicate objects across documents", data: "apiVersion: v1\nkind: Node\nmetadata:\n  name: n\n---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n\n"},
	{name: "v1beta1 conversion", data: "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceSlice\nmetadata:\n  name: s\nspec:\n  driver: d\n  nodeName: n\n  pool:\n    name: p\n    generation: 1\n    resourceSliceCount: 1\n  devices:\n  - name: a\n    basic:\n      attributes:\n        model:\n          string: x\n  - name: b\n    basic: 3\n---\napiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaim\nmetadata:\n  name: c\nspec:\n  devices:\n    requests:\n    - name: r\n      deviceClassName: x\n      count: 2\n"},
	{name: "v1beta2 and unsupported versions", data: "apiVersion: resource.k8s.io/v1beta2\nkind: DeviceClass\nmetadata:\n  name: c\nspec:\n  selectors:\n  - cel:\n      expression: \"true\"\n---\napiVersion: resource.k8s.io/v1alpha3\nkind: DeviceClass\nmetadata:\n  name: old\n---\napiVersion: drasim.io/v1beta1\nkind: NodeGroup\nmetadata:\n  name: g\n"},
	{name: "basic wrapper under v1", data: "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n  name: s\nspec:\n  driver: d\n  allNodes: true\n  pool:\n    name: p\n    resourceSliceCount: 1\n  devices:\n  - name: a\n    basic: {}\n  - name: b\n"},
	{name: "workloads", data: workloads},
	{name: "long key", data: "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  labels:\n    " + strings.Repeat("k", 1100) + ": v\n"},
	{name: "no final newline", data: "apiVersion: v1\nkind: Node\nmetadata:\n  name: a"},
	{name: "empty", data: ""},
	{name: "only comments", data: "# nothing\n\n# at all\n"},
	{name: "directive", data: "%YAML 1.2\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: a\n"},
	{name: "explicit tags", data: "apiVersion: !!str v1\nkind: Node\nmetadata:\n  name: !!str 12\n  labels:\n    a: !custom b\n"},
	{name: "bad indentation", data: "apiVersion: v1\nkind: Node\nmetadata:\n    name: a\n  labels: {}\n"},
}

func TestLoadMatchesReference(t *testing.T) {
	for _, tt := range sameAsReferenceCases {
		t.Run(tt.name, func(t *testing.T) {
			checkSameAsReference(t, "test.yaml", []byte(tt.data), Options{})
			checkSameAsReference(t, "test.yaml", []byte(tt.data), Options{Strict: true})
			checkSameAsReference(t, "test.yaml", []byte(tt.data), Options{KeepControllers: true})
		})
	}
}

// TestLoadMatchesReferenceOnFiles reads the scenarios and the real-world
// manifests both ways.
func TestLoadMatchesReferenceOnFiles(t *testing.T) {
	compared := eachCorpusFile(t, func(name string, data []byte) {
		checkSameAsReference(t, name, data, Options{})
	})
	if compared < 20 {
		t.Errorf("compared %d files; want at least the scenarios (20)", compared)
	}
}

// TestLoadMatchesReferenceAcrossFiles reads a directory and standard input
// together, so that document numbering, error order and duplicate
// detection across files are compared too.
func TestLoadMatchesReferenceAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.yaml", "apiVersion: v1\nkind: Node\nmetadata:\n  name: n\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
	write("b.json", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}]}`)
	write("c.yml", "apiVersion: v1\nkind: Node\nmetadata:\n  name: m\n---\nkind: [\n")
	stdin := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n"
	for _, paths := range [][]string{{dir}, {"-"}, {filepath.Join(dir, "a.yaml"), "-", dir}} {
		want, wantErr := referenceLoad(paths, Options{Stdin: strings.NewReader(stdin)})
		got, gotErr := Load(paths, Options{Stdin: strings.NewReader(stdin)})
		if d := diffLoads(want, wantErr, got, gotErr); d != "" {
			t.Errorf("Load(%q) differs from the reference:\n%s", paths, d)
		}
	}
}

// FuzzLoadMatchesReference holds the loader to the reference on arbitrary
// bytes: the same snapshot, warnings and errors, whatever the input.
func FuzzLoadMatchesReference(f *testing.F) {
	for _, tt := range sameAsReferenceCases {
		f.Add([]byte(tt.data))
	}
	seeds, _ := filepath.Glob(filepath.Join("..", "..", "scenarios", "*.yaml"))
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSameAsReference(t, "fuzz.yaml", data, Options{})
	})
}
