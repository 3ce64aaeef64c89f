package inspect

import (
	"context"
	"sort"

	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/inventory"
	"github.com/drasim/drasim/sim/snapshot"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/utils/ptr"
)

type deviceID = inventory.DeviceID

// devices is what the ResourceSlices publish, pool by pool in sorted order.
type devices struct {
	pools []Pool
	// all are the devices of the pools' newest generations, pool by pool.
	all []inventory.Device
}

func collectDevices(slices []*resourceapi.ResourceSlice) devices {
	inv := devices{pools: []Pool{}}
	for _, ip := range inventory.Pools(slices) {
		p := Pool{Driver: ip.ID.Driver, Name: ip.ID.Pool, Generation: ip.Generation, StaleSlices: ip.Stale(), Slices: len(ip.Current)}
		node, multi := "", false
		for i, sl := range ip.Current {
			if i == 0 || sl.Spec.Pool.ResourceSliceCount > p.ResourceSliceCount {
				p.ResourceSliceCount = sl.Spec.Pool.ResourceSliceCount
			}
			sliceNode := ptr.Deref(sl.Spec.NodeName, "")
			switch {
			case sliceNode == "":
				multi = true
			case node == "":
				node = sliceNode
			case node != sliceNode:
				multi = true
			}
		}
		devs := inventory.Devices(ip.Current)
		inv.all = append(inv.all, devs...)
		p.Devices = len(devs)
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
	for id, u := range inventory.Allocated(s.ResourceClaims) {
		used[id] = use{exclusive: u.InUse(), admin: u.Admin}
	}
	return used
}

func summarizeDrivers(inv devices, used map[deviceID]use) []Driver {
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
	for _, dev := range inv.all {
		d := &drivers[index[dev.ID.Driver]]
		d.Devices++
		if used[dev.ID].exclusive {
			d.Allocated++
		}
		if k := (driverNode{dev.ID.Driver, dev.Node}); dev.Node != "" && !seen[k] {
			seen[k] = true
			d.Nodes++
		}
	}
	return drivers
}

func summarizeClasses(s *snapshot.Snapshot, devices []inventory.Device, used map[deviceID]use) []DeviceClass {
	classes := append([]*resourceapi.DeviceClass(nil), s.DeviceClasses...)
	sort.Slice(classes, func(i, j int) bool { return classes[i].Name < classes[j].Name })
	// The default gates' CEL features: a selector that needs a disabled
	// feature fails to compile here as it would in the scheduler.
	m := inventory.NewMatcher(context.Background(), feature.Defaults(), classes)
	out := make([]DeviceClass, 0, len(classes))
	for _, c := range classes {
		dc := DeviceClass{Name: c.Name, Selectors: len(c.Spec.Selectors)}
		if err := m.ClassError(c.Name); err != nil {
			dc.Error = err.Detail()
			out = append(out, dc)
			continue
		}
		for _, d := range devices {
			ok, err := m.ClassSelects(c.Name, d)
			if err != nil {
				dc.EvalErrors++
				if dc.Error == "" {
					dc.Error = err.(*inventory.CELError).Detail()
				}
				continue
			}
			if !ok {
				continue
			}
			dc.Matching++
			u := used[d.ID]
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
