package validate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// podYAML is Pod "default/p" with the given spec lines (indented by two).
func podYAML(spec string) string {
	return `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
` + spec
}

const podP = `Pod "default/p"`

const container = "  containers: [{name: c, image: i}]\n"

func TestPods(t *testing.T) {
	runCases(t, []validateCase{
		{
			name: "a pod needs a container",
			yaml: docs(cluster, podYAML("  nodeName: node-a\n")),
			want: []triple{{CodeRequired, podP, "spec.containers"}},
		},
		{
			name: "pod claims: names, exactly one source",
			yaml: docs(cluster, gpuTemplate, podYAML(container+`  resourceClaims:
  - {name: Bad_Name, resourceClaimTemplateName: one-gpu}
  - {name: a, resourceClaimTemplateName: one-gpu}
  - {name: a, resourceClaimTemplateName: one-gpu}
  - {name: b}
  - {name: c, resourceClaimTemplateName: one-gpu, resourceClaimName: x}
  - {resourceClaimTemplateName: one-gpu}
`)),
			want: []triple{
				{CodeInvalidName, podP, "spec.resourceClaims[0].name"},
				{CodeDuplicate, podP, "spec.resourceClaims[2].name"},
				{CodeOneOf, podP, "spec.resourceClaims[3]"},
				{CodeOneOf, podP, "spec.resourceClaims[4]"},
				{CodeRequired, podP, "spec.resourceClaims[5].name"},
			},
		},
		{
			name: "missing claim and template",
			yaml: docs(cluster, podYAML(container+`  resourceClaims:
  - {name: a, resourceClaimName: no-claim}
  - {name: b, resourceClaimTemplateName: no-template}
`)),
			want: []triple{
				{CodeMissingResourceClaim, podP, "spec.resourceClaims[0].resourceClaimName"},
				{CodeMissingResourceClaimTemplate, podP, "spec.resourceClaims[1].resourceClaimTemplateName"},
			},
		},
		{
			name: "claims of another namespace do not count",
			yaml: docs(cluster, `apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: team-b}
spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu}}]}}}`,
				podYAML(container+"  resourceClaims: [{name: a, resourceClaimTemplateName: one-gpu}]\n")),
			want: []triple{{CodeMissingResourceClaimTemplate, podP, "spec.resourceClaims[0].resourceClaimTemplateName"}},
		},
		{
			name: "container claims name pod claims, once",
			yaml: docs(cluster, gpuTemplate, podYAML(`  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
  initContainers:
  - {name: init, image: i, resources: {claims: [{name: nic}]}}
  containers:
  - name: c
    image: i
    resources:
      claims: [{name: gpu}, {name: gpu}, {name: gpu, request: gpu}, {name: ""}]
`)),
			want: []triple{
				{CodeDuplicate, podP, "spec.containers[0].resources.claims[1]"},
				{CodeDuplicate, podP, "spec.containers[0].resources.claims[2]"},
				{CodeRequired, podP, "spec.containers[0].resources.claims[3].name"},
				{CodeUnknownPodClaim, podP, "spec.initContainers[0].resources.claims[0].name"},
			},
		},
		{
			name: "missing priority class: an error without spec.priority",
			yaml: docs(cluster, podYAML(container+"  priorityClassName: high\n")),
			want: []triple{{CodeMissingPriorityClass, podP, "spec.priorityClassName"}},
		},
		{
			name: "missing priority class: a warning with spec.priority",
			yaml: docs(cluster, podYAML(container+"  priorityClassName: high\n  priority: 1000\n")),
			want: []triple{{CodeMissingPriorityClass, podP, "spec.priorityClassName"}},
		},
		{
			name: "built-in and present priority classes",
			yaml: docs(cluster, `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000`, podYAML(container+"  priorityClassName: high\n"),
				"apiVersion: v1\nkind: Pod\nmetadata: {name: q}\nspec:\n"+container+"  priorityClassName: system-node-critical\n"),
		},
		{
			name: "bound to a node the snapshot does not hold",
			yaml: docs(cluster, podYAML(container+"  nodeName: node-z\n")),
			want: []triple{{CodeUnknownNode, podP, "spec.nodeName"}},
		},
		{
			name: "generated claim named in the pod status is missing",
			yaml: docs(cluster, gpuTemplate, podYAML(container+`  nodeName: node-a
  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
status:
  resourceClaimStatuses: [{name: gpu, resourceClaimName: p-gpu-x7k2q}]
`)),
			want: []triple{{CodeMissingResourceClaim, podP, "status.resourceClaimStatuses[0].resourceClaimName"}},
		},
	})
}

// tpuTemplate asks for a device of a class that matches nothing in cluster.
const tpuClassAndTemplate = `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: tpu}
spec:
  selectors: [{cel: {expression: 'device.driver == "tpu.example.com"'}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-tpu}
spec:
  spec:
    devices:
      requests: [{name: tpu, exactly: {deviceClassName: tpu}}]`

func TestNeverSchedulable(t *testing.T) {
	runCases(t, []validateCase{
		{
			name: "pending pod needs a class without devices",
			yaml: docs(cluster, tpuClassAndTemplate, podYAML(container+"  resourceClaims: [{name: t, resourceClaimTemplateName: one-tpu}]\n")),
			want: []triple{{CodePodNeverSchedulable, podP, "spec.resourceClaims[0]"}},
		},
		{
			name: "bound pods are not pending",
			yaml: docs(cluster, tpuClassAndTemplate, podYAML(container+"  nodeName: node-a\n  resourceClaims: [{name: t, resourceClaimTemplateName: one-tpu}]\n")),
		},
		{
			name: "a firstAvailable alternative with devices is enough",
			yaml: docs(cluster, tpuClassAndTemplate, `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: tpu-or-gpu}
spec:
  devices:
    requests:
    - name: acc
      firstAvailable: [{name: tpu, deviceClassName: tpu}, {name: gpu, deviceClassName: gpu}]`,
				podYAML(container+"  resourceClaims: [{name: a, resourceClaimName: tpu-or-gpu}]\n")),
		},
		{
			name: "an allocated claim needs nothing more",
			yaml: docs(cluster, tpuClassAndTemplate, `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: tpu}
spec:
  devices:
    requests: [{name: tpu, exactly: {deviceClassName: tpu}}]
status:
  allocation:
    devices:
      results: [{request: tpu, driver: gpu.example.com, pool: node-a, device: gpu-0}]`,
				podYAML(container+"  resourceClaims: [{name: a, resourceClaimName: tpu}]\n")),
		},
		{
			name: "pods of a controller are reported once, on the controller",
			yaml: docs(cluster, tpuClassAndTemplate, `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: i, resources: {claims: [{name: nic}]}}]
      resourceClaims: [{name: t, resourceClaimTemplateName: one-tpu}]`),
			want: []triple{
				{CodeUnknownPodClaim, `Deployment "default/web"`, "spec.template.spec.containers[0].resources.claims[0].name"},
				{CodePodNeverSchedulable, `Deployment "default/web"`, "spec.template.spec.resourceClaims[0]"},
			},
		},
	})
}

func TestContainerClaimThroughARequestFirst(t *testing.T) {
	s := loadSnapshot(t, docs(cluster, gpuTemplate, podYAML(`  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
  containers:
  - name: c
    image: i
    resources:
      claims: [{name: gpu, request: b}, {name: gpu, request: a}, {name: gpu}]
`)))
	var got []string
	for _, d := range Validate(s, Options{}) {
		if d.Code == CodeDuplicate {
			got = append(got, d.Field+": "+d.Message)
		}
	}
	want := []string{`spec.containers[0].resources.claims[2]: claim "gpu" is already referenced by this container through request "gpu/a"`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("duplicates (-want +got):\n%s", diff)
	}
}
