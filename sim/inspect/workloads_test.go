package inspect_test

import (
	"testing"

	"github.com/drasim/drasim/sim/inspect"
	"github.com/drasim/drasim/sim/load"
	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"
)

// workloadsYAML has one controller of every kind, pods from the dump owned
// through a ReplicaSet, a pod whose controller is missing, a mirror pod and
// bare pods in two namespaces.
const workloadsYAML = `
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
spec:
  taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: x}]
      resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop}
spec:
  replicas: 1
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: c, image: x}]}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: api-5f6d
  namespace: shop
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: api, uid: "1", controller: true}]
spec:
  replicas: 1
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: c, image: x}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: api-5f6d-abcde
  namespace: shop
  labels: {app: api, pod-template-hash: 5f6d}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: api-5f6d, uid: "2", controller: true}]
spec:
  nodeName: n1
  containers: [{name: c, image: x}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, image: x}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: c, image: x}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: ml}
spec:
  parallelism: 4
  completions: 6
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x}]
      resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
status: {succeeded: 3}
---
apiVersion: v1
kind: Pod
metadata:
  name: orphan-xyz
  namespace: shop
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: gone, uid: "3", controller: true}]
spec: {containers: [{name: c, image: x}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: etcd-n1
  namespace: kube-system
  ownerReferences: [{apiVersion: v1, kind: Node, name: n1, uid: "4", controller: true}]
spec: {nodeName: n1, containers: [{name: c, image: x}]}
---
apiVersion: v1
kind: Pod
metadata: {name: debug, namespace: shop}
spec:
  containers: [{name: c, image: x}]
  resourceClaims: [{name: gpu, resourceClaimName: shared}]
---
apiVersion: v1
kind: Pod
metadata: {name: scratch}
spec: {containers: [{name: c, image: x}]}
`

func TestSummarizeWorkloads(t *testing.T) {
	tests := []struct {
		name      string
		load      load.Options
		workloads []inspect.Workload
		pods      inspect.PodSummary
	}{{
		name: "controllers expanded by the loader",
		workloads: []inspect.Workload{
			{Kind: "Pod", Namespace: "default", Pods: 1},
			{Kind: "DaemonSet", Namespace: "kube-system", Name: "agent", Desired: ptr.To(1), Pods: 1},
			{Kind: "Node", Namespace: "kube-system", Name: "n1", Pods: 1},
			{Kind: "Job", Namespace: "ml", Name: "train", Desired: ptr.To(3), Pods: 3, WithClaims: 3},
			{Kind: "Deployment", Namespace: "shop", Name: "api", Desired: ptr.To(1), Pods: 1},
			{Kind: "StatefulSet", Namespace: "shop", Name: "db", Desired: ptr.To(3), Pods: 3},
			{Kind: "ReplicaSet", Namespace: "shop", Name: "gone", Pods: 1, ControllerMissing: true},
			{Kind: "Deployment", Namespace: "shop", Name: "web", Desired: ptr.To(2), Pods: 2, WithClaims: 2},
			{Kind: "Pod", Namespace: "shop", Pods: 1, WithClaims: 1},
		},
		pods: inspect.PodSummary{Total: 14, Bound: 2, Pending: 12, FromDump: 5, Generated: 9},
	}, {
		name: "controllers kept as they are",
		load: load.Options{KeepControllers: true},
		workloads: []inspect.Workload{
			{Kind: "Pod", Namespace: "default", Pods: 1},
			{Kind: "DaemonSet", Namespace: "kube-system", Name: "agent", Desired: ptr.To(1), Pods: 0},
			{Kind: "Node", Namespace: "kube-system", Name: "n1", Pods: 1},
			{Kind: "Job", Namespace: "ml", Name: "train", Desired: ptr.To(3), Pods: 0},
			{Kind: "Deployment", Namespace: "shop", Name: "api", Desired: ptr.To(1), Pods: 1},
			{Kind: "StatefulSet", Namespace: "shop", Name: "db", Desired: ptr.To(3), Pods: 0},
			{Kind: "ReplicaSet", Namespace: "shop", Name: "gone", Pods: 1, ControllerMissing: true},
			{Kind: "Deployment", Namespace: "shop", Name: "web", Desired: ptr.To(2), Pods: 0},
			{Kind: "Pod", Namespace: "shop", Pods: 1, WithClaims: 1},
		},
		pods: inspect.PodSummary{Total: 5, Bound: 2, Pending: 3, FromDump: 5},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := summarize(t, workloadsYAML, tt.load, inspect.Options{})
			if diff := cmp.Diff(tt.workloads, got.Workloads); diff != "" {
				t.Errorf("Summarize().Workloads mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.pods, got.Pods); diff != "" {
				t.Errorf("Summarize().Pods mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// A Deployment's pods name their ReplicaSet <deployment>-<pod-template-hash>;
// when the dump leaves the ReplicaSet out they still belong to the Deployment.
func TestSummarizeWorkloadsReplicaSetNotInDump(t *testing.T) {
	const input = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  replicas: 1
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec: {containers: [{name: c, image: x}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: api-5f6d-abcde
  labels: {app: api, pod-template-hash: 5f6d}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: api-5f6d, uid: "2", controller: true}]
spec: {containers: [{name: c, image: x}]}
`
	got := summarize(t, input, load.Options{KeepControllers: true}, inspect.Options{})
	want := []inspect.Workload{{Kind: "Deployment", Namespace: "default", Name: "api", Desired: ptr.To(1), Pods: 1}}
	if diff := cmp.Diff(want, got.Workloads); diff != "" {
		t.Errorf("Summarize().Workloads mismatch (-want +got):\n%s", diff)
	}
}
