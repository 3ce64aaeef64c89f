// Package whatif applies what-if edits to a snapshot before a replay: drain,
// cordon or remove nodes, add nodes from a NodeGroup or a copy of a node,
// taint devices with a DeviceTaintRule, remove a driver's pools, scale a
// workload, change a pod template's requests or its priority.
//
// Edits are applied in order to a copy of the snapshot (the input is never
// changed), each doing what the Kubernetes controllers would do in
// response: evicted pods become pending replacements that the replay
// places with the other pending pods, their generated ResourceClaims are
// deleted and shared claims released (the resource-claim controller),
// PodDisruptionBudgets refuse evictions as the eviction API would, NoExecute
// device taints evict the pods using the devices (the device-taint
// eviction controller). Every edit is echoed in the result (result.Edit)
// with what it changed; Resolve adds where the moved pods went.
//
// The same edits answer the failure-domain questions (domains.go): each
// node, or each value of a label, is removed on its own copy of the
// replayed cluster, in parallel, and the pods its loss strands are
// reported.
//
// docs/whatif.md describes every edit and where drasim's model differs
// from kube.
package whatif
