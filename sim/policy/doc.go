// Package policy holds the scoring policies that GPU-cluster research
// compares (Weng et al., "Beware of Fragmentation", USENIX ATC'23, and the
// simulator published with it): random, dot-product, gpu-clustering,
// gpu-packing, best-fit and fgd, defined over DRA devices.
//
// They come as one score plugin, DrasimPolicy, whose args name the policy,
// so that a KubeSchedulerConfiguration can weigh it against kube's own
// plugins; the --policy shortcut runs kube's filters with DrasimPolicy as
// the only score, as the paper's simulator does. The plugin also tells the
// DRA plugin which devices it prefers on the chosen node (the simulator's
// choice of GPUs inside a node): the allocator is asked again there with
// the node's devices in that order, so its first-fit search takes them.
//
// The API the inflation experiment (drasim fill) builds on, kept stable:
//
//	Args{Policy, Seed, Drivers, PopularityThreshold, Workload}
//	ParseName, Names, Args.Validate
//	NewShaper(snap).Shape(pod) -> Shape
//	NewWorkload(shapes, threshold) -> *Workload   (the paper's typical pods)
//	Workload.Shapes (read only)
//
// docs/policies.md has the formulas, the DRA mapping and every known
// difference from the simulator.
package policy
