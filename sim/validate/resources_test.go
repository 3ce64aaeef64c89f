package validate

import "testing"

func TestResourceQuantities(t *testing.T) {
	runCases(t, []validateCase{
		{
			name: "node capacity and allocatable: not negative, pods and extended resources whole",
			yaml: docs(gpuClass, gpuSlice, `apiVersion: v1
kind: Node
metadata: {name: node-a}
status:
  capacity: {cpu: "-8", memory: 16Gi}
  allocatable: {cpu: "8", memory: -1Gi, pods: "1.5", example.com/fpga: 500m, hugepages-2Mi: 1Gi}`),
			want: []triple{
				{CodeInvalidValue, `Node "node-a"`, "status.allocatable[example.com/fpga]"},
				{CodeInvalidValue, `Node "node-a"`, "status.allocatable[memory]"},
				{CodeInvalidValue, `Node "node-a"`, "status.allocatable[pods]"},
				{CodeInvalidValue, `Node "node-a"`, "status.capacity[cpu]"},
			},
		},
		{
			name: "container requests and limits: not negative, requests within limits",
			yaml: docs(cluster, podYAML(`  initContainers:
  - {name: init, image: i, resources: {requests: {memory: -1Mi}}}
  containers:
  - name: c
    image: i
    resources:
      requests: {cpu: "-1", memory: 2Gi}
      limits: {memory: 1Gi}
  - name: d
    image: i
    resources:
      limits: {cpu: "-2"}
`)),
			want: []triple{
				{CodeInvalidValue, podP, "spec.containers[0].resources.requests[cpu]"},
				{CodeInvalidValue, podP, "spec.containers[0].resources.requests[memory]"},
				{CodeInvalidValue, podP, "spec.containers[1].resources.limits[cpu]"},
				// The limit's default request inherits the negative value.
				{CodeInvalidValue, podP, "spec.containers[1].resources.requests[cpu]"},
				{CodeInvalidValue, podP, "spec.initContainers[0].resources.requests[memory]"},
			},
		},
		{
			name: "extended resources: whole numbers, a limit equal to the request",
			yaml: docs(cluster, podYAML(`  containers:
  - name: c
    image: i
    resources:
      requests: {example.com/fpga: "1"}
  - name: d
    image: i
    resources:
      requests: {example.com/fpga: "1"}
      limits: {example.com/fpga: "2"}
  - name: e
    image: i
    resources:
      limits: {example.com/fpga: 1500m}
`)),
			want: []triple{
				{CodeRequired, podP, "spec.containers[0].resources.limits[example.com/fpga]"},
				{CodeInvalidValue, podP, "spec.containers[1].resources.requests[example.com/fpga]"},
				{CodeInvalidValue, podP, "spec.containers[2].resources.limits[example.com/fpga]"},
				{CodeInvalidValue, podP, "spec.containers[2].resources.requests[example.com/fpga]"},
			},
		},
		{
			name: "pod-level resources",
			yaml: docs(cluster, podYAML(container+"  resources: {requests: {cpu: \"-1\"}}\n")),
			want: []triple{{CodeInvalidValue, podP, "spec.resources.requests[cpu]"}},
		},
		{
			name: "valid quantities",
			yaml: docs(cluster, podYAML(`  containers:
  - name: c
    image: i
    resources:
      requests: {cpu: 500m, memory: 1Gi, example.com/fpga: "2"}
      limits: {cpu: "1", memory: 1Gi, example.com/fpga: "2"}
`)),
		},
	})
}

func TestNodeGroupTemplates(t *testing.T) {
	runCases(t, []validateCase{
		{
			name: "the template node and slices are checked as the API server would check them",
			yaml: docs(cluster, `apiVersion: drasim.io/v1alpha1
kind: NodeGroup
metadata: {name: g}
spec:
  maxSize: 2
  template:
    node:
      metadata: {name: g-node}
      status: {allocatable: {cpu: "-4"}}
    resourceSlices:
    - metadata: {name: g-node-gpu}
      spec:
        driver: gpu.example.com
        nodeName: g-node
        pool: {name: g-node, generation: 1, resourceSliceCount: 0}
        devices: [{name: gpu-0}]`),
			want: []triple{
				{CodeInvalidValue, `NodeGroup "g"`, "spec.template.node.status.allocatable[cpu]"},
				{CodeInvalidValue, `NodeGroup "g"`, "spec.template.resourceSlices[0].spec.pool.resourceSliceCount"},
			},
		},
	})
}
