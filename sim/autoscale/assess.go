package autoscale

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
)

// States of a ProvisioningRequest in an assessment.
const (
	// RequestFits: its pods fit the cluster as it stands (check-capacity
	// would answer CapacityIsFound).
	RequestFits = "fits"
	// RequestNeedsScaleUp: a best-effort-atomic-scale-up request whose
	// pods a scale-up of one group can hold, all in one loop.
	RequestNeedsScaleUp = "needs-scale-up"
	// RequestDoesNotFit: a check-capacity request whose pods do not fit;
	// check-capacity never adds nodes.
	RequestDoesNotFit = "does-not-fit"
	// RequestCannot: no group can add nodes for all of the pods that do
	// not fit, in one scale-up.
	RequestCannot = "cannot"
)

// Assessment is what the autoscaling requests of a snapshot would get on
// the cluster after the replay: each ProvisioningRequest's state and
// each CapacityBuffer's chunks held, with what a scale-up would add.
type Assessment struct {
	ProvisioningRequests []RequestAssessment `json:"provisioningRequests,omitempty"`
	CapacityBuffers      []BufferAssessment  `json:"capacityBuffers,omitempty"`
}

// RequestAssessment is one ProvisioningRequest's state now.
type RequestAssessment struct {
	Name  string `json:"name"`
	Class string `json:"class"`
	Pods  int    `json:"pods"`
	// FitNow counts the pods that fit the cluster as it stands.
	FitNow int `json:"fitNow"`
	// State is cluster-autoscaler's answer (RequestFits, ...); Options
	// are the groups that could add nodes for all of the other pods in
	// one scale-up; Why says why, for the states that are no fit.
	State   string          `json:"state"`
	Options []RequestOption `json:"options,omitempty"`
	Why     string          `json:"why,omitempty"`
	// CorrectState, set for pods with ResourceClaimTemplates, is drasim's
	// correct answer (claims made as the resource-claim controller would;
	// CA makes none, kubernetes/autoscaler issue 10065), CorrectFitNow
	// and CorrectOptions with it.
	CorrectState   string          `json:"correctState,omitempty"`
	CorrectFitNow  int             `json:"correctFitNow,omitempty"`
	CorrectOptions []RequestOption `json:"correctOptions,omitempty"`
}

// RequestOption is a group that could hold pods: the nodes it would add
// and what they cost per hour (nil: the group has no price).
type RequestOption struct {
	Group       string   `json:"group"`
	Nodes       int      `json:"nodes"`
	CostPerHour *float64 `json:"costPerHour,omitempty"`
}

// BufferAssessment is what one CapacityBuffer holds now and what holding
// all of its chunks would cost.
type BufferAssessment struct {
	Name     string `json:"name"`
	Shape    string `json:"shape"`
	Replicas int    `json:"replicas"`
	// Held counts the chunks that fit the cluster's free capacity, first
	// fit in order, as CA's filter-out-schedulable holds them; Nodes are
	// the nodes they take.
	Held  int      `json:"held"`
	Nodes []string `json:"nodes,omitempty"`
	// Options are the groups that could add nodes for the chunks not held
	// (each group's estimate; Pods the chunks it places).
	Options []BufferOption `json:"options,omitempty"`
	Note    string         `json:"note,omitempty"`
	// CorrectHeld, set for chunks with ResourceClaimTemplates, is the
	// chunks held with claims made for them (CA makes none).
	CorrectHeld    *int           `json:"correctHeld,omitempty"`
	CorrectOptions []BufferOption `json:"correctOptions,omitempty"`
}

// BufferOption is a group's estimate for a buffer's missing chunks.
type BufferOption struct {
	RequestOption `json:",inline"`
	Chunks        int `json:"chunks"`
}

// Assess replays the snapshot and says, for each ProvisioningRequest and
// CapacityBuffer, what it would get from cluster-autoscaler on the
// cluster the replay leaves: a request's pods fit now, need a scale-up
// (and which), or cannot be held, and why; how many chunks of a buffer
// the fleet holds and what a scale-up for the rest would add. Nothing is
// applied. A snapshot without NodeGroups gets no options.
func Assess(ctx context.Context, snap *snapshot.Snapshot, opts Options) (*Assessment, error) {
	if len(snap.ProvisioningRequests)+len(snap.CapacityBuffers) == 0 {
		return nil, nil
	}
	opts = opts.withDefaults()
	opts.ProvReqClaims = ClaimsUpstream
	out := &Assessment{}
	upstream, err := assessWith(ctx, snap, opts)
	if err != nil {
		return nil, err
	}
	var correct *Assessment
	needCorrect := false
	for i, r := range upstream.ProvisioningRequests {
		out.ProvisioningRequests = append(out.ProvisioningRequests, r)
		needCorrect = needCorrect || upstream.claims[i]
	}
	for _, b := range upstream.CapacityBuffers {
		needCorrect = needCorrect || b.CorrectHeld != nil
		b.CorrectHeld = nil
		out.CapacityBuffers = append(out.CapacityBuffers, b)
	}
	if needCorrect {
		opts.ProvReqClaims = ClaimsCorrect
		c, err := assessWith(ctx, snap, opts)
		if err != nil {
			return nil, err
		}
		correct = &c.Assessment
		for i := range out.ProvisioningRequests {
			if upstream.claims[i] {
				cr := correct.ProvisioningRequests[i]
				out.ProvisioningRequests[i].CorrectState, out.ProvisioningRequests[i].CorrectFitNow, out.ProvisioningRequests[i].CorrectOptions = cr.State, cr.FitNow, cr.Options
			}
		}
		for i := range out.CapacityBuffers {
			if upstream.CapacityBuffers[i].CorrectHeld != nil {
				held := correct.CapacityBuffers[i].Held
				out.CapacityBuffers[i].CorrectHeld = &held
				out.CapacityBuffers[i].CorrectOptions = correct.CapacityBuffers[i].Options
			}
		}
	}
	return out, nil
}

// assessment is an Assessment with, per request, whether its pods use
// ResourceClaimTemplates.
type assessment struct {
	Assessment
	claims []bool
}

func assessWith(ctx context.Context, snap *snapshot.Snapshot, opts Options) (*assessment, error) {
	s, err := newScaler(ctx, snap, opts)
	noGroups := errors.Is(err, ErrNoNodeGroups)
	if noGroups {
		s, err = newScalerWithoutGroups(ctx, snap, opts)
	}
	if err != nil {
		return nil, err
	}
	out := &assessment{}
	for _, r := range s.provreqs {
		ra, err := s.assessRequest(r, noGroups)
		if err != nil {
			return nil, err
		}
		out.ProvisioningRequests = append(out.ProvisioningRequests, ra)
		out.claims = append(out.claims, r.out.ClaimTemplates)
	}
	for _, b := range s.buffers {
		ba, err := s.assessBuffer(b, noGroups)
		if err != nil {
			return nil, err
		}
		out.CapacityBuffers = append(out.CapacityBuffers, ba)
	}
	for _, r := range s.provreqs {
		s.cur.RemoveVirtualClaims(r.claims)
	}
	for _, b := range s.buffers {
		s.cur.RemoveVirtualClaims(b.claims)
	}
	return out, nil
}

// fitNow puts the pods first-fit on the cluster's nodes for the question
// and takes them back; it returns the pods left and the nodes used.
func (s *scaler) fitNow(pods []*v1.Pod) ([]*v1.Pod, []string, error) {
	s.cur.Fork()
	defer s.cur.Revert()
	e, err := sim.NewEngineOn(s.cur, s.opts.Sim, s.draPlugin)
	if err != nil {
		return nil, nil, err
	}
	left, err := s.fitExisting(s.ctx, newChecker(e), pods, false)
	if err != nil {
		return nil, nil, err
	}
	seen := map[string]bool{}
	var nodes []string
	for _, p := range pods {
		if n := p.Spec.NodeName; n != "" && !seen[n] {
			seen[n] = true
			nodes = append(nodes, n)
		}
	}
	sort.Strings(nodes)
	return left, nodes, nil
}

func (s *scaler) option(c *candidate) RequestOption {
	o := RequestOption{Group: c.group.Name, Nodes: c.opt.Nodes}
	if p := c.group.PricePerHour; p != nil {
		cost := roundCost(*p * float64(c.opt.Nodes))
		o.CostPerHour = &cost
	}
	return o
}

// assessRequest is a request's state: check-capacity's answer, then
// (the pods that do not fit) each group's atomic option.
func (s *scaler) assessRequest(r *provReq, noGroups bool) (RequestAssessment, error) {
	ra := RequestAssessment{Name: r.out.Name, Class: r.out.Class, Pods: len(r.pods)}
	left, _, err := s.fitNow(r.pods)
	if err != nil {
		return ra, err
	}
	ra.FitNow = len(r.pods) - len(left)
	if len(left) == 0 {
		ra.State = RequestFits
		return ra, nil
	}
	why := fmt.Sprintf("%d of %d pod(s) fit the cluster as it stands", ra.FitNow, ra.Pods)
	if r.out.ClaimTemplates && s.opts.ProvReqClaims != ClaimsCorrect {
		why += "; cluster-autoscaler makes no claims for the pods' ResourceClaimTemplates, so they never fit (kubernetes/autoscaler issue 10065)"
	}
	var reasons []string
	if noGroups {
		reasons = append(reasons, "no NodeGroup")
	} else {
		p, err := s.evaluatePods(left)
		if err != nil {
			return ra, err
		}
		for _, c := range p.cands {
			if c.opt.Pods == len(left) && !c.opt.Limited {
				ra.Options = append(ra.Options, s.option(c))
			} else {
				reasons = append(reasons, fmt.Sprintf("%s: its estimate holds %d of the %d", c.group.Name, c.opt.Pods, len(left)))
			}
		}
		for _, sk := range p.skipped {
			reasons = append(reasons, fmt.Sprintf("%s: %s", sk.Group, sk.Reason))
		}
		if len(p.cands) == 0 && len(p.skipped) < len(s.groups) {
			for _, eq := range p.eqs {
				reasons = append(reasons, summarize(p.verdicts[eq]))
				break
			}
		}
	}
	switch {
	case r.pr.Spec.ProvisioningClassName == snapshot.ProvisioningClassCheckCapacity:
		ra.State = RequestDoesNotFit
		ra.Why = why + "; check-capacity never adds nodes"
	case len(ra.Options) > 0:
		ra.State = RequestNeedsScaleUp
		ra.Why = why
		return ra, nil
	default:
		ra.State = RequestCannot
		ra.Why = why + "; no group can add nodes for all of the other pods in one scale-up"
	}
	if len(reasons) > 0 && ra.State == RequestCannot {
		ra.Why += " (" + strings.Join(reasons, "; ") + ")"
	}
	return ra, nil
}

// assessBuffer counts the chunks the fleet holds and each group's
// estimate for the others.
func (s *scaler) assessBuffer(b *buffer, noGroups bool) (BufferAssessment, error) {
	ba := BufferAssessment{Name: b.out.Name, Shape: b.out.Shape, Replicas: b.out.Replicas, Note: b.out.Note}
	if b.out.ClaimTemplates {
		zero := 0
		ba.CorrectHeld = &zero // a marker: Assess fills it in
	}
	left, nodes, err := s.fitNow(b.pods)
	if err != nil {
		return ba, err
	}
	ba.Held, ba.Nodes = len(b.pods)-len(left), nodes
	if len(left) == 0 || noGroups {
		return ba, nil
	}
	p, err := s.evaluatePods(left)
	if err != nil {
		return ba, err
	}
	for _, c := range p.cands {
		ba.Options = append(ba.Options, BufferOption{RequestOption: s.option(c), Chunks: c.opt.Pods})
	}
	return ba, nil
}
