package validate

import "testing"

const podTemplateDoc = `apiVersion: v1
kind: PodTemplate
metadata: {name: gpu, namespace: ml}
template:
  spec:
    containers: [{name: c, image: x}]`

func provReqDoc(class, template, count string) string {
	return `apiVersion: autoscaling.x-k8s.io/v1
kind: ProvisioningRequest
metadata: {name: pr, namespace: ml}
spec:
  provisioningClassName: ` + class + `
  podSets:
  - podTemplateRef: {name: ` + template + `}
    count: ` + count
}

func TestAutoscalingRequests(t *testing.T) {
	const pr = `ProvisioningRequest "ml/pr"`
	const cb = `CapacityBuffer "ml/b"`
	runCases(t, []validateCase{
		{name: "valid request", yaml: docs(podTemplateDoc, provReqDoc("check-capacity.autoscaling.x-k8s.io", "gpu", "2"))},
		{
			name: "unknown class, missing template, count 0",
			yaml: docs(podTemplateDoc, provReqDoc("queued-provisioning.gke.io", "cpu", "0")),
			want: []triple{
				{CodeInvalidValue, pr, "spec.podSets[0].count"},
				{CodeMissingPodTemplate, pr, "spec.podSets[0].podTemplateRef.name"},
				{CodeUnknownProvisioningClass, pr, "spec.provisioningClassName"},
			},
		},
		{
			name: "buffer with both refs and negative replicas",
			yaml: docs(podTemplateDoc, `apiVersion: autoscaling.x-k8s.io/v1beta1
kind: CapacityBuffer
metadata: {name: b, namespace: ml}
spec:
  podTemplateRef: {name: gpu}
  scalableRef: {kind: Deployment, name: web}
  replicas: -1`),
			want: []triple{{CodeOneOf, cb, "spec"}, {CodeInvalidValue, cb, "spec.replicas"}},
		},
		{
			name: "buffer on a missing template",
			yaml: docs(podTemplateDoc, `apiVersion: autoscaling.x-k8s.io/v1beta1
kind: CapacityBuffer
metadata: {name: b, namespace: ml}
spec:
  podTemplateRef: {name: tpu}
  replicas: 3`),
			want: []triple{{CodeMissingPodTemplate, cb, "spec.podTemplateRef.name"}},
		},
	})
}
