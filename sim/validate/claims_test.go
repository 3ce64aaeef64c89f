package validate

import (
	"fmt"
	"strings"
	"testing"
)

// claimYAML is a ResourceClaim "default/c" whose spec.devices holds body.
func claimYAML(body string) string {
	return `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
` + body
}

const claimC = `ResourceClaim "default/c"`

func TestClaimSpec(t *testing.T) {
	runCases(t, []validateCase{
		{
			name: "request names: DNS labels, unique",
			yaml: docs(cluster, claimYAML(`    requests:
    - {name: GPU, exactly: {deviceClassName: gpu}}
    - {name: a, exactly: {deviceClassName: gpu}}
    - {name: a, exactly: {deviceClassName: gpu}}
    - {exactly: {deviceClassName: gpu}}
`)),
			want: []triple{
				{CodeInvalidName, claimC, "spec.devices.requests[0].name"},
				{CodeDuplicate, claimC, "spec.devices.requests[2].name"},
				{CodeRequired, claimC, "spec.devices.requests[3].name"},
			},
		},
		{
			name: "exactly one of exactly and firstAvailable",
			yaml: docs(cluster, claimYAML(`    requests:
    - {name: a}
    - name: b
      exactly: {deviceClassName: gpu}
      firstAvailable: [{name: x, deviceClassName: gpu}]
`)),
			want: []triple{
				{CodeOneOf, claimC, "spec.devices.requests[0]"},
				{CodeOneOf, claimC, "spec.devices.requests[1]"},
			},
		},
		{
			name: "deviceClassName next to exactly (v1beta1 style in a v1 object)",
			yaml: docs(cluster, claimYAML(`    requests:
    - name: a
      deviceClassName: gpu
      exactly: {count: 2}
`)),
			want: []triple{{CodeRequired, claimC, "spec.devices.requests[0].exactly.deviceClassName"}},
		},
		{
			name: "firstAvailable: at most 8, unique names",
			yaml: docs(cluster, claimYAML(`    requests:
    - name: a
      firstAvailable: [`+strings.Repeat("{name: x, deviceClassName: gpu}, ", 8)+`{name: y, deviceClassName: gpu}]
    - name: b
      firstAvailable: [{name: x, deviceClassName: gpu}, {name: x, deviceClassName: gpu}]
`)),
			want: []triple{
				{CodeTooMany, claimC, "spec.devices.requests[0].firstAvailable"},
				{CodeDuplicate, claimC, "spec.devices.requests[1].firstAvailable[1].name"},
			},
		},
		{
			name: "count and allocation mode",
			yaml: docs(cluster, claimYAML(`    requests:
    - {name: a, exactly: {deviceClassName: gpu, count: -1}}
    - {name: b, exactly: {deviceClassName: gpu, allocationMode: All, count: 2}}
    - {name: c, exactly: {deviceClassName: gpu, allocationMode: Some}}
    - name: d
      firstAvailable: [{name: x, deviceClassName: gpu, allocationMode: All}]
`)),
			want: []triple{
				{CodeInvalidValue, claimC, "spec.devices.requests[0].exactly.count"},
				{CodeForbidden, claimC, "spec.devices.requests[1].exactly.count"},
				{CodeInvalidValue, claimC, "spec.devices.requests[2].exactly.allocationMode"},
			},
		},
		{
			name: "unknown device class",
			yaml: docs(cluster, claimYAML(`    requests:
    - {name: a, exactly: {deviceClassName: no-such-class}}
    - name: b
      firstAvailable: [{name: x, deviceClassName: gpu}, {name: y, deviceClassName: nic}]
`)),
			want: []triple{
				{CodeUnknownDeviceClass, claimC, "spec.devices.requests[0].exactly.deviceClassName"},
				{CodeUnknownDeviceClass, claimC, "spec.devices.requests[1].firstAvailable[1].deviceClassName"},
			},
		},
		{
			name: "constraints name existing requests and fully qualified attributes",
			yaml: docs(cluster, claimYAML(`    requests:
    - {name: a, exactly: {deviceClassName: gpu}}
    - name: b
      firstAvailable: [{name: x, deviceClassName: gpu}]
    constraints:
    - {requests: [a, b/x, b], matchAttribute: gpu.example.com/model}
    - {requests: [c, b/y, a/b/c, a, a], matchAttribute: model}
    - {requests: [a]}
    - {matchAttribute: gpu.example.com/model, distinctAttribute: gpu.example.com/model}
`)),
			want: []triple{
				{CodeInvalidName, claimC, "spec.devices.constraints[1].matchAttribute"},
				{CodeUnknownRequest, claimC, "spec.devices.constraints[1].requests[0]"},
				{CodeUnknownRequest, claimC, "spec.devices.constraints[1].requests[1]"},
				{CodeInvalidName, claimC, "spec.devices.constraints[1].requests[2]"},
				{CodeDuplicate, claimC, "spec.devices.constraints[1].requests[4]"},
				{CodeOneOf, claimC, "spec.devices.constraints[2]"},
				{CodeOneOf, claimC, "spec.devices.constraints[3]"},
			},
		},
		{
			name: "config entries: existing requests, opaque driver and object parameters",
			yaml: docs(cluster, claimYAML(`    requests:
    - {name: a, exactly: {deviceClassName: gpu}}
    config:
    - {requests: [a], opaque: {driver: gpu.example.com, parameters: {sharing: time-slicing}}}
    - {requests: [z], opaque: {driver: gpu.example.com, parameters: {}}}
    - {requests: [a]}
    - {opaque: {driver: gpu.example.com, parameters: [1, 2]}}
`)),
			want: []triple{
				{CodeUnknownRequest, claimC, "spec.devices.config[1].requests[0]"},
				{CodeRequired, claimC, "spec.devices.config[2].opaque"},
				{CodeInvalidValue, claimC, "spec.devices.config[3].opaque.parameters"},
			},
		},
		{
			name: "tolerations",
			yaml: docs(cluster, claimYAML(`    requests:
    - name: a
      exactly:
        deviceClassName: gpu
        tolerations:
        - {key: k, operator: Exists, value: v}
        - {key: k, value: v, effect: Later}
        - {operator: Sometimes}
`)),
			want: []triple{
				{CodeInvalidValue, claimC, "spec.devices.requests[0].exactly.tolerations[0].value"},
				{CodeInvalidValue, claimC, "spec.devices.requests[0].exactly.tolerations[1].effect"},
				{CodeInvalidValue, claimC, "spec.devices.requests[0].exactly.tolerations[2].operator"},
			},
		},
		{
			name: "capacity requests must be positive (a warning: the API does not check)",
			yaml: docs(cluster, claimYAML(`    requests:
    - name: a
      exactly: {deviceClassName: gpu, capacity: {requests: {memory: "-1Gi", "a-b": 1}}}
`)),
			want: []triple{
				{CodeInvalidName, claimC, "spec.devices.requests[0].exactly.capacity.requests[a-b]"},
				{CodeInvalidValue, claimC, "spec.devices.requests[0].exactly.capacity.requests[memory]"},
			},
		},
		{
			name: "admin access needs the namespace label",
			yaml: docs(cluster, `apiVersion: v1
kind: Namespace
metadata: {name: default}`, claimYAML(`    requests:
    - {name: a, exactly: {deviceClassName: gpu, adminAccess: true}}
`)),
			want: []triple{{CodeForbidden, claimC, "spec.devices.requests[0].exactly.adminAccess"}},
		},
		{
			name: "too many requests",
			yaml: docs(cluster, claimYAML("    requests:\n"+func() string {
				var b strings.Builder
				for i := range 33 {
					fmt.Fprintf(&b, "    - {name: r%d, exactly: {deviceClassName: gpu}}\n", i)
				}
				return b.String()
			}())),
			want: []triple{{CodeTooMany, claimC, "spec.devices.requests"}},
		},
		{
			name: "template specs are checked under spec.spec",
			yaml: docs(cluster, `apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: t, namespace: team-a}
spec:
  spec:
    devices:
      requests: [{name: a, exactly: {deviceClassName: gpu, count: -2}}]`),
			want: []triple{{CodeInvalidValue, `ResourceClaimTemplate "team-a/t"`, "spec.spec.devices.requests[0].exactly.count"}},
		},
		{
			name: "v1beta1 objects are converted and valid",
			yaml: docs(cluster, `apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests:
    - {name: a, deviceClassName: gpu, selectors: [{cel: {expression: 'device.attributes["gpu.example.com"].model == "a100"'}}]}`),
		},
	})
}

// allocatedClaim is claim "default/c" with one request "gpu" and the given
// status.
func allocatedClaim(status string) string {
	return claimYAML(`    requests: [{name: gpu, exactly: {deviceClassName: gpu}}]
status:
` + status)
}

func TestClaimStatus(t *testing.T) {
	runCases(t, []validateCase{
		{
			name: "allocated device of the snapshot, reserved for an existing pod",
			yaml: docs(cluster, allocatedClaim(`  allocation:
    devices:
      results: [{request: gpu, driver: gpu.example.com, pool: node-a, device: gpu-0}]
  reservedFor: [{resource: pods, name: p, uid: "1"}]
`), `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  nodeName: node-a
  containers: [{name: c, image: i}]
  resourceClaims: [{name: gpu, resourceClaimName: c}]`),
		},
		{
			name: "allocated device missing from its pool",
			yaml: docs(cluster, allocatedClaim(`  allocation:
    devices:
      results: [{request: gpu, driver: gpu.example.com, pool: node-a, device: gpu-7}]
`)),
			want: []triple{{CodeUnknownAllocatedDevice, claimC, "status.allocation.devices.results[0].device"}},
		},
		{
			name: "allocated from a pool the snapshot does not hold",
			yaml: docs(cluster, allocatedClaim(`  allocation:
    devices:
      results: [{request: gpu, driver: gpu.example.com, pool: node-z, device: gpu-0}]
`)),
			want: []triple{{CodeUnknownAllocatedPool, claimC, "status.allocation.devices.results[0]"}},
		},
		{
			name: "allocation result for an unknown request",
			yaml: docs(cluster, allocatedClaim(`  allocation:
    devices:
      results: [{request: nic, driver: gpu.example.com, pool: node-a, device: gpu-0}]
`)),
			want: []triple{{CodeUnknownRequest, claimC, "status.allocation.devices.results[0].request"}},
		},
		{
			name: "reserved without allocation, for a missing pod, twice",
			yaml: docs(cluster, allocatedClaim(`  reservedFor:
  - {resource: pods, name: gone, uid: "1"}
  - {resource: pods, name: gone, uid: "1"}
`)),
			want: []triple{
				{CodeForbidden, claimC, "status.reservedFor"},
				{CodeUnknownReservedForPod, claimC, "status.reservedFor[0].name"},
				{CodeUnknownReservedForPod, claimC, "status.reservedFor[1].name"},
				{CodeDuplicate, claimC, "status.reservedFor[1].uid"},
			},
		},
		{
			name: "at most 256 reservations",
			yaml: docs(cluster, allocatedClaim(`  allocation:
    devices:
      results: [{request: gpu, driver: gpu.example.com, pool: node-a, device: gpu-0}]
  reservedFor:
`+func() string {
				var b strings.Builder
				for i := range 257 {
					fmt.Fprintf(&b, "  - {resource: pods, name: p%d, uid: u%d}\n", i, i)
				}
				return b.String()
			}())),
			want: []triple{{CodeTooMany, claimC, "status.reservedFor"}},
		},
	})
}
