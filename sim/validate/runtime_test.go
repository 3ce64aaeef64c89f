package validate

import (
	"fmt"
	"strings"
	"testing"
)

// manyGPUs is a slice on node-a with n devices of the gpu class; the first
// half carries a "profile" attribute.
func manyGPUs(n int) string {
	var b strings.Builder
	b.WriteString(`apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-a-many}
spec:
  driver: gpu.example.com
  nodeName: node-a
  pool: {name: node-a-many, generation: 1, resourceSliceCount: 1}
  devices:
`)
	for i := range n {
		fmt.Fprintf(&b, "  - name: g%d\n", i)
		if i < n/2 {
			b.WriteString("    attributes: {profile: {string: 1g}}\n")
		}
	}
	return b.String()
}

// perDeviceGPUs is manyGPUs published with perDeviceNodeSelection: every
// device names node-a itself.
func perDeviceGPUs(n int) string {
	var b strings.Builder
	b.WriteString(`apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-a-per-device}
spec:
  driver: gpu.example.com
  perDeviceNodeSelection: true
  pool: {name: node-a-per-device, generation: 1, resourceSliceCount: 1}
  devices:
`)
	for i := range n {
		fmt.Fprintf(&b, "  - {name: g%d, nodeName: node-a}\n", i)
	}
	return b.String()
}

const templateT = `ResourceClaimTemplate "default/t"`

func templateYAML(requests string) string {
	return "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: t, namespace: default}\nspec:\n  spec:\n    devices:\n      requests:\n" + requests
}

// TestRequestsAtRuntime covers what the API server accepts but the
// allocator turns into an error (kube: PodScheduled reason SchedulerError).
func TestRequestsAtRuntime(t *testing.T) {
	runCases(t, []validateCase{
		{
			name: "request selector reading an attribute some devices of its class lack",
			yaml: docs(cluster, templateYAML(`      - name: g
        exactly:
          deviceClassName: gpu
          selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.0.0"))'}}]
`)),
			want: []triple{{CodeCELRuntime, templateT, "spec.spec.devices.requests[0].exactly.selectors[0].cel.expression"}},
		},
		{
			name: "the same lookup guarded with optional chaining",
			yaml: docs(cluster, templateYAML(`      - name: g
        exactly:
          deviceClassName: gpu
          selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].?driverVersion.orValue(semver("0.0.0")).isGreaterThan(semver("1.0.0"))'}}]
`)),
		},
		{
			name: "subrequest selector of a claim",
			yaml: docs(cluster, claimYAML(`    requests:
    - name: r
      firstAvailable:
      - {name: x, deviceClassName: gpu, selectors: [{cel: {expression: 'device.capacity["gpu.example.com"].memory.compareTo(quantity("8Gi")) > 0'}}]}
`)),
			want: []triple{{CodeCELRuntime, claimC, "spec.devices.requests[0].firstAvailable[0].selectors[0].cel.expression"}},
		},
		{
			name: "count over the claim limit",
			yaml: docs(cluster, templateYAML("      - name: g\n        exactly: {deviceClassName: gpu, count: 33}\n")),
			want: []triple{{CodeClaimOverDeviceLimit, templateT, "spec.spec.devices.requests[0].exactly.count"}},
		},
		{
			name: "count at the claim limit",
			yaml: docs(cluster, templateYAML("      - name: g\n        exactly: {deviceClassName: gpu, count: 32}\n")),
		},
		{
			name: "requests that add up to more than the limit",
			yaml: docs(cluster, templateYAML("      - name: a\n        exactly: {deviceClassName: gpu, count: 20}\n      - name: b\n        exactly: {deviceClassName: gpu, count: 13}\n")),
			want: []triple{{CodeClaimOverDeviceLimit, templateT, "spec.spec.devices.requests"}},
		},
		{
			name: "allocationMode All on a node with more matching devices than a claim holds",
			yaml: docs(nodeA, gpuClass, manyGPUs(40), templateYAML("      - name: g\n        exactly: {deviceClassName: gpu, allocationMode: All}\n")),
			want: []triple{{CodeClaimOverDeviceLimit, templateT, "spec.spec.devices.requests[0].exactly.allocationMode"}},
		},
		{
			// The device's own nodeName attaches it with perDeviceNodeSelection
			// (inventory.NodeOf); before, such devices counted on no node.
			name: "allocationMode All on a node whose devices name it one by one",
			yaml: docs(nodeA, gpuClass, perDeviceGPUs(40), templateYAML("      - name: g\n        exactly: {deviceClassName: gpu, allocationMode: All}\n")),
			want: []triple{{CodeClaimOverDeviceLimit, templateT, "spec.spec.devices.requests[0].exactly.allocationMode"}},
		},
		{
			name: "allocationMode All narrowed by a selector to few enough devices",
			yaml: docs(nodeA, gpuClass, manyGPUs(40), templateYAML(`      - name: g
        exactly:
          deviceClassName: gpu
          allocationMode: All
          selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].?profile.orValue("") == "1g"'}}]
`)),
		},
	})
}
