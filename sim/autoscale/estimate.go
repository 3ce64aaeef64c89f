package autoscale

import (
	"context"
	"fmt"
	"sort"

	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/nodegroup"
	v1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
)

// estimate is what the binpacking estimator found for one group: the new
// nodes that got pods and the pods it placed on them.
type estimate struct {
	// nodes are the new nodes with pods, in the order they were added.
	nodes []string
	// pods are the pods placed, in placement order.
	pods []*v1.Pod
	// limited is set when the estimate stopped at the node limit.
	limited bool
}

// binpack is cluster-autoscaler's BinpackingNodeEstimator on a cluster
// that already holds the group's first new node (empty; the fit check ran
// on it), every change recorded in its open fork: equivalence
// groups in decreasing order of their exemplar's demand; each group's pods
// go first-fit onto the new nodes so far until one does not fit; the rest
// try the last node added, else a new node. It stops adding nodes when an
// empty new node did not take a pod (another node would not either) or
// when limit nodes are in use. Only nodes that got a pod count.
func binpack(ctx context.Context, k *checker, g *nodegroup.Group, groups []*podGroup, limit int) (*estimate, error) {
	names := g.NextNames(limit)
	added := []string{names[0]}
	withPods := map[string]bool{}
	last := names[0]
	est := &estimate{}
	place := func(pod *v1.Pod, cy *cycle, node string) error {
		if err := k.c.Bind(pod, func() error { return k.bind(ctx, cy, pod, node) }); err != nil {
			return err
		}
		withPods[node] = true
		est.pods = append(est.pods, pod)
		return nil
	}
	fitsOn := func(pod *v1.Pod, nodes []string) (string, *cycle, error) {
		if err := ctx.Err(); err != nil {
			return "", nil, err
		}
		return k.firstFit(ctx, pod, nodes)
	}
	newNodesAvailable := true
	for _, pg := range orderForBinpacking(g, groups) {
		remaining := pg.pods
		for i, pod := range pg.pods {
			node, cy, err := fitsOn(pod, added)
			if err != nil {
				return nil, err
			}
			if node == "" {
				remaining = pg.pods[i:]
				break
			}
			if err := place(pod, cy, node); err != nil {
				return nil, err
			}
			remaining = pg.pods[i+1:]
		}
		if !newNodesAvailable {
			continue
		}
		for _, pod := range remaining {
			node, cy, err := fitsOn(pod, []string{last})
			if err != nil {
				return nil, err
			}
			if node != "" {
				if err := place(pod, cy, node); err != nil {
					return nil, err
				}
				continue
			}
			if !withPods[last] {
				break // an empty new node did not take it: no new node will
			}
			if len(added) >= limit {
				newNodesAvailable = false
				est.limited = true
				break
			}
			last = names[len(added)]
			k.addNode(g, last)
			added = append(added, last)
			node, cy, err = fitsOn(pod, []string{last})
			if err != nil {
				return nil, err
			}
			if node == "" {
				break // e.g. topology spread: a new node does not help this pod
			}
			if err := place(pod, cy, node); err != nil {
				return nil, err
			}
		}
	}
	for _, n := range added {
		if withPods[n] {
			est.nodes = append(est.nodes, n)
		}
	}
	for i, n := range est.nodes {
		if added[i] != n {
			return nil, fmt.Errorf("internal error: estimate for group %s left node %s empty before a used one", g.Name, added[i])
		}
	}
	return est, nil
}

// orderForBinpacking sorts the groups for first-fit decreasing, as
// cluster-autoscaler's DecreasingPodOrderer does: by the exemplar's CPU and
// memory requests as fractions of the template's allocatable, largest
// first. Devices do not count: a GPU pod with little CPU is packed after
// the CPU-heavy pods and fills their gaps (scenarios/autoscale
// binpack-order.yaml). Equal scores keep the groups' order.
func orderForBinpacking(g *nodegroup.Group, groups []*podGroup) []*podGroup {
	type scored struct {
		pg    *podGroup
		score float64
	}
	alloc := g.Template.Status.Allocatable
	list := make([]scored, len(groups))
	for i, pg := range groups {
		s := scored{pg: pg}
		cpu, mem := podRequests(pg.exemplar())
		if a := alloc.Cpu().MilliValue(); a > 0 {
			s.score += float64(cpu) / float64(a)
		}
		if a := alloc.Memory().Value(); a > 0 {
			s.score += float64(mem) / float64(a)
		}
		list[i] = s
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].score > list[j].score })
	out := make([]*podGroup, len(list))
	for i, s := range list {
		out[i] = s.pg
	}
	return out
}

// podRequests is a pod's CPU (millicores) and memory request as
// cluster-autoscaler counts it in its binpacking order, least-waste and
// price (utils/pod.PodRequests): the resource helpers' PodRequests, as
// kube-scheduler counts a pod on a node, so the larger of the largest init
// container and the app containers (sidecars included), plus the pod's
// overhead, or the pod-level resources where the pod sets them.
func podRequests(pod *v1.Pod) (cpu, mem int64) {
	reqs := framework.PodRequests(pod, resourcehelper.PodResourcesOptions{UseStatusResources: true})
	return reqs.Cpu().MilliValue(), reqs.Memory().Value()
}
