package schedule

import (
	"encoding/binary"
	"maps"
	"slices"
	"strings"

	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/result"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// The memo of failed cycles (Replayer.MemoizeFailures). A pod's cycle
// that finds no node, and the PostFilter plugins after it, read the
// cluster, the DRA state, the nominations and the pod, nothing else: no
// clock, no other pending pod. When none of those changed since an
// equivalent pod's cycle failed (or the same pod's), and that cycle's
// PostFilter changed nothing (no claim to free, no node to nominate, no
// victims), the new cycle's answer is the same, so the memo gives it again
// without running the filters and the preemption dry run. A pod that waits
// for hours in a full cluster is retried on every event that may help it;
// most retries of equivalent pods between two changes are answered here.
//
// What a cycle leaves behind besides its answer is carried over as well:
// the rotating start index moves on as the filter pass moved it, and the
// dry run's random offset is drawn from the preemption source, so that the
// cycles after a hit decide as they would have.
//
// "Nothing changed" is a count: cluster.Cluster.Version (the nodes and
// their pods, the node and pod lists, every claim, allocation and slice,
// and the edits its owner reports) plus the queue's NominationChanges. A
// change that is undone (a what-if run of the autoscaler) counts, which
// only costs a miss.
//
// Pods are equivalent when everything the plugins read of them is equal:
// namespace, labels, annotations, the whole spec, and the specs of their
// claims. A pod is left out of the memo when its answer may depend on more
// than that: it is nominated (its own nomination and the victims it waits
// for count), a claim of its is allocated or reserved (DynamicResources'
// PostFilter may free it), or it has a DRA extended-resource claim. An
// answer is not kept when a message names the pod or one of its claims.
// The memo is off with a gang (a pod group's cycle), node statuses kept,
// a diagnosis asked for (it follows the nodes in the order visited) or
// Follow set.
type failureMemo struct {
	// version is the state the failures were found in.
	version  uint64
	failures map[int]*failure
	// classes interns the pods' equivalence keys; classOf caches each
	// pod's.
	classes map[string]int
	classOf map[*v1.Pod]int
	hits    int
	misses  int
}

// failure is a failed cycle's answer, to be given again. Every cycle
// given it shares it: nothing changes an attempt or a PostFilter result
// once decided.
type failure struct {
	// attempt is the cycle's outcome, without its cycle state.
	attempt Attempt
	// postFilter is PostFilter's message and DefaultPreemption's decision
	// (no node, nothing nominated; nil without preemption).
	postFilter PostFilterResult
	// reasons are the outcome's rejections and plugins the queue's
	// UnschedulablePlugins, shared by every cycle given the answer
	// (neither is changed once made).
	reasons []result.Reason
	plugins sets.Set[string]
}

// memoCycle is a cycle the memo may answer: the pod's class (-1 until
// needed), the state version it starts from, and the answer found for
// the class in that state, if any; pod and claims are the pod's, to key
// it by.
type memoCycle struct {
	class   int
	version uint64
	hit     *failure
	pod     *v1.Pod
	claims  []*resourceapi.ResourceClaim
}

// MemoStats returns how many cycles the memo of failed cycles answered
// (hits) and how many it could have answered but had to run (misses).
func (r *Replayer) MemoStats() (hits, misses int) {
	if r.memo == nil {
		return 0, 0
	}
	return r.memo.hits, r.memo.misses
}

// stateVersion counts every change a cycle of a pod may read.
func (r *Replayer) stateVersion() uint64 {
	return r.c.Version() + r.q.NominationChanges()
}

// memoLookup returns the memo's view of the pod's cycle about to run, nil
// when the memo is off or the pod is left out of it.
func (r *Replayer) memoLookup(pod *v1.Pod) *memoCycle {
	if !r.MemoizeFailures || !r.NoDiagnosis || r.follow != nil || r.s.opts.KeepNodeStatuses || r.c.GangsEnabled() {
		return nil
	}
	if pod.Spec.NodeName != "" || pod.Status.NominatedNodeName != "" || r.q.NominatedNode(pod) != "" ||
		pod.DeletionTimestamp != nil || pod.Status.ExtendedResourceClaimStatus != nil {
		return nil
	}
	claims, err := r.c.DRA().PodClaims(pod)
	if err != nil {
		return nil
	}
	for _, c := range claims {
		if c.Status.Allocation != nil || len(c.Status.ReservedFor) > 0 {
			return nil
		}
	}
	m := r.memo
	if m == nil {
		m = &failureMemo{failures: map[int]*failure{}, classes: map[string]int{}, classOf: map[*v1.Pod]int{}}
		r.memo = m
	}
	if v := r.stateVersion(); v != m.version {
		clear(m.failures)
		m.version = v
	}
	c := &memoCycle{class: -1, version: m.version, pod: pod, claims: claims}
	// With no answer kept in this state the pod's class is not needed
	// yet: most pods that arrive (the arrival itself is a change) are
	// placed at once and never keyed.
	if len(m.failures) > 0 {
		if c.class = m.classOfPod(pod, claims); c.class < 0 {
			return nil
		}
		c.hit = m.failures[c.class]
	}
	if c.hit != nil {
		m.hits++
	} else {
		m.misses++
	}
	return c
}

// classOfPod is the pod's class, -1 when it cannot be keyed.
func (m *failureMemo) classOfPod(pod *v1.Pod, claims []*resourceapi.ResourceClaim) int {
	if class, ok := m.classOf[pod]; ok {
		return class
	}
	key, err := podClassKey(pod, claims)
	if err != nil {
		return -1
	}
	class, ok := m.classes[key]
	if !ok {
		class = len(m.classes)
		m.classes[key] = class
	}
	if len(m.classOf) > 1<<16 {
		m.classOf = map[*v1.Pod]int{} // pods long gone; the keys stay
	}
	m.classOf[pod] = class
	return class
}

// podClassKey is what the plugins read of a pending pod: two pods with the
// same key get the same answer in the same state (up to their names).
// The spec and the claims' specs are in their protobuf encoding, which
// writes maps with sorted keys (generated code, several times faster than
// encoding/json's reflection: a timeline keys thousands of pods); it
// tells nil from empty lists no more than plugins do.
func podClassKey(pod *v1.Pod, claims []*resourceapi.ResourceClaim) (string, error) {
	b := appendKeyPart(nil, pod.Namespace)
	b = appendSortedMap(b, pod.Labels)
	b = appendSortedMap(b, pod.Annotations)
	spec, err := pod.Spec.Marshal()
	if err != nil {
		return "", err
	}
	b = appendKeyPart(b, spec)
	for _, c := range claims {
		cs, err := c.Spec.Marshal()
		if err != nil {
			return "", err
		}
		b = appendKeyPart(b, cs)
	}
	return string(b), nil
}

// appendKeyPart appends s to a class key, length first, so that no two
// different sequences of parts make the same key.
func appendKeyPart[S string | []byte](b []byte, s S) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendSortedMap(b []byte, m map[string]string) []byte {
	b = binary.AppendUvarint(b, uint64(len(m)))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		b = appendKeyPart(b, k)
		b = appendKeyPart(b, m[k])
	}
	return b
}

// memoStore keeps a failed cycle's answer for the pods of its class when
// giving it again is exact: PostFilter changed nothing and decided
// nothing, the cycle left the state as it found it, and no message names
// the pod or its claims.
func (r *Replayer) memoStore(c *memoCycle, pod *v1.Pod, a *Attempt, pf *PostFilterResult, reasons []result.Reason, plugins sets.Set[string]) {
	if c == nil || a.Node != "" || a.Err != nil || a.Error != nil || pf.Deallocate != nil {
		return
	}
	pre := pf.Preemption
	if pre != nil && (pre.Node != "" || len(pre.Candidates) > 0 || len(pre.Victims) > 0 || (pre.Nomination != nil && pre.Nomination.Node != "")) {
		return
	}
	if r.stateVersion() != c.version || r.memo.version != c.version {
		return
	}
	if namesPod(pod, r.ClaimsOf(pod), a, pf) {
		return
	}
	if c.class < 0 {
		if c.class = r.memo.classOfPod(c.pod, c.claims); c.class < 0 {
			return
		}
	}
	f := &failure{attempt: *a, reasons: reasons, plugins: plugins}
	f.attempt.State = nil
	f.postFilter = PostFilterResult{Message: pf.Message, Preemption: pre}
	r.memo.failures[c.class] = f
}

// namesPod reports whether a message of the cycle names the pod or one of
// its claims: such an answer is the pod's own.
func namesPod(pod *v1.Pod, claims []*resourceapi.ResourceClaim, a *Attempt, pf *PostFilterResult) bool {
	names := func(t string) bool {
		if pod.Name != "" && strings.Contains(t, pod.Name) {
			return true
		}
		for _, c := range claims {
			if c.Name != "" && strings.Contains(t, c.Name) {
				return true
			}
		}
		return false
	}
	if names(a.Message) || names(pf.Message) {
		return true
	}
	for _, rj := range a.Rejections {
		if names(rj.Plugin) || names(rj.Reason) {
			return true
		}
	}
	if st := a.PreFilterStatus; st != nil && names(st.Message()) {
		return true
	}
	if pre := pf.Preemption; pre != nil {
		if names(pre.Message) {
			return true
		}
		// Rejections share their statuses: each is read once.
		var last *framework.Status
		for _, n := range pre.Rejected {
			if n.Status != nil && n.Status != last {
				if names(n.Status.Message()) {
					return true
				}
				last = n.Status
			}
		}
	}
	return false
}

// again is the failure given as a new cycle's outcome (shared, not to be
// changed): the start index moves on as the cycle moved it.
func (f *failure) again(s *Scheduler) *Attempt {
	if a := &f.attempt; a.moved && len(s.c.Nodes()) > 0 {
		s.nextStart = (s.nextStart + a.advance) % len(s.c.Nodes())
	}
	return &f.attempt
}

// postFilterAgain is the failure's PostFilter result (shared, not to be changed);
// the dry run's offset is drawn as the dry run drew it.
func (f *failure) postFilterAgain(s *Scheduler) *PostFilterResult {
	if p := f.postFilter.Preemption; p != nil && p.offsetDraw > 0 {
		s.preemptionRand().IntN(p.offsetDraw)
	}
	return &f.postFilter
}
