package inspect

import (
	"context"
	"fmt"
	"sort"

	"github.com/drasim/drasim/sim/snapshot"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/utils/ptr"
)

// celFeatures are the CEL environment features kube-scheduler v1.37 enables
// by default: DRAConsumableCapacity is on, DRAListTypeAttributes off. A
// selector that needs a disabled feature fails to compile here as it would in
// the scheduler.
var celFeatures = cel.Features{EnableConsumableCapacity: true, EnableListTypeAttributes: false}

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
	cache := cel.NewCache(selectors+1, celFeatures)
	ctx := context.Background()
	out := make([]DeviceClass, 0, len(classes))
	for _, c := range classes {
		dc := DeviceClass{Name: c.Name, Selectors: len(c.Spec.Selectors)}
		exprs, err := compileSelectors(cache, c.Spec.Selectors)
		if err != nil {
			dc.Error = err.Error()
			out = append(out, dc)
			continue
		}
		for _, d := range devices {
			ok, err := matches(ctx, exprs, d)
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

// selector is a compiled CEL selector and its index in the class.
type selector struct {
	index int
	expr  cel.CompilationResult
}

func compileSelectors(cache *cel.Cache, sels []resourceapi.DeviceSelector) ([]selector, error) {
	var out []selector
	for i, sel := range sels {
		if sel.CEL == nil {
			continue // no other selector type exists; validation rejects an empty one
		}
		expr := cache.GetOrCompile(sel.CEL.Expression)
		if expr.Error != nil {
			return nil, fmt.Errorf("selector #%d: CEL compile error: %w", i, expr.Error)
		}
		out = append(out, selector{index: i, expr: expr})
	}
	return out, nil
}

// matches evaluates the selectors in order, stopping at the first that is
// false, as the allocator does.
func matches(ctx context.Context, sels []selector, d device) (bool, error) {
	in := cel.Device{
		Driver:                   d.id.driver,
		AllowMultipleAllocations: d.dev.AllowMultipleAllocations,
		Attributes:               d.dev.Attributes,
		Capacity:                 d.dev.Capacity,
	}
	for _, sel := range sels {
		ok, _, err := sel.expr.DeviceMatches(ctx, in)
		if err != nil {
			return false, fmt.Errorf("selector #%d on device %s: CEL runtime error: %w", sel.index, d.id, cel.EnhanceRuntimeError(err))
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}
