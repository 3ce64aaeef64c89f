// Package plugins lists kube-scheduler v1.37's default profile for the
// plugins drasim reimplements: their names in profile order and their score
// weights. Each plugin lives in its own subpackage with kube's semantics,
// reasons and score math; config holds their typed args.
package plugins
