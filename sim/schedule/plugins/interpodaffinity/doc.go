// Package interpodaffinity enforces required pod affinity and anti-affinity
// (the incoming pod's, and the anti-affinity of pods already placed) and
// scores preferred (anti-)affinity, as kube-scheduler's InterPodAffinity
// plugin in v1.37 (InterPodAffinityHostnameFastPath, alpha, off).
// namespaceSelector terms need the cluster's namespaces: pass a
// NamespaceLister; without one, namespace selectors select nothing.
package interpodaffinity
