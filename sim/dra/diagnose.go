package dra

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/drasim/drasim/sim/framework"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/structured"
)

// Finding says why one request (or one claim as a whole) of a pod cannot be
// allocated on a node.
type Finding struct {
	Claim   string `json:"claim"`
	Request string `json:"request,omitempty"`
	// Code is the kind of failure: what code that reacts to a finding
	// switches on. It is not part of the JSON documents (yet), which carry
	// Reason alone.
	Code   FindingCode `json:"-"`
	Reason string      `json:"reason"`
}

// FindingCode is the kind of a Finding.
type FindingCode string

// The kinds of findings. Each has its sentence among the Diag texts,
// except FindingAllocatorError, whose Reason is the allocator's error.
const (
	// FindingNoMatchingDevices: the request fails even on the node with
	// nothing allocated (Reason DiagNoMatchingDevices).
	FindingNoMatchingDevices FindingCode = "NoMatchingDevices"
	// FindingTainted: the request fits an empty node only when device
	// taints are ignored (DiagTainted).
	FindingTainted FindingCode = "Tainted"
	// FindingInUse: the request fits the empty node but not what is left
	// of it (DiagInUse).
	FindingInUse FindingCode = "InUse"
	// FindingConstraint: the claim fits without its constraints; Reason is
	// DiagConstraint followed by the constraints in parentheses.
	FindingConstraint FindingCode = "Constraint"
	// FindingRequestsTogether: each request of the claim fits alone
	// (DiagTogether).
	FindingRequestsTogether FindingCode = "RequestsTogether"
	// FindingClaimsTogether: each claim of the pod fits alone; Claim lists
	// them all (DiagClaimsTogether).
	FindingClaimsTogether FindingCode = "ClaimsTogether"
	// FindingAllocatorError: the allocator failed with an error that is no
	// verdict about the node; Reason is the error.
	FindingAllocatorError FindingCode = "AllocatorError"
)

// Diagnosis reasons: the sentences reports print for the codes.
const (
	DiagNoMatchingDevices = "not enough devices on the node match the device class and the request's selectors"
	DiagTainted           = "the matching devices are tainted and the request does not tolerate the taints"
	DiagInUse             = "the matching devices are allocated to other claims (or their shared counters or capacity are used up)"
	DiagConstraint        = "the free matching devices cannot satisfy the claim's constraints"
	DiagTogether          = "each request fits alone, but together they need more free devices than the node has"
	DiagClaimsTogether    = "each claim fits alone, but together they need more free devices than the node has"
)

// Diagnose explains why the pod's claims cannot be allocated on the node,
// request by request, by asking the real allocator smaller questions: the
// request alone; alone on an empty node (nothing allocated); alone without
// device taints; the claim without its constraints. It only reads state and
// is meant for pods that did not fit, at their turn in the queue.
func (p *Plugin) Diagnose(ctx context.Context, cs *framework.CycleState, node *v1.Node) []Finding {
	d := readCycle(cs)
	if d == nil || !d.needsAllocation {
		return nil
	}
	// Equivalent nodes get the same findings: diagnose once per class.
	key, cacheable := classKey{}, false
	if !p.reference {
		key, cacheable = p.state.nodeClass(node.Name)
	}
	if cacheable {
		if f, ok := d.diagnosed[key]; ok {
			return f
		}
	}
	findings, exact := p.diagnose(ctx, d, node)
	if cacheable && exact {
		if d.diagnosed == nil {
			d.diagnosed = map[classKey][]Finding{}
		}
		d.diagnosed[key] = findings
	}
	return findings
}

// diagnose does Diagnose's work on one node; exact is false when a finding
// quotes an allocator error, which may name the node or its pools.
func (p *Plugin) diagnose(ctx context.Context, d *cycleData, node *v1.Node) (findings []Finding, exact bool) {
	exact = true
	var claims []*resourceapi.ResourceClaim
	for _, i := range d.toAllocate() {
		if c := d.claims[i]; c != d.extendedClaim {
			claims = append(claims, c)
		}
	}
	current := p.state.AllocatedState()
	empty := structured.AllocatedState{
		AllocatedDevices:         sets.New[structured.DeviceID](),
		AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](),
		AggregatedCapacity:       structured.NewConsumedCapacityCollection(),
	}
	noTaints := p.state.features
	noTaints.DeviceTaints = false
	fits := func(features structured.Features, state structured.AllocatedState, claims ...*resourceapi.ResourceClaim) (bool, error) {
		slices := p.state.slices
		if p.state.equivalence {
			slices = p.state.nodeSlices[node.Name]
		}
		a, err := structured.NewAllocator(ctx, features, state, p.state, slices, p.celCache)
		if err != nil {
			return false, err
		}
		res, err := a.Allocate(ctx, node, claims)
		if err != nil && !errors.Is(err, structured.ErrFailedAllocationOnNode) {
			return false, err
		}
		return err == nil && len(res) == len(claims), nil
	}
	allFit := true
	for _, c := range claims {
		name := c.Name
		claimFits := true
		for _, r := range c.Spec.Devices.Requests {
			single := c.DeepCopy()
			single.Spec.Devices.Requests = []resourceapi.DeviceRequest{r}
			single.Spec.Devices.Constraints = nil
			single.Spec.Devices.Config = nil
			if ok, err := fits(p.state.features, current, single); err != nil {
				findings = append(findings, Finding{Claim: name, Request: r.Name, Code: FindingAllocatorError, Reason: err.Error()})
				exact = false
				claimFits = false
				continue
			} else if ok {
				continue
			}
			claimFits = false
			code, reason := FindingInUse, DiagInUse
			if ok, _ := fits(p.state.features, empty, single); !ok {
				code, reason = FindingNoMatchingDevices, DiagNoMatchingDevices
				if p.state.features.DeviceTaints {
					if ok, _ := fits(noTaints, empty, single); ok {
						code, reason = FindingTainted, DiagTainted
					}
				}
			}
			findings = append(findings, Finding{Claim: name, Request: r.Name, Code: code, Reason: reason})
		}
		if !claimFits {
			allFit = false
			continue
		}
		if ok, _ := fits(p.state.features, current, c); ok {
			continue
		}
		allFit = false
		loose := c.DeepCopy()
		loose.Spec.Devices.Constraints = nil
		if len(c.Spec.Devices.Constraints) > 0 {
			if ok, _ := fits(p.state.features, current, loose); ok {
				findings = append(findings, Finding{Claim: name, Code: FindingConstraint, Reason: DiagConstraint + " (" + describeConstraints(c.Spec.Devices.Constraints) + ")"})
				continue
			}
		}
		findings = append(findings, Finding{Claim: name, Code: FindingRequestsTogether, Reason: DiagTogether})
	}
	if allFit && len(claims) > 1 {
		findings = append(findings, Finding{Claim: strings.Join(claimNames(claims), ", "), Code: FindingClaimsTogether, Reason: DiagClaimsTogether})
	}
	return findings, exact
}

func claimNames(cs []*resourceapi.ResourceClaim) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

func describeConstraints(cs []resourceapi.DeviceConstraint) string {
	var parts []string
	for _, c := range cs {
		switch {
		case c.MatchAttribute != nil:
			parts = append(parts, fmt.Sprintf("matchAttribute %s", *c.MatchAttribute))
		case c.DistinctAttribute != nil:
			parts = append(parts, fmt.Sprintf("distinctAttribute %s", *c.DistinctAttribute))
		default:
			parts = append(parts, "a constraint")
		}
		if len(c.Requests) > 0 {
			parts[len(parts)-1] += " on " + strings.Join(c.Requests, ", ")
		}
	}
	return strings.Join(parts, "; ")
}

var _ framework.NodeDiagnoser = (*Plugin)(nil)

// DiagnoseNode implements framework.NodeDiagnoser with Diagnose's
// findings.
func (p *Plugin) DiagnoseNode(ctx context.Context, cs *framework.CycleState, node *v1.Node) []framework.NodeFinding {
	found := p.Diagnose(ctx, cs, node)
	if len(found) == 0 {
		return nil
	}
	out := make([]framework.NodeFinding, len(found))
	for i, f := range found {
		out[i] = framework.NodeFinding{Claim: f.Claim, Request: f.Request, Reason: f.Reason}
	}
	return out
}
