// Package tainttoleration filters out nodes with NoSchedule/NoExecute taints
// the pod does not tolerate and prefers nodes with fewer untolerated
// PreferNoSchedule taints, as kube-scheduler's TaintToleration plugin.
package tainttoleration
