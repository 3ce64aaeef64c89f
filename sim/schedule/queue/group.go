package queue

import (
	"slices"

	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// Group is a pod group (scheduling.k8s.io PodGroup) as the queue sees it.
type Group struct {
	Namespace, Name string
	// Priority is the pod group's spec.priority: the gang's place in the
	// activeQ.
	Priority int32
}

func (g *Group) key() string { return g.Namespace + "/" + g.Name }

// Groups tells the queue which pod group a pending pod belongs to (kube's
// workload forest). With it, every pod that names a pod group is queued
// as a member of its group's entity, which is popped and scheduled as a
// whole (GenericWorkload); without it (the gate off), every pod is its
// own entity.
type Groups interface {
	// GroupOf returns the pod's group; member is false for a pod that
	// names none. A member whose PodGroup does not exist gets a nil group
	// and waits, out of every sub-queue, until the group appears.
	GroupOf(pod *v1.Pod) (g *Group, member bool)
}

// groupState holds the pod group entities and the members that cannot
// join theirs yet.
type groupState struct {
	// entities are the group entities, wherever they are (in flight too).
	entities map[string]*Entity
	// pending are members that arrived while their group was in flight
	// (kube's pendingPodGroupPods): they join it when its attempt ends.
	pending map[string][]*PodInfo
	// incomplete are members whose PodGroup does not exist (kube's
	// incompletePodGroupPods), in arrival order.
	incomplete []*PodInfo
}

func (gs *groupState) init() {
	if gs.entities == nil {
		gs.entities = map[string]*Entity{}
		gs.pending = map[string][]*PodInfo{}
	}
}

// waitingPods are the members the sub-queues do not hold: those waiting
// for their group's attempt to end or for their PodGroup to appear.
func (gs *groupState) waitingPods() []*v1.Pod {
	var out []*v1.Pod
	keys := make([]string, 0, len(gs.pending))
	for k := range gs.pending {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, pi := range gs.pending[k] {
			out = append(out, pi.Pod)
		}
	}
	for _, pi := range gs.incomplete {
		out = append(out, pi.Pod)
	}
	return out
}

// memberLess is kube's PodGroupMemberPodsOrderingFunc: the order in which
// a gang's pods are tried: higher priority, more attempts, earlier
// timestamp, then name.
func memberLess(a, b *PodInfo) bool {
	pa, pb := corev1helpers.PodPriority(a.Pod), corev1helpers.PodPriority(b.Pod)
	if pa != pb {
		return pa > pb
	}
	if a.Attempts != b.Attempts {
		return a.Attempts > b.Attempts
	}
	if a.Timestamp != b.Timestamp {
		return a.Timestamp.Before(b.Timestamp)
	}
	return a.Pod.Name < b.Pod.Name
}

func (e *Entity) addMember(pi *PodInfo) {
	i, _ := slices.BinarySearchFunc(e.Pods, pi, func(x, y *PodInfo) int {
		if memberLess(x, y) {
			return -1
		}
		if memberLess(y, x) {
			return 1
		}
		return 0
	})
	e.Pods = slices.Insert(e.Pods, i, pi)
}

// addGroupMember queues a pod that names a pod group (kube's
// addPodGroupMember) and reports whether it did: into its group's
// entity, wherever that is, or into a new one, which goes to the activeQ
// unless PreEnqueue (GangScheduling waiting for minCount pods) gates it.
func (q *Queue) addGroupMember(pod *v1.Pod, t Time) bool {
	if q.opts.Groups == nil {
		return false
	}
	g, member := q.opts.Groups.GroupOf(pod)
	if !member {
		return false
	}
	q.groups.init()
	pi := newPodInfo(pod)
	pi.Timestamp = q.stamp(t)
	q.joinGroup(g, pi)
	return true
}

func (q *Queue) joinGroup(g *Group, pi *PodInfo) {
	if g == nil {
		q.groups.incomplete = append(q.groups.incomplete, pi)
		return
	}
	k := g.key()
	e := q.groups.entities[k]
	switch {
	case e != nil && e.where == inFlight:
		q.groups.pending[k] = append(q.groups.pending[k], pi)
	case e != nil:
		strategy := queueSkip
		switch e.where {
		case inActive:
			strategy = queueImmediately
		case inBackoff, inErrorBackoff:
			strategy = queueAfterBackoff
		}
		q.detach(e)
		e.addMember(pi)
		q.requeue(e, strategy)
	default:
		e = &Entity{key: "podgroup/" + k, Group: g, Timestamp: pi.Timestamp, heapIndex: -1}
		e.addMember(pi)
		q.entities[e.key] = e
		q.groups.entities[k] = e
		q.moveToActive(e, false)
	}
}

// GroupAdded tells the queue that a PodGroup appeared: its members that
// waited for it join its entity (kube's AddPodGroup). The caller then
// delivers the PodGroup Add event.
func (q *Queue) GroupAdded(g *Group, t Time) {
	q.setNow(t)
	if q.opts.Groups == nil {
		return
	}
	q.groups.init()
	var keep []*PodInfo
	for _, pi := range q.groups.incomplete {
		if pi.Pod.Namespace == g.Namespace && groupName(pi.Pod) == g.Name {
			q.joinGroup(g, pi)
			continue
		}
		keep = append(keep, pi)
	}
	q.groups.incomplete = keep
}

func groupName(pod *v1.Pod) string {
	if sg := pod.Spec.SchedulingGroup; sg != nil && sg.PodGroupName != nil {
		return *sg.PodGroupName
	}
	return ""
}

// deleteGroupMember removes a pending member that went away, and reports
// whether the pod was one.
func (q *Queue) deleteGroupMember(pod *v1.Pod) bool {
	if q.opts.Groups == nil || groupName(pod) == "" {
		return false
	}
	q.groups.init()
	same := func(pi *PodInfo) bool {
		return pi.Pod.UID == pod.UID && pi.Pod.Name == pod.Name && pi.Pod.Namespace == pod.Namespace
	}
	q.groups.incomplete = slices.DeleteFunc(q.groups.incomplete, same)
	k := pod.Namespace + "/" + groupName(pod)
	if p := q.groups.pending[k]; p != nil {
		q.groups.pending[k] = slices.DeleteFunc(p, same)
	}
	e := q.groups.entities[k]
	if e == nil || e.where == inFlight {
		return true
	}
	e.Pods = slices.DeleteFunc(e.Pods, same)
	if len(e.Pods) == 0 {
		q.detach(e)
		delete(q.entities, e.key)
		delete(q.groups.entities, k)
	}
	return true
}

func (q *Queue) forgetGroupEntity(e *Entity) {
	if e.Group == nil || q.groups.entities == nil {
		return
	}
	k := e.Group.key()
	if q.groups.entities[k] == e {
		delete(q.groups.entities, k)
	}
	// Members that arrived during the attempt start a new entity.
	pending := q.groups.pending[k]
	delete(q.groups.pending, k)
	for _, pi := range pending {
		q.joinGroup(e.Group, pi)
	}
}

func (q *Queue) groupEntityOf(pod *v1.Pod) *Entity {
	if q.opts.Groups == nil || q.groups.entities == nil {
		return nil
	}
	name := groupName(pod)
	if name == "" {
		return nil
	}
	return q.groups.entities[pod.Namespace+"/"+name]
}

// GroupOutcome is how a gang's attempt ended.
type GroupOutcome int

const (
	// GroupScheduled: the gang was placed (its pods that fit go to their
	// nodes; any left over are retried at once).
	GroupScheduled GroupOutcome = iota
	// GroupUnschedulable: the gang did not fit; it is retried after its
	// backoff.
	GroupUnschedulable
	// GroupError: a plugin failed.
	GroupError
)

// GroupAttempted ends the attempt of a gang popped at its turn (kube's
// failure handling of its pods, then AddAttemptedPodGroupIfNeeded): the
// pods in back (those not placed) rejoin the entity with those that
// arrived meanwhile, with their rejectors from r; the entity goes to the
// activeQ after a success, and after its backoff (doubling from 1 s to
// 10 s times the square root of its pods) otherwise: a gang does not wait
// in the unschedulable pool for an event, it is retried on time.
func (q *Queue) GroupAttempted(e *Entity, t Time, back []*v1.Pod, r Result, outcome GroupOutcome) {
	q.setNow(t)
	q.groups.init()
	k := e.Group.key()
	byPod := make(map[*v1.Pod]*PodInfo, len(e.Pods))
	for _, pi := range e.Pods {
		byPod[pi.Pod] = pi
	}
	var pods []*PodInfo
	for _, pod := range back {
		pi := byPod[pod]
		if pi == nil {
			continue
		}
		key := pod.Namespace + "/" + pod.Name
		pi.UnschedulablePlugins, pi.PendingPlugins = orNone(r.UnschedulablePlugins[key]), orNone(r.PendingPlugins[key])
		pi.Timestamp = q.stamp(t)
		pods = append(pods, pi)
	}
	hadLeftovers := len(pods) > 0
	pods = append(pods, q.groups.pending[k]...)
	delete(q.groups.pending, k)
	if len(pods) == 0 {
		q.Done(e)
		return
	}
	e.Pods = nil
	for _, pi := range pods {
		e.addMember(pi)
	}
	preserve, now := false, false
	switch outcome {
	case GroupScheduled:
		now, preserve = true, hadLeftovers
		e.UnschedulableCount, e.ConsecutiveErrorsCount = 0, 0
	case GroupUnschedulable:
		e.UnschedulableCount++
		e.ConsecutiveErrorsCount = 0
	default:
		e.ConsecutiveErrorsCount++
	}
	if !preserve {
		e.Timestamp = q.stamp(t)
	}
	e.backoffSet, e.WasFlushed, e.flushTime, e.where = false, false, 0, nowhere
	e.failedAt = q.events
	if !now && q.backingOff(e) {
		q.moveToBackoff(e)
	} else {
		q.moveToActive(e, false)
	}
}
