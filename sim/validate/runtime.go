package validate

import (
	"context"
	"fmt"
	"slices"

	"github.com/drasim/drasim/sim/snapshot"
	resourceapi "k8s.io/api/resource/v1"
)

// checkRequestsAtRuntime looks for requests that the API server accepts
// but that make the allocator fail with an error instead of a verdict:
// kube-scheduler then fails every scheduling attempt of the pods using the
// claim (PodScheduled reason SchedulerError) and retries them forever.
// Two causes are found on the snapshot's devices: a request selector that
// reads an attribute or capacity a device of its class lacks (a CEL
// runtime error), and a claim that needs more devices than a claim may
// hold (resourceapi.AllocationResultsMaxSize).
func (v *validator) checkRequestsAtRuntime() {
	for _, c := range v.s.ResourceClaims {
		if c == nil || c.Status.Allocation != nil {
			continue
		}
		t := v.targetFor(snapshot.Ref{Kind: "ResourceClaim", Namespace: c.Namespace, Name: c.Name})
		v.checkSpecAtRuntime(t, "spec", &c.Spec)
	}
	for _, c := range v.s.ResourceClaimTemplates {
		if c == nil {
			continue
		}
		t := v.targetFor(snapshot.Ref{Kind: "ResourceClaimTemplate", Namespace: c.Namespace, Name: c.Name})
		v.checkSpecAtRuntime(t, "spec.spec", &c.Spec.Spec)
	}
}

func (v *validator) checkSpecAtRuntime(t target, path string, spec *resourceapi.ResourceClaimSpec) {
	rp := path + ".devices.requests"
	total := 0
	for i := range spec.Devices.Requests {
		r := &spec.Devices.Requests[i]
		p := idx(rp, i)
		if e := r.Exactly; e != nil {
			v.checkSelectorsAtRuntime(t, p+".exactly", e.DeviceClassName, e.Selectors)
			total += v.checkCountAtRuntime(t, p+".exactly", e.DeviceClassName, e.Selectors, e.AllocationMode, e.Count)
		}
		for j := range r.FirstAvailable {
			s := &r.FirstAvailable[j]
			sp := idx(p+".firstAvailable", j)
			v.checkSelectorsAtRuntime(t, sp, s.DeviceClassName, s.Selectors)
			v.checkCountAtRuntime(t, sp, s.DeviceClassName, s.Selectors, s.AllocationMode, s.Count)
		}
	}
	if total > resourceapi.AllocationResultsMaxSize {
		v.warnf(t, rp, CodeClaimOverDeviceLimit,
			"the requests ask for %d devices in all, more than the %d a claim may hold: the allocator fails every attempt to schedule a pod with this claim "+
				"(PodScheduled reason SchedulerError, retried forever); split the claim", total, resourceapi.AllocationResultsMaxSize)
	}
}

// checkCountAtRuntime warns about one request (or subrequest) over the
// per-claim device limit and returns its ExactCount count (0 otherwise).
func (v *validator) checkCountAtRuntime(t target, path, class string, selectors []resourceapi.DeviceSelector, mode resourceapi.DeviceAllocationMode, count int64) int {
	switch mode {
	case resourceapi.DeviceAllocationModeAll:
		node, n := v.mostMatchingOnANode(class, selectors)
		if n > resourceapi.AllocationResultsMaxSize {
			v.warnf(t, path+".allocationMode", CodeClaimOverDeviceLimit,
				"allocationMode All asks for every matching device, and node %s has %d of them, more than the %d a claim may hold: "+
					"when the scheduler tries that node the allocator fails with an error and the pod's attempt fails (PodScheduled reason SchedulerError)",
				node, n, resourceapi.AllocationResultsMaxSize)
		}
		return 0
	default:
		if count > resourceapi.AllocationResultsMaxSize {
			v.warnf(t, path+".count", CodeClaimOverDeviceLimit,
				"count %d is more than the %d devices a claim may hold: the allocator fails every attempt to schedule a pod with this claim "+
					"(PodScheduled reason SchedulerError, retried forever)", count, resourceapi.AllocationResultsMaxSize)
			return 0 // reported on its own
		}
		if count <= 0 {
			return 1 // defaulted (or rejected elsewhere)
		}
		return int(count)
	}
}

// checkSelectorsAtRuntime evaluates a request's own selectors on the
// devices its class selects, as the allocator does, and warns once per
// selector that fails on one of them.
func (v *validator) checkSelectorsAtRuntime(t target, path, class string, selectors []resourceapi.DeviceSelector) {
	matched, ok := v.classMatched[class]
	if !ok || len(selectors) == 0 {
		return
	}
	ctx := context.Background()
	for k, sel := range selectors {
		one, ok := v.evaluable(selectors[k : k+1])
		if !ok {
			continue // reported by the spec checks
		}
		failed, first := 0, ""
		var firstErr error
		for _, di := range matched {
			if _, cerr := one.Match(ctx, v.devices[di].dev); cerr != nil {
				if failed == 0 {
					first, firstErr = v.devices[di].id, cerr.Err
				}
				failed++
			}
		}
		if failed == 0 {
			continue
		}
		others := ""
		if failed > 1 {
			others = fmt.Sprintf(" (and on %d more devices)", failed-1)
		}
		v.warnf(t, idx(path+".selectors", k)+".cel.expression", CodeCELRuntime,
			"CEL expression %q fails on device %s of DeviceClass %q%s: %v; the allocator then fails the scheduling attempt of any pod using this request "+
				"(PodScheduled reason SchedulerError) on every node where it meets such a device",
			sel.CEL.Expression, first, class, others, firstErr)
	}
}

// mostMatchingOnANode returns the node with the most devices that the class
// and the selectors select (local devices plus those of slices for all
// nodes), and how many. Selectors that fail count as not matching.
func (v *validator) mostMatchingOnANode(class string, selectors []resourceapi.DeviceSelector) (string, int) {
	matched, ok := v.classMatched[class]
	if !ok {
		return "", 0
	}
	sels, ok := v.evaluable(selectors)
	if !ok {
		return "", 0
	}
	ctx := context.Background()
	perNode := map[string]int{}
	everywhere := 0
	for _, di := range matched {
		d := v.devices[di]
		if d.node == "" && !d.allNodes {
			continue // pools selected by node labels: not counted
		}
		if match, cerr := sels.Match(ctx, d.dev); cerr != nil || !match {
			continue
		}
		if d.allNodes {
			everywhere++
		} else {
			perNode[d.node]++
		}
	}
	best, n := "", 0
	nodes := make([]string, 0, len(perNode))
	for name := range perNode {
		nodes = append(nodes, name)
	}
	slices.Sort(nodes)
	for _, name := range nodes {
		if perNode[name] > n {
			best, n = name, perNode[name]
		}
	}
	if best == "" && everywhere > 0 {
		best = "(every node)"
	}
	return best, n + everywhere
}
