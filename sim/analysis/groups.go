package analysis

import (
	"fmt"
	"sort"
	"strings"

	"github.com/drasim/drasim/sim/cluster"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// fallbackGroupLabels name a node's pool or instance type where the
// instance-type label is absent, in the order they are tried: the label's
// deprecated form, then the node-pool labels of Karpenter, GKE, EKS and AKS.
var fallbackGroupLabels = []string{
	v1.LabelInstanceType,
	"karpenter.sh/nodepool",
	"cloud.google.com/gke-nodepool",
	"eks.amazonaws.com/nodegroup",
	"kubernetes.azure.com/agentpool",
}

// grouper names the group of each node: the GroupBy label's value. With
// the default label, a node without it falls back to a node-pool label,
// then to the drasim NodeGroup whose selector selects it, then to its
// shape ("64 CPU 512Gi 4x gpu.example.com"), so that nodes of one kind
// stay together. An explicit GroupBy has no fallback: nodes without the
// label are in NoGroup.
type grouper struct {
	groupBy   string
	selectors []nodeGroupSelector
}

type nodeGroupSelector struct {
	name string
	sel  labels.Selector
}

func newGrouper(c *cluster.Cluster, groupBy string) *grouper {
	g := &grouper{groupBy: groupBy}
	if groupBy != DefaultGroupBy {
		return g
	}
	for _, ng := range c.Snapshot().NodeGroups {
		if ng.Spec.NodeSelector == nil {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(ng.Spec.NodeSelector)
		if err != nil || sel.Empty() {
			continue
		}
		g.selectors = append(g.selectors, nodeGroupSelector{ng.Name, sel})
	}
	return g
}

// of returns the group of a node with the given devices.
func (g *grouper) of(node *v1.Node, devices []*device) string {
	if v := node.Labels[g.groupBy]; v != "" {
		return v
	}
	if g.groupBy != DefaultGroupBy {
		return NoGroup
	}
	for _, l := range fallbackGroupLabels {
		if v := node.Labels[l]; v != "" {
			return v
		}
	}
	for _, s := range g.selectors {
		if s.sel.Matches(labels.Set(node.Labels)) {
			return s.name
		}
	}
	return shapeOf(node, devices)
}

// shapeOf names a node by what it offers: allocatable CPU and memory and
// its devices per driver.
func shapeOf(node *v1.Node, devices []*device) string {
	alloc := node.Status.Allocatable
	if len(alloc) == 0 {
		alloc = node.Status.Capacity
	}
	cpu, mem := alloc[v1.ResourceCPU], alloc[v1.ResourceMemory]
	parts := []string{fmt.Sprintf("%s CPU", cpu.String()), memoryName(mem)}
	perDriver := map[string]int{}
	for _, d := range devices {
		perDriver[d.key.Driver]++
	}
	drivers := make([]string, 0, len(perDriver))
	for d := range perDriver {
		drivers = append(drivers, d)
	}
	sort.Strings(drivers)
	for _, d := range drivers {
		parts = append(parts, fmt.Sprintf("%dx %s", perDriver[d], d))
	}
	return strings.Join(parts, " ")
}

// memoryName prints memory in binary units, as nodes usually report it.
func memoryName(q resource.Quantity) string {
	return resource.NewQuantity(q.Value(), resource.BinarySI).String()
}
