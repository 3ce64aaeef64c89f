// Package nodename keeps a pod that names its node (spec.nodeName) on that
// node, as kube-scheduler's NodeName plugin.
package nodename
