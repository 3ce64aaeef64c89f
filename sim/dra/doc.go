// Package dra is drasim's DynamicResources scheduling plugin and the DRA
// state it works on: device classes, ResourceSlices with DeviceTaintRules
// applied, ResourceClaims (including those the resource-claim controller would
// create from templates) and the set of allocated devices. Allocation itself
// is done by k8s.io/dynamic-resource-allocation/structured, the allocator
// kube-scheduler runs; this package feeds it the same inputs kube-scheduler
// v1.37 does and records its results the way the scheduler's Reserve and
// PreBind would.
package dra
