// Package sim is drasim's engine entry point. It draws the pipeline:
//
//	snapshot -> cluster state -> queue -> filter -> score -> reserve/bind -> result
//
// Simulate replays every pending pod of a loaded snapshot (sim/load) on a
// cluster state (sim/cluster) with kube-scheduler's plugins (sim/schedule,
// sim/dra) and returns a result (sim/result). It never imports the CLI.
//
// Engine is the one place a scheduler is wired: the DynamicResources
// plugin, the profile, schedulers and replayers, from Options. The entry
// points (Simulate, Explain, NewEngineFor) first refuse input the API server
// would reject (Admit) unless Options.Admitted says the caller did.
package sim
