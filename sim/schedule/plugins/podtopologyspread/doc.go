// Package podtopologyspread enforces (DoNotSchedule) and prefers
// (ScheduleAnyway) an even spread of matching pods across topology domains,
// as kube-scheduler's PodTopologySpread plugin with v1.37 defaults:
// nodeAffinityPolicy Honor, nodeTaintsPolicy Ignore, minDomains 1 and
// matchLabelKeys merged into the selector.
//
// Default constraints (args) apply only to pods without constraints of their
// own, and only with a selector derived from the pod's Services and its
// controlling ReplicationController, ReplicaSet or StatefulSet. drasim
// snapshots carry no Services and no ReplicationControllers, so with a nil
// WorkloadLister, or for pods without such an owner, no default constraint
// applies; pass a WorkloadLister (see NewWorkloads) to have the snapshot's
// ReplicaSets and StatefulSets count as they do in kube.
package podtopologyspread
