// Package seams holds the engine's test-only seams: the places where
// drasim's own tests look into a run or start the engine somewhere a
// library caller never needs to. The exactness test of the timeline
// (sim/timeline) exports moments of a run (Moment, through TimelineHooks)
// and replays each with drasim simulate's engine resumed where the
// timeline's scheduler stood (Checkpoint).
//
// A library user cannot import an internal package, so it cannot make a
// value of these types: the public options (schedule.Options.Resume,
// sim.Options.Resume, timeline.Options.Hooks) carry one field each that
// only the module's tests can set. The step-wise driver, which stands
// above the engine, is internal/stepwise.
package seams
