// Package autoscale replays cluster-autoscaler's scale-up on a snapshot:
// after kube-scheduler's replay, it groups the pods that stayed pending,
// asks each NodeGroup's template node whether it could ever run them, bin-
// packs them onto new template nodes, lets an expander chain pick one
// group, adds the nodes and replays the pending pods again, loop after
// loop, until nothing pending can be helped. The result is a ScaleUpPlan.
//
// Every "does it fit" question is answered by drasim's scheduler profile
// (DynamicResources and the real DRA allocator included), run on forks of
// the cluster in the way cluster-autoscaler forks its snapshot: try on the
// fork, keep what was applied, drop the rest. The caller's snapshot is
// never changed. docs/autoscaler.md says which parts follow
// cluster-autoscaler 1.36 and where drasim goes further.
package autoscale
