package kube

import "github.com/drasim/drasim/sim/snapshot"

// Expand adds the pods that the snapshot's workload controllers would
// create and that it does not hold yet, and resolves pods' priorities, as
// Load does after reading. What-if edits call it after changing a
// workload's replicas. It changes s (its Pods, Sources and Generated).
func Expand(s *snapshot.Snapshot) ([]snapshot.Warning, error) {
	warnings, errs := ExpandWorkloads(s)
	if len(errs) > 0 {
		return warnings, errs
	}
	ResolvePriorities(s)
	return warnings, nil
}
