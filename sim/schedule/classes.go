package schedule

import (
	"encoding/binary"
	"slices"
	"sort"
	"strings"

	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/framework"
	v1 "k8s.io/api/core/v1"
)

// Node classes. Two nodes are in the same class for a pod when every
// plugin of the profile must give them the same Filter status and the same
// Score: they share what framework.LabelReader lists (taints, images,
// allocatable and requested resources, pod count, ports), their labels
// under the keys the pod's plugins read, and the state of every
// framework.NodeStateKeyer (their devices). The scheduler then runs the
// plugins on one representative per class and hands its outcome to the
// other nodes of the class, in the same order, so that sampling, counting
// and tie-breaking see exactly what a node-by-node loop would see.
//
// Keys are kept between cycles: a node's part is recomputed only when its
// NodeInfo changes (its Generation), its labels only when its node object
// is replaced, and the device part by the plugin that owns it. When the
// node list itself changes (nodes added at its end, or a node removed,
// which renews every NodeInfo), each position keeps its class unless
// what it holds changed: the autoscaler adds its upcoming nodes and takes
// them back in every loop while a scale-up provisions, and starting over
// each time was most of the classifier's work in a timeline.

// classifier assigns class ids to the nodes of one cluster.
type classifier struct {
	nodes []*framework.NodeInfo
	// epoch grows when every node must be looked at again (a new node
	// list, or a change log that no longer reaches back).
	epoch uint64
	// pos is the position in the cluster's change log.
	pos uint64
	// gen and info: the NodeInfo part of each node's key, and the
	// Generation it was computed at.
	gen     []int64
	info    []uint32
	infoIDs map[string]uint32
	buf     []byte
	// obj is each position's node object as last seen.
	obj []*v1.Node
	// state is each node's plugin-state key as last seen, and statePos
	// the position in the keyer's log of changed keys it reflects.
	state    []uint32
	statePos uint64
	// dirty logs the nodes whose key may have changed since the epoch
	// began; dirty[k] has sequence number dirtyBase+k.
	dirty     []int32
	dirtyBase int
	// projections by label key set.
	projections map[string]*projection
	// ids interns (info, labels, device state) into class ids.
	ids map[classTriple]uint32
	// filterOnly leaves out of the NodeInfo part what only Score
	// plugins read (FilterClasses).
	filterOnly bool
}

// FilterClasses returns each of the cluster's nodes' class under the
// scheduler's node equivalence (this file's classifier) restricted to
// what Filter plugins read: the NodeInfo part without what only Score
// reads (non-zero requests, images), the labels under labelKeys, and the
// node state keyer keeps (DynamicResources' devices; nil: none). Nodes of
// one class pass or fail every filter alike for a pod whose plugins read
// no other label; the analysis probes one node per class. ok is false
// when the keyer cannot tell its nodes apart.
func FilterClasses(c *cluster.Cluster, keyer framework.NodeStateKeyer, labelKeys []string) (classes []uint32, ok bool) {
	keys := slices.Compact(slices.Sorted(slices.Values(labelKeys)))
	var state []uint32
	if keyer != nil {
		if state, ok = keyer.NodeStateKeys(c.Nodes()); !ok {
			return nil, false
		}
	}
	cl := newClassifier()
	cl.filterOnly = true
	return cl.classes(c.Nodes(), c, keys, strings.Join(keys, "\x00"), state, nil), true
}

// nodeChanges is where the classifier learns which nodes changed
// (cluster.Cluster.NodeChanges).
type nodeChanges interface {
	NodeChanges(pos uint64) (changed []int32, next uint64, ok bool)
}

type classTriple [3]uint32

// projection caches the label part of the key for one set of label keys,
// and the class ids computed with it.
type projection struct {
	keys []string
	// epoch and seen: how far into the classifier's dirty log the
	// projection is.
	epoch   uint64
	seen    int
	nodeObj []*v1.Node
	label   []uint32
	labels  map[string]uint32
	class   []uint32
}

// maxProjections bounds the cached projections; they are rebuilt when the
// bound is reached.
const maxProjections = 64

// maxDirty bounds the dirty log; projections further behind start over.
const maxDirty = 1 << 20

func newClassifier() *classifier {
	return &classifier{infoIDs: map[string]uint32{}, projections: map[string]*projection{}, ids: map[classTriple]uint32{}}
}

// classes returns each node's class id for the label keys given (sorted,
// distinct, and joined into name) and the plugin-state keys (nil when no
// plugin keeps node state). The slice is owned by the classifier and
// valid until the next call. Only the nodes the cluster logged as changed
// and those whose state key changed are looked at again.
//
// stateLog, when not nil, tells which state keys changed since the last
// call; without it every node's key is compared.
func (c *classifier) classes(nodes []*framework.NodeInfo, changes nodeChanges, labelKeys []string, name string, state []uint32, stateLog framework.NodeStateChanges) []uint32 {
	changed, next, ok := changes.NodeChanges(c.pos)
	c.pos = next
	var stateChanged []int32
	stateKnown := false
	if stateLog != nil {
		stateChanged, c.statePos, stateKnown = stateLog.NodeStateChanges(c.statePos)
	}
	switch {
	case !ok || c.nodes == nil || (c.state == nil) != (state == nil):
		c.reset(nodes, state)
	case !framework.SameNodeList(c.nodes, nodes) || len(c.state) != len(state):
		c.follow(nodes, state)
	default:
		for _, i := range changed {
			if ni := nodes[i]; c.gen[i] != ni.Generation {
				c.info[i] = c.infoID(ni)
				c.gen[i], c.obj[i] = ni.Generation, ni.Node()
				c.markDirty(i)
			}
		}
		if stateKnown {
			for _, i := range stateChanged {
				if state[i] != c.state[i] {
					c.state[i] = state[i]
					c.markDirty(i)
				}
			}
		} else {
			for i := range state {
				if state[i] != c.state[i] {
					c.state[i] = state[i]
					c.markDirty(int32(i))
				}
			}
		}
	}
	p := c.projection(labelKeys, name)
	n := len(nodes)
	if p.epoch != c.epoch || p.seen < c.dirtyBase {
		p.nodeObj, p.label, p.class = make([]*v1.Node, n), make([]uint32, n), make([]uint32, n)
		for i := range nodes {
			c.refresh(p, nodes, i)
		}
	} else {
		if len(p.class) != n {
			// The list grew or shrank since the projection's last
			// use: positions past its old end are in the dirty log
			// since then (follow), those past the new end go.
			p.nodeObj, p.label, p.class = fitLen(p.nodeObj, n), fitLen(p.label, n), fitLen(p.class, n)
		}
		for _, i := range c.dirty[p.seen-c.dirtyBase:] {
			if int(i) < n {
				c.refresh(p, nodes, int(i))
			}
		}
	}
	p.epoch, p.seen = c.epoch, c.dirtyBase+len(c.dirty)
	return p.class
}

// reset looks at every node again.
func (c *classifier) reset(nodes []*framework.NodeInfo, state []uint32) {
	c.epoch++
	c.nodes = append(c.nodes[:0], nodes...)
	c.gen = make([]int64, len(nodes))
	c.info = make([]uint32, len(nodes))
	c.obj = make([]*v1.Node, len(nodes))
	for i, ni := range nodes {
		c.info[i] = c.infoID(ni)
		c.gen[i] = ni.Generation
		c.obj[i] = ni.Node()
	}
	c.state = append(c.state[:0], state...)
	c.dirtyBase += len(c.dirty)
	c.dirty = c.dirty[:0]
}

// follow takes a new node list position by position: a position whose
// NodeInfo is the one seen there and unchanged keeps its key; any other
// has its key computed again and is marked dirty only when the key, the
// node object or the plugin state differs from what the position held.
// Positions past the old end are new, and marked dirty.
func (c *classifier) follow(nodes []*framework.NodeInfo, state []uint32) {
	old := len(c.nodes)
	c.gen, c.info, c.obj = fitLen(c.gen, len(nodes)), fitLen(c.info, len(nodes)), fitLen(c.obj, len(nodes))
	c.state = fitLen(c.state, len(state))
	for i, ni := range nodes {
		if i >= old {
			c.info[i], c.gen[i], c.obj[i] = c.infoID(ni), ni.Generation, ni.Node()
			if state != nil {
				c.state[i] = state[i]
			}
			c.markDirty(int32(i))
			continue
		}
		dirty := false
		if ni != c.nodes[i] || ni.Generation != c.gen[i] {
			if id := c.infoID(ni); id != c.info[i] {
				c.info[i], dirty = id, true
			}
			c.gen[i] = ni.Generation
		}
		if node := ni.Node(); node != c.obj[i] {
			c.obj[i], dirty = node, true
		}
		if state != nil && state[i] != c.state[i] {
			c.state[i], dirty = state[i], true
		}
		if dirty {
			c.markDirty(int32(i))
		}
	}
	c.nodes = append(c.nodes[:0], nodes...)
	clear(c.nodes[len(nodes):cap(c.nodes)]) // no NodeInfo kept past the end
}

// fitLen returns s with length n: cut, or grown with zero values.
func fitLen[T any](s []T, n int) []T {
	if n <= len(s) {
		clear(s[n:])
		return s[:n]
	}
	return append(s, make([]T, n-len(s))...)
}

func (c *classifier) markDirty(i int32) {
	if len(c.dirty) >= maxDirty {
		c.dirtyBase += len(c.dirty)
		c.dirty = c.dirty[:0]
	}
	c.dirty = append(c.dirty, i)
}

// refresh recomputes node i's label part (when its node object changed)
// and its class in the projection.
func (c *classifier) refresh(p *projection, nodes []*framework.NodeInfo, i int) {
	if node := nodes[i].Node(); p.nodeObj[i] != node || p.nodeObj[i] == nil {
		p.nodeObj[i] = node
		p.label[i] = p.labelID(node)
	}
	t := classTriple{c.info[i], p.label[i], 0}
	if c.state != nil {
		t[2] = c.state[i]
	}
	id, ok := c.ids[t]
	if !ok {
		id = uint32(len(c.ids))
		c.ids[t] = id
	}
	p.class[i] = id
}

// numClasses bounds the ids classes returns.
func (c *classifier) numClasses() int { return len(c.ids) }

// projection returns the cached projection for the sorted, distinct keys
// joined into name.
func (c *classifier) projection(keys []string, name string) *projection {
	p := c.projections[name]
	if p == nil {
		if len(c.projections) >= maxProjections {
			c.projections = map[string]*projection{}
		}
		p = &projection{keys: keys, labels: map[string]uint32{}}
		c.projections[name] = p
	}
	return p
}

// labelID interns the node's values under the projection's keys.
func (p *projection) labelID(node *v1.Node) uint32 {
	if len(p.keys) == 0 {
		return 0
	}
	var buf []byte
	for _, k := range p.keys {
		if v, ok := node.Labels[k]; ok {
			buf = append(buf, 1)
			buf = appendString(buf, v)
		} else {
			buf = append(buf, 0)
		}
	}
	id, ok := p.labels[string(buf)]
	if !ok {
		id = uint32(len(p.labels))
		p.labels[string(buf)] = id
	}
	return id
}

// infoID interns what every plugin may read of a node besides its labels
// and the plugins' own node state.
func (c *classifier) infoID(ni *framework.NodeInfo) uint32 {
	b := c.buf[:0]
	node := ni.Node()
	if node.Spec.Unschedulable {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(node.Spec.Taints)))
	for _, t := range node.Spec.Taints {
		b = appendString(b, t.Key)
		b = appendString(b, t.Value)
		b = appendString(b, string(t.Effect))
		if t.TimeAdded != nil {
			b = binary.AppendVarint(b, t.TimeAdded.UnixNano())
		} else {
			b = append(b, 0)
		}
	}
	b = appendResource(b, ni.Allocatable)
	b = appendResource(b, ni.Requested)
	if !c.filterOnly {
		b = appendResource(b, ni.NonZeroRequested)
	}
	b = binary.AppendUvarint(b, uint64(len(ni.Pods)))
	b = appendPorts(b, ni.UsedPorts)
	if !c.filterOnly {
		b = appendImages(b, ni.ImageStates)
	}
	c.buf = b
	id, ok := c.infoIDs[string(b)]
	if !ok {
		id = uint32(len(c.infoIDs))
		c.infoIDs[string(b)] = id
	}
	return id
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendResource(b []byte, r *framework.Resource) []byte {
	b = binary.AppendVarint(b, r.MilliCPU)
	b = binary.AppendVarint(b, r.Memory)
	b = binary.AppendVarint(b, r.EphemeralStorage)
	b = binary.AppendVarint(b, int64(r.AllowedPodNumber))
	if len(r.ScalarResources) == 0 {
		return binary.AppendUvarint(b, 0)
	}
	names := make([]string, 0, len(r.ScalarResources))
	for name := range r.ScalarResources {
		names = append(names, string(name))
	}
	sort.Strings(names)
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, name := range names {
		b = appendString(b, name)
		b = binary.AppendVarint(b, r.ScalarResources[v1.ResourceName(name)])
	}
	return b
}

func appendPorts(b []byte, ports framework.HostPortInfo) []byte {
	if len(ports) == 0 {
		return binary.AppendUvarint(b, 0)
	}
	var all []string
	for ip, m := range ports {
		for pp := range m {
			all = append(all, ip+"/"+pp.Protocol+"/"+string(binary.AppendVarint(nil, int64(pp.Port))))
		}
	}
	sort.Strings(all)
	b = binary.AppendUvarint(b, uint64(len(all)))
	for _, s := range all {
		b = appendString(b, s)
	}
	return b
}

func appendImages(b []byte, images map[string]*framework.ImageStateSummary) []byte {
	if len(images) == 0 {
		return binary.AppendUvarint(b, 0)
	}
	names := make([]string, 0, len(images))
	for name := range images {
		names = append(names, name)
	}
	sort.Strings(names)
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, name := range names {
		st := images[name]
		b = appendString(b, name)
		b = binary.AppendVarint(b, st.Size)
		b = binary.AppendVarint(b, int64(st.NumNodes))
	}
	return b
}
