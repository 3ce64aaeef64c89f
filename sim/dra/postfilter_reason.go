package dra

import "github.com/drasim/drasim/sim/framework"

// The reasons kube-scheduler before 1.37 gave when DynamicResources'
// PostFilter freed no claim; they join the pod's message before
// preemption's ("still not schedulable, preemption: ..."). 1.37's
// PostFilter returns Unschedulable without a reason.
const (
	ReasonNoClaimsToDeallocate = "no new claims to deallocate"
	ReasonStillNotSchedulable  = "still not schedulable"
)

// PostFilterReason is the reason kube-scheduler before 1.37 gave when
// PostFilter freed nothing: a pod without claims (the extended-resource
// claim included) has none to deallocate.
func (p *Plugin) PostFilterReason(cs *framework.CycleState) string {
	if d := readCycle(cs); d == nil || len(d.claims) == 0 {
		return ReasonNoClaimsToDeallocate
	}
	return ReasonStillNotSchedulable
}
