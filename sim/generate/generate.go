package generate

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Zones the nodes are spread over, round-robin within each profile.
var zones = [...]string{"zone-a", "zone-b", "zone-c"}

// Generate builds the snapshot the options describe. Objects come in the
// order WriteYAML writes them: namespaces, device classes, nodes (by
// profile, then index), their slices, claim templates, then pods in arrival
// order. Objects alike share their parts (device lists, resource lists,
// containers; see shared): like every snapshot object, they are read-only.
func Generate(opts Options) (*snapshot.Snapshot, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	// Two independent streams, so that changing the number of nodes does not
	// reshuffle the pods and vice versa.
	podRNG := rand.New(rand.NewPCG(uint64(opts.Seed), 0x706f6473)) // "pods"

	s := snapshot.New()
	s.DeviceClasses = deviceClasses()

	sh := newShared()
	nodeCounts := apportion(opts.Nodes, opts.Profiles)
	width := digits(opts.Nodes)
	for _, profile := range sortedKeys(nodeCounts) {
		for i := range nodeCounts[profile] {
			name := fmt.Sprintf("%s-%0*d", profile, width, i)
			zone := zones[i%len(zones)]
			s.Nodes = append(s.Nodes, sh.makeNode(name, profile, zone))
			s.ResourceSlices = append(s.ResourceSlices, sh.slicesFor(name, profile)...)
		}
	}

	podCounts := apportion(opts.Pods, opts.Workloads)
	arrivals := make([]string, 0, opts.Pods)
	for _, w := range sortedKeys(podCounts) {
		for range podCounts[w] {
			arrivals = append(arrivals, w)
		}
	}
	podRNG.Shuffle(len(arrivals), func(i, j int) { arrivals[i], arrivals[j] = arrivals[j], arrivals[i] })

	usedNS := map[string]bool{}
	next := map[string]int{}
	width = digits(opts.Pods)
	for _, w := range arrivals {
		name := fmt.Sprintf("%s-%0*d", w, width, next[w])
		next[w]++
		pod := sh.makePod(w, name, podRNG)
		usedNS[pod.Namespace] = true
		s.Pods = append(s.Pods, pod)
	}
	if opts.Timeline {
		for _, w := range Workloads() {
			usedNS[namespaceOf[w]] = true
		}
		s.NodeGroups = nodeGroups(s, nodeCounts, opts.MaxNodesPerGroup)
	}
	for _, w := range Workloads() {
		ns := namespaceOf[w]
		if !usedNS[ns] {
			continue
		}
		s.Namespaces = append(s.Namespaces, &v1.Namespace{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: metav1.ObjectMeta{Name: ns},
		})
		s.ResourceClaimTemplates = append(s.ResourceClaimTemplates, claimTemplates(w)...)
	}
	return s, nil
}

func digits(n int) int { return max(3, len(strconv.Itoa(max(n-1, 0)))) }
