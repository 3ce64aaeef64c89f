// Package generate makes synthetic cluster snapshots for benchmarks, demos
// and load tests: GPU nodes of a few realistic shapes with their
// ResourceSlices, the DeviceClasses that select them, and pending pods that
// claim devices through ResourceClaimTemplates.
//
// The output is a function of Options alone: the same options (seed
// included) give the same snapshot, object for object, and WriteYAML gives
// the same bytes. Profile and workload weights are apportioned exactly
// (largest remainder), so a 10-node cluster with weights 2:2:3:3 really has
// 2, 2, 3 and 3 nodes; the seed decides the order in which pods arrive and
// the per-pod choices within a workload (4 or 8 GPUs, 1g or 2g partitions,
// CPU pod sizes).
package generate
