// Package kubeversion is what drasim knows about each Kubernetes release it
// can model (1.34 to 1.37): the defaults of the feature gates that change DRA
// and scheduling, the differences of the default scheduler profile, the API
// versions the release serves for the kinds whose versions changed, and the
// behaviour differences that code changes made. It is data: the packages that
// build gates, profiles and snapshots consult it, and it imports none of them
// but the snapshot.
//
// Every row was read from the release's own source, the newest patch the Go
// module proxy serves: pkg/features/kube_features.go (gates),
// pkg/scheduler/apis/config/v1/default_plugins.go (plugins and weights),
// staging/src/k8s.io/api/{resource,scheduling}/*/register.go (served
// versions) and the DynamicResources plugin and allocator (behaviour).
package kubeversion
