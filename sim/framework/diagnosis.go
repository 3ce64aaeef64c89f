package framework

import (
	"context"
	"fmt"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
)

// Rejection is one (plugin, reason) with the number of nodes that gave it.
type Rejection struct {
	Plugin string
	Reason string
	Nodes  int
}

// MaxDiagnosedNodes bounds how many nodes a NodeDiagnoser rejected are
// kept per cycle for its diagnosis.
const MaxDiagnosedNodes = 32

// Diagnosis is why a pod fits nowhere, as kube's framework.Diagnosis:
// what PostFilter (preemption) and the queue read of a failed cycle.
type Diagnosis struct {
	// PreFilterStatus is set when PreFilter rejected the pod outright
	// (kube's PreFilterMsg).
	PreFilterStatus *Status
	// Rejections counts the filter rejections by (plugin, reason), sorted
	// by reason then plugin (kube's NodeToStatus, counted).
	Rejections []Rejection
	// UnschedulablePlugins are the plugins that rejected the pod on some
	// node, sorted: the queue retries the pod on the events they
	// registered.
	UnschedulablePlugins []string
	// Potential are the nodes that rejected the pod with Unschedulable
	// (not UnschedulableAndUnresolvable), in node order: the nodes where
	// preemption might help.
	Potential []*NodeInfo
	// Diagnosed names (up to MaxDiagnosedNodes) nodes that the profile's
	// NodeDiagnoser rejected, when no node was found feasible (nothing is
	// kept otherwise).
	Diagnosed []string
}

// FitMessage words a failure as kube's FitError does: reasons counted
// over nodes, "N reason" entries sorted as strings.
func (d *Diagnosis) FitMessage(numAllNodes int) string {
	counts := map[string]int{}
	for _, r := range d.Rejections {
		counts[r.Reason] += r.Nodes
	}
	parts := make([]string, 0, len(counts))
	for reason, n := range counts {
		parts = append(parts, fmt.Sprintf("%d %s", n, reason))
	}
	sort.Strings(parts)
	msg := fmt.Sprintf("0/%d nodes are available:", numAllNodes)
	if len(parts) > 0 {
		msg += " " + strings.Join(parts, ", ") + "."
	}
	return msg
}

// SortRejections turns counts by (plugin, reason) into Rejections in
// their order.
func SortRejections(m map[[2]string]int) []Rejection {
	out := make([]Rejection, 0, len(m))
	for k, n := range m {
		out = append(out, Rejection{Plugin: k[0], Reason: k[1], Nodes: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Reason != out[j].Reason {
			return out[i].Reason < out[j].Reason
		}
		return out[i].Plugin < out[j].Plugin
	})
	return out
}

// NodeDiagnoser is implemented by a Filter plugin that can tell, after
// the cycle, why it rejected a node in finer terms than its status
// (DynamicResources: claim by claim, request by request). When no node
// fits, the scheduler keeps the first MaxDiagnosedNodes nodes the plugin
// rejected (Diagnosis.Diagnosed), and the replay asks it about them.
type NodeDiagnoser interface {
	FilterPlugin
	DiagnoseNode(ctx context.Context, state *CycleState, node *v1.Node) []NodeFinding
}

// NodeFinding is one of a NodeDiagnoser's reasons on a node.
type NodeFinding struct {
	Claim, Request, Reason string
}

// PostFilterResult is what PostFilter plugins decided for a pod (or pod
// group) that fit nowhere. They decide and change nothing: the caller
// carries the decision out.
type PostFilterResult struct {
	// Deallocate are claims to free (DynamicResources asks the API server
	// to), in the order decided.
	Deallocate []*resourceapi.ResourceClaim
}

func (r *PostFilterResult) merge(o *PostFilterResult) {
	if o != nil {
		r.Deallocate = append(r.Deallocate, o.Deallocate...)
	}
}

// PostFilterPlugin runs for a pod that no node fits, with the cycle's
// diagnosis (kube's PostFilterPlugin). Success means the pod can now be
// placed (its nomination follows); Unschedulable carries the reasons
// added to the pod's message.
type PostFilterPlugin interface {
	Plugin
	PostFilter(ctx context.Context, state *CycleState, pod *v1.Pod, d *Diagnosis) (*PostFilterResult, *Status)
}

// PodGroupPostFilterPlugin runs for a pod group whose cycle did not place
// it (kube's PodGroupPostFilterPlugin), with each pod's cycle state (nil
// for a pod not tried).
type PodGroupPostFilterPlugin interface {
	Plugin
	PodGroupPostFilter(ctx context.Context, states []*CycleState, pods []*v1.Pod) (*PostFilterResult, *Status)
}
