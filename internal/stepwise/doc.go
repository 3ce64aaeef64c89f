// Package stepwise is the step-wise driver of drasim's engine: a Stepper
// runs scheduling cycles one at a time in the order a caller chooses,
// binds where the caller says, and changes the cluster as the caller
// reports other components did. It exists for one kind of test, which
// holds drasim to a recording of the real kube-scheduler cycle by cycle
// (scenarios' TestSteps); it is internal so that library users do not
// mistake it for a way to run the engine. It is built from the engine's
// public entry points (sim.NewEngineFor, Engine.Replayer,
// schedule.Replayer's stepping methods) and holds no decision of its own.
package stepwise
