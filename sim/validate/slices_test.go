package validate

import (
	"fmt"
	"strings"
	"testing"
)

// sliceYAML is a ResourceSlice of driver gpu.example.com on node-a; spec
// holds the lines after `spec:` other than driver and nodeName.
func sliceYAML(name, spec string) string {
	return fmt.Sprintf(`apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: %s}
spec:
  driver: gpu.example.com
  nodeName: node-a
%s`, name, spec)
}

// manyDevices renders n devices named d-0..d-(n-1), each with extra (a
// YAML flow fragment such as `taints: [...]`).
func manyDevices(n int, extra string) string {
	var b strings.Builder
	b.WriteString("  devices:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - {name: d-%d%s}\n", i, extra)
	}
	return b.String()
}

const pool1 = "  pool: {name: p, resourceSliceCount: 1}\n"

func TestResourceSliceShape(t *testing.T) {
	runCases(t, []validateCase{
		{
			name: "missing driver, pool and node selection",
			yaml: `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  pool: {name: "", resourceSliceCount: 0}
  devices: [{name: d}]`,
			want: []triple{
				{CodeOneOf, `ResourceSlice "s"`, "spec"},
				{CodeRequired, `ResourceSlice "s"`, "spec.driver"},
				{CodeRequired, `ResourceSlice "s"`, "spec.pool.name"},
				{CodeInvalidValue, `ResourceSlice "s"`, "spec.pool.resourceSliceCount"},
			},
		},
		{
			name: "malformed driver and pool names, negative generation",
			yaml: `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: GPU_example
  allNodes: true
  pool: {name: "Bad Pool", generation: -1, resourceSliceCount: 1}`,
			want: []triple{
				{CodeInvalidName, `ResourceSlice "s"`, "spec.driver"},
				{CodeInvalidValue, `ResourceSlice "s"`, "spec.pool.generation"},
				{CodeInvalidName, `ResourceSlice "s"`, "spec.pool.name"},
			},
		},
		{
			name: "two node selection fields, allNodes false",
			yaml: sliceYAML("s", pool1+"  allNodes: false\n  perDeviceNodeSelection: true\n"),
			want: []triple{
				{CodeOneOf, `ResourceSlice "s"`, "spec"},
				{CodeInvalidValue, `ResourceSlice "s"`, "spec.allNodes"},
			},
		},
		{
			name: "node selector needs exactly one term",
			yaml: `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  pool: {name: p, resourceSliceCount: 1}
  nodeSelector:
    nodeSelectorTerms:
    - matchExpressions: [{key: zone, operator: In, values: [a]}]
    - matchExpressions: [{key: zone, operator: In, values: [b]}]`,
			want: []triple{{CodeInvalidValue, `ResourceSlice "s"`, "spec.nodeSelector.nodeSelectorTerms"}},
		},
		{
			name: "node name of a node the snapshot does not hold",
			yaml: docs("apiVersion: v1\nkind: Node\nmetadata: {name: node-b}", sliceYAML("s", pool1+"  devices: [{name: d}]\n")),
			want: []triple{{CodeUnknownNode, `ResourceSlice "s"`, "spec.nodeName"}},
		},
		{
			// `kubectl get resourceslices -o yaml` alone has no Nodes: one
			// warning per slice would drown everything else.
			name: "a slice-only dump does not warn about nodes",
			yaml: sliceYAML("s", pool1+"  devices: [{name: d}]\n"),
		},
		{
			name: "device names: DNS label, unique in the slice",
			yaml: docs(nodeA, sliceYAML("s", pool1+"  devices: [{name: GPU_0}, {name: gpu-1}, {name: gpu-1}]\n")),
			want: []triple{
				{CodeInvalidName, `ResourceSlice "s"`, "spec.devices[0].name"},
				{CodeDuplicate, `ResourceSlice "s"`, "spec.devices[2].name"},
			},
		},
		{
			name: "attributes: one value each, qualified names, semver, length",
			yaml: docs(nodeA, sliceYAML("s", pool1+`  devices:
  - name: d
    attributes:
      none: {}
      two: {int: 1, string: x}
      bad-name: {int: 1}
      gpu.example.com/ok: {bool: true}
      /empty-domain: {int: 1}
      v: {version: "1.0"}
      long: {string: `+strings.Repeat("x", 65)+`}
      emptylist: {ints: []}
`)),
			want: []triple{
				{CodeInvalidName, `ResourceSlice "s"`, "spec.devices[0].attributes[/empty-domain]"},
				{CodeInvalidName, `ResourceSlice "s"`, "spec.devices[0].attributes[bad-name]"},
				{CodeInvalidValue, `ResourceSlice "s"`, "spec.devices[0].attributes[emptylist].ints"},
				{CodeTooLong, `ResourceSlice "s"`, "spec.devices[0].attributes[long].string"},
				{CodeOneOf, `ResourceSlice "s"`, "spec.devices[0].attributes[none]"},
				{CodeOneOf, `ResourceSlice "s"`, "spec.devices[0].attributes[two]"},
				{CodeInvalidValue, `ResourceSlice "s"`, "spec.devices[0].attributes[v].version"},
			},
		},
		{
			name: "at most 128 devices per slice",
			yaml: docs(nodeA, sliceYAML("s", pool1+manyDevices(129, ""))),
			want: []triple{{CodeTooMany, `ResourceSlice "s"`, "spec.devices"}},
		},
		{
			name: "at most 64 devices when devices use taints",
			yaml: docs(nodeA, sliceYAML("s", pool1+manyDevices(65, ", taints: [{key: k, effect: NoSchedule}]"))),
			want: []triple{{CodeTooMany, `ResourceSlice "s"`, "spec.devices"}},
		},
		{
			name: "at most 32 attributes and capacities per device",
			yaml: docs(nodeA, sliceYAML("s", pool1+func() string {
				var b strings.Builder
				b.WriteString("  devices:\n  - name: d\n    attributes:\n")
				for i := range 33 {
					fmt.Fprintf(&b, "      a%d: {int: %d}\n", i, i)
				}
				return b.String()
			}())),
			want: []triple{{CodeTooMany, `ResourceSlice "s"`, "spec.devices[0]"}},
		},
		{
			name: "device taints: key, effect, at most 16",
			yaml: docs(nodeA, sliceYAML("s", pool1+`  devices:
  - name: d
    taints:
    - {key: k, effect: Sometimes}
    - {key: k}
    - {key: "bad key", value: "v", effect: None}
  - name: e
    taints: [`+strings.Repeat("{key: k, effect: NoSchedule}, ", 16)+`{key: k, effect: NoSchedule}]
`)),
			want: []triple{
				{CodeInvalidValue, `ResourceSlice "s"`, "spec.devices[0].taints[0].effect"},
				{CodeRequired, `ResourceSlice "s"`, "spec.devices[0].taints[1].effect"},
				{CodeInvalidName, `ResourceSlice "s"`, "spec.devices[0].taints[2].key"},
				{CodeTooMany, `ResourceSlice "s"`, "spec.devices[1].taints"},
			},
		},
		{
			name: "per-device node selection fields need perDeviceNodeSelection",
			yaml: docs(nodeA, sliceYAML("s", pool1+"  devices: [{name: d, nodeName: node-a}]\n")),
			want: []triple{{CodeForbidden, `ResourceSlice "s"`, "spec.devices[0]"}},
		},
		{
			name: "perDeviceNodeSelection needs one selection per device",
			yaml: `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  perDeviceNodeSelection: true
  pool: {name: p, resourceSliceCount: 1}
  devices: [{name: d}, {name: e, allNodes: true}]`,
			want: []triple{{CodeOneOf, `ResourceSlice "s"`, "spec.devices[0]"}},
		},
		{
			name: "request policy needs allowMultipleAllocations and a consistent range",
			yaml: docs(nodeA, sliceYAML("s", pool1+`  devices:
  - name: d
    capacity:
      memory: {value: 10Gi, requestPolicy: {default: 1Gi}}
  - name: e
    allowMultipleAllocations: true
    capacity:
      memory: {value: 10Gi, requestPolicy: {default: 1Gi, validRange: {min: 2Gi}}}
`)),
			want: []triple{
				{CodeForbidden, `ResourceSlice "s"`, "spec.devices[0].capacity[memory].requestPolicy"},
				{CodeInvalidValue, `ResourceSlice "s"`, "spec.devices[1].capacity[memory].requestPolicy.validRange.default"},
			},
		},
		{
			name: "binding conditions need failure conditions",
			yaml: docs(nodeA, sliceYAML("s", pool1+"  devices: [{name: d, bindingConditions: [ready]}]\n")),
			want: []triple{{CodeRequired, `ResourceSlice "s"`, "spec.devices[0].bindingFailureConditions"}},
		},
		{
			name: "counters and devices in one slice; counter set names",
			yaml: docs(nodeA, sliceYAML("s", pool1+`  devices: [{name: d}]
  sharedCounters:
  - {name: gpu-0, counters: {memory: {value: 8}}}
  - {name: gpu-0, counters: {memory: {value: 8}}}
  - {name: Bad_Set, counters: {memory: {value: 8}}}
  - {name: empty}
`)),
			want: []triple{
				{CodeOneOf, `ResourceSlice "s"`, "spec"},
				{CodeDuplicate, `ResourceSlice "s"`, "spec.sharedCounters[1].name"},
				{CodeInvalidName, `ResourceSlice "s"`, "spec.sharedCounters[2].name"},
				{CodeRequired, `ResourceSlice "s"`, "spec.sharedCounters[3].counters"},
			},
		},
	})
}

// twoSlicePool is a pool of a counters slice and a devices slice.
func twoSlicePool(devices string) string {
	return docs(nodeA,
		sliceYAML("counters", `  pool: {name: p, resourceSliceCount: 2}
  sharedCounters:
  - {name: gpu-0, counters: {memory: {value: 8}}}
`),
		sliceYAML("devices", "  pool: {name: p, resourceSliceCount: 2}\n"+devices))
}

func TestPools(t *testing.T) {
	runCases(t, []validateCase{
		{
			name: "counters consumed from another slice of the pool",
			yaml: twoSlicePool("  devices: [{name: d, consumesCounters: [{counterSet: gpu-0, counters: {memory: {value: 4}}}]}]\n"),
		},
		{
			name: "unknown counter set and unknown counter",
			yaml: twoSlicePool(`  devices:
  - {name: d, consumesCounters: [{counterSet: gpu-9, counters: {memory: {value: 4}}}]}
  - {name: e, consumesCounters: [{counterSet: gpu-0, counters: {cores: {value: 4}}}]}
`),
			want: []triple{
				{CodeUnknownCounterSet, `ResourceSlice "devices"`, "spec.devices[0].consumesCounters[0].counterSet"},
				{CodeUnknownCounter, `ResourceSlice "devices"`, "spec.devices[1].consumesCounters[0].counters[cores]"},
			},
		},
		{
			name: "incomplete pool",
			yaml: docs(nodeA, sliceYAML("s", "  pool: {name: p, resourceSliceCount: 2}\n  devices: [{name: d}]\n")),
			want: []triple{{CodePoolIncomplete, `ResourceSlice "s"`, "spec.pool.resourceSliceCount"}},
		},
		{
			name: "incomplete pool hides its counter sets: no counter errors",
			yaml: docs(nodeA, sliceYAML("s", "  pool: {name: p, resourceSliceCount: 2}\n"+
				"  devices: [{name: d, consumesCounters: [{counterSet: gpu-0, counters: {memory: {value: 4}}}]}]\n")),
			want: []triple{{CodePoolIncomplete, `ResourceSlice "s"`, "spec.pool.resourceSliceCount"}},
		},
		{
			name: "older generation is ignored",
			yaml: docs(nodeA,
				sliceYAML("old", "  pool: {name: p, generation: 1, resourceSliceCount: 1}\n  devices: [{name: d}]\n"),
				sliceYAML("new", "  pool: {name: p, generation: 2, resourceSliceCount: 1}\n  devices: [{name: d}]\n")),
			want: []triple{{CodePoolStaleGeneration, `ResourceSlice "old"`, "spec.pool.generation"}},
		},
		{
			name: "slices disagree on resourceSliceCount",
			yaml: docs(nodeA,
				sliceYAML("a", "  pool: {name: p, resourceSliceCount: 2}\n  devices: [{name: d}]\n"),
				sliceYAML("b", "  pool: {name: p, resourceSliceCount: 3}\n  devices: [{name: e}]\n")),
			want: []triple{{CodePoolSliceCountMismatch, `ResourceSlice "b"`, "spec.pool.resourceSliceCount"}},
		},
		{
			name: "more slices than resourceSliceCount",
			yaml: docs(nodeA,
				sliceYAML("a", pool1+"  devices: [{name: d}]\n"),
				sliceYAML("b", pool1+"  devices: [{name: e}]\n")),
			want: []triple{{CodePoolSliceCountMismatch, `ResourceSlice "a"`, "spec.pool.resourceSliceCount"}},
		},
		{
			name: "same device name in two slices of a pool",
			yaml: docs(nodeA,
				sliceYAML("a", "  pool: {name: p, resourceSliceCount: 2}\n  devices: [{name: d}]\n"),
				sliceYAML("b", "  pool: {name: p, resourceSliceCount: 2}\n  devices: [{name: e}, {name: d}]\n")),
			want: []triple{{CodePoolDuplicateDevice, `ResourceSlice "b"`, "spec.devices[1].name"}},
		},
		{
			name: "same device name in different pools is fine",
			yaml: docs(nodeA,
				sliceYAML("a", "  pool: {name: p, resourceSliceCount: 1}\n  devices: [{name: d}]\n"),
				sliceYAML("b", "  pool: {name: q, resourceSliceCount: 1}\n  devices: [{name: d}]\n")),
		},
		{
			name: "same counter set in two slices of a pool",
			yaml: docs(nodeA,
				sliceYAML("a", "  pool: {name: p, resourceSliceCount: 2}\n  sharedCounters: [{name: c, counters: {m: {value: 1}}}]\n"),
				sliceYAML("b", "  pool: {name: p, resourceSliceCount: 2}\n  sharedCounters: [{name: c, counters: {m: {value: 1}}}]\n")),
			want: []triple{{CodePoolDuplicateCounterSet, `ResourceSlice "b"`, "spec.sharedCounters[0].name"}},
		},
	})
}
