package inspect

import (
	"sort"

	"github.com/drasim/drasim/sim/inventory"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Summarize describes s. It never fails: what cannot be evaluated (a CEL
// selector that does not compile, say) is reported inside the Summary.
func Summarize(s *snapshot.Snapshot, opts Options) *Summary {
	groupBy := opts.GroupBy
	if groupBy == "" {
		groupBy = DefaultGroupBy
	}
	inv := collectDevices(s.ResourceSlices)
	used := usedDevices(s)
	return &Summary{
		APIVersion: APIVersion,
		Kind:       Kind,
		Nodes:      summarizeNodes(s.Nodes, groupBy, inv.all),
		Devices: DeviceSummary{
			Total:   len(inv.all),
			Drivers: summarizeDrivers(inv, used),
			Classes: summarizeClasses(s, inv.all, used),
		},
		Pools:     inv.pools,
		Claims:    summarizeClaims(s),
		Pods:      summarizePods(s),
		Workloads: summarizeWorkloads(s),
		Skipped:   summarizeSkipped(s.Skipped),
	}
}

type groupTotals struct {
	nodes   int
	cpu     resource.Quantity
	memory  resource.Quantity
	pods    int64
	devices int
}

func summarizeNodes(nodes []*v1.Node, groupBy string, devices []inventory.Device) NodeSummary {
	perNode := map[string]int{}
	for _, d := range devices {
		if d.Node != "" {
			perNode[d.Node]++
		}
	}
	sum := NodeSummary{GroupBy: groupBy, Groups: []NodeGroup{}}
	groups := map[string]*groupTotals{}
	var names []string
	for _, n := range nodes {
		sum.Total++
		if n.Spec.Unschedulable {
			sum.Unschedulable++
		} else {
			sum.Schedulable++
		}
		if hasHardTaint(n) {
			sum.Tainted++
		}
		name, ok := n.Labels[groupBy]
		if !ok {
			name = NoGroup
		}
		g := groups[name]
		if g == nil {
			g = &groupTotals{}
			groups[name] = g
			names = append(names, name)
		}
		// The API server defaults allocatable to capacity when a node
		// reports none; hand-written nodes often only have capacity.
		alloc := n.Status.Allocatable
		if alloc == nil {
			alloc = n.Status.Capacity
		}
		g.nodes++
		g.cpu.Add(alloc[v1.ResourceCPU])
		g.memory.Add(alloc[v1.ResourceMemory])
		g.pods += alloc.Pods().Value()
		g.devices += perNode[n.Name]
	}
	// Named groups in order, the unlabelled rest last.
	sort.Slice(names, func(i, j int) bool {
		if (names[i] == NoGroup) != (names[j] == NoGroup) {
			return names[j] == NoGroup
		}
		return names[i] < names[j]
	})
	for _, name := range names {
		g := groups[name]
		sum.Groups = append(sum.Groups, NodeGroup{
			Name:    name,
			Nodes:   g.nodes,
			CPU:     g.cpu.String(),
			Memory:  g.memory.String(),
			Pods:    g.pods,
			Devices: g.devices,
		})
	}
	return sum
}

// hasHardTaint reports whether a taint keeps pods without a toleration off
// the node.
func hasHardTaint(n *v1.Node) bool {
	for _, t := range n.Spec.Taints {
		if t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute {
			return true
		}
	}
	return false
}

func summarizeClaims(s *snapshot.Snapshot) ClaimSummary {
	sum := ClaimSummary{Templates: len(s.ResourceClaimTemplates)}
	for _, c := range s.ResourceClaims {
		sum.Total++
		if c.Status.Allocation != nil {
			sum.Allocated++
		} else {
			sum.Pending++
		}
		if len(c.Status.ReservedFor) > 0 {
			sum.Reserved++
		}
	}
	return sum
}

func summarizePods(s *snapshot.Snapshot) PodSummary {
	var sum PodSummary
	for _, p := range s.Pods {
		sum.Total++
		if p.Spec.NodeName != "" {
			sum.Bound++
		} else {
			sum.Pending++
		}
		if s.Generated[snapshot.Ref{Kind: "Pod", Namespace: p.Namespace, Name: p.Name}] {
			sum.Generated++
		} else {
			sum.FromDump++
		}
	}
	return sum
}

func summarizeSkipped(skipped map[string]int) []SkippedKind {
	kinds := make([]string, 0, len(skipped))
	for k := range skipped {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	out := make([]SkippedKind, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, SkippedKind{Kind: k, Count: skipped[k]})
	}
	return out
}
