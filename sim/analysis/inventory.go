package analysis

import (
	"context"
	"fmt"
	"sort"

	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/inventory"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

type devKey = inventory.DeviceID

// deviceState is what a device is doing after the replay.
type deviceState int

const (
	// stateIdle: no claim holds it and the counters it consumes are free.
	stateIdle deviceState = iota
	// stateAllocated: a claim's allocation names it (exclusively, or as one
	// of several shares of a device with allowMultipleAllocations).
	stateAllocated
	// stateBlocked: no claim holds it, but a sibling partition consumed the
	// shared counters it needs.
	stateBlocked
)

// device is one device of a pool's newest generation (the only one the
// allocator looks at).
type device struct {
	key devKey
	// node is the one node the device is attached to (inventory.NodeOf);
	// "" for devices that nodes reach by selector or allNodes.
	node  string
	dev   *resourceapi.Device
	state deviceState
	// shared: held by shares of a device with allowMultipleAllocations.
	shared bool
	// classes are the names of the DeviceClasses whose selectors match it.
	classes map[string]bool
}

type counterSetKey struct{ driver, pool, name string }

type counterSet struct {
	key      counterSetKey
	node     string
	total    map[string]resource.Quantity
	consumed map[string]resource.Quantity
	// consumers are the devices that draw on the set, in slice order.
	consumers []*device
}

// devInventory is the devices of the run's DRA state, with what the replay
// left of them.
type devInventory struct {
	devices []*device
	byNode  map[string][]*device
	// classes are the DeviceClasses by name.
	classes     []*resourceapi.DeviceClass
	counterSets []*counterSet
	// nodeLocal: every device belongs to one node through its slice's
	// spec.nodeName, so allocating on one node cannot change another.
	nodeLocal bool
	matcher   matcher
}

func newInventory(ctx context.Context, st *dra.State) *devInventory {
	classes := append([]*resourceapi.DeviceClass(nil), st.Classes()...)
	sort.Slice(classes, func(i, j int) bool { return classes[i].Name < classes[j].Name })
	return newInventoryWith(st, classes, newMatcher(ctx, st.Gates(), classes), nil)
}

// newInventoryWith builds the inventory with a matcher made for the state's
// classes; known, when set, remembers the classes of each device across
// inventories of the same state (a device object never changes).
func newInventoryWith(st *dra.State, classes []*resourceapi.DeviceClass, m matcher, known map[*resourceapi.Device]map[string]bool) *devInventory {
	inv := &devInventory{byNode: map[string][]*device{}, nodeLocal: true, classes: classes, matcher: m}

	slices := inventory.Current(st.Slices())
	sets := map[counterSetKey]*counterSet{}
	for _, sl := range slices {
		sliceNode := ptr.Deref(sl.Spec.NodeName, "")
		if sliceNode == "" {
			inv.nodeLocal = false
		}
		for _, cs := range sl.Spec.SharedCounters {
			k := counterSetKey{sl.Spec.Driver, sl.Spec.Pool.Name, cs.Name}
			set := &counterSet{key: k, node: sliceNode, total: map[string]resource.Quantity{}, consumed: map[string]resource.Quantity{}}
			for name, c := range cs.Counters {
				set.total[name] = c.Value.DeepCopy()
			}
			if _, dup := sets[k]; !dup {
				inv.counterSets = append(inv.counterSets, set)
			}
			sets[k] = set
		}
		for i := range sl.Spec.Devices {
			d := inventory.DeviceOf(sl, &sl.Spec.Devices[i])
			dv := &device{key: d.ID, node: d.Node, dev: d.Device}
			if cl, ok := known[d.Device]; ok {
				dv.classes = cl
			} else {
				dv.classes = inv.matcher.classesOf(d)
				if known != nil {
					known[d.Device] = dv.classes
				}
			}
			inv.devices = append(inv.devices, dv)
			if dv.node != "" {
				inv.byNode[dv.node] = append(inv.byNode[dv.node], dv)
			}
		}
	}
	sort.Slice(inv.counterSets, func(i, j int) bool {
		a, b := inv.counterSets[i].key, inv.counterSets[j].key
		if a.driver != b.driver {
			return a.driver < b.driver
		}
		if a.pool != b.pool {
			return a.pool < b.pool
		}
		return a.name < b.name
	})

	allocated := inventory.Allocated(st.Claims())
	for _, d := range inv.devices {
		switch u := allocated[d.key]; {
		case u.Exclusive:
			d.state = stateAllocated
		case u.Shared:
			d.state, d.shared = stateAllocated, true
		}
		for _, cc := range d.dev.ConsumesCounters {
			if set := sets[counterSetKey{d.key.Driver, d.key.Pool, cc.CounterSet}]; set != nil {
				set.consumers = append(set.consumers, d)
			}
		}
		if d.state != stateAllocated {
			continue
		}
		for _, cc := range d.dev.ConsumesCounters {
			set := sets[counterSetKey{d.key.Driver, d.key.Pool, cc.CounterSet}]
			if set == nil {
				continue
			}
			for name, c := range cc.Counters {
				q := set.consumed[name]
				q.Add(c.Value)
				set.consumed[name] = q
			}
		}
	}
	for _, d := range inv.devices {
		if d.state == stateIdle && !countersFit(d, sets) {
			d.state = stateBlocked
		}
	}
	return inv
}

// countersFit reports whether the counters a device consumes are still
// free in every set it draws on. A set the pool does not publish can never
// be satisfied.
func countersFit(d *device, sets map[counterSetKey]*counterSet) bool {
	for _, cc := range d.dev.ConsumesCounters {
		set := sets[counterSetKey{d.key.Driver, d.key.Pool, cc.CounterSet}]
		if set == nil {
			return false
		}
		for name, need := range cc.Counters {
			total, ok := set.total[name]
			if !ok {
				return false
			}
			used := set.consumed[name]
			used.Add(need.Value)
			if used.Cmp(total) > 0 {
				return false
			}
		}
	}
	return true
}

// matcher is sim/inventory's class matching, for the devices of this
// package.
type matcher struct{ *inventory.Matcher }

func newMatcher(ctx context.Context, gates feature.Gates, classes []*resourceapi.DeviceClass) matcher {
	return matcher{inventory.NewMatcher(ctx, gates, classes)}
}

// classesOf is the set of classes that select the device.
func (m matcher) classesOf(d inventory.Device) map[string]bool {
	out := map[string]bool{}
	for _, c := range m.ClassesOf(d) {
		out[c] = true
	}
	return out
}

func (d *device) view() inventory.Device {
	return inventory.Device{ID: d.key, Node: d.node, Device: d.dev}
}

// selects reports whether a request alternative (its class and its own
// selectors) selects the device.
func (m matcher) selects(alt requestAlternative, d *device) bool {
	return d.classes[alt.class] && m.RequestSelects(alt.request, alt.selectors, d.view())
}

// warnings are the CEL errors met so far, as analysis warnings.
func (m matcher) warnings() []string {
	var out []string
	for _, err := range m.Errors() {
		switch {
		case err.Compile() && err.Class != "":
			out = append(out, fmt.Sprintf("%v; it matches no device", err))
		case err.Compile():
			out = append(out, fmt.Sprintf("%v; it selects no device", err))
		default:
			out = append(out, fmt.Sprintf("%v; such devices do not match", err))
		}
	}
	return out
}
