// Package profile wires kube-scheduler v1.37's default profile to a
// cluster, as kube's pkg/scheduler/profile builds a framework from a
// KubeSchedulerConfiguration profile and the in-tree registry: which
// plugins, in which order, with which args and score weights, the DRA
// plugin among them and the research policy (DrasimPolicy, sim/policy)
// appended when the configuration asks for it. It returns a
// framework.Profile; the scheduling cycle (sim/schedule) takes the built
// profile and names no plugin, and sim.NewEngine is the one caller that
// builds schedulers from it.
package profile
