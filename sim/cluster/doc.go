// Package cluster turns a loaded snapshot into the state a scheduler works
// on: node views with the bound pods' usage, the DRA state, and the queue of
// pending pods in kube-scheduler's order. It also does what controllers would
// have done before the scheduler sees a pod: the resource-claim controller's
// claims from templates.
//
// The cluster is a closed type: read accessors, and methods for every
// change, which keep its Version right for the caches that rely on it.
// What-if questions run on the cluster itself in cluster-autoscaler's
// shape: Fork, then Revert or Commit (whatif.go; WithForkedCluster always
// closes the fork). Clone makes an independent copy, which is not a
// what-if: nothing flows back (clone.go).
package cluster
