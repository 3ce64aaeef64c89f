// Package kube is what the API server and kube's controllers do to the
// objects of a snapshot before the scheduler sees them: the API server's
// defaults that change scheduling (DefaultPod, DefaultClaimSpec,
// DefaultResourceSlice), the Priority admission plugin (ResolvePriorities,
// PriorityAdmission), and the workload controllers (Deployment, ReplicaSet,
// StatefulSet, DaemonSet, Job) that create pods (ExpandWorkloads, Expand),
// with the helpers their users share (PinToNode, DaemonShouldRun,
// AddDaemonTolerations, JobActive). The loader applies them as it reads;
// what-if edits, NodeGroup templates, traces and captures apply them to
// the objects they make.
package kube
