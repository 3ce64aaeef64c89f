package noderesources

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/drasim/drasim/sim/framework"
	"github.com/drasim/drasim/sim/schedule/plugins/config"
)

// Name is the plugin name in kube-scheduler profiles.
const Name = "NodeResourcesFit"

// Kube's reasons for the native resources; an extended or other scalar
// resource gets "Insufficient <name>".
const (
	ErrReasonTooManyPods               = "Too many pods"
	ErrReasonInsufficientCPU           = "Insufficient cpu"
	ErrReasonInsufficientMemory        = "Insufficient memory"
	ErrReasonInsufficientEphemeralDisk = "Insufficient ephemeral-storage"
)

const (
	preFilterStateKey = "PreFilter" + Name
	preScoreStateKey  = "PreScore" + Name
)

// Fit is the NodeResourcesFit plugin.
type Fit struct {
	ignoredResources      map[string]bool
	ignoredResourceGroups map[string]bool
	dra                   DRAExtendedResources
	scorer                *resourceAllocationScorer
	requests              framework.PodCache[*preFilterState]
	sums                  *framework.PodRequestCache
}

var (
	_ framework.PreFilterPlugin = (*Fit)(nil)
	_ framework.FilterPlugin    = (*Fit)(nil)
	_ framework.PreScorePlugin  = (*Fit)(nil)
	_ framework.ScorePlugin     = (*Fit)(nil)
	_ framework.PodForgetter    = (*Fit)(nil)
)

// ForgetPod drops the pod's requests.
func (pl *Fit) ForgetPod(pod *v1.Pod) {
	pl.requests.Forget(pod)
	pl.scorer.requests.Forget(pod)
}

// NewFit returns the plugin for args (defaulted with
// config.DefaultNodeResourcesFitArgs, then validated). dra may be nil; so
// may requests (the pods' requests are then added up here alone).
func NewFit(args config.NodeResourcesFitArgs, dra DRAExtendedResources, requests *framework.PodRequestCache) (*Fit, error) {
	args = config.DefaultNodeResourcesFitArgs(args)
	if err := config.ValidateNodeResourcesFitArgs(args); err != nil {
		return nil, fmt.Errorf("noderesources: NodeResourcesFitArgs: %w", err)
	}
	s := args.ScoringStrategy
	var kind scorerKind
	var shape []shapePoint
	switch s.Type {
	case config.LeastAllocated:
		kind = leastAllocated
	case config.MostAllocated:
		kind = mostAllocated
	case config.RequestedToCapacityRatio:
		kind = requestedToCapacityRatio
		shape = make([]shapePoint, 0, len(s.RequestedToCapacityRatio.Shape))
		for _, p := range s.RequestedToCapacityRatio.Shape {
			shape = append(shape, shapePoint{
				utilization: int64(p.Utilization),
				score:       int64(p.Score) * (framework.MaxNodeScore / config.MaxCustomPriorityScore),
			})
		}
	}
	pl := &Fit{
		ignoredResources:      map[string]bool{},
		ignoredResourceGroups: map[string]bool{},
		dra:                   dra,
		scorer:                newResourceAllocationScorer(kind, s.Resources, shape, false, dra, requests),
		sums:                  requests,
	}
	for _, r := range args.IgnoredResources {
		pl.ignoredResources[r] = true
	}
	for _, g := range args.IgnoredResourceGroups {
		pl.ignoredResourceGroups[g] = true
	}
	return pl, nil
}

// Name returns Name.
func (*Fit) Name() string { return Name }

// preFilterState is the pod's request and the scalar resources Filter must
// check, in name order so that reasons come out in a stable order (kube
// ranges over a map here).
type preFilterState struct {
	framework.Resource
	scalars []v1.ResourceName
}

// computePodResourceRequest is the request NodeResourcesFit checks: spec
// requests (no resize status), pod-level resources honoured, overhead added.
func computePodResourceRequest(pod *v1.Pod) *preFilterState {
	return podResourceRequest(resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{SkipPodLevelResources: false}))
}

func podResourceRequest(reqs v1.ResourceList) *preFilterState {
	s := &preFilterState{}
	s.SetMaxResource(reqs)
	return s
}

// PreFilter computes the pod's request once.
func (pl *Fit) PreFilter(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	state.Write(preFilterStateKey, pl.preFilterState(pod))
	return nil, nil
}

func (pl *Fit) preFilterState(pod *v1.Pod) *preFilterState {
	return pl.requests.Get(pod, pl.computePreFilterState)
}

func (pl *Fit) computePreFilterState(pod *v1.Pod) *preFilterState {
	s := podResourceRequest(pl.sums.Get(pod).Spec)
	for name, q := range s.ScalarResources {
		if q == 0 || pl.ignored(name) {
			continue
		}
		s.scalars = append(s.scalars, name)
	}
	slices.Sort(s.scalars)
	return s
}

// ignored reports an extended resource listed in IgnoredResources or whose
// prefix is in IgnoredResourceGroups.
func (pl *Fit) ignored(name v1.ResourceName) bool {
	if !framework.IsExtendedResourceName(name) {
		return false
	}
	if pl.ignoredResources[string(name)] {
		return true
	}
	if len(pl.ignoredResourceGroups) > 0 {
		prefix, _, _ := strings.Cut(string(name), "/")
		return pl.ignoredResourceGroups[prefix]
	}
	return false
}

// Filter rejects a node without room for the pod. The status lists one
// reason per short resource; it is UnschedulableAndUnresolvable when the
// pod asks for more of some resource than the node has in total, otherwise
// Unschedulable (evictions could make room).
func (pl *Fit) Filter(_ context.Context, state *framework.CycleState, _ *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	s, ok := state.Read(preFilterStateKey).(*preFilterState)
	if !ok {
		return framework.AsStatus(errors.New("noderesources: no PreFilter state"))
	}
	if len(s.scalars) == 0 {
		return builtinStatus(s, nodeInfo)
	}
	insufficient := fitsRequest(s, nodeInfo, pl.dra)
	if len(insufficient) == 0 {
		return nil
	}
	code := framework.Unschedulable
	reasons := make([]string, 0, len(insufficient))
	for _, r := range insufficient {
		reasons = append(reasons, r.Reason)
		if r.Unresolvable {
			code = framework.UnschedulableAndUnresolvable
		}
	}
	return framework.NewStatus(code, reasons...)
}

// builtinStatus is Filter's answer for a pod that asks for no scalar
// resource: only pods, CPU, memory and ephemeral storage can be short, so
// the answer is one of a few statuses, made once and shared (with the
// plugin named, so that nothing writes to them) rather than anew for
// every node a pod passes over (docs/performance.md).
func builtinStatus(req *preFilterState, nodeInfo *framework.NodeInfo) *framework.Status {
	alloc, used := nodeInfo.Allocatable, nodeInfo.Requested
	var short int
	if len(nodeInfo.Pods)+1 > alloc.AllowedPodNumber {
		short |= shortPods
	}
	if req.MilliCPU > 0 && req.MilliCPU > alloc.MilliCPU-used.MilliCPU {
		short |= shortCPU
		if req.MilliCPU > alloc.MilliCPU {
			short |= shortUnresolvable
		}
	}
	if req.Memory > 0 && req.Memory > alloc.Memory-used.Memory {
		short |= shortMemory
		if req.Memory > alloc.Memory {
			short |= shortUnresolvable
		}
	}
	if req.EphemeralStorage > 0 && req.EphemeralStorage > alloc.EphemeralStorage-used.EphemeralStorage {
		short |= shortEphemeral
		if req.EphemeralStorage > alloc.EphemeralStorage {
			short |= shortUnresolvable
		}
	}
	return builtinStatuses[short]
}

// What builtinStatus found short, in fitsRequest's order of reasons.
const (
	shortPods = 1 << iota
	shortCPU
	shortMemory
	shortEphemeral
	shortUnresolvable
)

// builtinStatuses holds Filter's status for every combination of short
// built-in resources (nil: none short).
var builtinStatuses = func() (out [2 * shortUnresolvable]*framework.Status) {
	for short := range out {
		var reasons []string
		for _, r := range []struct {
			bit    int
			reason string
		}{{shortPods, ErrReasonTooManyPods}, {shortCPU, ErrReasonInsufficientCPU}, {shortMemory, ErrReasonInsufficientMemory}, {shortEphemeral, ErrReasonInsufficientEphemeralDisk}} {
			if short&r.bit != 0 {
				reasons = append(reasons, r.reason)
			}
		}
		if len(reasons) == 0 {
			continue
		}
		code := framework.Unschedulable
		if short&shortUnresolvable != 0 {
			code = framework.UnschedulableAndUnresolvable
		}
		out[short] = framework.NewStatus(code, slices.Clip(reasons)...).WithPlugin(Name)
	}
	return out
}()

// InsufficientResource describes one resource the node is short of.
type InsufficientResource struct {
	ResourceName v1.ResourceName
	Reason       string
	Requested    int64
	Used         int64
	Capacity     int64
	// Unresolvable means the request exceeds the node's allocatable, so no
	// eviction can help.
	Unresolvable bool
}

// Fits lists what the node lacks for the pod (nothing if it fits), with no
// ignored resources.
func Fits(pod *v1.Pod, nodeInfo *framework.NodeInfo, dra DRAExtendedResources) []InsufficientResource {
	s := computePodResourceRequest(pod)
	for name, q := range s.ScalarResources {
		if q != 0 {
			s.scalars = append(s.scalars, name)
		}
	}
	slices.Sort(s.scalars)
	return fitsRequest(s, nodeInfo, dra)
}

func fitsRequest(req *preFilterState, nodeInfo *framework.NodeInfo, dra DRAExtendedResources) []InsufficientResource {
	var out []InsufficientResource
	alloc, used := nodeInfo.Allocatable, nodeInfo.Requested

	if len(nodeInfo.Pods)+1 > alloc.AllowedPodNumber {
		out = append(out, InsufficientResource{
			ResourceName: v1.ResourcePods,
			Reason:       ErrReasonTooManyPods,
			Requested:    1,
			Used:         int64(len(nodeInfo.Pods)),
			Capacity:     int64(alloc.AllowedPodNumber),
		})
	}
	if req.MilliCPU == 0 && req.Memory == 0 && req.EphemeralStorage == 0 && len(req.ScalarResources) == 0 {
		return out
	}
	if req.MilliCPU > 0 && req.MilliCPU > alloc.MilliCPU-used.MilliCPU {
		out = append(out, InsufficientResource{
			ResourceName: v1.ResourceCPU, Reason: ErrReasonInsufficientCPU,
			Requested: req.MilliCPU, Used: used.MilliCPU, Capacity: alloc.MilliCPU,
			Unresolvable: req.MilliCPU > alloc.MilliCPU,
		})
	}
	if req.Memory > 0 && req.Memory > alloc.Memory-used.Memory {
		out = append(out, InsufficientResource{
			ResourceName: v1.ResourceMemory, Reason: ErrReasonInsufficientMemory,
			Requested: req.Memory, Used: used.Memory, Capacity: alloc.Memory,
			Unresolvable: req.Memory > alloc.Memory,
		})
	}
	if req.EphemeralStorage > 0 && req.EphemeralStorage > alloc.EphemeralStorage-used.EphemeralStorage {
		out = append(out, InsufficientResource{
			ResourceName: v1.ResourceEphemeralStorage, Reason: ErrReasonInsufficientEphemeralDisk,
			Requested: req.EphemeralStorage, Used: used.EphemeralStorage, Capacity: alloc.EphemeralStorage,
			Unresolvable: req.EphemeralStorage > alloc.EphemeralStorage,
		})
	}
	for _, name := range req.scalars {
		q := req.ScalarResources[name]
		if shouldDelegateToDRA(name, nodeInfo, dra) {
			continue
		}
		a, u := alloc.ScalarResources[name], used.ScalarResources[name]
		if q > a-u {
			out = append(out, InsufficientResource{
				ResourceName: name, Reason: fmt.Sprintf("Insufficient %v", name),
				Requested: q, Used: u, Capacity: a,
				Unresolvable: q > a,
			})
		}
	}
	return out
}

type fitPreScoreState struct {
	podRequests []int64
	draBacked   bool
}

// PreScore computes the pod's request for each scoring resource.
func (pl *Fit) PreScore(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) *framework.Status {
	state.Write(preScoreStateKey, &fitPreScoreState{
		podRequests: pl.scorer.podRequests(pod),
		draBacked:   pl.scorer.anyDRABacked(),
	})
	return nil
}

// Score rates the node with the configured strategy.
func (pl *Fit) Score(_ context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	s, ok := state.Read(preScoreStateKey).(*fitPreScoreState)
	if !ok {
		s = &fitPreScoreState{podRequests: pl.scorer.podRequests(pod), draBacked: pl.scorer.anyDRABacked()}
	}
	return pl.scorer.score(nodeInfo, s.podRequests, s.draBacked)
}

// NodeLabelKeys implements framework.LabelReader: the plugin reads the
// node's allocatable and requested resources and its pod count, except
// when a scoring resource is counted in devices (DRA-backed), which reads
// the node's devices.
func (pl *Fit) NodeLabelKeys(*framework.CycleState, *v1.Pod) ([]string, bool) {
	return nil, !pl.scorer.anyDRABacked()
}
