package autoscale

import (
	"context"
	"fmt"
	"time"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/kube"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// ProvisioningRequest conditions and reasons, as cluster-autoscaler sets
// them (apis/provisioningrequest/autoscaling.x-k8s.io/v1 and
// pkg/provisioningrequest/conditions/conditions.go).
const (
	CondAccepted       = "Accepted"
	CondProvisioned    = "Provisioned"
	CondFailed         = "Failed"
	CondBookingExpired = "BookingExpired"

	ReasonAccepted              = "Accepted"
	ReasonCapacityIsFound       = "CapacityIsFound"
	ReasonCapacityIsProvisioned = "CapacityIsProvisioned"
	ReasonCapacityIsNotFound    = "CapacityIsNotFound"
	ReasonReservationExpired    = "CapacityReservationTimeExpired"
	ReasonBookingConsumed       = "CapacityBookingConsumed"
	ReasonExpired               = "Expired"
)

// CA's ProvisioningRequest timings (pkg/processors/provreq/processor.go,
// injector.go and the --provisioning-request-*-backoff-time flags).
const (
	// ProvReqReservationTime: a Provisioned request's capacity is booked
	// this long, then BookingExpired.
	ProvReqReservationTime = 10 * time.Minute
	// ProvReqExpirationTime: a request not Provisioned this long after its
	// creation is Failed (Expired).
	ProvReqExpirationTime = 7 * 24 * time.Hour
	// ProvReqInitialBackoff and ProvReqMaxBackoff: after Provisioned=False
	// CA tries the request again after the backoff, doubled each time.
	ProvReqInitialBackoff = time.Minute
	ProvReqMaxBackoff     = 10 * time.Minute
	// DefaultLoopInterval is the time between two loops of `autoscale`:
	// the time cluster-autoscaler's recorder (tools/ca-recorder) leaves
	// between loops, long enough for new nodes to be ready.
	DefaultLoopInterval = 2 * time.Minute
)

// Claim modes for virtual pods whose template uses ResourceClaimTemplates.
const (
	// ClaimsUpstream is what cluster-autoscaler does: nothing makes claims
	// for its in-memory pods, so their DRA check fails ("ResourceClaim not
	// created yet") and the request gets CapacityIsNotFound
	// (kubernetes/autoscaler issue 10065).
	ClaimsUpstream = "upstream"
	// ClaimsCorrect makes the claims the resource-claim controller would
	// make for the real pods, so the answer says whether they fit.
	ClaimsCorrect = "correct"
)

// ProvReqOutcome is what happened to one ProvisioningRequest.
type ProvReqOutcome struct {
	Name  string `json:"name"`
	Class string `json:"class"`
	Pods  int    `json:"pods"`
	// ClaimTemplates is set when the pods use ResourceClaimTemplates.
	ClaimTemplates bool `json:"claimTemplates,omitempty"`
	// Conditions are the request's conditions after the run, in CA's
	// order (Accepted, Provisioned, Failed, BookingExpired).
	Conditions []ProvReqCondition `json:"conditions"`
	// Loop is the last loop that processed the request.
	Loop int `json:"loop,omitempty"`
	// NodesAdded counts the nodes an atomic scale-up added for it.
	NodesAdded int    `json:"nodesAdded,omitempty"`
	Note       string `json:"note,omitempty"`
}

// ProvReqCondition is one condition, with the loop and time it was set.
type ProvReqCondition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message,omitempty"`
	Loop    int    `json:"loop"`
	// At is the time since the run started ("0s" for the first loop).
	At string `json:"at"`
}

// provReq is a request's state during the run.
type provReq struct {
	pr     *snapshot.ProvisioningRequest
	pods   []*v1.Pod
	claims []*resourceapi.ResourceClaim
	conds  []ProvReqCondition
	// retry is the backoff before the next try after Provisioned=False.
	retry time.Duration
	// triedAt is the cluster version of the last try: the static run tries
	// again only when the cluster changed (the answer would be the same).
	triedAt   int
	provAt    time.Duration
	triedTime time.Duration
	out       *ProvReqOutcome
}

func (r *provReq) cond(t string) *ProvReqCondition {
	for i := range r.conds {
		if r.conds[i].Type == t {
			return &r.conds[i]
		}
	}
	return nil
}

func (r *provReq) isTrue(t string) bool {
	c := r.cond(t)
	return c != nil && c.Status == string(metav1.ConditionTrue)
}

// set is CA's AddOrUpdateCondition: a condition of a type replaces the
// earlier one; a new type is appended.
func (r *provReq) set(t string, status metav1.ConditionStatus, reason, msg string, loop int, at time.Duration) {
	c := ProvReqCondition{Type: t, Status: string(status), Reason: reason, Message: msg, Loop: loop, At: at.String()}
	if old := r.cond(t); old != nil {
		*old = c
		return
	}
	r.conds = append(r.conds, c)
}

// provReqPods makes a request's pods as CA's PodsForProvisioningRequest
// does: per pod set, count pods from the template, named
// <request>-<set>-<index>, owned by the request, annotated with its name
// and class, with the API server's defaults.
func provReqPods(pr *snapshot.ProvisioningRequest, templates map[string]*v1.PodTemplate) ([]*v1.Pod, bool, error) {
	var out []*v1.Pod
	usesTemplates := false
	for i, ps := range pr.Spec.PodSets {
		t := templates[pr.Namespace+"/"+ps.PodTemplateRef.Name]
		if t == nil {
			return nil, false, fmt.Errorf("spec.podSets[%d].podTemplateRef.name: PodTemplate %q is not in namespace %s", i, ps.PodTemplateRef.Name, pr.Namespace)
		}
		for j := 0; j < int(ps.Count); j++ {
			p := virtualPod(&t.Template, pr.Namespace, fmt.Sprintf("%s-%d-%d", pr.Name, i, j), "ProvisioningRequest", snapshot.ProvisioningRequestAPIVersion, pr.Name, pr.UID)
			p.GenerateName = pr.Name + "-"
			p.UID = types.UID(pr.Namespace + "/" + p.Name)
			p.Annotations[snapshot.ProvisioningRequestPodAnnotation] = pr.Name
			p.Annotations[snapshot.ProvisioningClassPodAnnotation] = pr.Spec.ProvisioningClassName
			p.CreationTimestamp = pr.CreationTimestamp
			for _, c := range p.Spec.ResourceClaims {
				usesTemplates = usesTemplates || c.ResourceClaimTemplateName != nil
			}
			out = append(out, p)
		}
	}
	return out, usesTemplates, nil
}

// virtualPod makes a pod from a template for an owner, as kube's
// controller.GetPodFromTemplate does, with the API server's defaults.
func virtualPod(t *v1.PodTemplateSpec, namespace, name, kind, apiVersion, owner string, uid types.UID) *v1.Pod {
	p := &v1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: *t.ObjectMeta.DeepCopy(),
		Spec:       *t.Spec.DeepCopy(),
	}
	p.Name, p.Namespace = name, namespace
	if p.Annotations == nil {
		p.Annotations = map[string]string{}
	}
	p.OwnerReferences = append(p.OwnerReferences, metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: owner, UID: uid, Controller: ptr.To(true)})
	p.Spec.NodeName = ""
	kube.DefaultPod(p)
	return p
}

// hasVirtual reports whether the run models ProvisioningRequests or
// CapacityBuffers (then the tie-break counts loops by scale-ups, as CA's
// recordings do, since a request's loop may add no node).
func (s *scaler) hasVirtual() bool { return len(s.provreqs) > 0 || len(s.buffers) > 0 }

// initProvReqs makes the requests' pods. A request whose class CA does
// not serve, or whose template is missing, is an error (validate names
// them too).
func (s *scaler) initProvReqs() error {
	templates := map[string]*v1.PodTemplate{}
	for _, t := range s.work.PodTemplates {
		templates[t.Namespace+"/"+t.Name] = t
	}
	for _, pr := range s.work.ProvisioningRequests {
		where := s.work.Where(snapshot.Ref{Kind: "ProvisioningRequest", Namespace: pr.Namespace, Name: pr.Name})
		switch pr.Spec.ProvisioningClassName {
		case snapshot.ProvisioningClassCheckCapacity, snapshot.ProvisioningClassBestEffortAtomicScaleUp:
		default:
			return fmt.Errorf("%s: spec.provisioningClassName: unknown class %q: cluster-autoscaler serves %s and %s", where, pr.Spec.ProvisioningClassName, snapshot.ProvisioningClassCheckCapacity, snapshot.ProvisioningClassBestEffortAtomicScaleUp)
		}
		pods, usesTemplates, err := provReqPods(pr, templates)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		r := &provReq{pr: pr, pods: pods, retry: ProvReqInitialBackoff, triedAt: -1,
			out: &ProvReqOutcome{Name: pr.Namespace + "/" + pr.Name, Class: pr.Spec.ProvisioningClassName, Pods: len(pods), ClaimTemplates: usesTemplates}}
		for _, c := range pr.Status.Conditions {
			r.conds = append(r.conds, ProvReqCondition{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message, At: "before"})
		}
		if usesTemplates {
			if s.opts.ProvReqClaims == ClaimsCorrect {
				for _, p := range pods {
					r.claims = append(r.claims, s.cur.AddVirtualClaims(p)...)
				}
				r.out.Note = "drasim's correct answer (--provisioning-request-claims=correct): claims made from the pods' ResourceClaimTemplates; cluster-autoscaler makes none and answers CapacityIsNotFound (kubernetes/autoscaler issue 10065)"
			} else {
				r.out.Note = "cluster-autoscaler's answer: its in-memory pods get no claims from their ResourceClaimTemplates, so they never fit (kubernetes/autoscaler issue 10065); --provisioning-request-claims=correct shows whether they would"
			}
		}
		s.provreqs = append(s.provreqs, r)
	}
	return nil
}

// loopTime is the time of a loop since the run started.
func (s *scaler) loopTime(index int) time.Duration {
	return time.Duration(index-1) * s.opts.LoopInterval
}

// refreshProvReqs is CA's provReqProcessor.refresh at a loop's start:
// booked capacity expires after the reservation time or when the
// request's real pods are all scheduled; a request not Provisioned a week
// after its creation fails.
func (s *scaler) refreshProvReqs(index int) {
	now := s.loopTime(index)
	for _, r := range s.provreqs {
		if r.isTrue(CondBookingExpired) || r.isTrue(CondFailed) {
			continue
		}
		if r.isTrue(CondProvisioned) {
			switch {
			case s.consumed(r):
				r.set(CondBookingExpired, metav1.ConditionTrue, ReasonBookingConsumed, "Capacity booking consumed: all pods scheduled", index, now)
			case r.provAt+ProvReqReservationTime < now:
				r.set(CondBookingExpired, metav1.ConditionTrue, ReasonReservationExpired, "Capacity reservation time is expired", index, now)
			}
			continue
		}
		if ProvReqExpirationTime < now {
			r.set(CondFailed, metav1.ConditionTrue, ReasonExpired, "ProvisioningRequest is expired", index, now)
		}
	}
}

// consumed counts the real pods that consume the request and are bound.
func (s *scaler) consumed(r *provReq) bool {
	n := 0
	for _, p := range s.cur.Pods() {
		if p != nil && p.Spec.NodeName != "" && p.Namespace == r.pr.Namespace && p.Annotations[snapshot.ProvisioningRequestPodAnnotation] == r.pr.Name {
			n++
		}
	}
	return n >= len(r.pods)
}

// nextProvReq is the injector's GetPodsFromNextRequest: the first request
// (in snapshot order) not Provisioned or Failed whose backoff is over. The
// static run also skips a request tried on the same cluster before.
func (s *scaler) nextProvReq(index int) *provReq {
	now := s.loopTime(index)
	for _, r := range s.provreqs {
		if r.isTrue(CondFailed) || r.isTrue(CondProvisioned) {
			continue
		}
		if c := r.cond(CondProvisioned); c != nil {
			if r.triedTime+r.retry >= now || r.triedAt == s.version() {
				continue
			}
		}
		return r
	}
	return nil
}

// version changes whenever the scale-up adds nodes.
func (s *scaler) version() int { return len(s.cur.Nodes()) }

// bookCapacity is CA's bookCapacity: the pods of Provisioned requests
// whose booking has not expired take their place in the loop's picture
// (first fit, those that fit), so that later requests do not count it.
func (s *scaler) bookCapacity(ctx context.Context, k *checker) error {
	for _, r := range s.provreqs {
		if !r.isTrue(CondProvisioned) || r.isTrue(CondBookingExpired) || r.isTrue(CondFailed) {
			continue
		}
		if _, err := s.fitExisting(ctx, k, r.pods, false); err != nil {
			return err
		}
	}
	return nil
}

// fitExisting is CA's TrySchedulePods on the nodes of the cluster: each
// pod first-fit, bound on the cluster's open fork. With breakOnFailure it stops
// at the first pod that fits nowhere. It returns the pods left over.
func (s *scaler) fitExisting(ctx context.Context, k *checker, pods []*v1.Pod, breakOnFailure bool) ([]*v1.Pod, error) {
	names := make([]string, 0, len(s.cur.Nodes()))
	for _, ni := range s.cur.Nodes() {
		names = append(names, ni.Node().Name)
	}
	var left []*v1.Pod
	for i, p := range pods {
		node, cy, err := k.firstFit(ctx, p, names)
		if err != nil {
			return nil, err
		}
		if node == "" {
			if breakOnFailure {
				return append(left, pods[i:]...), nil
			}
			left = append(left, p)
			continue
		}
		if err := k.c.Bind(p, func() error { return k.bind(ctx, cy, p, node) }); err != nil {
			return nil, err
		}
	}
	return left, nil
}

// provReqTurn runs a loop for a ProvisioningRequest when it is the
// request's turn: CA's WrapperOrchestrator alternates between requests
// and ordinary pods when both wait, and takes either when only it waits.
// It reports whether the loop was the request's.
func (s *scaler) provReqTurn(index int, regular bool) (bool, error) {
	s.refreshProvReqs(index)
	r := s.nextProvReq(index)
	if r == nil {
		s.prMode = false
		return false, nil
	}
	if !regular {
		s.prMode = true
	}
	mode := s.prMode
	s.prMode = !s.prMode
	if !mode {
		return false, nil
	}
	return true, s.provision(index, r)
}

// provision is the class's Provision.
func (s *scaler) provision(index int, r *provReq) error {
	now := s.loopTime(index)
	r.out.Loop = index
	r.triedAt = s.version()
	r.triedTime = now
	if c := r.cond(CondProvisioned); c != nil && c.Status == string(metav1.ConditionFalse) {
		r.retry = min(2*r.retry, ProvReqMaxBackoff)
	}
	r.set(CondAccepted, metav1.ConditionTrue, ReasonAccepted, "ProvisioningRequest is accepted by ClusterAutoscaler", index, now)
	s.cur.Fork()
	e, err := sim.NewEngineOn(s.cur, s.opts.Sim, s.draPlugin)
	if err != nil {
		s.cur.Revert()
		return err
	}
	k := newChecker(e)
	if err := s.bookCapacity(s.ctx, k); err != nil {
		s.cur.Revert()
		return err
	}
	lp := Loop{Index: index, PendingPods: len(s.pending), ProvisioningRequest: r.out.Name}
	switch r.pr.Spec.ProvisioningClassName {
	case snapshot.ProvisioningClassCheckCapacity:
		err = s.checkCapacity(k, r, index, now, &lp)
	case snapshot.ProvisioningClassBestEffortAtomicScaleUp:
		err = s.atomicScaleUp(k, r, index, now, &lp)
	}
	if err != nil {
		return err
	}
	s.plan.Loops = append(s.plan.Loops, lp)
	return nil
}

// checkCapacity is check-capacity.autoscaling.x-k8s.io: do the request's
// pods fit on the nodes there are (capacity booked for other requests
// held back)? The fork of provision is reverted here.
func (s *scaler) checkCapacity(k *checker, r *provReq, index int, now time.Duration, lp *Loop) error {
	left, err := s.fitExisting(s.ctx, k, r.pods, true)
	s.cur.Revert()
	if err != nil {
		return err
	}
	if len(left) == 0 {
		r.provAt = now
		r.set(CondProvisioned, metav1.ConditionTrue, ReasonCapacityIsFound, "Capacity is found in the cluster", index, now)
	} else if r.pr.Spec.Parameters["noRetry"] == "true" {
		r.set(CondFailed, metav1.ConditionTrue, ReasonCapacityIsNotFound, "CA could not find requested capacity", index, now)
	} else {
		r.set(CondProvisioned, metav1.ConditionFalse, ReasonCapacityIsNotFound, "Capacity is not found, CA will try to find it later.", index, now)
	}
	if r.isTrue(CondFailed) {
		lp.ProvisioningResult = CondFailed
	} else {
		lp.ProvisioningResult = r.cond(CondProvisioned).Reason
	}
	return nil
}

// atomicScaleUp is best-effort-atomic-scale-up.autoscaling.x-k8s.io: the
// request's pods fit now, or one scale-up option places every one of them,
// or nothing is added. The fork of provision is reverted before the
// chosen option is applied.
func (s *scaler) atomicScaleUp(k *checker, r *provReq, index int, now time.Duration, lp *Loop) error {
	left, err := s.fitExisting(s.ctx, k, r.pods, false)
	if err != nil {
		s.cur.Revert()
		return err
	}
	if len(left) == 0 {
		s.cur.Revert()
		r.provAt = now
		r.set(CondProvisioned, metav1.ConditionTrue, ReasonCapacityIsFound, "Capacity is found in the cluster", index, now)
		lp.ProvisioningResult = ReasonCapacityIsFound
		return nil
	}
	p, err := s.evaluatePods(left)
	if err != nil {
		s.cur.Revert()
		return err
	}
	// All or nothing: an option that leaves a pod out is no option
	// (CA's computeScaleUpPlan), nor is one a limit cut short.
	var all []*candidate
	for _, c := range p.cands {
		if c.opt.Pods == len(left) && !c.opt.Limited {
			all = append(all, c)
		}
	}
	for _, c := range all {
		lp.Options = append(lp.Options, *c.opt)
	}
	lp.Skipped = p.skipped
	s.cur.Revert()
	var chosen *candidate
	if len(all) > 0 {
		var decision *Decision
		chosen, decision = s.chain.choose(all, env{nodes: len(s.cur.Nodes()), loop: s.scaleUps + 1})
		lp.Decision = decision
		for i, c := range all {
			lp.Options[i] = *c.opt
		}
	}
	if chosen == nil {
		r.set(CondProvisioned, metav1.ConditionFalse, ReasonCapacityIsNotFound, "Capacity is not found, CA will try to find it later.", index, now)
		lp.ProvisioningResult = ReasonCapacityIsNotFound
		return nil
	}
	lp.Triggered = chosen.opt.PodKeys
	placed, err := s.apply(chosen, lp)
	if err != nil {
		return err
	}
	s.scaleUps++
	lp.Placed = placed
	lp.StillPending = len(s.pending)
	r.out.NodesAdded += len(lp.Added)
	r.provAt = now
	r.set(CondProvisioned, metav1.ConditionTrue, ReasonCapacityIsProvisioned, "Capacity is found in the cluster", index, now)
	lp.ProvisioningResult = ReasonCapacityIsProvisioned
	return nil
}

// evaluatePods runs evaluate on other pods than the pending ones.
func (s *scaler) evaluatePods(pods []*v1.Pod) (*pass, error) {
	saved, savedVirtual := s.pending, s.virtual
	s.pending, s.virtual = pods, nil
	defer func() { s.pending, s.virtual = saved, savedVirtual }()
	return s.evaluate()
}

// finishProvReqs writes the outcomes into the plan and deletes the
// claims made for the requests' pods.
func (s *scaler) finishProvReqs() {
	for _, r := range s.provreqs {
		r.out.Conditions = append([]ProvReqCondition{}, r.conds...)
		s.plan.ProvisioningRequests = append(s.plan.ProvisioningRequests, *r.out)
		s.cur.RemoveVirtualClaims(r.claims)
	}
}
