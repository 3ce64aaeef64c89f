// Package inventory owns the device inventory of a snapshot: which slices of
// a pool are current (the allocator reads only a pool's newest generation),
// which node a device is attached to, and which devices a DeviceClass or a
// request selects, decided with the allocator's CEL environment
// (k8s.io/dynamic-resource-allocation/cel) and one compilation cache.
//
// Every package that looks at devices outside the allocator asks this one
// (users: analysis, autoscale, fill, inspect, nodegroup, policy, schedule, sim, timeline, validate),
// so that the rules cannot drift apart; internal/archtest holds that list
// to the imports. One rule is still written twice: validate compiles and
// evaluates class and request selectors with its own CEL code, in the API
// server's environment for new objects and with its cost limits, to report
// what the API server would reject; it asks this package only for pools
// and devices.
//
// A selector that does not compile or fails on a device is a *CELError
// naming the class (or request) and the selector; the Matcher records it
// instead of swallowing it, and the device counts as not selected, as the
// allocator would fail the claim.
package inventory
