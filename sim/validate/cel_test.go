package validate

import (
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/feature"
)

// classYAML is DeviceClass "c" with the given selectors block.
func classYAML(selectors string) string {
	return `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: c}
spec:
  selectors:
` + selectors
}

const classC = `DeviceClass "c"`

func TestCEL(t *testing.T) {
	runCases(t, []validateCase{
		{
			name: "expression as a sibling of cel (bad indentation)",
			yaml: docs(cluster, classYAML(`  - cel:
    expression: device.driver == "gpu.example.com"
`)),
			want: []triple{{CodeSelectorMissingCEL, classC, "spec.selectors[0].cel"}},
		},
		{
			name: "expression directly in the selector, in a claim",
			yaml: docs(cluster, claimYAML(`    requests:
    - name: a
      exactly:
        deviceClassName: gpu
        selectors: [{expression: 'device.driver == "gpu.example.com"'}]
`)),
			want: []triple{{CodeSelectorMissingCEL, claimC, "spec.devices.requests[0].exactly.selectors[0].cel"}},
		},
		{
			name: "empty expression",
			yaml: docs(cluster, classYAML("  - cel: {expression: \"\"}\n")),
			want: []triple{{CodeRequired, classC, "spec.selectors[0].cel.expression"}},
		},
		{
			name: "does not compile: syntax, unknown variable, not a bool",
			yaml: docs(cluster, classYAML(`  - cel: {expression: 'device.driver = "x"'}
  - cel: {expression: 'dev.driver == "x"'}
  - cel: {expression: 'device.driver'}
`)),
			want: []triple{
				{CodeCELCompile, classC, "spec.selectors[0].cel.expression"},
				{CodeCELCompile, classC, "spec.selectors[1].cel.expression"},
				{CodeCELCompile, classC, "spec.selectors[2].cel.expression"},
			},
		},
		{
			name: "subrequest selectors are compiled too",
			yaml: docs(cluster, claimYAML(`    requests:
    - name: a
      firstAvailable:
      - {name: x, deviceClassName: gpu, selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].model =='}}]}
`)),
			want: []triple{{CodeCELCompile, claimC, "spec.devices.requests[0].firstAvailable[0].selectors[0].cel.expression"}},
		},
		{
			name: "too expensive",
			yaml: docs(cluster, classYAML(`  - cel: {expression: 'device.capacity.all(d, device.capacity[d].all(k, device.attributes.all(d2, device.attributes[d2].all(k2, true))))'}
`)),
			want: []triple{{CodeCELCost, classC, "spec.selectors[0].cel.expression"}},
		},
		{
			name: "too long",
			yaml: docs(cluster, classYAML("  - cel: {expression: 'true"+strings.Repeat(" && true", 1300)+"'}\n")),
			want: []triple{{CodeTooLong, classC, "spec.selectors[0].cel.expression"}},
		},
		{
			name: "consumable capacity is on by default",
			yaml: docs(cluster, classYAML("  - cel: {expression: 'device.allowMultipleAllocations == false'}\n")),
		},
		{
			name: "consumable capacity switched off",
			yaml: docs(cluster, classYAML("  - cel: {expression: 'device.allowMultipleAllocations == false'}\n")),
			opts: Options{Gates: func() feature.Gates { g := feature.Defaults(); g["DRAConsumableCapacity"] = false; return g }()},
			want: []triple{{CodeCELCompile, classC, "spec.selectors[0].cel.expression"}},
		},
		{
			name: "capacity, semver and quantity functions compile",
			yaml: docs(cluster, classYAML(`  - cel: {expression: 'device.capacity["gpu.example.com"].memory.compareTo(quantity("16Gi")) >= 0'}
  - cel: {expression: 'device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.0.0"))'}
`)),
		},
	})
}

// nicSlice publishes a device of another driver without attributes.
const nicSlice = `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-a-nic}
spec:
  driver: nic.example.com
  nodeName: node-a
  pool: {name: node-a, resourceSliceCount: 1}
  devices: [{name: eth0}, {name: eth1}]`

func TestDeviceMatching(t *testing.T) {
	runCases(t, []validateCase{
		{
			name: "class matching no device",
			yaml: docs(cluster, classYAML(`  - cel: {expression: 'device.driver == "tpu.example.com"'}`)),
			want: []triple{{CodeClassMatchesNoDevice, classC, "spec.selectors"}},
		},
		{
			name: "class matching no device because of a second selector",
			yaml: docs(cluster, classYAML(`  - cel: {expression: 'device.driver == "gpu.example.com"'}
  - cel: {expression: 'device.attributes["gpu.example.com"].model == "b200"'}`)),
			want: []triple{{CodeClassMatchesNoDevice, classC, "spec.selectors"}},
		},
		{
			name: "class without selectors matches every device",
			yaml: docs(cluster, "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: c}\nspec: {}"),
		},
		{
			name: "no slices at all",
			yaml: docs(nodeA, gpuClass),
			want: []triple{{CodeClassMatchesNoDevice, `DeviceClass "gpu"`, "spec.selectors"}},
		},
		{
			name: "selector that fails on devices of another driver",
			yaml: docs(cluster, nicSlice, classYAML(`  - cel: {expression: 'device.attributes["gpu.example.com"].model == "a100"'}`)),
			want: []triple{{CodeCELRuntime, classC, "spec.selectors[0].cel.expression"}},
		},
		{
			name: "guarded selector does not fail",
			yaml: docs(cluster, nicSlice, classYAML(`  - cel: {expression: 'device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "a100"'}`)),
		},
		{
			name: "matching can be switched off",
			yaml: docs(cluster, nicSlice, classYAML(`  - cel: {expression: 'device.attributes["gpu.example.com"].model == "b200"'}`)),
			opts: Options{SkipDeviceMatching: true},
		},
		{
			name: "devices of an older generation do not count",
			yaml: docs(nodeA, classYAML(`  - cel: {expression: 'device.attributes["gpu.example.com"].model == "a100"'}`),
				sliceYAML("old", "  pool: {name: p, generation: 1, resourceSliceCount: 1}\n  devices: [{name: d, attributes: {model: {string: a100}}}]\n"),
				sliceYAML("new", "  pool: {name: p, generation: 2, resourceSliceCount: 1}\n  devices: [{name: d, attributes: {model: {string: h100}}}]\n")),
			want: []triple{{CodeClassMatchesNoDevice, classC, "spec.selectors"}},
		},
	})
}
