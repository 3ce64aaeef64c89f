package framework

import (
	"context"
	"slices"

	v1 "k8s.io/api/core/v1"
)

// MaxNodeScore and MinNodeScore bound every normalized plugin score.
const (
	MaxNodeScore int64 = 100
	MinNodeScore int64 = 0
)

// CycleState carries data from a plugin's PreFilter/PreScore to its Filter and
// Score calls for one pod's scheduling cycle. Plugins use their own name as
// the key. It is written in PreFilter/PreScore (one goroutine) and only read
// in Filter/Score, which may run in parallel.
type CycleState struct {
	// keys and values: a dozen entries at most (one or two per plugin),
	// which a scan finds faster than a map hashes the key, and Filter and
	// Score read them on every node they visit.
	keys   []string
	values []any
	// SkipFilterPlugins and SkipScorePlugins name plugins whose Pre* call
	// returned Skip.
	SkipFilterPlugins map[string]bool
	SkipScorePlugins  map[string]bool
	// filtersOf is the framework whose RunPreFilter prepared the state,
	// skipFilters the bits of its Filter plugins that PreFilter switched
	// off (PreFilter is over by then: nothing changes the set
	// afterwards), so that RunFilter on every node need not look each
	// plugin up in SkipFilterPlugins.
	filtersOf   *Framework
	skipFilters uint64
	// preFilterRan counts the PreFilter plugins RunPreFilter of ranIn
	// ran, in the profile's order.
	preFilterRan int
	ranIn        *Framework
}

// NewCycleState returns an empty state.
func NewCycleState() *CycleState {
	return &CycleState{keys: make([]string, 0, 16), values: make([]any, 0, 16), SkipFilterPlugins: map[string]bool{}, SkipScorePlugins: map[string]bool{}}
}

// Write stores v under key.
func (c *CycleState) Write(key string, v any) {
	for i, k := range c.keys {
		if k == key {
			c.values[i] = v
			return
		}
	}
	c.keys = append(c.keys, key)
	c.values = append(c.values, v)
}

// Read returns the value under key, or nil.
func (c *CycleState) Read(key string) any {
	for i, k := range c.keys {
		if k == key {
			return c.values[i]
		}
	}
	return nil
}

// Clone returns a state that can be changed without touching c: values
// that implement StateCloner are copied, the others (read-only once
// PreFilter has written them) are shared. The preemption dry run and the
// nominated-pods pass work on clones.
func (c *CycleState) Clone() *CycleState {
	out := &CycleState{keys: slices.Clone(c.keys), values: make([]any, len(c.values)), SkipFilterPlugins: c.SkipFilterPlugins, SkipScorePlugins: c.SkipScorePlugins,
		filtersOf: c.filtersOf, skipFilters: c.skipFilters, preFilterRan: c.preFilterRan, ranIn: c.ranIn}
	for i, v := range c.values {
		if sc, ok := v.(StateCloner); ok {
			v = sc.CloneState()
		}
		out.values[i] = v
	}
	return out
}

// setActiveFilters records which of f's Filter plugins PreFilter
// switched off; a framework of more than 64 Filter plugins is looked up
// plugin by plugin.
func (c *CycleState) setActiveFilters(f *Framework) {
	c.filtersOf, c.skipFilters = nil, 0
	if len(f.Filter) > 64 {
		return
	}
	for i, p := range f.Filter {
		if c.SkipFilterPlugins[p.Name()] {
			c.skipFilters |= 1 << i
		}
	}
	c.filtersOf = f
}

// RanPreFilter reports whether the named plugin's PreFilter ran for this
// state (RunPreFilter stops at an unresolvable rejection or an error, and
// the plugins after it do not run): a plugin's PodGroupPostFilter has no
// state of its own otherwise.
func (c *CycleState) RanPreFilter(name string) bool {
	return c != nil && c.ranIn != nil && c.ranIn.RanPreFilter(c, name)
}

// NodeScore is one node's score from one plugin.
type NodeScore struct {
	Name  string
	Score int64
}

// PreFilterResult narrows the nodes to evaluate; nil NodeNames means all.
type PreFilterResult struct {
	NodeNames map[string]bool
}

// AllNodes reports whether the result does not narrow anything.
func (r *PreFilterResult) AllNodes() bool { return r == nil || r.NodeNames == nil }

// Plugin is the common part of every plugin.
type Plugin interface {
	Name() string
}

// PodForgetter is a plugin that keeps values per pod (a PodCache):
// ForgetPod drops the pod's. A caller that makes pods it evaluates once
// and throws away (probe pods) tells the plugins, so that they do not
// keep them alive.
type PodForgetter interface {
	ForgetPod(pod *v1.Pod)
}

// PreFilterPlugin runs once per pod before filtering. A Skip status means the
// plugin's Filter is skipped for this pod; a rejection fails the pod on every
// node with that status.
type PreFilterPlugin interface {
	Plugin
	PreFilter(ctx context.Context, state *CycleState, pod *v1.Pod, nodes []*NodeInfo) (*PreFilterResult, *Status)
}

// FilterPlugin decides whether the pod fits one node. It must not modify
// nodeInfo and may be called concurrently for different nodes.
type FilterPlugin interface {
	Plugin
	Filter(ctx context.Context, state *CycleState, pod *v1.Pod, nodeInfo *NodeInfo) *Status
}

// PreScorePlugin runs once per pod with the feasible nodes. Skip means the
// plugin's Score is skipped for this pod.
type PreScorePlugin interface {
	Plugin
	PreScore(ctx context.Context, state *CycleState, pod *v1.Pod, nodes []*NodeInfo) *Status
}

// ScorePlugin ranks a feasible node. Scores are normalized to
// [MinNodeScore, MaxNodeScore] by NormalizeScore (when the plugin has one)
// and then multiplied by the plugin's weight.
type ScorePlugin interface {
	Plugin
	Score(ctx context.Context, state *CycleState, pod *v1.Pod, nodeInfo *NodeInfo) (int64, *Status)
}

// ScoreNormalizer is implemented by score plugins that normalize their raw
// scores across all scored nodes.
type ScoreNormalizer interface {
	NormalizeScore(ctx context.Context, state *CycleState, pod *v1.Pod, scores []NodeScore) *Status
}

// ReservePlugin commits (or undoes) what a plugin needs for the chosen node,
// e.g. the DRA plugin's device allocation.
type ReservePlugin interface {
	Plugin
	Reserve(ctx context.Context, state *CycleState, pod *v1.Pod, nodeName string) *Status
	Unreserve(ctx context.Context, state *CycleState, pod *v1.Pod, nodeName string)
}

// NodeLister gives plugins that look across nodes (topology spread, inter-pod
// affinity) the current view of the cluster.
type NodeLister interface {
	// List returns every node, in the snapshot's stable order.
	List() []*NodeInfo
	// Get returns one node, or nil.
	Get(name string) *NodeInfo
	// HavePodsWithAffinityList returns nodes with at least one pod that has
	// (anti-)affinity terms.
	HavePodsWithAffinityList() []*NodeInfo
	// HavePodsWithRequiredAntiAffinityList returns nodes with at least one pod
	// that has required anti-affinity terms.
	HavePodsWithRequiredAntiAffinityList() []*NodeInfo
}

// Node equivalence. On a large cluster most nodes look alike to a pod: same
// taints, allocatable and requested resources, same device state, and the
// pod reads none of the labels that tell them apart. The scheduler then
// runs Filter and Score once per class of equivalent nodes and gives every
// node of a class its representative's outcome. A plugin takes part by
// saying what it reads of a node; the scheduler evaluates every node on its
// own as soon as one plugin in the chain cannot.
//
// What every class shares (the scheduler compares it itself): the node's
// spec.unschedulable and taints, its status.images (ImageStates), and from
// the NodeInfo Allocatable, Requested, NonZeroRequested, the number of pods
// and UsedPorts.

// LabelReader is implemented by plugins whose Filter (after PreFilter) and
// Score (after PreScore) read, for this pod, nothing of a node but the
// properties every class shares and its labels under the keys returned.
// ok is false when the plugin reads more (the node's name, the pods on it):
// then every node is evaluated on its own. NormalizeScore, if the plugin has
// one, must set each score from that score and the set of all scores only,
// so that it can run on one score per class.
type LabelReader interface {
	Plugin
	NodeLabelKeys(state *CycleState, pod *v1.Pod) (keys []string, ok bool)
}

// NodeStateKeyer is implemented by plugins that keep per-node state outside
// the NodeInfo (the DRA plugin's devices). NodeStateKeys returns one key per
// node: nodes with equal keys are in the same state for the plugin. The
// returned slice belongs to the plugin and is valid until the next call.
// ok is false when the plugin cannot tell (then every node is its own
// class for it).
type NodeStateKeyer interface {
	Plugin
	NodeStateKeys(nodes []*NodeInfo) (keys []uint32, ok bool)
}

// NodeStateChanges is implemented by a NodeStateKeyer that logs which
// keys changed, so that a caller keeping the keys across cycles need not
// compare every node's in every cycle (docs/performance.md).
// pos is a position an earlier call returned (0: never asked); changed
// are the indexes of the nodes whose key the NodeStateKeys calls since
// then changed, next the position to ask from next time. ok is false when
// the log no longer reaches back to pos: the caller compares every key.
type NodeStateChanges interface {
	NodeStateChanges(pos uint64) (changed []int32, next uint64, ok bool)
}
