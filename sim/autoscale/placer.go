package autoscale

import (
	"context"
	"fmt"

	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// placer is cluster-autoscaler's HintingSimulator on the live cluster:
// pods are put first-fit on the nodes, each PreFilter and Filter of the
// scheduler's profile, the DRA allocator included, as CA's
// SchedulePodOnAnyNodeMatching does; a node where the same pod went in the
// previous loop (its hint) is tried first; after a pod of a controller did
// not fit, the controller's equal pods are not tried again in the same
// call. Every placement is recorded in the cluster's open fork, so the
// loop takes it back (CA's snapshot Revert).
type placer struct {
	k *checker
	// eval answers "does the pod fit on any node?" with the scheduler's
	// node classes, so that a pod that fits nowhere costs one cycle, not
	// a filter run per node. Its answer is the same the node-by-node loop
	// gives (FuzzEnginesAgree); the placement itself is still first-fit.
	eval *schedule.Scheduler
	// order is where the next first-fit starts (shared by every placer on
	// the same cluster, as CA's plugin runner's last-index order is).
	order *lastIndex
	// hints maps a pod to the node it went to in this loop (current) or
	// the previous one (old), CA's scheduling.Hints.
	current, old map[types.UID]string
	// keys caches the pods' equivalence keys (similar pods).
	keys map[*v1.Pod]string
	// fitNowhere holds the keys whose last first-fit found no node, so
	// that firstFit asks Feasible before walking.
	fitNowhere map[string]bool
	// beforeBind and afterBind, when set, hear of every placement just
	// before and after it is made (the scale-down memo records the
	// node's state then).
	beforeBind, afterBind func(pod *v1.Pod, node string)
	// recall, when set, may know how a pod's placement on its hinted node
	// comes out without a scheduling cycle (the scale-down's placement
	// memo): the pod's PodInfo there and its claims' statuses.
	recall func(pod *v1.Pod, node string) (*framework.PodInfo, []cluster.PlacedClaim, bool)
}

// lastIndex is CA's lastIndexOrderMapping with offset 1: first-fit starts
// at the node after the last match.
type lastIndex struct{ last int }

func newPlacer(k *checker, eval *schedule.Scheduler, order *lastIndex) *placer {
	return &placer{k: k, eval: eval, order: order, current: map[types.UID]string{}, old: map[types.UID]string{}, keys: map[*v1.Pod]string{}, fitNowhere: map[string]bool{}}
}

// dropOldHints forgets the hints not used since the last call, as CA does
// at the end of each loop.
func (p *placer) dropOldHints() {
	p.old, p.current = p.current, make(map[types.UID]string, len(p.old))
	if len(p.keys) > 1<<16 {
		p.keys = map[*v1.Pod]string{}
	}
	if len(p.fitNowhere) > 1<<16 {
		p.fitNowhere = map[string]bool{}
	}
}

// placement is one pod put on a node; hinted when on its hinted node.
type placement struct {
	pod    *v1.Pod
	node   string
	hinted bool
}

// trySchedule places the pods one after another (CA's TrySchedulePods) on
// nodes that acceptable accepts (nil: every node), stopping at the first
// pod that fits nowhere when breakOnFailure. It returns the pods placed.
func (p *placer) trySchedule(ctx context.Context, pods []*v1.Pod, breakOnFailure bool, acceptable func(string) bool) ([]placement, error) {
	var out []placement
	unschedulable := map[string]bool{} // similar pods (CA's SimilarPodsScheduling)
	for _, pod := range pods {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		node, err := p.tryHint(ctx, pod, acceptable)
		if err != nil {
			return nil, err
		}
		hinted := node != ""
		if node == "" {
			similar := ""
			if controllerRef(pod) != nil {
				similar = p.key(pod)
			}
			if similar != "" && unschedulable[similar] {
				node = ""
			} else if node, err = p.firstFit(ctx, pod, acceptable); err != nil {
				return nil, err
			} else if node == "" && similar != "" {
				unschedulable[similar] = true
			}
		}
		if node == "" {
			if breakOnFailure {
				break
			}
			continue
		}
		p.current[pod.UID] = node
		out = append(out, placement{pod: pod, node: node, hinted: hinted})
	}
	return out, nil
}

func (p *placer) key(pod *v1.Pod) string {
	k, ok := p.keys[pod]
	if !ok {
		k = equivalenceKey(pod)
		p.keys[pod] = k
	}
	return k
}

// hint returns the node the pod went to in this loop or the previous one.
func (p *placer) hint(pod *v1.Pod) (string, bool) {
	node, ok := p.current[pod.UID]
	if !ok {
		node, ok = p.old[pod.UID]
	}
	return node, ok
}

// tryHint places the pod on its hinted node if it is still there,
// acceptable and fits.
func (p *placer) tryHint(ctx context.Context, pod *v1.Pod, acceptable func(string) bool) (string, error) {
	node, ok := p.hint(pod)
	if !ok || p.k.c.Node(node) == nil || (acceptable != nil && !acceptable(node)) {
		return "", nil
	}
	if p.recall != nil {
		if pi, claims, ok := p.recall(pod, node); ok {
			return node, p.placeAgain(pod, node, pi, claims)
		}
	}
	cy, err := p.k.preFilter(ctx, pod)
	if err != nil {
		return "", err
	}
	st, err := p.k.filter(ctx, cy, pod, node)
	if err != nil || st != nil {
		return "", err
	}
	return node, p.bind(ctx, cy, pod, node)
}

// firstFit places the pod on the first acceptable node that passes the
// filters, walking the node list from the node after the last match; a
// filter's Error status means the pod does not fit that node, as in CA's
// CheckPredicates.
//
// The answer is the walk's. The scheduler's Feasible (one filter pass over
// the node classes) only saves walking every node when the pod fits none:
// it reports no feasible node, and no Error status, only then. It costs
// about as much as filtering 80 nodes one by one, and most pods that fit
// are placed within a few dozen, so the walk goes first, up to
// walkBeforeFeasible nodes, and Feasible is asked only after that, or
// first when the last pod with the same key fitted nowhere.
func (p *placer) firstFit(ctx context.Context, pod *v1.Pod, acceptable func(string) bool) (string, error) {
	cy, err := p.k.preFilter(ctx, pod)
	if err != nil || cy.rejected != nil {
		return "", err
	}
	key := p.key(pod)
	asked := false
	// askFeasible asks the scheduler whether the pod fits no node.
	askFeasible := func() (bool, error) {
		asked = true
		a := p.eval.Feasible(ctx, pod)
		if a.Err != nil {
			return false, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, a.Err)
		}
		return a.Error == nil && a.FeasibleNodes == 0, nil
	}
	if p.fitNowhere[key] {
		if none, err := askFeasible(); err != nil || none {
			return "", err
		}
	}
	nodes := p.k.c.Nodes()
	for i := range nodes {
		if i == walkBeforeFeasible && !asked {
			if none, err := askFeasible(); err != nil {
				return "", err
			} else if none {
				p.fitNowhere[key] = true
				return "", nil
			}
		}
		idx := (i + 1 + p.order.last) % len(nodes)
		n := nodes[idx].Node()
		if n.Spec.Unschedulable || (cy.allowed != nil && !cy.allowed[n.Name]) || (acceptable != nil && !acceptable(n.Name)) {
			continue
		}
		st, err := p.k.filter(ctx, cy, pod, n.Name)
		if err != nil {
			return "", err
		}
		if st == nil {
			p.order.last = idx
			delete(p.fitNowhere, key)
			return n.Name, p.bind(ctx, cy, pod, n.Name)
		}
	}
	p.fitNowhere[key] = true
	return "", nil
}

// walkBeforeFeasible is how many nodes firstFit walks before it asks the
// scheduler whether the pod fits anywhere.
const walkBeforeFeasible = 64

func (p *placer) bind(ctx context.Context, cy *cycle, pod *v1.Pod, node string) error {
	if p.beforeBind != nil {
		p.beforeBind(pod, node)
	}
	if err := p.k.c.Bind(pod, func() error { return p.k.bind(ctx, cy, pod, node) }); err != nil {
		return err
	}
	if p.afterBind != nil {
		p.afterBind(pod, node)
	}
	return nil
}

// placeAgain makes a placement recall knew, as bind makes a new one.
func (p *placer) placeAgain(pod *v1.Pod, node string, pi *framework.PodInfo, claims []cluster.PlacedClaim) error {
	if p.beforeBind != nil {
		p.beforeBind(pod, node)
	}
	if err := p.k.c.Place(pod, node, pi, claims); err != nil {
		return err
	}
	if p.afterBind != nil {
		p.afterBind(pod, node)
	}
	return nil
}
