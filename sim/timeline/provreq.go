package timeline

import (
	"time"

	"github.com/drasim/drasim/sim/autoscale"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/snapshot"
)

// RequestArrival is a ProvisioningRequest created during the timeline.
type RequestArrival struct {
	// At is when the request is created, from the start
	// (drasim.io/arrival on the request; 0 without it).
	At time.Duration
	PR *snapshot.ProvisioningRequest
}

// ProvReqRecord is what cluster-autoscaler did with one
// ProvisioningRequest: its conditions over time.
type ProvReqRecord struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Class     string `json:"class"`
	Pods      int    `json:"pods"`
	// Arrival is when the request was created (nil: after the end).
	Arrival        *Seconds `json:"arrival,omitempty"`
	ClaimTemplates bool     `json:"claimTemplates,omitempty"`
	// Transitions are the conditions CA set, each when its status,
	// reason or message changed; Conditions are those at the end.
	Transitions []ProvReqCondition `json:"transitions"`
	Conditions  []ProvReqCondition `json:"conditions"`
	// Tries counts the loops that handed the request to its class.
	Tries int `json:"tries"`
	// Nodes are the nodes scale-ups added for the request.
	Nodes []string `json:"nodes,omitempty"`
	Note  string   `json:"note,omitempty"`
}

// ProvReqCondition is one condition and when CA set it.
type ProvReqCondition struct {
	Time    Seconds `json:"time"`
	Type    string  `json:"type"`
	Status  string  `json:"status"`
	Reason  string  `json:"reason"`
	Message string  `json:"message,omitempty"`
}

// requestArrivals reads when each ProvisioningRequest of the snapshot is
// created: drasim.io/arrival on the request, as on a pod; 0 without it.
func requestArrivals(snap *snapshot.Snapshot) ([]RequestArrival, error) {
	var out []RequestArrival
	var errs load.Errors
	for _, pr := range snap.ProvisioningRequests {
		a := RequestArrival{PR: pr}
		if v, ok := pr.Annotations[AnnotationArrival]; ok {
			d, err := parseDuration(v)
			if err != nil {
				ref := snapshot.Ref{Kind: "ProvisioningRequest", Namespace: pr.Namespace, Name: pr.Name}
				errs = append(errs, &load.Error{Source: snap.Sources[ref], Object: ref.String(), Field: "metadata.annotations[" + AnnotationArrival + "]", Msg: err.Error()})
				continue
			}
			a.At = d
		}
		out = append(out, a)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// requestArrived hands a request to the autoscaler as it is created.
func (e *engine) requestArrived(a *RequestArrival) error {
	return e.as.AddProvisioningRequest(a.PR, e.clock())
}

// provReqRecords are the autoscaler's records of the requests, in times
// from the start.
func (e *engine) provReqRecords() []ProvReqRecord {
	if e.as == nil {
		return nil
	}
	lives := e.as.ProvisioningRequests()
	if len(lives) == 0 {
		return nil
	}
	out := make([]ProvReqRecord, 0, len(lives))
	for _, l := range lives {
		rec := ProvReqRecord{Namespace: l.Namespace, Name: l.Name, Class: l.Class, Pods: l.Pods, ClaimTemplates: l.ClaimTemplates,
			Transitions: e.conditions(l.Transitions), Conditions: e.conditions(l.Conditions), Tries: l.Tries, Nodes: l.Nodes, Note: l.Note}
		if l.Created != nil {
			rec.Arrival = ptrSeconds(l.Created.Sub(e.opts.Start))
		}
		out = append(out, rec)
	}
	return out
}

// conditions gives the conditions times from the start (a condition the
// object came with, from before the start, at 0).
func (e *engine) conditions(ts []autoscale.ProvReqTransition) []ProvReqCondition {
	out := make([]ProvReqCondition, 0, len(ts))
	for _, t := range ts {
		out = append(out, ProvReqCondition{Time: secondsOf(max(0, t.At.Sub(e.opts.Start))), Type: t.Type, Status: t.Status, Reason: t.Reason, Message: t.Message})
	}
	return out
}
