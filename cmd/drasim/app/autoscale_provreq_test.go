package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The new flags reach the engine: --provisioning-request-claims correct
// turns CA's CapacityIsNotFound into CapacityIsFound, a bad value is a
// usage error, and a timeline scales up for a buffer's chunks.
func TestAutoscaleProvisioningRequestFlags(t *testing.T) {
	dra := autoscaleScenarios + "provreq-check-dra.yaml"
	for _, tc := range []struct {
		args     []string
		code     int
		inStdout string
		inStderr string
	}{
		{args: []string{"-f", dra}, inStdout: "Provisioned=False (CapacityIsNotFound"},
		{args: []string{"-f", dra, "--provisioning-request-claims", "correct"}, inStdout: "Provisioned=True (CapacityIsFound"},
		{args: []string{"-f", dra, "--provisioning-request-claims", "maybe"}, code: 2, inStderr: "--provisioning-request-claims"},
	} {
		code, stdout, stderr := runAutoscaleCmd(t, "table", tc.args...)
		if code != tc.code || !strings.Contains(stdout, tc.inStdout) || !strings.Contains(stderr, tc.inStderr) {
			t.Errorf("autoscale %v: exit %d, want %d; want %q in stdout and %q in stderr:\n%s\n%s", tc.args, code, tc.code, tc.inStdout, tc.inStderr, stdout, stderr)
		}
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	r := drasim(t, "", "timeline", "-f", autoscaleScenarios+"buffer-cpu.yaml", "--expander", "least-waste")
	if r.code != 0 || !strings.Contains(r.stdout, "1 scale-up(s) adding 3 node(s)") {
		t.Errorf("timeline with a buffer of 3 chunks: exit %d, want 0 and one scale-up of 3 nodes:\n%s\n%s", r.code, r.stdout, r.stder)
	}
}

// Bad autoscaling objects stop every command that serves them, exit 1,
// with the file, the line, the object and the field: counts the API
// server refuses (admission), and what it accepts but cluster-autoscaler
// cannot serve (an unknown class, a missing PodTemplate).
func TestBadAutoscalingObjects(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	const group = `apiVersion: drasim.io/v1alpha1
kind: NodeGroup
metadata: {name: cpu}
spec:
  minSize: 0
  maxSize: 2
  template:
    node:
      metadata: {name: cpu-node, labels: {pool: cpu}}
      status:
        allocatable: {cpu: '4', memory: 16Gi, pods: '110'}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  allocatable: {cpu: '4', memory: 16Gi, pods: '110'}
---
apiVersion: v1
kind: PodTemplate
metadata: {name: worker, namespace: default}
template:
  spec:
    containers: [{name: c, image: x}]
---
`
	request := func(class, template, count string) string {
		return group + `apiVersion: autoscaling.x-k8s.io/v1
kind: ProvisioningRequest
metadata: {name: pr, namespace: default}
spec:
  provisioningClassName: ` + class + `
  podSets:
  - podTemplateRef: {name: ` + template + `}
    count: ` + count + "\n"
	}
	const check = "check-capacity.autoscaling.x-k8s.io"
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"unknown class", request("queued-provisioning.gke.io", "worker", "1"),
			`bad.yaml:26 (document 4): ProvisioningRequest "default/pr": spec.provisioningClassName: unknown class "queued-provisioning.gke.io"`},
		{"missing template", request(check, "missing", "1"),
			`bad.yaml:26 (document 4): ProvisioningRequest "default/pr": spec.podSets[0].podTemplateRef.name: PodTemplate "missing" is not in namespace default`},
		{"negative count", request(check, "worker", "-1"),
			`bad.yaml:26 (document 4): ProvisioningRequest "default/pr": spec.podSets[0].count: must be greater than or equal to 1, found -1`},
		{"negative buffer", group + `apiVersion: autoscaling.x-k8s.io/v1beta1
kind: CapacityBuffer
metadata: {name: b, namespace: default}
spec:
  podTemplateRef: {name: worker}
  replicas: -2
`, `bad.yaml:26 (document 4): CapacityBuffer "default/b": spec.replicas: must be greater than or equal to 0, found -2`},
		{"buffer on a missing template", group + `apiVersion: autoscaling.x-k8s.io/v1beta1
kind: CapacityBuffer
metadata: {name: b, namespace: default}
spec:
  podTemplateRef: {name: missing}
  replicas: 2
`, `bad.yaml:26 (document 4): CapacityBuffer "default/b": spec.podTemplateRef.name: PodTemplate "missing" is not in namespace default`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.yaml")
			if err := os.WriteFile(path, []byte(tc.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, cmd := range [][]string{{"timeline"}, {"autoscale"}, {"simulate", "--autoscale"}, {"report"}} {
				r := drasim(t, "", append(cmd, "-f", path)...)
				if r.code != ExitFailure || !strings.Contains(r.stder, tc.want) || strings.Contains(r.stder, "panic") {
					t.Errorf("%v: want exit %d and %q in stderr, got exit %d:\n%s", cmd, ExitFailure, tc.want, r.code, r.stder)
				}
			}
		})
	}
}
