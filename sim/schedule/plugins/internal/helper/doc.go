// Package helper holds what several plugins share: kube's default score
// normalization, the taint filters and a deterministic parallel loop for the
// per-node work done in PreFilter and PreScore.
package helper
