package whatif

import (
	"fmt"
	"slices"
	"strings"

	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
)

// taintDevices adds a DeviceTaintRule. With NoExecute it also does what
// the device-taint eviction controller does: every scheduled pod using a
// tainted device through a claim whose allocation does not tolerate the
// taint is deleted (PodDisruptionBudgets do not apply; a toleration with
// tolerationSeconds only delays it) and its replacement is queued.
func (e *editor) taintDevices(ed *Edit) error {
	t := ed.TaintDevices
	e.rules++
	name := t.Name
	if name == "" {
		name = fmt.Sprintf("drasim-whatif-%d", e.rules)
	}
	for _, r := range e.s.DeviceTaintRules {
		if r.Name == name {
			return ed.errorf("name", "a DeviceTaintRule %q is already in the snapshot", name)
		}
	}
	rule := &resourceapi.DeviceTaintRule{
		TypeMeta:   metav1.TypeMeta{APIVersion: resourceapi.SchemeGroupVersion.String(), Kind: "DeviceTaintRule"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       resourceapi.DeviceTaintRuleSpec{DeviceSelector: t.DeviceSelector.DeepCopy(), Taint: t.Taint},
	}
	e.s.DeviceTaintRules = append(e.s.DeviceTaintRules, rule)
	e.owned[rule] = true
	e.addSource(snapshot.Ref{Kind: "DeviceTaintRule", Name: name}, false)
	for _, sl := range e.s.ResourceSlices {
		for _, d := range sl.Spec.Devices {
			if ruleSelects(rule, sl.Spec.Driver, sl.Spec.Pool.Name, d.Name) {
				e.out.Devices++
			}
		}
	}
	e.out.Description = fmt.Sprintf("taint %d device(s) (%s) with %s", e.out.Devices, describeSelector(rule.Spec.DeviceSelector), describeTaint(t.Taint))
	if e.out.Devices == 0 {
		e.warnf("the DeviceTaintRule selects no device")
	}
	if t.Taint.Effect != resourceapi.DeviceTaintEffectNoExecute {
		return nil
	}
	e.requeueUsers(func(r resourceapi.DeviceRequestAllocationResult) bool {
		return ruleSelects(rule, r.Driver, r.Pool, r.Device) && !toleratesForever(r.Tolerations, t.Taint)
	})
	return nil
}

// requeueUsers queues again every scheduled pod with a claim allocation
// result that uses says it must give up.
func (e *editor) requeueUsers(uses func(resourceapi.DeviceRequestAllocationResult) bool) {
	for i, p := range e.s.Pods {
		if p.Spec.NodeName == "" || terminated(p) {
			continue
		}
		found := false
		for _, c := range e.podClaims(p) {
			found = found || slices.ContainsFunc(c.Status.Allocation.Devices.Results, uses)
		}
		if found {
			e.requeue(i)
		}
	}
}

// toleratesForever reports whether an allocation's tolerations keep the
// pod despite a NoExecute taint: a matching toleration without
// tolerationSeconds (with tolerationSeconds the pod goes, only later).
func toleratesForever(tolerations []resourceapi.DeviceToleration, taint resourceapi.DeviceTaint) bool {
	for _, tol := range tolerations {
		if tol.Effect == resourceapi.DeviceTaintEffectNoExecute && resourceclaim.ToleratesTaint(tol, taint) && tol.TolerationSeconds == nil {
			return true
		}
	}
	return false
}

func ruleSelects(r *resourceapi.DeviceTaintRule, driver, pool, device string) bool {
	sel := r.Spec.DeviceSelector
	if sel == nil {
		return false
	}
	return (sel.Driver == nil || *sel.Driver == driver) && (sel.Pool == nil || *sel.Pool == pool) && (sel.Device == nil || *sel.Device == device)
}

func describeSelector(sel *resourceapi.DeviceTaintSelector) string {
	var parts []string
	for _, f := range []struct {
		name string
		v    *string
	}{{"driver", sel.Driver}, {"pool", sel.Pool}, {"device", sel.Device}} {
		if f.v != nil {
			parts = append(parts, f.name+" "+*f.v)
		}
	}
	return strings.Join(parts, ", ")
}

func describeTaint(t resourceapi.DeviceTaint) string {
	s := t.Key
	if t.Value != "" {
		s += "=" + t.Value
	}
	return s + ":" + string(t.Effect)
}

// podClaims returns the pod's allocated claims that are reserved for it,
// as the device-taint eviction controller looks at them.
func (e *editor) podClaims(p *v1.Pod) []*resourceapi.ResourceClaim {
	var out []*resourceapi.ResourceClaim
	uid := podUID(p)
	for name := range resourceclaim.PodClaims(p) {
		i := e.claimIndex(p.Namespace, name)
		if i < 0 {
			continue
		}
		c := e.s.ResourceClaims[i]
		if c.Status.Allocation == nil {
			continue
		}
		if !slices.ContainsFunc(c.Status.ReservedFor, func(r resourceapi.ResourceClaimConsumerReference) bool { return r.UID == uid }) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// removeDriver deletes a driver's ResourceSlices (all pools or the ones
// named). The pods whose claims hold devices of those pools are queued
// again: kube would leave them running on devices that no longer exist,
// which is not the question a what-if asks.
func (e *editor) removeDriver(ed *Edit) error {
	r := ed.RemoveDriver
	pools := map[string]bool{}
	for _, p := range r.Pools {
		pools[p] = true
	}
	removed := map[[2]string]bool{}
	seenPool := map[string]bool{}
	for _, sl := range e.s.ResourceSlices {
		if sl.Spec.Driver != r.Driver {
			continue
		}
		seenPool[sl.Spec.Pool.Name] = true
		if len(pools) > 0 && !pools[sl.Spec.Pool.Name] {
			continue
		}
		e.deadSlices[sl] = true
		removed[[2]string{sl.Spec.Driver, sl.Spec.Pool.Name}] = true
		e.out.Devices += len(sl.Spec.Devices)
	}
	if len(seenPool) == 0 {
		return ed.errorf("driver", "no ResourceSlice of driver %q in the snapshot", r.Driver)
	}
	for i, p := range r.Pools {
		if !seenPool[p] {
			return ed.errorf(fmt.Sprintf("pools[%d]", i), "driver %q has no pool %q in the snapshot", r.Driver, p)
		}
	}
	what := "every pool"
	if len(r.Pools) > 0 {
		what = "pool(s) " + strings.Join(r.Pools, ", ")
	}
	e.out.Description = fmt.Sprintf("remove %s of driver %s (%d device(s))", what, r.Driver, e.out.Devices)
	e.requeueUsers(func(res resourceapi.DeviceRequestAllocationResult) bool {
		return removed[[2]string{res.Driver, res.Pool}]
	})
	if len(e.out.Evicted) > 0 {
		e.warnf("kube would leave the %d pod(s) using the removed devices running; drasim queues them again", len(e.out.Evicted))
	}
	return nil
}
