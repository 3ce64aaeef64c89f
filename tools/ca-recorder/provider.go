package carecorder

import (
	"fmt"
	"sort"
	"time"

	apiv1 "k8s.io/api/core/v1"
	"sigs.k8s.io/cluster-autoscaler/pkg/cloudprovider"
	fakecloudprovider "sigs.k8s.io/cluster-autoscaler/pkg/cloudprovider/test"
	"sigs.k8s.io/cluster-autoscaler/pkg/utils/errors"
	podutils "sigs.k8s.io/cluster-autoscaler/pkg/utils/pod"
	"sigs.k8s.io/cluster-autoscaler/pkg/utils/units"
)

// provider is CA's fake cloud provider with two changes a recording needs:
// NodeGroups lists the groups by name (the fake ranges over a map, which
// would make the order of expansion options, and so the random expander's
// pick, change from run to run), and it can price nodes, so that the price
// expander runs.
type provider struct {
	*fakecloudprovider.CloudProvider
	prices map[string]float64
}

var _ cloudprovider.CloudProvider = (*provider)(nil)

func newProvider(fake *fakecloudprovider.CloudProvider, s *Scenario) *provider {
	p := &provider{CloudProvider: fake, prices: map[string]float64{}}
	for _, g := range s.Groups {
		if g.PricePerHour != nil {
			p.prices[g.Name] = *g.PricePerHour
		}
	}
	return p
}

// NodeGroups returns the groups sorted by id.
func (p *provider) NodeGroups() []cloudprovider.NodeGroup {
	groups := p.CloudProvider.NodeGroups()
	sort.Slice(groups, func(i, j int) bool { return groups[i].Id() < groups[j].Id() })
	return groups
}

// Pricing returns the recorder's pricing model.
func (p *provider) Pricing() (cloudprovider.PricingModel, errors.AutoscalerError) {
	return pricing{prices: p.prices}, nil
}

// GCE's list prices (kubernetes/autoscaler cluster-autoscaler/cloudprovider/gce
// gce_price_info.go: base CPU and memory prices per hour), which GCE's
// PodPrice charges for a pod's requests. drasim prices pods the same way.
const (
	cpuPricePerHour         = 0.033174
	memoryPricePerHourPerGb = 0.004446
)

// pricing prices a node by its group's pricePerHour (the group is read from
// GroupLabel, which every template carries) and a pod as GCE's price model
// does: its requests (podutils.PodRequests) at GCE's list prices. Groups
// without pricePerHour cannot be priced: CA's price expander drops them.
type pricing struct{ prices map[string]float64 }

func (m pricing) NodePrice(node *apiv1.Node, start, end time.Time) (float64, error) {
	g := node.Labels[GroupLabel]
	price, ok := m.prices[g]
	if !ok {
		return 0, fmt.Errorf("node %s (group %q) has no price", node.Name, g)
	}
	return price * end.Sub(start).Hours(), nil
}

func (m pricing) PodPrice(pod *apiv1.Pod, start, end time.Time) (float64, error) {
	req := podutils.PodRequests(pod)
	cpu := req[apiv1.ResourceCPU]
	mem := req[apiv1.ResourceMemory]
	hours := end.Sub(start).Hours()
	return (float64(cpu.MilliValue())/1000*cpuPricePerHour + float64(mem.Value())/float64(units.GiB)*memoryPricePerHourPerGb) * hours, nil
}
