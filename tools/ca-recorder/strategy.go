package carecorder

import (
	"fmt"
	"sort"

	"github.com/drasim/drasim/internal/caoracle"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"sigs.k8s.io/cluster-autoscaler/pkg/cloudprovider"
	ca_context "sigs.k8s.io/cluster-autoscaler/pkg/context"
	"sigs.k8s.io/cluster-autoscaler/pkg/expander"
	"sigs.k8s.io/cluster-autoscaler/pkg/expander/factory"
	"sigs.k8s.io/cluster-autoscaler/pkg/expander/leastnodes"
	"sigs.k8s.io/cluster-autoscaler/pkg/expander/mostpods"
	"sigs.k8s.io/cluster-autoscaler/pkg/expander/price"
	"sigs.k8s.io/cluster-autoscaler/pkg/expander/priority"
	"sigs.k8s.io/cluster-autoscaler/pkg/expander/waste"
	"sigs.k8s.io/cluster-autoscaler/pkg/simulator/framework"
)

// Strategy builds CA's expander strategy for one expander with CA's own
// factory (the chain with the random fallback), as the autoscaler builds
// it, with one exception: the priority expander reads its ConfigMap through
// the informer factory instead of a reflector on the clientset's REST
// client, which the fake clientset does not have.
func Strategy(name string, cp cloudprovider.CloudProvider, clients *ca_context.AutoscalingKubeClients, configMaps corelisters.ConfigMapNamespaceLister) (expander.Strategy, error) {
	f := factory.NewFactory()
	f.RegisterDefaultExpanders(cp, clients, clients.ClientSet, "", "", "")
	f.RegisterFilter(expander.PriorityBasedExpanderName, func() expander.Filter {
		return priority.NewFilter(configMaps, clients.Recorder)
	})
	s, err := f.Build([]string{name})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Filter builds the expander alone (no random fallback), to learn which
// options it keeps before the tie-break. It is nil for random, which keeps
// the one option it picks.
func Filter(name string, cp cloudprovider.CloudProvider, clients *ca_context.AutoscalingKubeClients, configMaps corelisters.ConfigMapNamespaceLister) (expander.Filter, error) {
	switch name {
	case expander.LeastWasteExpanderName:
		return waste.NewFilter(), nil
	case expander.MostPodsExpanderName:
		return mostpods.NewFilter(), nil
	case expander.LeastNodesExpanderName:
		return leastnodes.NewFilter(), nil
	case expander.PriceBasedExpanderName:
		return price.NewFilter(cp, price.NewSimplePreferredNodeProvider(clients.AllNodeLister()), price.SimpleNodeUnfitness), nil
	case expander.PriorityBasedExpanderName:
		return priority.NewFilter(configMaps, clients.Recorder), nil
	case expander.RandomExpanderName:
		return nil, nil
	}
	return nil, fmt.Errorf("expander %q is not recorded", name)
}

// recordingStrategy passes every decision to CA's strategy and keeps what
// it was asked and what it answered.
type recordingStrategy struct {
	inner     expander.Strategy
	filter    expander.Filter
	decisions []decision
}

var _ expander.Strategy = (*recordingStrategy)(nil)

// decision is one BestOption call.
type decision struct {
	options []caoracle.Option
	kept    []string
	chosen  string
}

func (r *recordingStrategy) BestOption(options []expander.Option, nodeInfos map[string]*framework.NodeInfo) *expander.Option {
	d := decision{}
	for _, o := range options {
		d.options = append(d.options, caoracle.Option{Group: o.NodeGroup.Id(), Nodes: o.NodeCount, Pods: podCounts(o.Pods)})
	}
	sort.Slice(d.options, func(i, j int) bool { return d.options[i].Group < d.options[j].Group })
	if r.filter != nil {
		for _, o := range r.filter.BestOptions(options, nodeInfos) {
			d.kept = append(d.kept, o.NodeGroup.Id())
		}
	}
	best := r.inner.BestOption(options, nodeInfos)
	if best != nil {
		d.chosen = best.NodeGroup.Id()
		if r.filter == nil {
			d.kept = []string{d.chosen}
		}
	}
	sort.Strings(d.kept)
	r.decisions = append(r.decisions, d)
	return best
}

func podCounts(pods []*v1.Pod) []caoracle.PodCount {
	return caoracle.CountPods(len(pods), func(i int) (string, string, string) {
		p := pods[i]
		if ref := metav1.GetControllerOf(p); ref != nil {
			return ref.Kind, p.Namespace, ref.Name
		}
		return "Pod", p.Namespace, p.Name
	})
}
