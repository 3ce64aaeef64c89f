// Package analysis reads a finished replay (*sim.Run) and says what fits,
// what is stranded and how much room is left: the CapacityReport.
//
// Everything it reports about "would this fit" is decided by the scheduler
// itself: probe pods go through PreFilter and Filter (DynamicResources and
// the real DRA allocator included) on a copy of the run's cluster, never on
// the run's cluster, which stays as the replay left it. The one count
// drasim makes itself, the largest request on partitionable devices
// (largest.go, packing.go), is confirmed by the allocator (dra.Among) and
// tested against its exhaustive answer. docs/metrics.md defines every
// number with its formula.
//
// A Report is plain data with JSON tags; every list in it is sorted, so two
// analyses of the same run marshal to the same bytes. Gates (gates.go) turn a
// Report into pass/fail verdicts for CI.
package analysis
