package autoscale

import (
	"fmt"
	"time"

	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ProvReqLife is what cluster-autoscaler did with one ProvisioningRequest
// in a timeline: every condition it set, in time order, and the
// conditions at the end.
type ProvReqLife struct {
	Namespace string
	Name      string
	Class     string
	// Pods is the request's pod count (the pod sets' counts summed).
	Pods int
	// ClaimTemplates is set when the pods use ResourceClaimTemplates.
	ClaimTemplates bool
	// Created is when the request was created (nil: not before the end).
	Created *time.Time
	// Transitions are the conditions set, each when its status, reason
	// or message changed (CA sets Accepted again every time it hands the
	// request to a provisioning class; Tries counts those).
	Transitions []ProvReqTransition
	// Conditions are the request's conditions at the end, in CA's order.
	Conditions []ProvReqTransition
	Tries      int
	// Nodes are the nodes scale-ups added for the request.
	Nodes []string
	Note  string
}

// ProvReqTransition is one condition as CA sets it, with the time.
type ProvReqTransition struct {
	At      time.Time
	Type    string
	Status  string
	Reason  string
	Message string
}

// liveProvReq is a request's state in a timeline's loops: CA's
// ProvisioningRequest object (its conditions, with the last transition
// times CA's rules read) and the injector's backoff for it.
type liveProvReq struct {
	pr      *snapshot.ProvisioningRequest
	pods    []*v1.Pod
	claims  []*resourceapi.ResourceClaim
	created time.Time
	conds   []ProvReqTransition
	// backoff is the value of the injector's backoff cache for the
	// request (0: no entry, the initial backoff applies).
	backoff time.Duration
	life    *ProvReqLife
}

func (r *liveProvReq) cond(t string) *ProvReqTransition {
	for i := range r.conds {
		if r.conds[i].Type == t {
			return &r.conds[i]
		}
	}
	return nil
}

func (r *liveProvReq) isTrue(t string) bool {
	c := r.cond(t)
	return c != nil && c.Status == string(metav1.ConditionTrue)
}

// set is CA's AddOrUpdateCondition: the condition replaces the one of its
// type (its last transition time is now, even when nothing else
// changed) or is appended.
func (r *liveProvReq) set(t string, status metav1.ConditionStatus, reason, msg string, now time.Time) {
	c := ProvReqTransition{At: now, Type: t, Status: string(status), Reason: reason, Message: msg}
	old := r.cond(t)
	if old == nil || old.Status != c.Status || old.Reason != c.Reason || old.Message != c.Message {
		r.life.Transitions = append(r.life.Transitions, c)
	}
	if old != nil {
		*old = c
		return
	}
	r.conds = append(r.conds, c)
}

// hasProvReqs reports whether the run serves ProvisioningRequests (CA's
// --enable-provisioning-requests: on when the snapshot has any).
func (a *Autoscaler) hasProvReqs() bool { return len(a.c.Snapshot().ProvisioningRequests) > 0 }

// AddProvisioningRequest tells the autoscaler that a request was created
// at now: its pods are made from its PodTemplates (with claims from their
// templates under --provisioning-request-claims=correct), and the loops
// from now on read it. Conditions the object carries are kept.
func (a *Autoscaler) AddProvisioningRequest(pr *snapshot.ProvisioningRequest, now time.Time) error {
	s := a.scaler
	created := *pr // the request as created: its creation time is now
	created.CreationTimestamp = metav1.NewTime(now)
	pods, usesTemplates, err := a.requestPods(&created)
	if err != nil {
		return err
	}
	r := &liveProvReq{pr: &created, pods: pods, created: now}
	r.life = a.lifeOf(pr)
	r.life.Created = &r.created
	r.life.ClaimTemplates = usesTemplates
	for _, c := range pr.Status.Conditions {
		r.conds = append(r.conds, ProvReqTransition{At: c.LastTransitionTime.Time, Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message})
	}
	if usesTemplates {
		if s.opts.ProvReqClaims == ClaimsCorrect {
			for _, p := range pods {
				r.claims = append(r.claims, a.c.AddVirtualClaims(p)...)
			}
			r.life.Note = "drasim's correct answer (--provisioning-request-claims=correct): claims made from the pods' ResourceClaimTemplates; cluster-autoscaler makes none and answers CapacityIsNotFound (kubernetes/autoscaler issue 10065)"
		} else {
			r.life.Note = "cluster-autoscaler's answer: its in-memory pods get no claims from their ResourceClaimTemplates, so they never fit (kubernetes/autoscaler issue 10065); --provisioning-request-claims=correct shows whether they would"
		}
	}
	a.provreqs = append(a.provreqs, r)
	return nil
}

// CheckProvisioningRequest says whether the autoscaler can serve the
// request: a class cluster-autoscaler serves, PodTemplates that exist.
// The error names the request's file, the object and the field.
func (a *Autoscaler) CheckProvisioningRequest(pr *snapshot.ProvisioningRequest) error {
	_, _, err := a.requestPods(pr)
	return err
}

// requestPods makes the request's pods (provReqPods), or says why not.
func (a *Autoscaler) requestPods(pr *snapshot.ProvisioningRequest) ([]*v1.Pod, bool, error) {
	s := a.scaler
	where := s.work.Where(snapshot.Ref{Kind: "ProvisioningRequest", Namespace: pr.Namespace, Name: pr.Name})
	switch pr.Spec.ProvisioningClassName {
	case snapshot.ProvisioningClassCheckCapacity, snapshot.ProvisioningClassBestEffortAtomicScaleUp:
	default:
		return nil, false, fmt.Errorf("%s: spec.provisioningClassName: unknown class %q: cluster-autoscaler serves %s and %s", where, pr.Spec.ProvisioningClassName, snapshot.ProvisioningClassCheckCapacity, snapshot.ProvisioningClassBestEffortAtomicScaleUp)
	}
	templates := map[string]*v1.PodTemplate{}
	for _, t := range s.work.PodTemplates {
		templates[t.Namespace+"/"+t.Name] = t
	}
	pods, usesTemplates, err := provReqPods(pr, templates)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", where, err)
	}
	return pods, usesTemplates, nil
}

// lifeOf is the request's record, made at its first mention.
func (a *Autoscaler) lifeOf(pr *snapshot.ProvisioningRequest) *ProvReqLife {
	for _, l := range a.lives {
		if l.Namespace == pr.Namespace && l.Name == pr.Name {
			return l
		}
	}
	n := 0
	for _, ps := range pr.Spec.PodSets {
		n += int(ps.Count)
	}
	l := &ProvReqLife{Namespace: pr.Namespace, Name: pr.Name, Class: pr.Spec.ProvisioningClassName, Pods: n}
	a.lives = append(a.lives, l)
	return l
}

// ProvisioningRequests returns what CA did with every request of the
// snapshot, in snapshot order (those not created before the end too).
func (a *Autoscaler) ProvisioningRequests() []ProvReqLife {
	for _, pr := range a.c.Snapshot().ProvisioningRequests {
		a.lifeOf(pr)
	}
	byKey := map[string]*liveProvReq{}
	for _, r := range a.provreqs {
		byKey[r.pr.Namespace+"/"+r.pr.Name] = r
	}
	out := make([]ProvReqLife, 0, len(a.lives))
	for _, pr := range a.c.Snapshot().ProvisioningRequests {
		l := *a.lifeOf(pr)
		if r := byKey[pr.Namespace+"/"+pr.Name]; r != nil {
			l.Conditions = append([]ProvReqTransition{}, r.conds...)
		}
		out = append(out, l)
	}
	return out
}

// refreshProvReqs is provReqProcessor.refresh at the start of a loop: a
// Provisioned request whose condition is older than the reservation time
// gets BookingExpired; one not Provisioned a week after its creation
// fails (Expired).
func (a *Autoscaler) refreshProvReqs(now time.Time) {
	for _, r := range a.provreqs {
		if r.isTrue(CondBookingExpired) || r.isTrue(CondFailed) {
			continue
		}
		if p := r.cond(CondProvisioned); p != nil && p.Status == string(metav1.ConditionTrue) {
			if p.At.Add(ProvReqReservationTime).Before(now) {
				r.set(CondBookingExpired, metav1.ConditionTrue, ReasonReservationExpired, "Capacity reservation time is expired", now)
			}
			continue
		}
		if r.created.Add(ProvReqExpirationTime).Before(now) {
			r.set(CondFailed, metav1.ConditionTrue, ReasonExpired, "ProvisioningRequest is expired", now)
		}
	}
}

// nextProvReq is the injector's GetPodsFromNextRequest: the first request
// neither Failed nor Provisioned whose backoff after Provisioned=False is
// over (the cache then holds the doubled backoff), marked Accepted.
func (a *Autoscaler) nextProvReq(now time.Time) *liveProvReq {
	for _, r := range a.provreqs {
		if r.isTrue(CondFailed) || r.isTrue(CondProvisioned) {
			r.backoff = 0
			continue
		}
		if p := r.cond(CondProvisioned); p != nil {
			if p.Status != string(metav1.ConditionFalse) {
				continue
			}
			retry := r.backoff
			if retry == 0 {
				retry = ProvReqInitialBackoff
			}
			if !p.At.Add(retry).Before(now) {
				continue
			}
			r.backoff = min(2*retry, ProvReqMaxBackoff)
		}
		r.set(CondAccepted, metav1.ConditionTrue, ReasonAccepted, "ProvisioningRequest is accepted by ClusterAutoscaler", now)
		return r
	}
	return nil
}

// bookCapacity is provReqProcessor.bookCapacity, after the other pod list
// processors: a Provisioned request whose real pods (annotated to consume
// it) are all on nodes gets BookingExpired (CapacityBookingConsumed);
// the pods of the other Provisioned requests not expired are put
// first-fit into the loop's picture, where they stay for the scale-up and
// the scale-down of the loop (kube-scheduler does not see them).
func (a *Autoscaler) bookCapacity(now time.Time) error {
	scheduled := map[string]int{}
	for _, ni := range a.c.Nodes() {
		for _, pi := range ni.Pods {
			if name, ok := pi.Pod.Annotations[snapshot.ProvisioningRequestPodAnnotation]; ok {
				scheduled[pi.Pod.Namespace+"/"+name]++
			}
		}
	}
	var book []*v1.Pod
	for _, r := range a.provreqs {
		if r.isTrue(CondFailed) || r.isTrue(CondBookingExpired) || !r.isTrue(CondProvisioned) {
			continue
		}
		if scheduled[r.pr.Namespace+"/"+r.pr.Name] >= len(r.pods) {
			r.set(CondBookingExpired, metav1.ConditionTrue, ReasonBookingConsumed, "Capacity booking consumed: all pods scheduled", now)
			continue
		}
		book = append(book, r.pods...)
	}
	if len(book) == 0 {
		return nil
	}
	_, err := a.book.trySchedule(a.ctx, book, false, nil)
	return err
}

// provision is the provisioning request orchestrator's ScaleUp for the
// request whose pods the loop got: check-capacity answers whether they
// fit the nodes there are (upcoming ones included, as CA's snapshot has
// them); best-effort-atomic-scale-up scales up for all of those that do
// not, in one group and one loop, or not at all. What it tries is taken
// back; a scale-up is returned for the caller to carry out.
func (a *Autoscaler) provision(r *liveProvReq, pods []*v1.Pod, now time.Time) (*ScaleUpDecision, string, error) {
	r.life.Tries++
	name := r.pr.Namespace + "/" + r.pr.Name
	a.c.Fork()
	defer a.c.Revert()
	switch r.pr.Spec.ProvisioningClassName {
	case snapshot.ProvisioningClassCheckCapacity:
		placed, err := a.prov.trySchedule(a.ctx, pods, true, nil)
		if err != nil {
			return nil, "", err
		}
		switch {
		case len(placed) == len(pods):
			r.set(CondProvisioned, metav1.ConditionTrue, ReasonCapacityIsFound, "Capacity is found in the cluster", now)
			return nil, fmt.Sprintf("ProvisioningRequest %s: capacity is found in the cluster", name), nil
		case r.pr.Spec.Parameters["noRetry"] == "true":
			r.set(CondFailed, metav1.ConditionTrue, ReasonCapacityIsNotFound, "CA could not find requested capacity", now)
		default:
			r.set(CondProvisioned, metav1.ConditionFalse, ReasonCapacityIsNotFound, "Capacity is not found, CA will try to find it later.", now)
		}
		return nil, fmt.Sprintf("ProvisioningRequest %s: capacity is not found in the cluster", name), nil
	default: // best-effort-atomic-scale-up
		placed, err := a.prov.trySchedule(a.ctx, pods, false, nil)
		if err != nil {
			return nil, "", err
		}
		in := map[*v1.Pod]bool{}
		for _, pl := range placed {
			in[pl.pod] = true
		}
		var left []*v1.Pod
		for _, p := range pods {
			if !in[p] {
				left = append(left, p)
			}
		}
		if len(left) == 0 {
			r.set(CondProvisioned, metav1.ConditionTrue, ReasonCapacityIsFound, "Capacity is found in the cluster", now)
			return nil, fmt.Sprintf("ProvisioningRequest %s: capacity is found in the cluster", name), nil
		}
		d, why, err := a.scaleUpAtomic(left)
		if err != nil {
			return nil, "", err
		}
		if d == nil {
			r.set(CondProvisioned, metav1.ConditionFalse, ReasonCapacityIsNotFound, "Capacity is not found, CA will try to find it later.", now)
			return nil, fmt.Sprintf("ProvisioningRequest %s: %s", name, why), nil
		}
		r.set(CondProvisioned, metav1.ConditionTrue, ReasonCapacityIsProvisioned, "Capacity is found in the cluster", now)
		d.Loop.ProvisioningRequest, d.Loop.ProvisioningResult = name, ReasonCapacityIsProvisioned
		r.life.Nodes = append(r.life.Nodes, d.Nodes...)
		return d, "", nil
	}
}

// scaleUpAtomic is the scale-up orchestrator with allOrNothing: an option
// whose estimate leaves one of the pods out is no option
// (computeScaleUpPlan).
func (a *Autoscaler) scaleUpAtomic(pods []*v1.Pod) (*ScaleUpDecision, string, error) {
	s := a.scaler
	saved := s.pending
	s.pending = pods
	defer func() { s.pending = saved }()
	groups, err := a.groupsThatMayHelp(pods)
	if err != nil {
		return nil, "", err
	}
	s.groups = groups
	p, err := s.evaluate()
	s.groups = a.groups
	if err != nil {
		return nil, "", err
	}
	var all []*candidate
	for _, c := range p.cands {
		if c.opt.Pods == len(pods) && !c.opt.Limited {
			all = append(all, c)
		}
	}
	if len(all) == 0 {
		return nil, "no node group can add nodes for all of its pods in one scale-up", nil
	}
	return a.applyChoice(all, p, len(pods))
}

// splitProvReqPods is the WrapperOrchestrator's splitOut: the pods made
// for a ProvisioningRequest and the others.
func splitProvReqPods(pods []*v1.Pod) (provReq, regular []*v1.Pod) {
	for _, p := range pods {
		if _, ok := p.Annotations[snapshot.ProvisioningRequestPodAnnotation]; ok {
			provReq = append(provReq, p)
		} else {
			regular = append(regular, p)
		}
	}
	return provReq, regular
}
