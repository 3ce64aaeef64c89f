package cluster

import (
	"encoding/json"
	"fmt"
	"io"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/drasim/drasim/sim/snapshot"
	"sigs.k8s.io/yaml"
)

// list is the shape of `kubectl get -o yaml` output for several kinds.
type list struct {
	APIVersion string         `json:"apiVersion"`
	Kind       string         `json:"kind"`
	Items      []any          `json:"items"`
	Metadata   map[string]any `json:"metadata"`
}

// WriteSnapshot writes the cluster as it stands (after a replay: pods with
// their nodes and conditions, claims with their allocations) as one List,
// in the shape `kubectl get -o yaml` writes, so that drasim can load it
// again and it can be compared with a real cluster's dump.
func (c *Cluster) WriteSnapshot(w io.Writer) error {
	return c.WriteSnapshotOf(w, nil)
}

// WriteSnapshotOf writes the cluster as WriteSnapshot does, with only the
// pods keep keeps (all when keep is nil).
func (c *Cluster) WriteSnapshotOf(w io.Writer, keep func(*v1.Pod) bool) error {
	return WriteList(w, c.snapshotOf(keep))
}

// WriteSnapshotJSON writes what WriteSnapshotOf writes as one JSON
// document, which is much faster to write and to load again for large
// clusters (tests export hundreds of moments of a timeline).
func (c *Cluster) WriteSnapshotJSON(w io.Writer, keep func(*v1.Pod) bool) error {
	data, err := json.Marshal(listOf(c.snapshotOf(keep)))
	if err != nil {
		return fmt.Errorf("encoding snapshot: %w", err)
	}
	_, err = w.Write(data)
	return err
}

// snapshotOf is the cluster as a snapshot, with only the pods keep keeps.
func (c *Cluster) snapshotOf(keep func(*v1.Pod) bool) *snapshot.Snapshot {
	c.compactPods()
	s := *c.snapshot
	s.ResourceClaims = c.dra.Claims()
	s.Pods = c.pods
	if keep != nil {
		s.Pods = nil
		for _, p := range c.pods {
			if keep(p) {
				s.Pods = append(s.Pods, p)
			}
		}
	}
	s.PodDisruptionBudgets = c.pdbs
	// The cluster's pod groups carry the scheduler's condition; with the
	// gate off they are the snapshot's, untouched.
	if c.gangs {
		s.PodGroups = c.podGroups
	}
	return &s
}

// WriteList writes a snapshot's objects as one List (kinds in a fixed
// order, objects in snapshot order), which drasim loads again.
func WriteList(w io.Writer, s *snapshot.Snapshot) error {
	data, err := yaml.Marshal(listOf(s))
	if err != nil {
		return fmt.Errorf("encoding snapshot: %w", err)
	}
	_, err = w.Write(data)
	return err
}

// listOf is a snapshot's objects as a List.
func listOf(s *snapshot.Snapshot) list {
	var items []any
	add := func(gv schema.GroupVersion, kind string, obj interface{ GetObjectKind() schema.ObjectKind }) {
		obj.GetObjectKind().SetGroupVersionKind(gv.WithKind(kind))
		items = append(items, obj)
	}
	core := v1.SchemeGroupVersion
	for _, o := range s.Namespaces {
		add(core, "Namespace", o.DeepCopy())
	}
	for _, o := range s.PriorityClasses {
		add(schedulingv1.SchemeGroupVersion, "PriorityClass", o.DeepCopy())
	}
	for _, o := range s.DeviceClasses {
		add(resourceapi.SchemeGroupVersion, "DeviceClass", o.DeepCopy())
	}
	for _, o := range s.Nodes {
		add(core, "Node", o.DeepCopy())
	}
	for _, o := range s.ResourceSlices {
		add(resourceapi.SchemeGroupVersion, "ResourceSlice", o.DeepCopy())
	}
	for _, o := range s.DeviceTaintRules {
		add(resourceapi.SchemeGroupVersion, "DeviceTaintRule", o.DeepCopy())
	}
	for _, o := range s.PodDisruptionBudgets {
		add(policyv1.SchemeGroupVersion, "PodDisruptionBudget", o.DeepCopy())
	}
	for _, o := range s.ResourceClaimTemplates {
		add(resourceapi.SchemeGroupVersion, "ResourceClaimTemplate", o.DeepCopy())
	}
	for _, o := range s.ResourceClaims {
		add(resourceapi.SchemeGroupVersion, "ResourceClaim", o.DeepCopy())
	}
	for _, o := range s.Workloads {
		add(schedulingv1beta1.SchemeGroupVersion, "Workload", o.DeepCopy())
	}
	for _, o := range s.PodGroups {
		add(schedulingv1beta1.SchemeGroupVersion, "PodGroup", o.DeepCopy())
	}
	for _, o := range s.Deployments {
		add(appsv1.SchemeGroupVersion, "Deployment", o.DeepCopy())
	}
	for _, o := range s.ReplicaSets {
		add(appsv1.SchemeGroupVersion, "ReplicaSet", o.DeepCopy())
	}
	for _, o := range s.StatefulSets {
		add(appsv1.SchemeGroupVersion, "StatefulSet", o.DeepCopy())
	}
	for _, o := range s.DaemonSets {
		add(appsv1.SchemeGroupVersion, "DaemonSet", o.DeepCopy())
	}
	for _, o := range s.Jobs {
		add(batchv1.SchemeGroupVersion, "Job", o.DeepCopy())
	}
	for _, o := range s.Pods {
		add(core, "Pod", o.DeepCopy())
	}
	for _, o := range s.NodeGroups {
		ng := o.DeepCopy()
		ng.APIVersion, ng.Kind = snapshot.NodeGroupAPIVersion, "NodeGroup"
		items = append(items, ng)
	}
	return list{APIVersion: "v1", Kind: "List", Items: items, Metadata: map[string]any{"resourceVersion": ""}}
}
