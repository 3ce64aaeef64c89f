package validate

import "testing"

func TestPodGroups(t *testing.T) {
	const pg = `PodGroup "default/g"`
	const wl = `Workload "default/w"`
	runCases(t, []validateCase{
		{
			name: "a valid gang, in v1beta1 and v1alpha3",
			yaml: docs(cluster, `apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: g}
spec: {schedulingPolicy: {gang: {minCount: 2}}, priority: 0}`, `apiVersion: scheduling.k8s.io/v1alpha3
kind: PodGroup
metadata: {name: h}
spec: {schedulingPolicy: {basic: {}}}`),
		},
		{
			name: "policy: exactly one of basic and gang, minCount at least 1; gated fields",
			yaml: docs(cluster, `apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: g}
spec:
  schedulingPolicy: {basic: {}, gang: {minCount: 0}}
  parentCompositePodGroupName: parent
  schedulingConstraints: {topology: [{key: zone}]}
  preemptionPolicy: Never
  priority: 2000000000
  resourceClaims: [{name: a}]`),
			want: []triple{
				{CodeForbidden, pg, "spec.parentCompositePodGroupName"},
				{CodeForbidden, pg, "spec.preemptionPolicy"},
				{CodeInvalidValue, pg, "spec.priority"},
				{CodeOneOf, pg, "spec.resourceClaims[0]"},
				{CodeForbidden, pg, "spec.schedulingConstraints"},
				{CodeOneOf, pg, "spec.schedulingPolicy"},
				{CodeInvalidValue, pg, "spec.schedulingPolicy.gang.minCount"},
			},
		},
		{
			name: "workload templates: unique names, one priority configuration",
			yaml: docs(cluster, `apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: w}
spec:
  podGroupTemplates:
  - {name: a, schedulingPolicy: {gang: {minCount: 2}}, priority: 1}
  - {name: a, schedulingPolicy: {basic: {}}, priority: 2}`),
			want: []triple{
				{CodeInvalidValue, wl, "spec"},
				{CodeDuplicate, wl, "spec.podGroupTemplates[1].name"},
			},
		},
		{
			name: "pods name an existing pod group with its priority",
			yaml: docs(cluster, `apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: g}
spec: {schedulingPolicy: {gang: {minCount: 2}}, priority: 0}`,
				podYAML(container+"  priority: 5\n  schedulingGroup: {podGroupName: g}\n"),
				`apiVersion: v1
kind: Pod
metadata: {name: q}
spec:
  containers: [{name: c, image: i}]
  schedulingGroup: {podGroupName: nope}`),
			want: []triple{
				{CodePodGroupMismatch, podP, "spec.priority"},
				{CodeMissingPodGroup, `Pod "default/q"`, "spec.schedulingGroup.podGroupName"},
			},
		},
	})
}
