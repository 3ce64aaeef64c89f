package load

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/drasim/drasim/internal/testenv"
	"github.com/drasim/drasim/sim/snapshot"
	"github.com/google/go-cmp/cmp"
	yamlv3 "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"
)

// referenceLoadBytes is LoadBytes as it read files before documents were
// streamed: every document of the file is parsed into a yaml.v3 tree first,
// and each object then goes through a generic map. The tests hold the
// loader to giving exactly what this gave.
func referenceLoadBytes(name string, data []byte, opts Options) (*Result, error) {
	l := newLoader(opts)
	referenceAddFile(l, name, data)
	return l.finish([]string{name})
}

func referenceAddFile(l *loader, name string, data []byte) {
	type yamlDoc struct {
		index int
		node  *yamlv3.Node
	}
	var docs []yamlDoc
	dec := yamlv3.NewDecoder(bytes.NewReader(data))
	for i := 0; ; i++ {
		var node yamlv3.Node
		err := dec.Decode(&node)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			l.errorf(snapshot.Source{File: name, Doc: i, Item: -1}, "", "", "not valid YAML or JSON: %v", err)
			break
		}
		docs = append(docs, yamlDoc{index: i, node: &node})
	}
	for _, d := range docs {
		src := snapshot.Source{File: name, Doc: d.index, Item: -1, Line: d.node.Line}
		root := d.node
		if root.Kind == yamlv3.DocumentNode {
			if len(root.Content) == 0 {
				continue
			}
			root = root.Content[0]
		}
		if root.Kind == yamlv3.ScalarNode && (root.Tag == "!!null" || root.Value == "") {
			continue
		}
		if root.Kind != yamlv3.MappingNode {
			l.errorf(src, "", "", "document is not an object (found a YAML %s)", nodeKindName(root.Kind))
			continue
		}
		src.Line = root.Line
		var generic map[string]any
		if err := root.Decode(&generic); err != nil {
			l.errorf(src, "", "", "cannot read document: %v", err)
			continue
		}
		kind, _ := generic["kind"].(string)
		items, hasItems := generic["items"]
		if hasItems && kind == "" {
			l.warnf(src, "document has items but no kind; read as a List")
			kind = "List"
		}
		if hasItems && strings.HasSuffix(kind, "List") {
			list, ok := items.([]any)
			if !ok && items != nil {
				l.errorf(src, kind, "items", "must be a list")
				continue
			}
			itemNodes := mappingValue(root, "items")
			for i, it := range list {
				isrc := src
				isrc.Item = i
				if itemNodes != nil && i < len(itemNodes.Content) {
					isrc.Line = itemNodes.Content[i].Line
				}
				obj, ok := it.(map[string]any)
				if !ok {
					l.errorf(isrc, "", fmt.Sprintf("items[%d]", i), "list item is not an object")
					continue
				}
				l.addObject(isrc, object{generic: obj})
			}
			continue
		}
		l.addObject(src, object{generic: generic})
	}
}

// diffLoads reports how two loads differ, or "" when they gave the same
// snapshot, warnings, files and errors (in the same order).
func diffLoads(want *Result, wantErr error, got *Result, gotErr error) string {
	var b strings.Builder
	if !reflect.DeepEqual(want, got) {
		// Quantities keep the text they were read from; compare that too.
		quantities := cmp.Comparer(func(a, b resource.Quantity) bool { return a.Equal(b) && a.String() == b.String() })
		fmt.Fprintf(&b, "result (-want +got):\n%s\n", cmp.Diff(want, got, quantities))
		if b.Len() < 40 {
			b.WriteString("results differ in a way cmp does not show\n")
		}
	}
	if !reflect.DeepEqual(wantErr, gotErr) {
		fmt.Fprintf(&b, "error:\nwant %v\n got %v\n", wantErr, gotErr)
	}
	return b.String()
}

// checkSameAsReference loads data both ways and fails the test on any
// difference.
func checkSameAsReference(t *testing.T, name string, data []byte, opts Options) {
	t.Helper()
	want, wantErr := referenceLoadBytes(name, data, opts)
	got, gotErr := LoadBytes(name, data, opts)
	if d := diffLoads(want, wantErr, got, gotErr); d != "" {
		t.Errorf("%s: the loader differs from the reference:\n%s", name, d)
	}
}

// referenceCorpus is every manifest at hand: the scenarios, and the
// real-world manifests when ../shared is there (in CI it must be).
func referenceCorpus(tb testing.TB) map[string][]byte {
	tb.Helper()
	files := map[string][]byte{}
	var roots []string
	for _, g := range []string{"../../scenarios/*.yaml", "../../scenarios/autoscale/*.yaml", "../../scenarios/autoscale/config/*"} {
		m, _ := filepath.Glob(g)
		roots = append(roots, m...)
	}
	dir, err := testenv.LookupRealworld()
	switch {
	case err != nil && testenv.Required():
		tb.Fatalf("%s=1 but %v", testenv.RequireEnv, err)
	case err != nil:
		tb.Logf("comparing on the scenarios only: %v", err)
	default:
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				switch strings.ToLower(filepath.Ext(path)) {
				case ".yaml", ".yml", ".json":
					roots = append(roots, path)
				}
			}
			return nil
		})
	}
	for _, p := range roots {
		data, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		files[p] = data
	}
	return files
}

// referenceLoad is Load over referenceAddFile.
func referenceLoad(paths []string, opts Options) (*Result, error) {
	files, err := Files(paths)
	if err != nil {
		return nil, err
	}
	l := newLoader(opts)
	for _, f := range files {
		var data []byte
		name := f
		if f == "-" {
			name = "<stdin>"
			data, err = io.ReadAll(opts.Stdin)
		} else {
			data, err = os.ReadFile(f)
		}
		if err != nil {
			return nil, err
		}
		referenceAddFile(l, name, data)
	}
	return l.finish(files)
}

// eachCorpusFile calls check on every file of the reference corpus, in
// the order of their names, and returns how many there were.
func eachCorpusFile(t *testing.T, check func(name string, data []byte)) int {
	t.Helper()
	corpus := referenceCorpus(t)
	names := make([]string, 0, len(corpus))
	for n := range corpus {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		check(n, corpus[n])
	}
	return len(names)
}
