package autoscale

import (
	"context"
	"errors"
	"fmt"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/nodegroup"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
)

// checker answers cluster-autoscaler's predicate questions on one fork of
// the cluster: does the pod pass PreFilter and Filter on this node (CA's
// CheckPredicates), on the first of these nodes (SchedulePodOnAnyNodeMatching),
// and then binds it there (SchedulePod). It never scores: the estimator
// packs, the scheduler places.
type checker struct {
	c       *cluster.Cluster
	profile *framework.Profile
	dra     *dra.Plugin
	// infos keeps the pods' parsed PodInfos between binds: a drain
	// simulation binds the same pods loop after loop, and a PodInfo
	// depends only on the pod (the cluster's Revert shares them the
	// same way when it takes a removal back).
	infos map[*v1.Pod]*framework.PodInfo
}

// newChecker returns a checker with the engine's profile on its cluster.
func newChecker(e *sim.Engine) *checker {
	return &checker{c: e.Cluster(), profile: e.Profile(), dra: e.DRA()}
}

// cycle is a pod's PreFilter outcome, shared by the Filter calls on every
// node it is tried on.
type cycle struct {
	state *framework.CycleState
	// rejected is set when PreFilter rejected the pod on every node.
	rejected *framework.Status
	// allowed narrows the nodes (nil: every node).
	allowed   map[string]bool
	narrowing []string
}

// preFilter runs the PreFilter plugins (framework.RunPreFilter, as CA's
// CheckPredicates runs kube's RunPreFilterPlugins). Any verdict, an Error
// (a broken selector, say) included, is CA's predicate error: the pod does
// not fit there, and the loop goes on.
func (k *checker) preFilter(ctx context.Context, pod *v1.Pod) (*cycle, error) {
	cy := &cycle{state: framework.NewCycleState()}
	res, st, narrowing := k.profile.RunPreFilter(ctx, cy.state, pod, k.c.Nodes())
	if !st.IsSuccess() {
		cy.rejected = st
		return cy, nil
	}
	if !res.AllNodes() {
		cy.allowed, cy.narrowing = res.NodeNames, narrowing
	}
	return cy, nil
}

// filter runs the Filter plugins on one node (framework.RunFilter): nil
// when the pod fits. An Error status counts as not fitting, as CA's
// CheckPredicates turns it into an internal predicate error for this
// node.
func (k *checker) filter(ctx context.Context, cy *cycle, pod *v1.Pod, node string) (*framework.Status, error) {
	if cy.rejected != nil {
		return cy.rejected, nil
	}
	ni := k.c.Node(node)
	if ni == nil {
		return nil, fmt.Errorf("internal error: node %s is not in the fork", node)
	}
	if cy.allowed != nil && !cy.allowed[node] {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, framework.UnsatisfiedPluginsMessage(cy.narrowing)), nil
	}
	return k.profile.RunFilter(ctx, cy.state, pod, ni), nil
}

// firstFit returns the first of nodes the pod fits on ("" when none), with
// the cycle to bind it.
func (k *checker) firstFit(ctx context.Context, pod *v1.Pod, nodes []string) (string, *cycle, error) {
	cy, err := k.preFilter(ctx, pod)
	if err != nil || cy.rejected != nil {
		return "", cy, err
	}
	for _, n := range nodes {
		st, err := k.filter(ctx, cy, pod, n)
		if err != nil {
			return "", nil, err
		}
		if st == nil {
			return n, cy, nil
		}
	}
	return "", cy, nil
}

// bind reserves the pod's claims on the node and puts the pod there, as
// SchedulePod does after a successful cycle.
func (k *checker) bind(ctx context.Context, cy *cycle, pod *v1.Pod, node string) error {
	if err := k.profile.RunReserve(ctx, cy.state, pod, node); err != nil {
		var pe *framework.PluginError
		if errors.As(err, &pe) {
			return fmt.Errorf("reserve %s for pod %s/%s on node %s: %v", pe.Plugin, pod.Namespace, pod.Name, node, errors.Unwrap(pe.Err))
		}
		return err
	}
	pod.Spec.NodeName = node
	k.c.Node(node).AddPodInfo(k.podInfo(pod))
	return nil
}

func (k *checker) podInfo(pod *v1.Pod) *framework.PodInfo {
	pi, ok := k.infos[pod]
	if !ok {
		if k.infos == nil || len(k.infos) > 1<<16 {
			k.infos = map[*v1.Pod]*framework.PodInfo{}
		}
		pi = framework.NewPodInfo(pod)
		k.infos[pod] = pi
	}
	return pi
}

// addNode adds a new node of the group to the cluster (on its open fork),
// with its slices, and binds its daemon pods to it without a cycle:
// cluster-autoscaler's template node info holds them already (they go
// with the node when the fork is reverted).
func (k *checker) addNode(g *nodegroup.Group, name string) {
	addTemplateNode(k.c, name, g.EstimateNode)
}

// addTemplateNode adds the node build makes from a group's template (the
// group's NewNode or EstimateNode), with its slices, and
// puts its daemon pods on it directly, as cluster-autoscaler's template
// node info holds them: no scheduling cycle places them.
func addTemplateNode(c *cluster.Cluster, name string, build func(string) (*v1.Node, []*resourceapi.ResourceSlice, []*v1.Pod)) {
	node, slices, daemons := build(name)
	c.AddNode(node, slices)
	ni := c.Node(name)
	for _, p := range daemons {
		p.Spec.NodeName = name
		ni.AddPod(p)
	}
}
