// Package sim is drasim's engine entry point. It draws the pipeline:
//
//	snapshot -> cluster state -> queue -> filter -> score -> reserve/bind -> result
//
// Simulate replays every pending pod of a loaded snapshot (sim/load) on a
// cluster state (sim/cluster) with kube-scheduler's plugins (sim/schedule,
// sim/dra) and returns a result (sim/result). It never imports the CLI.
package sim
