package analysis

import (
	"context"
	"fmt"
	"sort"

	"github.com/drasim/drasim/sim/dra"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/utils/ptr"
)

type devKey struct{ driver, pool, device string }

func (k devKey) String() string { return k.driver + "/" + k.pool + "/" + k.device }

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
	// node is the one node the device is attached to; "" for devices of
	// slices that select nodes (nodeSelector, allNodes, per device).
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

// inventory is the devices of the run's DRA state, with what the replay
// left of them.
type inventory struct {
	devices []*device
	byNode  map[string][]*device
	// classes are the DeviceClasses by name.
	classes     []*resourceapi.DeviceClass
	counterSets []*counterSet
	// nodeLocal: every device belongs to one node through its slice's
	// spec.nodeName, so allocating on one node cannot change another.
	nodeLocal bool
	matcher   *matcher
	warnings  []string
}

func newInventory(ctx context.Context, st *dra.State) *inventory {
	classes := append([]*resourceapi.DeviceClass(nil), st.Classes()...)
	sort.Slice(classes, func(i, j int) bool { return classes[i].Name < classes[j].Name })
	return newInventoryWith(st, classes, newMatcher(ctx, st.Gates(), classes), nil)
}

// newInventoryWith builds the inventory with a matcher made for the state's
// classes; known, when set, remembers the classes of each device across
// inventories of the same state (a device object never changes).
func newInventoryWith(st *dra.State, classes []*resourceapi.DeviceClass, m *matcher, known map[*resourceapi.Device]map[string]bool) *inventory {
	inv := &inventory{byNode: map[string][]*device{}, nodeLocal: true, classes: classes, matcher: m}

	slices := newestGeneration(st.Slices())
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
		perDevice := ptr.Deref(sl.Spec.PerDeviceNodeSelection, false)
		for i := range sl.Spec.Devices {
			d := &sl.Spec.Devices[i]
			node := sliceNode
			if perDevice {
				node = ptr.Deref(d.NodeName, "")
			}
			dv := &device{key: devKey{sl.Spec.Driver, sl.Spec.Pool.Name, d.Name}, node: node, dev: d}
			if cl, ok := known[d]; ok {
				dv.classes = cl
			} else {
				dv.classes = inv.matcher.classesOf(dv)
				if known != nil {
					known[d] = dv.classes
				}
			}
			inv.devices = append(inv.devices, dv)
			if node != "" {
				inv.byNode[node] = append(inv.byNode[node], dv)
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

	exclusive, shared := allocatedDevices(st)
	for _, d := range inv.devices {
		switch {
		case exclusive[d.key]:
			d.state = stateAllocated
		case shared[d.key]:
			d.state, d.shared = stateAllocated, true
		}
		for _, cc := range d.dev.ConsumesCounters {
			if set := sets[counterSetKey{d.key.driver, d.key.pool, cc.CounterSet}]; set != nil {
				set.consumers = append(set.consumers, d)
			}
		}
		if d.state != stateAllocated {
			continue
		}
		for _, cc := range d.dev.ConsumesCounters {
			set := sets[counterSetKey{d.key.driver, d.key.pool, cc.CounterSet}]
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
	inv.warnings = append(inv.warnings, inv.matcher.warnings...)
	return inv
}

// countersFit reports whether the counters a device consumes are still
// free in every set it draws on. A set the pool does not publish can never
// be satisfied.
func countersFit(d *device, sets map[counterSetKey]*counterSet) bool {
	for _, cc := range d.dev.ConsumesCounters {
		set := sets[counterSetKey{d.key.driver, d.key.pool, cc.CounterSet}]
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

// allocatedDevices returns the devices named by the claims' allocation
// results, split into exclusive and shared (consumable-capacity) use.
// adminAccess results leave a device available, as in the allocator.
func allocatedDevices(st *dra.State) (exclusive, shared map[devKey]bool) {
	exclusive, shared = map[devKey]bool{}, map[devKey]bool{}
	for _, c := range st.Claims() {
		if c.Status.Allocation == nil {
			continue
		}
		for _, r := range c.Status.Allocation.Devices.Results {
			if ptr.Deref(r.AdminAccess, false) {
				continue
			}
			k := devKey{r.Driver, r.Pool, r.Device}
			if r.ShareID != nil {
				shared[k] = true
			} else {
				exclusive[k] = true
			}
		}
	}
	return exclusive, shared
}

// newestGeneration keeps the slices of each pool's newest generation, in
// their order: the allocator ignores older ones.
func newestGeneration(slices []*resourceapi.ResourceSlice) []*resourceapi.ResourceSlice {
	type poolKey struct{ driver, pool string }
	gen := map[poolKey]int64{}
	for _, sl := range slices {
		k := poolKey{sl.Spec.Driver, sl.Spec.Pool.Name}
		if g, ok := gen[k]; !ok || sl.Spec.Pool.Generation > g {
			gen[k] = sl.Spec.Pool.Generation
		}
	}
	out := make([]*resourceapi.ResourceSlice, 0, len(slices))
	for _, sl := range slices {
		if sl.Spec.Pool.Generation == gen[poolKey{sl.Spec.Driver, sl.Spec.Pool.Name}] {
			out = append(out, sl)
		}
	}
	return out
}

// matcher evaluates DeviceClass and request selectors with the CEL
// environment the scheduler uses (k8s.io/dynamic-resource-allocation/cel),
// stopping at the first selector that is false, as the allocator does. A
// selector that fails to compile or to evaluate matches nothing; the
// allocator would fail the claim, so the class can serve no one either.
type matcher struct {
	ctx      context.Context
	cache    *cel.Cache
	classes  []*resourceapi.DeviceClass
	compiled map[string]dra.Selectors
	broken   map[string]bool
	warnings []string
	// evalErrors remembers classes whose selectors failed at runtime, so
	// that each is reported once.
	evalErrors map[string]bool
}

func newMatcher(ctx context.Context, gates dra.Gates, classes []*resourceapi.DeviceClass) *matcher {
	m := &matcher{
		ctx:        ctx,
		cache:      cel.NewCache(64, gates.CELFeatures()),
		classes:    classes,
		compiled:   map[string]dra.Selectors{},
		broken:     map[string]bool{},
		evalErrors: map[string]bool{},
	}
	for _, c := range classes {
		exprs, err := m.compile(c.Spec.Selectors)
		if err != nil {
			m.broken[c.Name] = true
			m.warnings = append(m.warnings, fmt.Sprintf("DeviceClass %s: %v; it matches no device", c.Name, err))
			continue
		}
		m.compiled[c.Name] = exprs
	}
	return m
}

func (m *matcher) compile(sels []resourceapi.DeviceSelector) (dra.Selectors, error) {
	return dra.CompileSelectors(m.cache, sels)
}

func (m *matcher) eval(exprs dra.Selectors, d *device) (bool, error) {
	return exprs.Match(m.ctx, d.key.driver, d.key.String(), d.dev)
}

func (m *matcher) classesOf(d *device) map[string]bool {
	out := map[string]bool{}
	for _, c := range m.classes {
		if m.broken[c.Name] {
			continue
		}
		ok, err := m.eval(m.compiled[c.Name], d)
		if err != nil {
			if !m.evalErrors[c.Name] {
				m.evalErrors[c.Name] = true
				m.warnings = append(m.warnings, fmt.Sprintf("DeviceClass %s: %v; such devices do not match", c.Name, err))
			}
			continue
		}
		if ok {
			out[c.Name] = true
		}
	}
	return out
}

// selects reports whether a request alternative (its class and its own
// selectors) selects the device.
func (m *matcher) selects(alt requestAlternative, d *device) bool {
	if !d.classes[alt.class] {
		return false
	}
	if len(alt.selectors) == 0 {
		return true
	}
	exprs, err := m.compile(alt.selectors)
	if err != nil {
		return false
	}
	ok, err := m.eval(exprs, d)
	return err == nil && ok
}
