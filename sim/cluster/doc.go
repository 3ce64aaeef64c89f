// Package cluster turns a loaded snapshot into the state a scheduler works
// on: node views with the bound pods' usage, the DRA state, and the queue of
// pending pods in kube-scheduler's order. It also does what controllers would
// have done before the scheduler sees a pod: the resource-claim controller's
// claims from templates.
package cluster
