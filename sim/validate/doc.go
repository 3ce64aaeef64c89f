// Package validate checks a loaded snapshot the way the API server, the
// admission plugins and the DRA allocator would look at it, before any
// simulation runs: object shape and limits (what kube-apiserver v1.37 rejects),
// references between objects (classes, claims, templates, priority classes,
// nodes, allocated devices), the consistency of resource pools across their
// slices, and that every CEL selector compiles in the DRA CEL environment.
//
// Validate never fails and never panics: it returns Diagnostics, each with a
// severity, a stable Code and the place (file, document, object, field) to fix.
// "error" means the input is broken: the API server would reject it or the
// allocator would refuse the pool. "warning" means the input is legal but the
// simulation will probably not do what its author expects (a class that
// matches no device, an incomplete pool, a reference to an object the
// snapshot does not hold). docs/validation.md lists every code.
package validate
