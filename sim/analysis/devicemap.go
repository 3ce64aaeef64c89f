package analysis

import (
	"context"
	"sort"

	"github.com/drasim/drasim/sim/cluster"
	resourceapi "k8s.io/api/resource/v1"
)

// Device states in a DeviceMap.
const (
	// CellFree: no claim holds the device and nothing blocks it.
	CellFree = "free"
	// CellAllocated: a claim holds the device.
	CellAllocated = "allocated"
	// CellPartial: partly consumed: shares of a device with consumable
	// capacity are allocated, or sibling partitions consume part of the
	// counters the device needs (it still fits).
	CellPartial = "partial"
	// CellBlocked: free, but sibling partitions consumed the counters it
	// needs.
	CellBlocked = "blocked"
	// CellTainted: free, with a NoSchedule or NoExecute taint.
	CellTainted = "tainted"
)

// CellStates lists the states in legend order.
func CellStates() []string {
	return []string{CellFree, CellAllocated, CellPartial, CellBlocked, CellTainted}
}

// MaxMapDevices bounds the cells of a device map; groups beyond it show
// their first nodes and count the rest.
const MaxMapDevices = 60000

// DeviceMap is every device of the cluster and its state, node by node,
// nodes grouped as the utilization groups them.
type DeviceMap struct {
	Groups []MapGroup `json:"groups"`
	// Counts are the devices per state, in CellStates order.
	Counts []StateCount `json:"counts"`
	// HiddenNodes counts the nodes left out to stay within MaxMapDevices.
	HiddenNodes int `json:"hiddenNodes,omitempty"`
}

// StateCount is how many devices are in a state.
type StateCount struct {
	State   string `json:"state"`
	Devices int    `json:"devices"`
}

// MapGroup is one node group of a device map.
type MapGroup struct {
	Name  string    `json:"name"`
	Nodes []MapNode `json:"nodes"`
	// Hidden counts the group's nodes left out (MaxMapDevices).
	Hidden int `json:"hidden,omitempty"`
}

// MapNode is one node and its devices, in slice order; nodes without
// devices are left out. Devices not attached to one node are under a
// node named after their pool.
type MapNode struct {
	Name          string    `json:"name"`
	Unschedulable bool      `json:"unschedulable,omitempty"`
	Devices       []MapCell `json:"devices"`
}

// MapCell is one device.
type MapCell struct {
	// Device is driver/pool/device.
	Device string `json:"device"`
	State  string `json:"state"`
}

// DeviceMapOf draws the device map of a cluster (after a replay), nodes
// grouped by groupBy as Analyze groups them.
func DeviceMapOf(ctx context.Context, c *cluster.Cluster, groupBy string) *DeviceMap {
	if groupBy == "" {
		groupBy = DefaultGroupBy
	}
	inv := newInventory(ctx, c.DRA())
	partial := partlyConsumed(inv)
	groups := newGrouper(c, groupBy)
	byGroup := map[string][]MapNode{}
	counts := map[string]int{}
	cell := func(d *device) MapCell {
		st := CellFree
		switch {
		case d.state == stateAllocated && d.shared:
			st = CellPartial
		case d.state == stateAllocated:
			st = CellAllocated
		case d.state == stateBlocked:
			st = CellBlocked
		case tainted(d.dev):
			st = CellTainted
		case partial[d]:
			st = CellPartial
		}
		counts[st]++
		return MapCell{Device: d.key.String(), State: st}
	}
	for _, ni := range c.Nodes() {
		node := ni.Node()
		devs := inv.byNode[node.Name]
		if len(devs) == 0 {
			continue
		}
		mn := MapNode{Name: node.Name, Unschedulable: node.Spec.Unschedulable}
		for _, d := range devs {
			mn.Devices = append(mn.Devices, cell(d))
		}
		g := groups.of(node, devs)
		byGroup[g] = append(byGroup[g], mn)
	}
	// Devices of slices that select nodes: one pseudo-node per pool.
	pools := map[string]*MapNode{}
	var poolOrder []string
	for _, d := range inv.devices {
		if d.node != "" {
			continue
		}
		name := d.key.Driver + "/" + d.key.Pool
		if pools[name] == nil {
			pools[name] = &MapNode{Name: name}
			poolOrder = append(poolOrder, name)
		}
		pools[name].Devices = append(pools[name].Devices, cell(d))
	}
	for _, name := range poolOrder {
		byGroup["(not node-local)"] = append(byGroup["(not node-local)"], *pools[name])
	}

	m := &DeviceMap{}
	names := make([]string, 0, len(byGroup))
	for g := range byGroup {
		names = append(names, g)
	}
	sort.Strings(names)
	budget := MaxMapDevices
	for _, g := range names {
		nodes := byGroup[g]
		sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
		mg := MapGroup{Name: g}
		for _, n := range nodes {
			if len(n.Devices) > budget {
				mg.Hidden++
				continue
			}
			budget -= len(n.Devices)
			mg.Nodes = append(mg.Nodes, n)
		}
		m.HiddenNodes += mg.Hidden
		m.Groups = append(m.Groups, mg)
	}
	for _, st := range CellStates() {
		m.Counts = append(m.Counts, StateCount{State: st, Devices: counts[st]})
	}
	return m
}

func tainted(d *resourceapi.Device) bool {
	for _, t := range d.Taints {
		if t.Effect == resourceapi.DeviceTaintEffectNoSchedule || t.Effect == resourceapi.DeviceTaintEffectNoExecute {
			return true
		}
	}
	return false
}

// partlyConsumed returns the idle devices whose counter sets allocated
// siblings draw on.
func partlyConsumed(inv *devInventory) map[*device]bool {
	out := map[*device]bool{}
	for _, cs := range inv.counterSets {
		used := false
		for _, q := range cs.consumed {
			used = used || !q.IsZero()
		}
		if !used {
			continue
		}
		for _, d := range cs.consumers {
			if d.state == stateIdle {
				out[d] = true
			}
		}
	}
	return out
}
