// Package inspect summarizes what a snapshot holds, the way a platform
// engineer reads a cluster before simulating it: node groups and their
// capacity, devices by driver and by DeviceClass, resource pools and whether
// they are complete, claims, pods and the workloads behind them.
//
// A Summary is plain data with JSON tags, so the CLI can print it as a table
// (report.WriteInspectTable) or marshal it to JSON or YAML. Every list in it
// is sorted; nothing depends on map iteration order.
package inspect
