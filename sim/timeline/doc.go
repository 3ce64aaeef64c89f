// Package timeline simulates a cluster over simulated time: pods arrive
// (annotated YAML, a CSV trace, or the Alibaba openb GPU trace), wait in
// kube-scheduler's scheduling queue, are scheduled one cycle at a time by
// the same scheduler as drasim simulate, run for their duration and
// finish, giving their devices back; cluster-autoscaler's loop runs every
// scan interval, adding nodes that become Ready after their group's
// provisioning delay and deleting nodes that stayed unneeded.
//
// It is a discrete-event simulation: nothing sleeps, and the cost follows
// the number of events (arrivals, completions, scheduling attempts,
// autoscaler loops, nodes), not the simulated time. The same input and
// seed give the same result, byte for byte. At any moment the scheduler
// decides as drasim simulate would on a snapshot of that moment (the
// exactness test replays exported moments).
//
// The result is a Timeline (drasim.io/v1alpha1): a record per pod, a time
// series at a chosen resolution and a summary; report/ renders it.
// docs/timeline.md explains the model and its limits.
package timeline
