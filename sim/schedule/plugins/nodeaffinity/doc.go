// Package nodeaffinity filters nodes by the pod's nodeSelector and required
// node affinity, and scores them by its preferred node affinity, as
// kube-scheduler's NodeAffinity plugin (including args.addedAffinity and
// the PreFilter narrowing to metadata.name matchFields).
package nodeaffinity
