// Package inventory owns the device inventory of a snapshot: which slices of
// a pool are current (the allocator reads only a pool's newest generation),
// which node a device is attached to, and which devices a DeviceClass or a
// request selects, decided with the allocator's CEL environment
// (k8s.io/dynamic-resource-allocation/cel) and one compilation cache.
//
// Every package that looks at devices outside the allocator (validate,
// inspect, analysis, autoscale) asks this one, so that the rules cannot
// drift apart. A selector that does not compile or fails on a device is a
// *CELError naming the class (or request) and the selector; the Matcher
// records it instead of swallowing it, and the device counts as not
// selected, as the allocator would fail the claim.
package inventory
