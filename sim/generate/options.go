package generate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Node profiles.
const (
	// ProfileDGXH100 is an 8-GPU H100 training node: four PCIe roots with two
	// GPUs each, two NUMA nodes with four GPUs each.
	ProfileDGXH100 = "dgx-h100"
	// ProfileA100MIG is an 8-GPU A100 node whose GPUs are partitionable
	// (MIG-style 1g.10gb, 2g.20gb and 3g.40gb devices on shared counters).
	ProfileA100MIG = "a100-mig"
	// ProfileL4 is an inference node with four L4 GPUs.
	ProfileL4 = "l4"
	// ProfileCPU is a node without devices.
	ProfileCPU = "cpu"
)

// Workloads.
const (
	// WorkloadInference asks for one GPU from a prioritized list: an H100,
	// then a full A100 or a 3g.40gb partition, then an L4.
	WorkloadInference = "inference"
	// WorkloadTraining asks for eight H100s, or four on one NUMA node.
	WorkloadTraining = "training"
	// WorkloadMIG asks for one 1g.10gb or 2g.20gb partition.
	WorkloadMIG = "mig"
	// WorkloadCPU asks for CPU and memory only.
	WorkloadCPU = "cpu"
)

// Limits keep a typo from asking for a snapshot that does not fit in memory.
const (
	MaxNodes = 100_000
	MaxPods  = 1_000_000
)

// Profiles returns the node profile names, sorted.
func Profiles() []string {
	return []string{ProfileA100MIG, ProfileCPU, ProfileDGXH100, ProfileL4}
}

// Workloads returns the workload names, sorted.
func Workloads() []string {
	return []string{WorkloadCPU, WorkloadInference, WorkloadMIG, WorkloadTraining}
}

// DefaultProfiles is a mixed fleet: a few training nodes, partitionable
// GPUs, inference nodes and plain CPU nodes.
func DefaultProfiles() map[string]int {
	return map[string]int{ProfileDGXH100: 2, ProfileA100MIG: 2, ProfileL4: 3, ProfileCPU: 3}
}

// DefaultWorkloads is mostly inference, some MIG and CPU pods, a few
// training jobs.
func DefaultWorkloads() map[string]int {
	return map[string]int{WorkloadInference: 5, WorkloadTraining: 1, WorkloadMIG: 2, WorkloadCPU: 2}
}

// Options describe the snapshot to generate.
type Options struct {
	// Seed drives every random choice; the same options give the same
	// snapshot.
	Seed int64
	// Nodes is the number of nodes (at least 1).
	Nodes int
	// Pods is the number of pending pods.
	Pods int
	// Profiles weighs the node profiles (DefaultProfiles when empty).
	// Weights are relative; zero leaves a profile out.
	Profiles map[string]int
	// Workloads weighs the workloads of the pods (DefaultWorkloads when
	// empty).
	Workloads map[string]int
	// Timeline makes the cluster ready for drasim timeline: a NodeGroup
	// per node profile (its nodes, templateFrom its first node, a price)
	// and the namespaces and claim templates of every workload, so that
	// traces from GenerateTrace fit it.
	Timeline bool
	// MaxNodesPerGroup is each NodeGroup's maxSize (default: four times
	// its nodes, at least 8).
	MaxNodesPerGroup int
}

// withDefaults fills empty weight maps.
func (o Options) withDefaults() Options {
	if len(o.Profiles) == 0 {
		o.Profiles = DefaultProfiles()
	}
	if len(o.Workloads) == 0 {
		o.Workloads = DefaultWorkloads()
	}
	return o
}

// Validate reports the first problem with the options, after defaults.
func (o Options) Validate() error {
	o = o.withDefaults()
	if o.Nodes < 1 || o.Nodes > MaxNodes {
		return fmt.Errorf("nodes: %d is out of range 1..%d", o.Nodes, MaxNodes)
	}
	if o.Pods < 0 || o.Pods > MaxPods {
		return fmt.Errorf("pods: %d is out of range 0..%d", o.Pods, MaxPods)
	}
	if o.MaxNodesPerGroup < 0 || o.MaxNodesPerGroup > MaxNodes {
		return fmt.Errorf("max-nodes-per-group: %d is out of range 0..%d", o.MaxNodesPerGroup, MaxNodes)
	}
	if err := checkWeights("profiles", o.Profiles, Profiles()); err != nil {
		return err
	}
	return checkWeights("workloads", o.Workloads, Workloads())
}

func checkWeights(what string, w map[string]int, known []string) error {
	total := 0
	for _, name := range sortedKeys(w) {
		if !slices.Contains(known, name) {
			return fmt.Errorf("%s: unknown name %q; known: %s", what, name, strings.Join(known, ", "))
		}
		if w[name] < 0 {
			return fmt.Errorf("%s: weight of %s is %d, must not be negative", what, name, w[name])
		}
		if w[name] > 1_000_000 {
			return fmt.Errorf("%s: weight of %s is %d, must be at most 1000000", what, name, w[name])
		}
		total += w[name]
	}
	if total == 0 {
		return fmt.Errorf("%s: all weights are zero", what)
	}
	return nil
}

// ParseWeights reads "name=weight,name=weight" (spaces allowed around
// names and values). Names are checked by Options.Validate, not here.
func ParseWeights(s string) (map[string]int, error) {
	out := map[string]int{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, val, ok := strings.Cut(part, "=")
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		if !ok || name == "" {
			return nil, fmt.Errorf("%q: want name=weight", part)
		}
		n, err := strconv.Atoi(val)
		if err != nil {
			return nil, fmt.Errorf("%s: weight %q is not an integer", name, val)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("%s: given twice", name)
		}
		out[name] = n
	}
	return out, nil
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// apportion splits total over the weights by the largest-remainder method:
// every name gets floor(total*w/sum), and the units left over go to the
// largest remainders, ties to the name that sorts first. The result is
// exact and does not depend on the seed.
func apportion(total int, weights map[string]int) map[string]int {
	names := sortedKeys(weights)
	sum := 0
	for _, n := range names {
		sum += weights[n]
	}
	out := make(map[string]int, len(names))
	type rem struct {
		name string
		r    int
	}
	var rems []rem
	given := 0
	for _, n := range names {
		share := total * weights[n]
		out[n] = share / sum
		given += out[n]
		rems = append(rems, rem{n, share % sum})
	}
	slices.SortStableFunc(rems, func(a, b rem) int { return b.r - a.r })
	for i := 0; given < total; i++ {
		out[rems[i].name]++
		given++
	}
	return out
}
