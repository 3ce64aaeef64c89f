package profile

import (
	"fmt"

	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/policy"
	"github.com/drasim/drasim/sim/schedule/plugins"
	"github.com/drasim/drasim/sim/schedule/plugins/config"
	"github.com/drasim/drasim/sim/schedule/plugins/gangscheduling"
	"github.com/drasim/drasim/sim/schedule/plugins/imagelocality"
	"github.com/drasim/drasim/sim/schedule/plugins/interpodaffinity"
	"github.com/drasim/drasim/sim/schedule/plugins/nodeaffinity"
	"github.com/drasim/drasim/sim/schedule/plugins/nodename"
	"github.com/drasim/drasim/sim/schedule/plugins/nodeports"
	"github.com/drasim/drasim/sim/schedule/plugins/noderesources"
	"github.com/drasim/drasim/sim/schedule/plugins/nodeunschedulable"
	"github.com/drasim/drasim/sim/schedule/plugins/podtopologyspread"
	"github.com/drasim/drasim/sim/schedule/plugins/tainttoleration"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Config is the part of a KubeSchedulerConfiguration profile drasim
// honours: plugin args, score weights, disabled plugins and sampling.
type Config struct {
	NodeResourcesFit   config.NodeResourcesFitArgs
	BalancedAllocation config.NodeResourcesBalancedAllocationArgs
	PodTopologySpread  config.PodTopologySpreadArgs
	InterPodAffinity   config.InterPodAffinityArgs
	NodeAffinity       config.NodeAffinityArgs
	// Weights overrides score weights by plugin name; a weight of 0 keeps
	// the default.
	Weights map[string]int64
	// Disabled names plugins switched off (at every extension point).
	Disabled map[string]bool
	// PercentageOfNodesToScore: 0 means adaptive.
	PercentageOfNodesToScore int32
	// Policy, when set, adds DrasimPolicy (sim/policy, a research scoring
	// policy) to the score plugins, last, with weight
	// Weights[policy.PluginName] (1 when unset), and lets it choose the
	// devices of the chosen node. nil: kube's profile, untouched.
	Policy *policy.Args
	// DisableDefaultScores switches off the Score of every default plugin
	// (kube's plugins.score.disabled "*"); their filters and PreScore stay.
	DisableDefaultScores bool
	// Unscored names plugins whose Score the modelled Kubernetes release
	// does not have (DynamicResources before 1.35; sim/kubeversion).
	Unscored map[string]bool
}

// DefaultWeights are the score weights of kube-scheduler v1.37's default
// profile (pkg/scheduler/apis/config/v1/default_plugins.go), DynamicResources
// included.
func DefaultWeights() map[string]int64 {
	w := plugins.DefaultWeights()
	w[dra.Name] = 2
	return w
}

// New wires the default profile's plugins in kube's order, with the DRA
// plugin given (it works on c's DRA state) and DrasimPolicy when cfg asks
// for it. Each stage says why it stands where it does: cheap checks that
// reject whole nodes come first so the expensive ones (affinity across
// pods, device allocation) run on fewer nodes.
func New(c *cluster.Cluster, draPlugin *dra.Plugin, cfg Config) (*framework.Profile, error) {
	weights := DefaultWeights()
	for name, w := range cfg.Weights {
		if w != 0 {
			weights[name] = w
		}
	}
	var extended noderesources.DRAExtendedResources = c.DRA()
	// The resource plugins and the binding share each pod's requests.
	requests := &framework.PodRequestCache{}
	fit, err := noderesources.NewFit(cfg.NodeResourcesFit, extended, requests)
	if err != nil {
		return nil, err
	}
	balanced, err := noderesources.NewBalancedAllocation(cfg.BalancedAllocation, extended, requests)
	if err != nil {
		return nil, err
	}
	affinity, err := nodeaffinity.New(cfg.NodeAffinity)
	if err != nil {
		return nil, err
	}
	spread, err := podtopologyspread.New(cfg.PodTopologySpread, c, workloadsOf(c))
	if err != nil {
		return nil, err
	}
	interPod, err := interpodaffinity.New(cfg.InterPodAffinity, c, interpodaffinity.NewNamespaces(c.Snapshot().Namespaces))
	if err != nil {
		return nil, err
	}
	taints := tainttoleration.New()
	images, err := imagelocality.New(c)
	if err != nil {
		return nil, err
	}
	ports := nodeports.New()

	// The default profile's plugins in kube's multi-point order: node-level
	// switches and names first, then taints and affinity, ports and
	// resources, the cross-pod constraints, and device allocation, the
	// most expensive check, last among the filters (DynamicResources stands
	// before DefaultPreemption upstream so that freeing an idle claim is
	// tried before evicting a pod). Each plugin joins every extension point
	// it implements, in this order.
	chain := []framework.Plugin{
		nodename.New(), nodeunschedulable.New(), taints, affinity, ports, fit, spread, interPod, draPlugin, balanced, images,
	}
	// A research policy scores after kube's plugins (out-of-tree plugins
	// are appended to the multi-point list) and steers the allocator's
	// choice of devices on the chosen node.
	if cfg.Policy != nil {
		pol, err := policy.NewPlugin(*cfg.Policy, c)
		if err != nil {
			return nil, err
		}
		chain = append(chain, pol)
		if _, set := weights[policy.PluginName]; !set {
			weights[policy.PluginName] = 1
		}
		draPlugin.SetDeviceOrder(pol, c)
	}
	p := &framework.Profile{Requests: requests, PercentageOfNodesToScore: cfg.PercentageOfNodesToScore, Preemption: !cfg.Disabled[plugins.DefaultPreemption]}
	if c.GangsEnabled() && !cfg.Disabled[gangscheduling.Name] {
		p.Gang = gangscheduling.Factory
	}
	for _, pl := range chain {
		if cfg.Disabled[pl.Name()] {
			continue
		}
		scored := !(cfg.DisableDefaultScores && pl.Name() != policy.PluginName) && !cfg.Unscored[pl.Name()]
		p.Add(pl, weights[pl.Name()], scored)
	}
	for name := range cfg.Disabled {
		if _, known := weights[name]; !known && !isFilterOnly(name) {
			return nil, fmt.Errorf("unknown plugin %q in disabled plugins", name)
		}
	}
	return p, nil
}

func isFilterOnly(name string) bool {
	switch name {
	case "NodeUnschedulable", "NodeName", "NodePorts", plugins.DefaultPreemption, gangscheduling.Name:
		return true
	}
	return false
}

// workloadsOf gives PodTopologySpread's default constraints the selectors
// kube would find: the snapshot's ReplicaSets and StatefulSets, plus the
// ReplicaSet a Deployment would own when the dump does not list it.
func workloadsOf(c *cluster.Cluster) *podtopologyspread.Workloads {
	rss := append([]*appsv1.ReplicaSet(nil), c.Snapshot().ReplicaSets...)
	for _, d := range c.Snapshot().Deployments {
		rss = append(rss, &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{Name: d.Name, Namespace: d.Namespace},
			Spec:       appsv1.ReplicaSetSpec{Selector: d.Spec.Selector, Template: d.Spec.Template},
		})
	}
	return podtopologyspread.NewWorkloads(nil, nil, rss, c.Snapshot().StatefulSets)
}
