package schedule

import (
	"context"
	"fmt"

	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/dra"
	"github.com/drasim/drasim/sim/result"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

// maxPasses bounds the retries of pods that did not fit: kube retries an
// unschedulable pod when a cluster event may help it (a pod landing can
// satisfy inter-pod affinity or topology spread); drasim retries the
// remaining pods after each pass that placed something, up to this bound.
const maxPasses = 8

// Replay schedules every queued pod of the cluster and returns the result.
// The cluster is changed in place: pods get their nodes, claims their
// allocations.
func Replay(ctx context.Context, c *cluster.Cluster, p *Profile, opts Options, draPlugin *dra.Plugin) (*result.Result, error) {
	s := New(c, p, opts)
	outcomes := map[*v1.Pod]*result.Pod{}
	var events []result.Event
	pending := append([]*v1.Pod(nil), c.Queue...)
	cycles := 0
	for pass := 1; pass <= maxPasses && len(pending) > 0; pass++ {
		var still []*v1.Pod
		placed := 0
		for _, pod := range pending {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			a := s.SchedulePod(ctx, pod)
			cycles++
			if opts.Progress != nil {
				opts.Progress(cycles, len(c.Queue))
			}
			if a.Err != nil {
				return nil, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, a.Err)
			}
			out := &result.Pod{Namespace: pod.Namespace, Name: pod.Name, Priority: corev1helpers.PodPriority(pod), FeasibleNodes: a.FeasibleNodes, EvaluatedNodes: a.EvaluatedNodes}
			if a.Error != nil {
				// A plugin error fails this pod's attempt only, as in kube;
				// no node rejected it, so the reason counts no nodes.
				out.Reason = result.ReasonSchedulerError
				a.Rejections = []Rejection{{Plugin: a.Error.Plugin, Reason: result.ReasonSchedulerError}}
			}
			if a.Node == "" && pass > 1 {
				// Still does not fit: keep the message of the pod's own turn
				// in the queue, as the PodScheduled condition kube wrote then.
				still = append(still, pod)
				continue
			}
			outcomes[pod] = out
			if a.Node == "" {
				out.Phase = result.PhaseUnschedulable
				out.Message = a.Message
				if a.Error == nil {
					out.DeviceReasons = diagnose(ctx, c, draPlugin, a)
				}
				for _, r := range a.Rejections {
					out.Reasons = append(out.Reasons, result.Reason{Plugin: r.Plugin, Reason: r.Reason, Nodes: r.Nodes})
				}
				still = append(still, pod)
				continue
			}
			placed++
			out.Phase = result.PhaseScheduled
			out.Node = a.Node
			out.Attempt = pass
			if a.Chosen != nil && len(a.Chosen.Scores) > 0 {
				sc := &result.Score{Total: a.Chosen.Total}
				for _, ps := range a.Chosen.Scores {
					sc.Plugins = append(sc.Plugins, result.PluginScore{Plugin: ps.Plugin, Raw: ps.Score, Weighted: ps.Weighted})
				}
				out.Score = sc
			}
			setScheduled(pod)
			events = append(events, result.Event{Seq: len(events) + 1, Type: result.EventScheduled, Pod: pod.Namespace + "/" + pod.Name, Node: a.Node,
				Message: fmt.Sprintf("Successfully assigned %s/%s to %s", pod.Namespace, pod.Name, a.Node)})
		}
		pending = still
		if placed == 0 {
			break
		}
	}
	for _, pod := range pending {
		out := outcomes[pod]
		setUnschedulable(pod, out.Reason, out.Message)
		events = append(events, result.Event{Seq: len(events) + 1, Type: result.EventFailedScheduling, Pod: pod.Namespace + "/" + pod.Name, Message: out.Message})
	}
	return buildResult(c, s, outcomes, events, draPlugin), nil
}

// diagnose asks the DRA plugin why the pod's claims failed on the nodes it
// rejected, at the pod's turn, and counts the findings over nodes.
func diagnose(ctx context.Context, c *cluster.Cluster, draPlugin *dra.Plugin, a *Attempt) []result.DeviceReason {
	if draPlugin == nil || len(a.DeviceRejected) == 0 {
		return nil
	}
	type key struct{ claim, request, reason string }
	counts := map[key]int{}
	var order []key
	for _, name := range a.DeviceRejected {
		ni := c.Node(name)
		if ni == nil {
			continue
		}
		for _, f := range draPlugin.Diagnose(ctx, a.State, ni.Node()) {
			k := key{f.Claim, f.Request, f.Reason}
			if counts[k] == 0 {
				order = append(order, k)
			}
			counts[k]++
		}
	}
	out := make([]result.DeviceReason, 0, len(order))
	for _, k := range order {
		out = append(out, result.DeviceReason{Claim: k.claim, Request: k.request, Reason: k.reason, Nodes: counts[k]})
	}
	return out
}

func setScheduled(pod *v1.Pod) {
	setCondition(pod, v1.PodCondition{Type: v1.PodScheduled, Status: v1.ConditionTrue})
}

func setUnschedulable(pod *v1.Pod, reason, msg string) {
	if reason == "" {
		reason = v1.PodReasonUnschedulable
	}
	setCondition(pod, v1.PodCondition{Type: v1.PodScheduled, Status: v1.ConditionFalse, Reason: reason, Message: msg})
}

func setCondition(pod *v1.Pod, cond v1.PodCondition) {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == cond.Type {
			pod.Status.Conditions[i] = cond
			return
		}
	}
	pod.Status.Conditions = append(pod.Status.Conditions, cond)
}

func buildResult(c *cluster.Cluster, s *Scheduler, outcomes map[*v1.Pod]*result.Pod, events []result.Event, draPlugin *dra.Plugin) *result.Result {
	r := &result.Result{APIVersion: result.APIVersion, Kind: result.Kind, Events: events, Warnings: c.Warnings}
	if r.Events == nil {
		r.Events = []result.Event{}
	}
	r.Inputs.Nodes = len(c.Nodes)
	r.Inputs.Pods = len(c.Pods)
	r.Inputs.PendingPods = len(c.Queue)
	r.Inputs.ResourceClaims = len(c.Snapshot.ResourceClaims)
	r.Inputs.Seed = s.opts.Seed
	r.Inputs.TieBreak = string(TieBreakKube)
	if s.opts.TieBreak == TieBreakRandom {
		r.Inputs.TieBreak = string(TieBreakRandom)
	}
	r.Inputs.ScoreAllNodes = s.opts.ScoreAllNodes
	for _, sl := range c.DRA.Slices() {
		r.Inputs.Devices += len(sl.Spec.Devices)
	}
	gated, skipped := podSet(c.Gated), podSet(c.Skipped)
	bound := podSet(c.Bound)
	for _, pod := range c.Pods {
		out, ok := outcomes[pod]
		switch {
		case ok:
		case s.opts.OnlyQueued:
			continue
		case bound[pod]:
			out = &result.Pod{Phase: result.PhaseBound, Node: pod.Spec.NodeName}
		case gated[pod]:
			out = &result.Pod{Phase: result.PhaseGated, Message: "pod has scheduling gates"}
		case skipped[pod]:
			out = &result.Pod{Phase: result.PhaseSkipped, Message: fmt.Sprintf("pod is for scheduler %q", pod.Spec.SchedulerName)}
		default:
			continue
		}
		out.Namespace, out.Name = pod.Namespace, pod.Name
		out.Priority = corev1helpers.PodPriority(pod)
		if ref := metav1.GetControllerOf(pod); ref != nil {
			out.Owner = ref.Kind + "/" + ref.Name
		}
		out.Claims = PodClaims(pod, draPlugin)
		r.Pods = append(r.Pods, *out)
	}
	r.Recount()
	if !s.opts.OnlyQueued {
		r.Nodes = nodeUsage(c)
	}
	return r
}

func podSet(pods []*v1.Pod) map[*v1.Pod]bool {
	m := make(map[*v1.Pod]bool, len(pods))
	for _, p := range pods {
		m[p] = true
	}
	return m
}

// PodClaims lists the pod's claims and their allocated devices, with the
// firstAvailable alternative each request got.
func PodClaims(pod *v1.Pod, draPlugin *dra.Plugin) []result.Claim {
	if draPlugin == nil {
		return nil
	}
	claims, _ := draPlugin.PodClaims(pod)
	var out []result.Claim
	podClaimName := map[string]string{}
	template := map[string]string{}
	for _, pc := range pod.Spec.ResourceClaims {
		name, _, err := resourceclaim.Name(pod, &pc)
		if err != nil || name == nil {
			continue
		}
		podClaimName[*name] = pc.Name
		if pc.ResourceClaimTemplateName != nil {
			template[*name] = *pc.ResourceClaimTemplateName
		}
	}
	if st := pod.Status.ExtendedResourceClaimStatus; st != nil {
		if c, err := draPlugin.State().Claim(pod.Namespace, st.ResourceClaimName); err == nil {
			claims = append(claims, c)
		}
	}
	for _, c := range claims {
		rc := result.Claim{PodClaimName: podClaimName[c.Name], Name: c.Name, Template: template[c.Name], Shared: template[c.Name] == "" && podClaimName[c.Name] != ""}
		if c.Status.Allocation != nil {
			for _, d := range c.Status.Allocation.Devices.Results {
				dev := result.Device{Request: d.Request, Driver: d.Driver, Pool: d.Pool, Device: d.Device, AdminAccess: ptr.Deref(d.AdminAccess, false)}
				if d.ShareID != nil {
					dev.ShareID = string(*d.ShareID)
				}
				dev.Alternative, dev.AlternativeRank = dra.Alternative(c, d.Request)
				rc.Devices = append(rc.Devices, dev)
			}
		}
		out = append(out, rc)
	}
	return out
}

// nodeUsage reports each node's requested resources and devices.
func nodeUsage(c *cluster.Cluster) []result.Node {
	allocated := c.DRA.AllocatedState()
	devTotal := map[string]int{}
	devUsed := map[string]int{}
	for _, sl := range c.DRA.Slices() {
		if sl.Spec.NodeName == nil {
			continue
		}
		node := *sl.Spec.NodeName
		for _, d := range sl.Spec.Devices {
			devTotal[node]++
			if structured.IsDeviceAllocated(structured.MakeDeviceID(sl.Spec.Driver, sl.Spec.Pool.Name, d.Name), &allocated) {
				devUsed[node]++
			}
		}
	}
	out := make([]result.Node, 0, len(c.Nodes))
	for _, ni := range c.Snapshot.Nodes {
		info := c.Node(ni.Name)
		if info == nil {
			continue
		}
		n := result.Node{
			Name:          ni.Name,
			Group:         ni.Labels[v1.LabelInstanceTypeStable],
			Unschedulable: ni.Spec.Unschedulable,
			CPU:           quantity(info.Requested.MilliCPU, info.Allocatable.MilliCPU, true),
			Memory:        quantity(info.Requested.Memory, info.Allocatable.Memory, false),
			Pods:          result.Count{Used: len(info.Pods), Total: info.Allocatable.AllowedPodNumber},
			Devices:       result.Count{Used: devUsed[ni.Name], Total: devTotal[ni.Name]},
		}
		out = append(out, n)
	}
	return out
}

func quantity(requested, allocatable int64, milli bool) result.Quantity {
	format := func(v int64) string {
		if milli {
			return resource.NewMilliQuantity(v, resource.DecimalSI).String()
		}
		return resource.NewQuantity(v, resource.BinarySI).String()
	}
	return result.Quantity{Requested: format(requested), Allocatable: format(allocatable), RequestedValue: requested, AllocatableValue: allocatable}
}
