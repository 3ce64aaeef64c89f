package autoscale

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/inventory"
	"github.com/drasim/drasim/sim/nodegroup"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
)

// verdict is why one group does, or does not, help one equivalence group.
type verdict struct {
	group  string
	plugin string
	reason string
	// template: the group's template node rejects the pod, so no number
	// of new nodes of the group helps it.
	template bool
	// fits: the group's estimate places the pods.
	fits  bool
	short *shortfall
}

// shortfall is a device request that a template cannot satisfy, in
// numbers: what the claim needs and the most the template offers.
type shortfall struct {
	claim   string
	need    string
	offered int
	per     string
}

func (s *shortfall) text(offeredBy string) string {
	return fmt.Sprintf("claim %s needs %s; %s offers %d%s", s.claim, s.need, offeredBy, s.offered, s.per)
}

// templateVerdict explains a rejection on a group's template node. For
// DynamicResources it asks the plugin's diagnosis which claim and request
// failed, and counts what the template offers for it.
func templateVerdict(ctx context.Context, k *checker, m *inventory.Matcher, g *nodegroup.Group, pod *v1.Pod, cy *cycle, st *framework.Status, node string) verdict {
	v := verdict{group: g.Name, plugin: st.Plugin(), template: true, reason: strings.Join(st.Reasons(), ", ")}
	if st.Plugin() != dra.Name || cy == nil || cy.rejected != nil {
		return v
	}
	findings := k.dra.Diagnose(ctx, cy.state, k.c.Node(node).Node())
	if len(findings) == 0 {
		return v
	}
	claims := map[string]*resourceapi.ResourceClaim{}
	if list, err := k.dra.PodClaims(pod); err == nil {
		for _, c := range list {
			claims[c.Name] = c
		}
	}
	label := podClaimNames(pod)
	var parts []string
	var shorts []*shortfall
	for _, f := range findings {
		name := f.Claim
		if l, ok := label[f.Claim]; ok {
			name = l
		}
		var s *shortfall
		if c := claims[f.Claim]; c != nil {
			s = explainShortfall(m, g, c, name, f)
		}
		if s != nil {
			shorts = append(shorts, s)
			parts = append(parts, s.text("the template"))
			continue
		}
		where := "claim " + name
		if f.Request != "" {
			where += ", request " + f.Request
		}
		parts = append(parts, where+": "+f.Reason)
	}
	v.reason = strings.Join(parts, "; ")
	if len(findings) == 1 && len(shorts) == 1 {
		v.short = shorts[0]
	}
	return v
}

// podClaimNames maps claim object names to the pod's names for them.
func podClaimNames(pod *v1.Pod) map[string]string {
	out := map[string]string{}
	for _, st := range pod.Status.ResourceClaimStatuses {
		if st.ResourceClaimName != nil {
			out[*st.ResourceClaimName] = st.Name
		}
	}
	for _, pc := range pod.Spec.ResourceClaims {
		if pc.ResourceClaimName != nil {
			out[*pc.ResourceClaimName] = pc.Name
		}
	}
	return out
}

// templateDevices calls f for every device of the group's template.
func templateDevices(g *nodegroup.Group, f func(d inventory.Device)) {
	for _, sl := range g.Slices {
		for i := range sl.Spec.Devices {
			f(inventory.DeviceOf(sl, &sl.Spec.Devices[i]))
		}
	}
}

// explainShortfall counts, for a request with too few matching devices or
// a matchAttribute constraint that cannot be met, what the claim needs and
// what the template offers. It returns nil when it cannot put the failure
// in numbers (prioritized lists, allocationMode All, other reasons).
func explainShortfall(m *inventory.Matcher, g *nodegroup.Group, c *resourceapi.ResourceClaim, name string, f dra.Finding) *shortfall {
	exact := func(reqName string) *resourceapi.ExactDeviceRequest {
		for _, r := range c.Spec.Devices.Requests {
			if r.Name == reqName && r.Exactly != nil && r.Exactly.AllocationMode != resourceapi.DeviceAllocationModeAll {
				return r.Exactly
			}
		}
		return nil
	}
	switch {
	case f.Request != "" && f.Code == dra.FindingNoMatchingDevices:
		r := exact(f.Request)
		if r == nil {
			return nil
		}
		offered := 0
		templateDevices(g, func(d inventory.Device) {
			if m.Selects(r.DeviceClassName, name+"/"+f.Request, r.Selectors, d) {
				offered++
			}
		})
		return &shortfall{claim: name + ", request " + f.Request, need: fmt.Sprintf("%d device(s) of class %s", max(r.Count, 1), r.DeviceClassName), offered: offered}
	case f.Code == dra.FindingConstraint:
		for _, con := range c.Spec.Devices.Constraints {
			if con.MatchAttribute == nil {
				continue
			}
			scope := con.Requests
			if len(scope) == 0 {
				for _, r := range c.Spec.Devices.Requests {
					scope = append(scope, r.Name)
				}
			}
			var reqs []*resourceapi.ExactDeviceRequest
			need := int64(0)
			for _, rn := range scope {
				r := exact(rn)
				if r == nil {
					reqs = nil
					break
				}
				reqs = append(reqs, r)
				need += max(r.Count, 1)
			}
			if len(reqs) == 0 {
				continue
			}
			perValue := map[string]int{}
			templateDevices(g, func(d inventory.Device) {
				val, ok := attributeValue(d.ID.Driver, d.Device, *con.MatchAttribute)
				if !ok {
					return
				}
				for i, r := range reqs {
					if m.Selects(r.DeviceClassName, name+"/"+scope[i], r.Selectors, d) {
						perValue[val]++
						return
					}
				}
			})
			most := 0
			for _, n := range perValue {
				most = max(most, n)
			}
			if int64(most) >= need {
				continue
			}
			return &shortfall{claim: name, need: fmt.Sprintf("%d devices with matchAttribute %s", need, *con.MatchAttribute), offered: most, per: " per value"}
		}
	}
	return nil
}

// attributeValue returns a device attribute by its fully qualified name;
// an attribute without a domain belongs to the driver's domain.
func attributeValue(driver string, d *resourceapi.Device, full resourceapi.FullyQualifiedName) (string, bool) {
	a, ok := d.Attributes[resourceapi.QualifiedName(full)]
	if !ok {
		domain, id, found := strings.Cut(string(full), "/")
		if found && domain == driver {
			a, ok = d.Attributes[resourceapi.QualifiedName(id)]
		}
	}
	if !ok {
		return "", false
	}
	switch {
	case a.IntValue != nil:
		return fmt.Sprintf("int:%d", *a.IntValue), true
	case a.BoolValue != nil:
		return fmt.Sprintf("bool:%t", *a.BoolValue), true
	case a.StringValue != nil:
		return "string:" + *a.StringValue, true
	case a.VersionValue != nil:
		return "version:" + *a.VersionValue, true
	}
	return "", false
}

// summarize puts the groups' verdicts for a pod in one sentence.
func summarize(vs []verdict) string {
	if len(vs) == 0 {
		return "no NodeGroup"
	}
	// Every template falls short in numbers: say what the best one offers
	// for the hardest part. A template that has the devices but not with
	// the same attribute got further than one that lacks the devices.
	var best *verdict
	for i := range vs {
		v := &vs[i]
		if v.short == nil {
			best = nil
			break
		}
		switch {
		case best == nil:
			best = v
		case (v.short.per != "") != (best.short.per != ""):
			if v.short.per != "" {
				best = v
			}
		case v.short.offered > best.short.offered:
			best = v
		}
	}
	same := best != nil
	for _, v := range vs {
		if same && v.short.per == best.short.per && (v.short.claim != best.short.claim || v.short.need != best.short.need) {
			same = false
		}
	}
	if same {
		by := fmt.Sprintf("the template of group %s", best.group)
		if len(vs) > 1 {
			by = fmt.Sprintf("the largest template (group %s)", best.group)
		}
		return best.short.text(by)
	}
	reasons := map[string][]string{}
	var order []string
	for _, v := range vs {
		if _, ok := reasons[v.reason]; !ok {
			order = append(order, v.reason)
		}
		reasons[v.reason] = append(reasons[v.reason], v.group)
	}
	if len(order) == 1 {
		return order[0]
	}
	parts := make([]string, 0, len(order))
	for _, r := range order {
		groups := reasons[r]
		sort.Strings(groups)
		parts = append(parts, strings.Join(groups, ", ")+": "+r)
	}
	return strings.Join(parts, "; ")
}
