// Package imagelocality prefers nodes that already hold the pod's images,
// weighting each image by its size and by how widely it is spread over the
// cluster, as kube-scheduler's ImageLocality plugin. It reads
// NodeInfo.ImageStates, which framework.SetImageStates fills.
package imagelocality
