package load

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds arbitrary bytes to the loader: it may reject them, but it
// must never panic, and an accepted snapshot must be usable.
func FuzzLoad(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "..", "scenarios", "*.yaml"))
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n}\n"))
	f.Add([]byte(`{"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"devices":[{"name":"d","basic":{}}]}}`))
	f.Add([]byte("apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec: {template: {spec: {containers: [{name: c}]}}}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n}\n"))
	f.Add([]byte("items: 3\n---\n- a\n---\n: :\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := LoadBytes("fuzz.yaml", data, Options{})
		if err != nil {
			return
		}
		if res.Snapshot == nil {
			t.Fatal("nil snapshot without an error")
		}
		for _, p := range res.Snapshot.Pods {
			if p.Name == "" {
				t.Fatalf("accepted a pod without a name")
			}
		}
	})
}
