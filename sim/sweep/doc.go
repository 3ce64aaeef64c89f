// Package sweep runs experiments: many runs of one drasim command over the
// cross product (or a listed set) of axes and seeds, with the numbers each
// run produced kept as one row. It reads the Sweep kind (drasim.io/v1alpha1),
// expands it into a plan, runs the plan's runs in parallel under a memory
// budget on a base snapshot loaded once, writes rows as they finish (JSON
// lines and CSV), resumes a stopped sweep, splits a plan into shards for
// Kubernetes Indexed Jobs and merges the shards' rows back, aggregates rows
// over seeds, and writes the Job that runs a sweep on a cluster.
//
// The package knows nothing of the command line: what a command's flags are
// (Commands) and how a run executes (Exec) come from the caller, so that
// every drasim command and flag can be an axis without a change here.
// docs/sweeps.md is the user's guide.
package sweep
