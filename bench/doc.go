// Package bench holds drasim's end-to-end benchmarks: replays of generated
// clusters swept over size (nodes, GPUs per node, pending pods) and
// settings (kube's node sampling or ScoreAllNodes), and the allocator alone
// for one pod on one node. Every benchmark first replays once and checks
// that the run placed what it should and that no device was given twice,
// so a change that makes the engine fast by making it wrong fails here.
//
// Run them with `make bench`; BENCHMARKS.md records the current numbers
// (docs/benchmarks-archive.md the earlier ones) and
// docs/performance.md where the time goes.
package bench
