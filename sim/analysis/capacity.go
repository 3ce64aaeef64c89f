package analysis

import (
	"sort"

	"github.com/drasim/drasim/sim/cluster"
	"k8s.io/apimachinery/pkg/api/resource"
)

// nodeView is one node after the replay, with its devices.
type nodeView struct {
	name, group              string
	unschedulable            bool
	cpuReq, cpuAlloc         int64
	memReq, memAlloc         int64
	pods, podCap             int
	devices                  []*device
	allocated, blocked, idle int
	stranded                 string
}

func (n *nodeView) freeCPU() int64 { return max(0, n.cpuAlloc-n.cpuReq) }
func (n *nodeView) freeMem() int64 { return max(0, n.memAlloc-n.memReq) }
func (n *nodeView) freePods() int  { return max(0, n.podCap-n.pods) }

// collectNodes returns the nodes by name.
func collectNodes(c *cluster.Cluster, inv *devInventory, groupBy string) []*nodeView {
	out := make([]*nodeView, 0, len(c.Nodes()))
	groups := newGrouper(c, groupBy)
	for _, ni := range c.Nodes() {
		node := ni.Node()
		nv := &nodeView{
			name: node.Name, group: groups.of(node, inv.byNode[node.Name]), unschedulable: node.Spec.Unschedulable,
			cpuReq: ni.Requested.MilliCPU, cpuAlloc: ni.Allocatable.MilliCPU,
			memReq: ni.Requested.Memory, memAlloc: ni.Allocatable.Memory,
			pods: len(ni.Pods), podCap: ni.Allocatable.AllowedPodNumber,
			devices: inv.byNode[node.Name],
		}
		for _, d := range nv.devices {
			switch d.state {
			case stateAllocated:
				nv.allocated++
			case stateBlocked:
				nv.blocked++
			default:
				nv.idle++
			}
		}
		out = append(out, nv)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func cpuString(milli int64) string {
	return resource.NewMilliQuantity(milli, resource.DecimalSI).String()
}

func memString(bytes int64) string {
	return resource.NewQuantity(bytes, resource.BinarySI).String()
}

func quantityOf(requested, allocatable int64, cpu bool) Quantity {
	q := Quantity{RequestedValue: requested, AllocatableValue: allocatable, Share: share(requested, allocatable)}
	if cpu {
		q.Requested, q.Allocatable = cpuString(requested), cpuString(allocatable)
	} else {
		q.Requested, q.Allocatable = memString(requested), memString(allocatable)
	}
	return q
}

func deviceCount(devs []*device) DeviceCount {
	var dc DeviceCount
	for _, d := range devs {
		dc.Total++
		switch d.state {
		case stateAllocated:
			dc.Allocated++
		case stateBlocked:
			dc.Blocked++
		default:
			dc.Idle++
		}
	}
	dc.Share = share(int64(dc.Allocated), int64(dc.Total))
	return dc
}

func usageOf(name string, nodes []*nodeView, devs []*device) Usage {
	u := Usage{Name: name, Nodes: len(nodes), Devices: deviceCount(devs)}
	var cpuReq, cpuAlloc, memReq, memAlloc int64
	for _, n := range nodes {
		cpuReq += n.cpuReq
		cpuAlloc += n.cpuAlloc
		memReq += n.memReq
		memAlloc += n.memAlloc
		u.Pods.Used += n.pods
		u.Pods.Total += n.podCap
	}
	u.CPU = quantityOf(cpuReq, cpuAlloc, true)
	u.Memory = quantityOf(memReq, memAlloc, false)
	u.Pods.Share = share(int64(u.Pods.Used), int64(u.Pods.Total))
	return u
}

// utilizationOf sums use over all nodes, per node group, per DeviceClass
// and per driver.
func utilizationOf(nodes []*nodeView, inv *devInventory) Utilization {
	u := Utilization{Total: usageOf("total", nodes, inv.devices), Classes: []Usage{}, Drivers: []Usage{}, Groups: []Usage{}}
	var groups []string
	groupNodes := map[string][]*nodeView{}
	for _, n := range nodes {
		if _, ok := groupNodes[n.group]; !ok {
			groups = append(groups, n.group)
		}
		groupNodes[n.group] = append(groupNodes[n.group], n)
	}
	sort.Strings(groups)
	for _, g := range groups {
		var devs []*device
		for _, n := range groupNodes[g] {
			devs = append(devs, n.devices...)
		}
		u.Groups = append(u.Groups, usageOf(g, groupNodes[g], devs))
	}
	// nodesOf returns the nodes (by name) holding the devices.
	nodesOf := func(devs []*device) []*nodeView {
		holds := map[string]bool{}
		for _, d := range devs {
			holds[d.node] = true
		}
		var out []*nodeView
		for _, n := range nodes {
			if holds[n.name] {
				out = append(out, n)
			}
		}
		return out
	}
	for _, c := range inv.classes {
		var devs []*device
		for _, d := range inv.devices {
			if d.classes[c.Name] {
				devs = append(devs, d)
			}
		}
		u.Classes = append(u.Classes, usageOf(c.Name, nodesOf(devs), devs))
	}
	var drivers []string
	byDriver := map[string][]*device{}
	for _, d := range inv.devices {
		if _, ok := byDriver[d.key.Driver]; !ok {
			drivers = append(drivers, d.key.Driver)
		}
		byDriver[d.key.Driver] = append(byDriver[d.key.Driver], d)
	}
	sort.Strings(drivers)
	for _, name := range drivers {
		u.Drivers = append(u.Drivers, usageOf(name, nodesOf(byDriver[name]), byDriver[name]))
	}
	return u
}

// idleDevices are the devices the fragmentation rate looks at: idle, on a
// schedulable node of the cluster.
func idleDevices(nodes []*nodeView) []*device {
	var out []*device
	for _, n := range nodes {
		if n.unschedulable {
			continue
		}
		for _, d := range n.devices {
			if d.state == stateIdle {
				out = append(out, d)
			}
		}
	}
	return out
}

// fragmentationOf computes the fragmentation rate of the idle devices for
// the mix, overall and per DeviceClass. feasible[i] holds the nodes where
// one more instance of mix[i] fits.
func fragmentationOf(mix []*shape, feasible []map[string]bool, nodes []*nodeView, inv *devInventory) Fragmentation {
	// Devices no class selects cannot be requested by any claim: counting
	// them fragmented would make the rate about the inventory, not the mix.
	var idle []*device
	unselected := 0
	for _, d := range idleDevices(nodes) {
		if len(d.classes) == 0 {
			unselected++
			continue
		}
		idle = append(idle, d)
	}
	f := Fragmentation{IdleDevices: len(idle), UnselectedIdleDevices: unselected, Classes: []ClassFragmentation{}, Shapes: []ShapeFragmentation{}}
	totalPods := 0
	for _, s := range mix {
		totalPods += s.Pods
	}
	classIdle := map[string]int{}
	for _, d := range idle {
		for c := range d.classes {
			classIdle[c]++
		}
	}
	classFrag := map[string]float64{}
	for i, s := range mix {
		p := float64(s.Pods) / float64(totalPods)
		frag := 0
		perClass := map[string]int{}
		for _, d := range idle {
			if feasible[i][d.node] && s.usable(inv.matcher, d) {
				continue
			}
			frag++
			for c := range d.classes {
				perClass[c]++
			}
		}
		f.FragmentedDevices += p * float64(frag)
		for c, n := range perClass {
			classFrag[c] += p * float64(n)
		}
		f.Shapes = append(f.Shapes, ShapeFragmentation{
			Shape: s.Name, Weight: s.Weight, FeasibleNodes: len(feasible[i]), FragmentedDevices: frag, Rate: share(int64(frag), int64(len(idle))),
		})
	}
	if len(idle) > 0 {
		f.Rate = round4(f.FragmentedDevices / float64(len(idle)))
	}
	f.FragmentedDevices = round4(f.FragmentedDevices)
	for _, c := range inv.classes {
		cf := ClassFragmentation{Class: c.Name, IdleDevices: classIdle[c.Name], FragmentedDevices: round4(classFrag[c.Name])}
		if cf.IdleDevices > 0 {
			cf.Rate = round4(classFrag[c.Name] / float64(cf.IdleDevices))
		}
		f.Classes = append(f.Classes, cf)
	}
	return f
}

// need is what a pod needs of a node's host resources.
type need struct{ cpu, memory int64 }

// strandedOf finds idle devices that no device-requesting shape can use
// for lack of CPU, memory or pod slots on their node, and free CPU and
// memory on nodes whose devices are all taken. Cordoned nodes are left out.
func strandedOf(nodes []*nodeView, mix []*shape) Stranded {
	st := Stranded{DeviceNodes: []StrandedDevices{}, HostNodes: []StrandedHost{}}
	var needs []need
	for _, s := range mix {
		if len(s.requests) > 0 {
			needs = append(needs, need{s.cpu, s.memory})
		}
	}
	if len(needs) == 0 {
		// No shape asks for devices: a device is stranded only when the
		// node has nothing left at all.
		needs = []need{{cpu: 1, memory: 1}}
	}
	for _, n := range nodes {
		if n.unschedulable {
			continue
		}
		switch {
		case n.idle > 0:
			exhausted := map[string]bool{}
			stranded := true
			for _, nd := range needs {
				blocked := false
				if n.freeCPU() < nd.cpu {
					exhausted[ResourceCPU], blocked = true, true
				}
				if n.freeMem() < nd.memory {
					exhausted[ResourceMemory], blocked = true, true
				}
				if n.freePods() < 1 {
					exhausted[ResourcePods], blocked = true, true
				}
				if !blocked {
					stranded = false
					break
				}
			}
			if !stranded {
				continue
			}
			sd := StrandedDevices{Node: n.name, Group: n.group, IdleDevices: n.idle, Exhausted: []string{},
				FreeCPU: cpuString(n.freeCPU()), FreeMemory: memString(n.freeMem()), FreePods: n.freePods()}
			for _, r := range []string{ResourceCPU, ResourceMemory, ResourcePods} {
				if exhausted[r] {
					sd.Exhausted = append(sd.Exhausted, r)
				}
			}
			st.DeviceNodes = append(st.DeviceNodes, sd)
			st.Devices += n.idle
			n.stranded = StrandedKindDevices
		case len(n.devices) > 0 && (n.freeCPU() > 0 || n.freeMem() > 0):
			st.HostNodes = append(st.HostNodes, StrandedHost{Node: n.name, Group: n.group, Devices: len(n.devices),
				FreeCPU: cpuString(n.freeCPU()), FreeMemory: memString(n.freeMem()), CPUValue: n.freeCPU(), MemoryValue: n.freeMem()})
			st.CPUValue += n.freeCPU()
			st.MemoryValue += n.freeMem()
			n.stranded = StrandedKindHost
		}
	}
	st.CPU, st.Memory = cpuString(st.CPUValue), memString(st.MemoryValue)
	return st
}

func nodeRows(nodes []*nodeView) []Node {
	out := make([]Node, 0, len(nodes))
	for _, n := range nodes {
		out = append(out, Node{
			Name: n.name, Group: n.group, Unschedulable: n.unschedulable,
			CPU: quantityOf(n.cpuReq, n.cpuAlloc, true), Memory: quantityOf(n.memReq, n.memAlloc, false),
			Pods:    Slots{Used: n.pods, Total: n.podCap, Share: share(int64(n.pods), int64(n.podCap))},
			Devices: deviceCount(n.devices), Stranded: n.stranded,
		})
	}
	return out
}

// counterSetsOf reports each shared counter set: totals, consumption by
// allocated devices, what is free, and which idle devices still fit.
func counterSetsOf(inv *devInventory) []CounterSet {
	out := make([]CounterSet, 0, len(inv.counterSets))
	for _, cs := range inv.counterSets {
		set := CounterSet{Driver: cs.key.driver, Pool: cs.key.pool, Node: cs.node, Name: cs.key.name, Counters: []CounterValue{}, Fits: []string{}}
		names := make([]string, 0, len(cs.total))
		for n := range cs.total {
			names = append(names, n)
		}
		sort.Strings(names)
		var sum float64
		for _, n := range names {
			total, consumed := cs.total[n], cs.consumed[n]
			free := total.DeepCopy()
			free.Sub(consumed)
			if free.Sign() < 0 {
				free = resource.Quantity{}
			}
			set.Counters = append(set.Counters, CounterValue{Name: n, Total: total.String(), Consumed: consumed.String(), Free: free.String()})
			if t := total.AsApproximateFloat64(); t > 0 {
				sum += free.AsApproximateFloat64() / t
			}
		}
		if len(names) > 0 {
			set.FreeShare = round4(sum / float64(len(names)))
		}
		for _, d := range cs.consumers {
			if d.state == stateIdle {
				set.Fits = append(set.Fits, d.key.Device)
			}
		}
		out = append(out, set)
	}
	return out
}
