package load

import (
	"bytes"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/drasim/drasim/sim/generate"
)

// jsonSlice decodes mapping obj of t the JSON way, as the loader does for
// a slice the sliceDecoder declines.
func jsonSlice(t *docTree, obj int32) decoded {
	return decoders[kindKey{"resource.k8s.io", "ResourceSlice"}].decode(t.appendJSON(nil, obj))
}

// compareSliceDecoders decodes every mapping of text that the fast reader
// reads (each document, and each List item) as a ResourceSlice both ways,
// twice with d so that the second takes what d shared the first time. It
// returns how many d decoded and how many it declined, and fails the test
// where d accepted something the JSON way rejects or warns about, or
// decoded it to anything else than the JSON way's value.
func compareSliceDecoders(tb testing.TB, name, text string, d *sliceDecoder) (accepted, declined int) {
	tb.Helper()
	r := newFastReader(text)
	for {
		root, empty, ok, eof := r.next()
		if eof || !ok {
			return accepted, declined
		}
		if empty {
			continue
		}
		objs := []int32{root}
		if items := r.tree.child(root, "items"); items >= 0 && r.tree.node(items).kind == treeSeq {
			for c := r.tree.node(items).first; c >= 0; c = r.tree.node(c).next {
				if r.tree.node(c).kind == treeMap {
					objs = append(objs, c)
				}
			}
		}
		for _, obj := range objs {
			want := jsonSlice(&r.tree, obj)
			for pass := range 2 {
				got, ok := d.slice(&r.tree, obj)
				if !ok {
					if pass == 0 {
						declined++
					}
					continue
				}
				if pass == 0 {
					accepted++
				}
				if want.err != nil || len(want.strictErrs) > 0 {
					tb.Errorf("%s, object at line %d: the sliceDecoder accepted what the JSON way rejects (%v) or warns about (%v)",
						name, r.tree.node(obj).line, want.err, want.strictErrs)
					continue
				}
				if !reflect.DeepEqual(want.obj, got) {
					quantities := cmp.Comparer(func(a, b resource.Quantity) bool { return reflect.DeepEqual(a, b) })
					tb.Errorf("%s, object at line %d, pass %d: the sliceDecoder differs from the JSON way (-json +fast):\n%s",
						name, r.tree.node(obj).line, pass, cmp.Diff(want.obj, got, quantities))
				}
			}
		}
	}
}

// TestSliceDecoderAgreesWithJSON holds the sliceDecoder to the JSON way on
// every manifest at hand and on generated fleets; it must read all the
// generated slices itself.
func TestSliceDecoderAgreesWithJSON(t *testing.T) {
	corpus := referenceCorpus(t)
	names := make([]string, 0, len(corpus))
	for name := range corpus {
		names = append(names, name)
	}
	sort.Strings(names)
	d := newSliceDecoder()
	var accepted, declined int
	for _, name := range names {
		a, n := compareSliceDecoders(t, name, string(corpus[name]), d)
		accepted, declined = accepted+a, declined+n
	}
	t.Logf("manifests: %d mappings decoded directly, %d declined", accepted, declined)
	if accepted == 0 {
		t.Errorf("the sliceDecoder decoded no slice of the scenarios")
	}

	for _, profiles := range []string{"", "a100-mig=1,dgx-h100=1,l4=1"} {
		opts := generate.Options{Seed: 7, Nodes: 40, Pods: 20}
		if profiles != "" {
			var err error
			if opts.Profiles, err = generate.ParseWeights(profiles); err != nil {
				t.Fatal(err)
			}
		}
		snap, err := generate.Generate(opts)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := generate.WriteYAML(&b, snap); err != nil {
			t.Fatal(err)
		}
		// A fresh decoder for each: the first of each slice is decoded, the
		// next ones shared.
		accepted, declined := 0, 0
		text := b.String()
		r := newFastReader(text)
		for {
			root, empty, ok, eof := r.next()
			if eof {
				break
			}
			if !ok {
				t.Fatalf("generated fleet (profiles %q): the fast reader gave up", profiles)
			}
			if empty || r.tree.str(root, "kind") != "ResourceSlice" {
				continue
			}
			if _, ok := newSliceDecoder().slice(&r.tree, root); !ok {
				t.Errorf("generated fleet (profiles %q): the sliceDecoder declined the slice at line %d", profiles, r.tree.node(root).line)
			}
		}
		a, n := compareSliceDecoders(t, "generated", text, newSliceDecoder())
		accepted, declined = accepted+a, declined+n
		t.Logf("generated fleet (profiles %q): %d mappings decoded directly, %d declined", profiles, accepted, declined)
		checkSameAsReference(t, "generated.yaml", b.Bytes(), Options{})
	}
}

// oddSlices are ResourceSlices the sliceDecoder must either decline or
// decode exactly as the JSON way does: each is one document's spec (or
// more), after a plain header.
var oddSlices = []struct {
	name string
	doc  string
	// direct is set when the sliceDecoder must decode it itself.
	direct bool
}{
	{name: "plain", direct: true, doc: "metadata:\n  name: s\nspec:\n  driver: d\n  nodeName: n\n  pool:\n    name: p\n    generation: 3\n    resourceSliceCount: 1\n  devices:\n  - name: a\n    attributes:\n      i:\n        int: 5\n      b:\n        bool: true\n      s:\n        string: x\n      v:\n        version: 1.2.3\n    capacity:\n      memory:\n        value: 80Gi\n"},
	{name: "metadata fields", direct: true, doc: "metadata:\n  name: s\n  namespace: ns\n  uid: 0e1f\n  resourceVersion: \"12\"\n  generation: 4\n  creationTimestamp: \"2024-01-02T03:04:05Z\"\n  labels:\n    a: b\n    c: \"\"\n  annotations:\n    k: '{\"x\": 1}'\nspec:\n  driver: d\n"},
	{name: "unquoted timestamp", direct: true, doc: "metadata:\n  name: s\n  creationTimestamp: 2024-01-02T03:04:05Z\nspec:\n  driver: d\n"},
	{name: "date only", direct: true, doc: "metadata:\n  name: s\n  creationTimestamp: 2024-01-02\nspec:\n  driver: d\n"},
	{name: "timestamp a number", doc: "metadata:\n  name: s\n  creationTimestamp: 5\nspec:\n  driver: d\n"},
	{name: "timestamp not RFC 3339", doc: "metadata:\n  name: s\n  creationTimestamp: yesterday\nspec:\n  driver: d\n"},
	{name: "nulls", direct: true, doc: "metadata:\n  name: s\n  creationTimestamp: null\n  labels:\n  uid: ~\nspec:\n  driver: d\n  nodeName: null\n  pool: null\n  devices:\n  - name: a\n    attributes: null\n    capacity:\n      c:\n        value: null\n"},
	{name: "null metadata and spec", direct: true, doc: "metadata: null\nspec: null\n"},
	{name: "null attribute", doc: "metadata:\n  name: s\nspec:\n  devices:\n  - name: a\n    attributes:\n      x: null\n"},
	{name: "null device", doc: "metadata:\n  name: s\nspec:\n  devices:\n  - null\n"},
	{name: "null label", doc: "metadata:\n  name: s\n  labels:\n    a: null\nspec: {}\n"},
	{name: "empty maps and lists", direct: true, doc: "metadata:\n  name: s\n  labels: {}\nspec:\n  pool: {}\n  devices:\n  - name: a\n    attributes: {}\n    capacity: {}\n    consumesCounters: []\n  - name: b\n    consumesCounters:\n    - counterSet: x\n      counters: {}\n  sharedCounters: []\n"},
	{name: "no devices", direct: true, doc: "metadata:\n  name: s\nspec:\n  devices: []\n"},
	{name: "unknown field null", doc: "metadata:\n  name: s\nspec:\n  colour: null\n"},
	{name: "unknown top-level field null", doc: "metadata:\n  name: s\nstatus: null\nspec: {}\n"},
	{name: "unknown metadata field null", doc: "metadata:\n  name: s\n  finalizers: null\nspec: {}\n"},
	{name: "unknown device field null", doc: "metadata:\n  name: s\nspec:\n  devices:\n  - name: a\n    taints: null\n"},
	{name: "unknown attribute field null", doc: "metadata:\n  name: s\nspec:\n  devices:\n  - name: a\n    attributes:\n      x:\n        ints: null\n        int: 1\n"},
	{name: "unknown counter field null", doc: "metadata:\n  name: s\nspec:\n  sharedCounters:\n  - name: c\n    unit: null\n"},
	{name: "null everywhere", direct: true, doc: "metadata:\n  name: s\n  generation: null\n  ownerReferences:\n  - controller: null\n    name: null\nspec:\n  allNodes: null\n  sharedCounters:\n  - name: null\n    counters: null\n  devices:\n  - name: a\n    consumesCounters:\n    - counterSet: null\n      counters:\n        m:\n          value: null\n    capacity:\n      c: {}\n    attributes:\n      x:\n        int: null\n        string: null\n"},
	{name: "unknown field", doc: "metadata:\n  name: s\nspec:\n  colour: blue\n"},
	{name: "unknown device field", doc: "metadata:\n  name: s\nspec:\n  devices:\n  - name: a\n    colour: blue\n"},
	{name: "basic wrapper", doc: "metadata:\n  name: s\nspec:\n  devices:\n  - name: a\n    basic:\n      attributes: {}\n"},
	{name: "field in another case", doc: "metadata:\n  name: s\nspec:\n  Driver: d\n"},
	{name: "status", doc: "metadata:\n  name: s\nspec: {}\nstatus: {}\n"},
	{name: "managed fields", doc: "metadata:\n  name: s\n  managedFields:\n  - manager: kubectl\nspec: {}\n"},
	{name: "owner references", direct: true, doc: "metadata:\n  name: s\n  ownerReferences:\n  - apiVersion: v1\n    kind: Node\n    name: n\n    uid: u\n    controller: true\n    blockOwnerDeletion: false\n  - {}\nspec: {}\n"},
	{name: "owner reference unknown field", doc: "metadata:\n  name: s\n  ownerReferences:\n  - apiVersion: v1\n    kind: Node\n    name: n\n    colour: blue\nspec: {}\n"},
	{name: "no owner references", direct: true, doc: "metadata:\n  name: s\n  ownerReferences: []\nspec: {}\n"},
	{name: "node selector", doc: "metadata:\n  name: s\nspec:\n  nodeSelector:\n    nodeSelectorTerms:\n    - matchExpressions:\n      - key: k\n        operator: Exists\n"},
	{name: "taints", doc: "metadata:\n  name: s\nspec:\n  devices:\n  - name: a\n    taints:\n    - key: k\n      effect: NoSchedule\n"},
	{name: "request policy", doc: "metadata:\n  name: s\nspec:\n  devices:\n  - name: a\n    capacity:\n      bw:\n        value: 10Gi\n        requestPolicy:\n          default: 1Gi\n"},
	{name: "quoted int", doc: "metadata:\n  name: s\nspec:\n  devices:\n  - name: a\n    attributes:\n      i:\n        int: \"5\"\n"},
	{name: "float int", direct: true, doc: "metadata:\n  name: s\nspec:\n  devices:\n  - name: a\n    attributes:\n      i:\n        int: 5.0\n"},
	{name: "fractional int", doc: "metadata:\n  name: s\nspec:\n  devices:\n  - name: a\n    attributes:\n      i:\n        int: 5.5\n"},
	{name: "exponent int", direct: true, doc: "metadata:\n  name: s\nspec:\n  devices:\n  - name: a\n    attributes:\n      i:\n        int: 1e3\n"},
	{name: "hex, octal and separators", direct: true, doc: "metadata:\n  name: s\nspec:\n  pool:\n    generation: 0x1F\n    resourceSliceCount: 0o17\n  devices:\n  - name: a\n    attributes:\n      i:\n        int: -1_000\n"},
	{name: "huge int", doc: "metadata:\n  name: s\nspec:\n  devices:\n  - name: a\n    attributes:\n      i:\n        int: 99999999999999999999\n"},
	{name: "largest int", direct: true, doc: "metadata:\n  name: s\nspec:\n  pool:\n    generation: 9223372036854775807\n  devices:\n  - name: a\n    attributes:\n      i:\n        int: -9223372036854775808\n"},
	{name: "uint64 int", doc: "metadata:\n  name: s\nspec:\n  pool:\n    generation: 18446744073709551615\n"},
	{name: "string bool", doc: "metadata:\n  name: s\nspec:\n  allNodes: \"true\"\n"},
	{name: "yes is a string", doc: "metadata:\n  name: s\nspec:\n  allNodes: yes\n"},
	{name: "bool fields", direct: true, doc: "metadata:\n  name: s\nspec:\n  allNodes: True\n  perDeviceNodeSelection: false\n  devices:\n  - name: a\n    allNodes: false\n    nodeName: \"\"\n"},
	{name: "number as string", doc: "metadata:\n  name: s\nspec:\n  driver: 5\n"},
	{name: "number as name", doc: "metadata:\n  name: 5\nspec: {}\n"},
	{name: "number as label", doc: "metadata:\n  name: s\n  labels:\n    a: 1\nspec: {}\n"},
	{name: "string attribute a number", doc: "metadata:\n  name: s\nspec:\n  devices:\n  - name: a\n    attributes:\n      v:\n        version: 1.2\n"},
	{name: "list for a map", doc: "metadata:\n  name: s\nspec:\n  devices:\n  - name: a\n    attributes: []\n"},
	{name: "map for a list", doc: "metadata:\n  name: s\nspec:\n  devices: {}\n"},
	{name: "scalar for a struct", doc: "metadata: s\nspec: {}\n"},
	{name: "list attributes", doc: "metadata:\n  name: s\nspec:\n  devices:\n  - name: a\n    attributes:\n      l:\n        ints: [1, 2]\n"},
	{name: "quantities", direct: true, doc: "metadata:\n  name: s\nspec:\n  devices:\n  - name: a\n    capacity:\n      a:\n        value: 7\n      b:\n        value: \"7\"\n      c:\n        value: 1.5\n      d:\n        value: 0.1\n      e:\n        value: 1e3\n      f:\n        value: \"1e3\"\n      g:\n        value: 100m\n      h:\n        value: \" 5\"\n      i:\n        value: 1024Ki\n      j:\n        value: 0x10\n      k:\n        value: 1_000\n      l:\n        value: 12e-3\n      m:\n        value: \"0.000000001\"\n"},
	{name: "quantity a bool", doc: "metadata:\n  name: s\nspec:\n  devices:\n  - name: a\n    capacity:\n      a:\n        value: true\n"},
	{name: "quantity not a quantity", doc: "metadata:\n  name: s\nspec:\n  devices:\n  - name: a\n    capacity:\n      a:\n        value: lots\n"},
	{name: "quantity unknown field", doc: "metadata:\n  name: s\nspec:\n  sharedCounters:\n  - name: c\n    counters:\n      a:\n        value: 1\n        unit: x\n"},
	{name: "counters", direct: true, doc: "metadata:\n  name: s\nspec:\n  sharedCounters:\n  - name: gpu-0\n    counters:\n      memory:\n        value: 80Gi\n      slices:\n        value: \"7\"\n  devices:\n  - name: a\n    consumesCounters:\n    - counterSet: gpu-0\n      counters:\n        memory:\n          value: 40Gi\n"},
	{name: "escaped strings", direct: true, doc: "metadata:\n  name: s\n  annotations:\n    a: \"<&>\\t\\\"\"\n    b: 'it''s'\nspec:\n  driver: \"d\\u0041\"\n  devices:\n  - name: a\n    attributes:\n      s:\n        string: \"x<y>\"\n"},
	{name: "literal string", direct: true, doc: "metadata:\n  name: s\n  annotations:\n    a: |\n      one\n      two\nspec: {}\n"},
	{name: "flow JSON", direct: true, doc: "metadata: {\"name\": \"s\"}\nspec: {\"driver\": \"d\", \"devices\": [{\"name\": \"a\", \"attributes\": {\"i\": {\"int\": 3}}}]}\n"},
	{name: "no name", direct: true, doc: "metadata:\n  generateName: s-\nspec:\n  driver: d\n"},
}

// TestSliceDecoderOddSlices holds the sliceDecoder to the JSON way on odd
// slices, directly and through the loader (warnings and errors included,
// strict or not), and checks that it reads itself those it should.
func TestSliceDecoderOddSlices(t *testing.T) {
	for _, c := range oddSlices {
		t.Run(c.name, func(t *testing.T) {
			text := "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n" + c.doc
			r := newFastReader(text)
			root, _, ok, _ := r.next()
			if !ok {
				t.Fatalf("the fast reader gave up on the case")
			}
			_, direct := newSliceDecoder().slice(&r.tree, root)
			if direct != c.direct {
				t.Errorf("decoded directly: %v, want %v", direct, c.direct)
			}
			compareSliceDecoders(t, c.name, text, newSliceDecoder())
			// Twice in one file, and with a List, through the loader.
			twice := text + "---\n" + strings.Replace(text, "name: s\n", "name: s2\n", 1)
			for _, strict := range []bool{false, true} {
				checkSameAsReference(t, c.name, []byte(twice), Options{Strict: strict})
			}
		})
	}
}

// FuzzSliceDecoder decodes any document as a ResourceSlice both ways, and
// loads it both ways: the sliceDecoder must agree with the JSON way or
// decline.
func FuzzSliceDecoder(f *testing.F) {
	for _, c := range oddSlices {
		f.Add([]byte("apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n" + c.doc))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		compareSliceDecoders(t, "fuzz", string(data), newSliceDecoder())
		checkSameAsReference(t, "fuzz.yaml", data, Options{})
	})
}

// TestSliceDecoderOddFiles loads files of slices that the fast reader
// gives up on, or reads in other forms, both ways: the loader must give
// what the JSON way gives.
func TestSliceDecoderOddFiles(t *testing.T) {
	const slice = "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n  name: s\nspec:\n  driver: d\n  devices:\n  - name: a\n"
	for _, c := range []struct{ name, data string }{
		{name: "duplicate key", data: slice + "    name: b\n"},
		{name: "duplicate key after a slice", data: slice + "---\n" + strings.Replace(slice, "name: s\n", "name: t\n  name: u\n", 1)},
		{name: "anchors", data: "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n  name: s\nspec:\n  devices:\n  - name: a\n    attributes: &a\n      x:\n        int: 1\n  - name: b\n    attributes: *a\n"},
		{name: "flow style", data: "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec: {devices: [{name: a, attributes: {x: {int: 1}}}]}\n"},
		{name: "JSON", data: `{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"}, "spec": {"devices": [{"name": "a", "capacity": {"m": {"value": "1Gi"}}}]}}`},
		{name: "List", data: "apiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(strings.TrimSuffix(slice, "\n"), "\n", "\n  ") + "\n- " + strings.ReplaceAll(strings.TrimSuffix(strings.Replace(slice, "name: s\n", "name: t\n", 1), "\n"), "\n", "\n  ") + "\n"},
		{name: "same name twice", data: slice + "---\n" + slice},
		{name: "v1beta2", data: strings.Replace(slice, "resource.k8s.io/v1\n", "resource.k8s.io/v1beta2\n", 1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, strict := range []bool{false, true} {
				checkSameAsReference(t, c.name, []byte(c.data), Options{Strict: strict})
			}
		})
	}
}

// TestTreeKeyTellsContentsApart holds appendKey, the slice decoder's cache
// key, to the trees' JSON: two documents (with their keys in one order)
// share a key exactly when their JSON is the same. The documents are built
// to run together under a naive encoding: a key's end and a value's start,
// a string and a number of the same text, nesting, a key of 125 bytes
// (the byte of '}' as its length); "1" and "1.0", null and nothing, are
// the same content.
func TestTreeKeyTellsContentsApart(t *testing.T) {
	long := strings.Repeat("x", 125)
	docs := []string{
		"a: bc\n", "ab: c\n", "a: '1'\n", "a: 1\n", "a: 1.0\n", "a: null\n", "a:\n", "a: ''\n",
		"a: [\"b\"]\n", "a: [[\"b\"]]\n", "a: [\"b\", \"c\"]\n", "a: [\"b,c\"]\n", "a: {\"b\": \"c\"}\n", "a: {}\n", "a: []\n",
		"a:\n- b\n", "a:\n- b\n- c\n", "a:\n  b: c\n  d: e\n", "a:\n  b: 'c, d: e'\n", "a:\n  b: c\nd: e\n",
		long + ": v\n", "a:\n  " + long + ": v\n", "a: true\n", "a: 'true'\n",
	}
	type read struct{ doc, key, json string }
	var reads []read
	for _, doc := range docs {
		r := newFastReader(doc)
		root, empty, ok, eof := r.next()
		if empty || !ok || eof {
			t.Fatalf("the fast reader does not read %q", doc)
		}
		reads = append(reads, read{doc, string(r.tree.appendKey(nil, root)), string(r.tree.appendJSON(nil, root))})
	}
	for i, x := range reads {
		for _, y := range reads[i:] {
			if (x.key == y.key) != (x.json == y.json) {
				t.Errorf("%q and %q: keys %q and %q, JSON %s and %s", x.doc, y.doc, x.key, y.key, x.json, y.json)
			}
		}
	}
}
