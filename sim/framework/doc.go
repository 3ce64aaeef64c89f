// Package framework defines the pieces every scheduling plugin shares: the
// status codes ("does not fit" is a status, not an error), the per-node view
// (NodeInfo) with its running totals, the per-pod cycle state, and the plugin
// interfaces for the extension points drasim runs. It mirrors the shape of
// kube-scheduler's framework so that plugins read like their upstream
// counterparts, without depending on k8s.io/kubernetes.
package framework
