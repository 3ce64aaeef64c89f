// Package schedule replays kube-scheduler v1.37's scheduling cycle, one pod
// at a time: PreFilter, Filter over the nodes (sampled as kube samples them),
// PreScore, Score with normalization and weights, host selection with a
// seeded tie-break, then Reserve and bind into the cluster state. Every
// rejection is kept with its plugin and reason, so a pending pod's message
// reads as kube's does.
//
// The scheduler takes its profile built (framework.Profile; the default
// one is wired by sim/schedule/profile) and reaches plugins only through
// the framework's runtime; the replay keeps the claims' books on the
// cluster's DRA state, and builds GangScheduling with the profile's
// factory on its own view of the pod groups. So this package names no
// plugin.
//
// A caller that retries pods for hours (sim/timeline) can have a failed
// cycle's answer given again, without running it, to the pods equivalent
// to the one that failed while nothing the cycle reads has changed
// (Replayer.MemoizeFailures, memo.go); the decisions are the same.
package schedule
