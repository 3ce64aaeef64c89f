package imagelocality

import (
	"context"
	"errors"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/drasim/drasim/sim/framework"
)

// Name is the plugin name in kube-scheduler profiles.
const Name = "ImageLocality"

// The score ramps from 0 at minThreshold bytes of (spread-scaled) image
// data on the node to 100 at maxContainerThreshold per image of the pod.
const (
	mb                    int64 = 1024 * 1024
	minThreshold          int64 = 23 * mb
	maxContainerThreshold int64 = 1000 * mb
)

// ImageLocality is the plugin.
type ImageLocality struct {
	nodes framework.NodeLister
}

var (
	_ framework.PreScorePlugin = (*ImageLocality)(nil)
	_ framework.ScorePlugin    = (*ImageLocality)(nil)
)

const preScoreStateKey = "PreScore" + Name

// preScoreState holds the pod's normalized image names and the cluster
// size, so that Score does not rebuild them for every node. (Upstream has no
// PreScore here; the result is the same.)
type preScoreState struct {
	images     []string
	imageCount int
	totalNodes int
}

// New returns the plugin; nodes gives the cluster size.
func New(nodes framework.NodeLister) (*ImageLocality, error) {
	if nodes == nil {
		return nil, errors.New("imagelocality: nil NodeLister")
	}
	return &ImageLocality{nodes: nodes}, nil
}

// Name returns Name.
func (*ImageLocality) Name() string { return Name }

// PreScore normalizes the pod's image names once.
func (pl *ImageLocality) PreScore(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) *framework.Status {
	state.Write(preScoreStateKey, pl.preScoreState(pod))
	return nil
}

func (pl *ImageLocality) preScoreState(pod *v1.Pod) *preScoreState {
	s := &preScoreState{totalNodes: len(pl.nodes.List())}
	for i := range pod.Spec.InitContainers {
		s.images = append(s.images, normalizedImageName(pod.Spec.InitContainers[i].Image))
	}
	for i := range pod.Spec.Containers {
		s.images = append(s.images, normalizedImageName(pod.Spec.Containers[i].Image))
	}
	for i := range pod.Spec.Volumes {
		if img := pod.Spec.Volumes[i].Image; img != nil {
			s.images = append(s.images, normalizedImageName(img.Reference))
		}
	}
	s.imageCount = len(s.images)
	return s
}

// Score sums, over the pod's init, regular and image-volume images present
// on the node, size * (nodes holding it / all nodes), and maps the sum onto
// [0, 100] between 23 MiB and 1000 MiB per image.
func (pl *ImageLocality) Score(_ context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	s, ok := state.Read(preScoreStateKey).(*preScoreState)
	if !ok {
		s = pl.preScoreState(pod)
	}
	var sum int64
	// A lookup hashes the name even in an empty map, and most nodes
	// report no images.
	if len(nodeInfo.ImageStates) > 0 {
		for _, name := range s.images {
			if st, ok := nodeInfo.ImageStates[name]; ok {
				sum += scaledImageScore(st, s.totalNodes)
			}
		}
	}
	return calculatePriority(sum, s.imageCount), nil
}

func calculatePriority(sumScores int64, imageCount int) int64 {
	maxThreshold := maxContainerThreshold * int64(imageCount)
	if sumScores < minThreshold {
		sumScores = minThreshold
	} else if sumScores > maxThreshold {
		sumScores = maxThreshold
	}
	return framework.MaxNodeScore * (sumScores - minThreshold) / (maxThreshold - minThreshold)
}

// scaledImageScore damps images present on few nodes, so that the score
// does not herd pods onto the one node that happens to have an image.
func scaledImageScore(st *framework.ImageStateSummary, totalNumNodes int) int64 {
	spread := float64(st.NumNodes) / float64(totalNumNodes)
	return int64(float64(st.Size) * spread)
}

// normalizedImageName adds ":latest" to a name without a tag, as the node
// status lists images. (Digests are left alone, like kube.)
func normalizedImageName(name string) string {
	if strings.LastIndex(name, ":") <= strings.LastIndex(name, "/") {
		name += ":latest"
	}
	return name
}

// NodeLabelKeys implements framework.LabelReader: the plugin reads only the
// node's images (ImageStates).
func (*ImageLocality) NodeLabelKeys(*framework.CycleState, *v1.Pod) ([]string, bool) {
	return nil, true
}
