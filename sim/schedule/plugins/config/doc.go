// Package config holds the typed arguments of the scheduling plugins, named
// and defaulted as kube-scheduler's KubeSchedulerConfiguration plugin args
// (k8s.io/kubernetes/pkg/scheduler/apis/config), with the same validation.
// Each plugin constructor applies Default* to the args it is given, so zero
// values mean "kube's default".
package config
