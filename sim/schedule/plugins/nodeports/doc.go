// Package nodeports filters out nodes where a host port the pod asks for is
// already taken, as kube-scheduler's NodePorts plugin.
package nodeports
