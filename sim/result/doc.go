// Package result defines what a simulation produces, serialized as
// apiVersion drasim.io/v1alpha1, kind SimulationResult. The schema is
// documented in docs/result.md; reports are pure functions of it.
package result
