// Package nodegroup resolves drasim's NodeGroups against a snapshot: the
// nodes each group has, the sanitized template node (with its
// ResourceSlices and the DaemonSet and static pods every new node starts
// with) that cluster-autoscaler's template node info would be, and new
// nodes made from it, named as a scale-up names them. The autoscaler plans
// and scales with it; what-if edits (add nodes) and sweeps (a group's size
// as an axis) add nodes with it, before any replay.
package nodegroup
