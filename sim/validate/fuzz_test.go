package validate

import (
	"reflect"
	"testing"

	"github.com/drasim/drasim/sim/load"
)

// FuzzValidate loads arbitrary bytes as a snapshot file and validates
// whatever the loader made of it (also after loader errors, since the loader
// returns the objects it could read): Validate must never panic, and must
// return complete diagnostics, in order, the same on every run.
func FuzzValidate(f *testing.F) {
	f.Add([]byte(docs(cluster, gpuTemplate)))
	f.Add([]byte(docs(cluster, tpuClassAndTemplate, podYAML(container+"  resourceClaims: [{name: t, resourceClaimTemplateName: one-tpu}]\n"))))
	f.Add([]byte(twoSlicePool("  devices: [{name: d, consumesCounters: [{counterSet: gpu-9, counters: {memory: {value: 4}}}]}]\n")))
	f.Add([]byte(docs(cluster, classYAML("  - cel:\n    expression: device.driver == \"x\"\n"))))
	f.Add([]byte(docs(cluster, allocatedClaim("  allocation:\n    devices:\n      results: [{request: gpu, driver: gpu.example.com, pool: node-a, device: gpu-7}]\n  reservedFor: [{resource: pods, name: gone, uid: \"1\"}]\n"))))
	f.Add([]byte(`{"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceSlice","metadata":{"name":"s"},"spec":{"driver":"d","pool":{"name":"p","resourceSliceCount":1},"allNodes":true,"devices":[{"name":"d","basic":{"attributes":{"a":{"int":1}}}}]}}`))
	f.Add([]byte("kind: List\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {}}\n- {apiVersion: resource.k8s.io/v1, kind: DeviceTaintRule, metadata: {name: r}, spec: {taint: {key: k}}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, _ := load.LoadBytes("fuzz.yaml", data, load.Options{})
		if res == nil {
			return
		}
		ds := Validate(res.Snapshot, Options{})
		if again := Validate(res.Snapshot, Options{}); !reflect.DeepEqual(ds, again) {
			t.Fatalf("two runs differ:\n%s\nvs\n%s", render(ds), render(again))
		}
		for i := 1; i < len(ds); i++ {
			if compareDiagnostics(ds[i-1], ds[i]) > 0 {
				t.Fatalf("diagnostics %d and %d are out of order:\n  %s\n  %s", i-1, i, ds[i-1], ds[i])
			}
		}
		for _, d := range ds {
			if d.Code == "" || d.Message == "" || (d.Severity != SeverityError && d.Severity != SeverityWarning) {
				t.Fatalf("incomplete diagnostic: %+v", d)
			}
		}
	})
}
