// Package queue is kube-scheduler v1.37.2's scheduling queue
// (pkg/scheduler/backend/queue) on a logical clock: the activeQ in
// PrioritySort order, the backoffQ (1 s doubling to 10 s per failed
// attempt, popped early when the activeQ is empty, as
// SchedulerPopFromBackoffQ does), the pool of unschedulable pods (flushed
// after 5 minutes), the queueing hints that decide which cluster event
// moves which unschedulable pod back, PreEnqueue gating, and the
// nominator that remembers the pods a preemption made room for. With
// Options.Groups (GenericWorkload), the pods of a pod group form one
// entity, a gang, ordered and popped as a whole and retried after its
// backoff rather than on an event.
//
// Time is the caller's: every call takes the current time as a duration
// since the start of the simulation, and nothing reads a wall clock. The
// queue never runs on its own; Advance runs the periodic flushes that are
// due (kube's 1 s backoff ticker and 30 s unschedulable ticker) and
// NextWake says when the next one will move something.
//
// The API, for a caller that simulates time:
//
//	q := queue.New(opts)
//	q.Add(pod, t)               // a pending pod arrives
//	e := q.Pop(t)               // the next entity to schedule, or nil
//	q.Done(e)                   // it was scheduled
//	q.Failed(e, t, result)      // it was not: back to the queue
//	q.Event(t, ev, old, new, f) // a cluster event, moving pods by hint
//	q.Delete(pod)               // a pending pod went away
//	q.NextWake(t)               // when Advance will next move a pod
//	q.NextBackoff(t)            // when the next backoff ends
//	q.GroupAttempted(e, t, back, result, outcome) // a gang's attempt ended
//	q.GroupAdded(g, t)          // a PodGroup appeared: its pods join it
//
// Within one instant, events are ordered by the order of the calls: each
// stamp carries a sequence number, so that a pod that failed after
// another sorts after it, as kube's nanosecond timestamps would.
package queue
