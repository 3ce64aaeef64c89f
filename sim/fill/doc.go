// Package fill runs the inflation experiment of Weng et al., "Beware of
// Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation
// Gradient Descent" (USENIX ATC'23): the pods of a workload are submitted
// one at a time, in a seeded order, to an empty (or partly used) cluster;
// nothing ever departs; the workload is inflated by seeded sampling of its
// own pods until the devices it requests reach a share of the cluster's
// device capacity (130% by default). After every pod the device
// allocation ratio and the fragmentation (the paper's measure) are taken,
// and the curve is binned at every 1% of arrived capacity as the paper's
// scripts bin it.
//
// Each pod goes through one scheduling cycle of the same scheduler as
// drasim simulate (a pod that does not fit is dropped: the paper's
// simulator never retries nor preempts). A policy is a name that selects
// the scheduler profile the cycles run with. docs/policies.md has the
// protocol and what was matched against the paper's published numbers.
package fill
