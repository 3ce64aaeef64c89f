package fill

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/inventory"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"
)

// milli is a whole device in the experiment's unit: the paper counts GPUs
// in milli-GPUs, and a share of a device with consumable capacity is its
// consumed fraction of that capacity in thousandths.
const milli = 1000

// stock is the capacity the experiment fills: the devices attached to
// one node each, in inventory order.
type stock struct {
	m       *inventory.Matcher
	devices []device
	byID    map[inventory.DeviceID]int
	// nodes are the nodes with devices, each with its devices' indices.
	nodes  []string
	ofNode map[string][]int
	// capacityOf is, per capacity name, the largest capacity a device
	// offers: the size of a whole device when a request asks for a share.
	capacityOf map[resourceapi.QualifiedName]resource.Quantity
	classes    map[string]bool
	templates  map[string]*resourceapi.ResourceClaimTemplate
	claims     map[string]*resourceapi.ResourceClaim
	// celKeys are the devices' CEL-visible content (celKey).
	celKeys []string
}

type device struct {
	inventory.Device
	node string
}

func newInventory(ctx context.Context, snap *snapshot.Snapshot, gates feature.Gates, class string) (*stock, error) {
	inv := &stock{m: inventory.NewMatcher(ctx, gates, snap.DeviceClasses), byID: map[inventory.DeviceID]int{}, ofNode: map[string][]int{},
		capacityOf: map[resourceapi.QualifiedName]resource.Quantity{}, classes: map[string]bool{},
		templates: map[string]*resourceapi.ResourceClaimTemplate{}, claims: map[string]*resourceapi.ResourceClaim{}}
	if class != "" && inv.m.Class(class) == nil {
		return nil, fmt.Errorf("device class %s: no such DeviceClass in the input", class)
	}
	nodes := map[string]bool{}
	for _, n := range snap.Nodes {
		nodes[n.Name] = true
	}
	for _, d := range inventory.Devices(inventory.Current(snap.ResourceSlices)) {
		if d.Node == "" || !nodes[d.Node] {
			continue
		}
		if class != "" {
			if ok, _ := inv.m.ClassSelects(class, d); !ok {
				continue
			}
		}
		inv.byID[d.ID] = len(inv.devices)
		if _, seen := inv.ofNode[d.Node]; !seen {
			inv.nodes = append(inv.nodes, d.Node)
		}
		inv.ofNode[d.Node] = append(inv.ofNode[d.Node], len(inv.devices))
		inv.devices = append(inv.devices, device{Device: d, node: d.Node})
		for name, c := range d.Device.Capacity {
			if have, ok := inv.capacityOf[name]; !ok || c.Value.Cmp(have) > 0 {
				inv.capacityOf[name] = c.Value
			}
		}
	}
	// A class counts when it selects a counted device.
	for _, c := range inv.m.Classes() {
		for _, d := range inv.devices {
			if ok, _ := inv.m.ClassSelects(c.Name, d.Device); ok {
				inv.classes[c.Name] = true
				break
			}
		}
	}
	for _, t := range snap.ResourceClaimTemplates {
		inv.templates[t.Namespace+"/"+t.Name] = t
	}
	for _, c := range snap.ResourceClaims {
		inv.claims[c.Namespace+"/"+c.Name] = c
	}
	return inv, nil
}

// capacity is the device capacity in milli-devices.
func (inv *stock) capacity() int64 { return int64(len(inv.devices)) * milli }

// request is what a pod asks for, as the experiment counts it.
type request struct {
	milliCPU int64
	// devices of milliDevice each, per device request of a counted class.
	parts []part
}

type part struct {
	count, milliDevice int64
	class              string
	selectors          []resourceapi.DeviceSelector
}

// total is the request in milli-devices.
func (r request) total() int64 {
	var t int64
	for _, p := range r.parts {
		t += p.count * p.milliDevice
	}
	return t
}

// devices and milliDevice summarize the request as the paper's pods are:
// a number of devices of one share each (the first part's share).
func (r request) devices() int64 {
	var n int64
	for _, p := range r.parts {
		n += p.count
	}
	return n
}

func (r request) milliDevice() int64 {
	if len(r.parts) == 0 {
		return 0
	}
	return r.parts[0].milliDevice
}

// requestOf reads a pod's request: CPU with kube's non-zero default (the
// paper's simulator uses GetNonzeroRequests), and, per device request of
// its claims whose class selects counted devices, the count and the share
// of each device. A share is the requested consumable capacity over the
// largest capacity of that name a device offers; a request without
// capacity takes whole devices. A prioritized list counts its first
// subrequest; allocationMode All counts one device.
func (inv *stock) requestOf(pod *v1.Pod) (request, error) {
	var r request
	var cpu int64
	for _, c := range pod.Spec.Containers {
		if q, ok := c.Resources.Requests[v1.ResourceCPU]; ok {
			cpu += q.MilliValue()
		} else {
			cpu += framework.DefaultMilliCPURequest
		}
	}
	if cpu == 0 {
		cpu = framework.DefaultMilliCPURequest
	}
	r.milliCPU = cpu
	for _, pc := range pod.Spec.ResourceClaims {
		var spec *resourceapi.ResourceClaimSpec
		switch {
		case pc.ResourceClaimTemplateName != nil:
			t := inv.templates[pod.Namespace+"/"+*pc.ResourceClaimTemplateName]
			if t == nil {
				return r, fmt.Errorf("pod %s/%s: claim %s: ResourceClaimTemplate %s/%s is not in the input", pod.Namespace, pod.Name, pc.Name, pod.Namespace, *pc.ResourceClaimTemplateName)
			}
			spec = &t.Spec.Spec
		case pc.ResourceClaimName != nil:
			c := inv.claims[pod.Namespace+"/"+*pc.ResourceClaimName]
			if c == nil {
				return r, fmt.Errorf("pod %s/%s: claim %s: ResourceClaim %s/%s is not in the input", pod.Namespace, pod.Name, pc.Name, pod.Namespace, *pc.ResourceClaimName)
			}
			spec = &c.Spec
		default:
			continue
		}
		for _, dr := range spec.Devices.Requests {
			ex := dr.Exactly
			if ex == nil && len(dr.FirstAvailable) > 0 {
				sub := dr.FirstAvailable[0]
				ex = &resourceapi.ExactDeviceRequest{DeviceClassName: sub.DeviceClassName, Selectors: sub.Selectors, AllocationMode: sub.AllocationMode, Count: sub.Count, Capacity: sub.Capacity}
			}
			if ex == nil || !inv.classes[ex.DeviceClassName] {
				continue
			}
			count := ex.Count
			if ex.AllocationMode == resourceapi.DeviceAllocationModeAll || count == 0 {
				count = 1
			}
			r.parts = append(r.parts, part{count: count, milliDevice: inv.share(ex.Capacity), class: ex.DeviceClassName, selectors: ex.Selectors})
		}
	}
	return r, nil
}

// share is the milli-devices of one device a capacity request takes: the
// largest fraction over the names it asks for.
func (inv *stock) share(c *resourceapi.CapacityRequirements) int64 {
	if c == nil || len(c.Requests) == 0 {
		return milli
	}
	var best int64
	for name, q := range c.Requests {
		whole, ok := inv.capacityOf[name]
		if !ok || whole.IsZero() {
			continue
		}
		best = max(best, fraction(q, whole))
	}
	if best == 0 || best > milli {
		return milli
	}
	return best
}

// fraction is q/whole in thousandths, rounded up (a share never rounds
// to nothing).
func fraction(q, whole resource.Quantity) int64 {
	a, b := q.MilliValue(), whole.MilliValue()
	if b <= 0 {
		return milli
	}
	return (a*milli + b - 1) / b
}

// shapeKey names a request shape for the typical mix.
func (r request) shapeKey() string {
	key := fmt.Sprintf("cpu=%dm", r.milliCPU)
	for _, p := range r.parts {
		key = keyOf(key, fmt.Sprintf("%s×%d@%d", p.class, p.count, p.milliDevice))
		for _, s := range p.selectors {
			if s.CEL != nil {
				key = keyOf(key, s.CEL.Expression)
			}
		}
	}
	return key
}

// selects reports, per counted device, whether every part of the request
// could take it (its class and selectors select it); nil when the request
// has no device part.
//
// A selector sees only what CEL sees of a device (its driver, attributes,
// capacity and allowMultipleAllocations), so the answer is evaluated once
// per distinct such content: openb's 6,212 GPUs are a handful of models.
func (inv *stock) selects(r request) []bool {
	if len(r.parts) == 0 {
		return nil
	}
	out := make([]bool, len(inv.devices))
	seen := map[string]bool{}
	for i, d := range inv.devices {
		key := inv.celKey(i)
		ok, known := seen[key]
		if !known {
			for _, p := range r.parts {
				if inv.m.Selects(p.class, "", p.selectors, d.Device) {
					ok = true
					break
				}
			}
			seen[key] = ok
		}
		out[i] = ok
	}
	return out
}

// celKey is the content of counted device i that CEL selectors see,
// computed once per device.
func (inv *stock) celKey(i int) string {
	if inv.celKeys == nil {
		inv.celKeys = make([]string, len(inv.devices))
	}
	if k := inv.celKeys[i]; k != "" {
		return k
	}
	d := inv.devices[i].Device
	var b strings.Builder
	b.WriteString(d.ID.Driver)
	fmt.Fprintf(&b, "\x00%v", ptr.Deref(d.Device.AllowMultipleAllocations, false))
	for _, name := range slices.Sorted(maps.Keys(d.Device.Attributes)) {
		a := d.Device.Attributes[name]
		fmt.Fprintf(&b, "\x00a%s=%v|%v|%v|%v", name, ptr.Deref(a.IntValue, 0), ptr.Deref(a.BoolValue, false), ptr.Deref(a.StringValue, "\x01"), ptr.Deref(a.VersionValue, "\x01"))
	}
	for _, name := range slices.Sorted(maps.Keys(d.Device.Capacity)) {
		c := d.Device.Capacity[name]
		fmt.Fprintf(&b, "\x00c%s=%s", name, c.Value.String())
		if c.RequestPolicy != nil {
			policy, _ := json.Marshal(c.RequestPolicy)
			b.Write(policy)
		}
	}
	inv.celKeys[i] = b.String()
	return inv.celKeys[i]
}

// sortedNames is the capacity names of a map, sorted.
func sortedNames(m map[resourceapi.QualifiedName]resource.Quantity) []resourceapi.QualifiedName {
	out := make([]resourceapi.QualifiedName, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
