package inspect

import (
	"context"
	"sort"

	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/snapshot"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/utils/ptr"
)

type deviceID struct{ driver, pool, device string }

func (id deviceID) String() string { return id.driver + "/" + id.pool + "/" + id.device }

// device is one device of a pool's newest generation.
type device struct {
	id deviceID
	// node is the one node the device is attached to, "" when its slice
	// selects nodes by selector or allNodes.
	node string
	dev  *resourceapi.Device
}

type poolKey struct{ driver, pool string }

// inventory is what the ResourceSlices publish, pool by pool in sorted order.
type inventory struct {
	pools   []Pool
	devices []device
}

func collectInventory(slices []*resourceapi.ResourceSlice) inventory {
	byPool := map[poolKey][]*resourceapi.ResourceSlice{}
	var keys []poolKey
	for _, sl := range slices {
		k := poolKey{sl.Spec.Driver, sl.Spec.Pool.Name}
		if _, seen := byPool[k]; !seen {
			keys = append(keys, k)
		}
		byPool[k] = append(byPool[k], sl)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].driver != keys[j].driver {
			return keys[i].driver < keys[j].driver
		}
		return keys[i].pool < keys[j].pool
	})
	inv := inventory{pools: []Pool{}}
	for _, k := range keys {
		var gen int64
		for i, sl := range byPool[k] {
			if i == 0 || sl.Spec.Pool.Generation > gen {
				gen = sl.Spec.Pool.Generation
			}
		}
		p := Pool{Driver: k.driver, Name: k.pool, Generation: gen}
		node, multi := "", false
		for _, sl := range byPool[k] {
			if sl.Spec.Pool.Generation != gen {
				// The scheduler only looks at a pool's newest generation.
				p.StaleSlices++
				continue
			}
			if p.Slices == 0 || sl.Spec.Pool.ResourceSliceCount > p.ResourceSliceCount {
				p.ResourceSliceCount = sl.Spec.Pool.ResourceSliceCount
			}
			p.Slices++
			sliceNode := ptr.Deref(sl.Spec.NodeName, "")
			switch {
			case sliceNode == "":
				multi = true
			case node == "":
				node = sliceNode
			case node != sliceNode:
				multi = true
			}
			perDevice := ptr.Deref(sl.Spec.PerDeviceNodeSelection, false)
			for i := range sl.Spec.Devices {
				d := &sl.Spec.Devices[i]
				devNode := sliceNode
				if perDevice {
					devNode = ptr.Deref(d.NodeName, "")
				}
				inv.devices = append(inv.devices, device{id: deviceID{k.driver, k.pool, d.Name}, node: devNode, dev: d})
				p.Devices++
			}
		}
		p.Node = node
		if multi || node == "" {
			p.Node = MultiNode
		}
		p.Complete = int64(p.Slices) == p.ResourceSliceCount
		inv.pools = append(inv.pools, p)
	}
	return inv
}

// use says how claims hold a device.
type use struct {
	// exclusive: named by an ordinary allocation result, so the device is
	// taken (or, for a shareable device, partly taken).
	exclusive bool
	// admin: named by an adminAccess result, which leaves it available.
	admin bool
}

func usedDevices(s *snapshot.Snapshot) map[deviceID]use {
	used := map[deviceID]use{}
	for _, c := range s.ResourceClaims {
		if c.Status.Allocation == nil {
			continue
		}
		for _, r := range c.Status.Allocation.Devices.Results {
			id := deviceID{r.Driver, r.Pool, r.Device}
			u := used[id]
			if ptr.Deref(r.AdminAccess, false) {
				u.admin = true
			} else {
				u.exclusive = true
			}
			used[id] = u
		}
	}
	return used
}

func summarizeDrivers(inv inventory, used map[deviceID]use) []Driver {
	drivers := []Driver{}
	index := map[string]int{}
	for _, p := range inv.pools {
		i, ok := index[p.Driver]
		if !ok {
			i = len(drivers)
			index[p.Driver] = i
			drivers = append(drivers, Driver{Name: p.Driver})
		}
		drivers[i].Pools++
		drivers[i].Slices += p.Slices
	}
	type driverNode struct{ driver, node string }
	seen := map[driverNode]bool{}
	for _, dev := range inv.devices {
		d := &drivers[index[dev.id.driver]]
		d.Devices++
		if used[dev.id].exclusive {
			d.Allocated++
		}
		if k := (driverNode{dev.id.driver, dev.node}); dev.node != "" && !seen[k] {
			seen[k] = true
			d.Nodes++
		}
	}
	return drivers
}

func summarizeClasses(s *snapshot.Snapshot, devices []device, used map[deviceID]use) []DeviceClass {
	classes := append([]*resourceapi.DeviceClass(nil), s.DeviceClasses...)
	sort.Slice(classes, func(i, j int) bool { return classes[i].Name < classes[j].Name })
	selectors := 0
	for _, c := range classes {
		selectors += len(c.Spec.Selectors)
	}
	// The default gates' CEL features: a selector that needs a disabled
	// feature fails to compile here as it would in the scheduler.
	cache := cel.NewCache(selectors+1, dra.DefaultGates().CELFeatures())
	ctx := context.Background()
	out := make([]DeviceClass, 0, len(classes))
	for _, c := range classes {
		dc := DeviceClass{Name: c.Name, Selectors: len(c.Spec.Selectors)}
		exprs, err := dra.CompileSelectors(cache, c.Spec.Selectors)
		if err != nil {
			dc.Error = err.Error()
			out = append(out, dc)
			continue
		}
		for _, d := range devices {
			ok, err := exprs.Match(ctx, d.id.driver, d.id.String(), d.dev)
			if err != nil {
				dc.EvalErrors++
				if dc.Error == "" {
					dc.Error = err.Error()
				}
				continue
			}
			if !ok {
				continue
			}
			dc.Matching++
			u := used[d.id]
			if u.exclusive {
				dc.Allocated++
			}
			if u.admin {
				dc.AdminAccess++
			}
		}
		out = append(out, dc)
	}
	return out
}
