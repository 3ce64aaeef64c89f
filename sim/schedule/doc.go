// Package schedule replays kube-scheduler v1.37's scheduling cycle, one pod
// at a time: PreFilter, Filter over the nodes (sampled as kube samples them),
// PreScore, Score with normalization and weights, host selection with a
// seeded tie-break, then Reserve and bind into the cluster state. Every
// rejection is kept with its plugin and reason, so a pending pod's message
// reads as kube's does.
package schedule
