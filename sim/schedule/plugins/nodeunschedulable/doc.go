// Package nodeunschedulable filters out cordoned nodes (spec.unschedulable)
// unless the pod tolerates the node.kubernetes.io/unschedulable:NoSchedule
// taint, as kube-scheduler's NodeUnschedulable plugin.
package nodeunschedulable
