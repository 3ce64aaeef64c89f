package load

import (
	"strings"
	"testing"
)

// ProvisioningRequests (v1), CapacityBuffers (v1beta1) and PodTemplates
// load; other versions of CA's kinds get an apiVersion error naming the
// object; a buffer gets the CRD's default strategy.
func TestLoadAutoscalingKinds(t *testing.T) {
	const objects = `apiVersion: v1
kind: PodTemplate
metadata: {name: worker, namespace: ml}
template:
  spec:
    containers: [{name: c, image: x}]
---
apiVersion: autoscaling.x-k8s.io/v1
kind: ProvisioningRequest
metadata: {name: train, namespace: ml}
spec:
  provisioningClassName: check-capacity.autoscaling.x-k8s.io
  parameters: {noRetry: "true"}
  podSets:
  - podTemplateRef: {name: worker}
    count: 4
---
apiVersion: autoscaling.x-k8s.io/v1beta1
kind: CapacityBuffer
metadata: {name: spare, namespace: ml}
spec:
  podTemplateRef: {name: worker}
  replicas: 2
  limits: {cpu: "8"}
`
	res, err := LoadBytes("a.yaml", []byte(objects), Options{Strict: true})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	s := res.Snapshot
	if len(s.PodTemplates) != 1 || len(s.ProvisioningRequests) != 1 || len(s.CapacityBuffers) != 1 {
		t.Fatalf("loaded %d PodTemplates, %d ProvisioningRequests, %d CapacityBuffers; want 1 of each", len(s.PodTemplates), len(s.ProvisioningRequests), len(s.CapacityBuffers))
	}
	pr := s.ProvisioningRequests[0]
	if pr.Spec.PodSets[0].Count != 4 || pr.Spec.Parameters["noRetry"] != "true" {
		t.Errorf("request spec %+v, want count 4 and noRetry", pr.Spec)
	}
	b := s.CapacityBuffers[0]
	cpu := b.Spec.Limits["cpu"]
	if b.Spec.ProvisioningStrategy == nil || *b.Spec.ProvisioningStrategy != "buffer.x-k8s.io/active-capacity" || cpu.Value() != 8 {
		t.Errorf("buffer spec %+v, want the active-capacity default and limits cpu 8", b.Spec)
	}

	_, err = LoadBytes("b.yaml", []byte(`apiVersion: autoscaling.x-k8s.io/v1alpha1
kind: CapacityBuffer
metadata: {name: old, namespace: ml}
spec: {replicas: 1}
`), Options{})
	if err == nil || !strings.Contains(err.Error(), `CapacityBuffer "ml/old"`) || !strings.Contains(err.Error(), "autoscaling.x-k8s.io/v1beta1") {
		t.Errorf("v1alpha1 buffer: got %v, want an apiVersion error naming the buffer and v1beta1", err)
	}
}
