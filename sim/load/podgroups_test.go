package load

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPodGroupsAndWorkloads(t *testing.T) {
	res := mustLoad(t, `
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: training}
value: 500
---
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: job}
spec:
  podGroupTemplates: [{name: workers, schedulingPolicy: {gang: {minCount: 4}}}]
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: job-workers}
spec:
  workloadRef: {workloadName: job, templateName: workers}
  schedulingPolicy: {gang: {minCount: 4}}
  priorityClassName: training
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: PodGroup
metadata: {name: web, namespace: team}
spec: {schedulingPolicy: {basic: {}}}
---
apiVersion: scheduling.k8s.io/v1alpha1
kind: PodGroup
metadata: {name: old}
spec: {}
`)
	s := res.Snapshot
	if len(s.Workloads) != 1 || len(s.PodGroups) != 2 {
		t.Fatalf("got %d Workloads and %d PodGroups, want 1 and 2", len(s.Workloads), len(s.PodGroups))
	}
	pg := s.PodGroups[0]
	if pg.Spec.Priority == nil || *pg.Spec.Priority != 500 {
		t.Errorf("job-workers priority = %v, want 500 from its class (as the Priority admission plugin sets it)", pg.Spec.Priority)
	}
	if g := pg.Spec.SchedulingPolicy.Gang; g == nil || g.MinCount != 4 {
		t.Errorf("job-workers policy = %+v, want gang minCount 4", pg.Spec.SchedulingPolicy)
	}
	if web := s.PodGroups[1]; web.Namespace != "team" || web.Spec.SchedulingPolicy.Basic == nil || web.Spec.Priority != nil && *web.Spec.Priority != 0 {
		t.Errorf("web (v1alpha3) = %s/%s %+v, want a basic group of priority 0 in team", web.Namespace, web.Name, web.Spec)
	}
	if diff := cmp.Diff(map[string]int{"scheduling.k8s.io/v1alpha1/PodGroup": 1}, s.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}
