package schedule

import (
	"encoding/binary"
	"sort"

	"github.com/drasim/drasim/sim/schedule/framework"
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
// is replaced, and the device part by the plugin that owns it.

// classifier assigns class ids to the nodes of one cluster.
type classifier struct {
	nodes []*framework.NodeInfo
	// gen and info: the NodeInfo part of each node's key, and the
	// Generation it was computed at.
	gen     []int64
	info    []uint32
	infoIDs map[string]uint32
	buf     []byte
	// projections by label key set.
	projections map[string]*projection
	// ids interns (info, labels, device state) into class ids.
	ids map[classTriple]uint32
}

type classTriple [3]uint32

// projection caches the label part of the key for one set of label keys,
// and the class ids computed with it.
type projection struct {
	keys    []string
	nodeObj []*v1.Node
	label   []uint32
	labels  map[string]uint32
	from    []classTriple
	class   []uint32
	valid   []bool
}

// maxProjections bounds the cached projections; they are rebuilt when the
// bound is reached.
const maxProjections = 64

func newClassifier() *classifier {
	return &classifier{infoIDs: map[string]uint32{}, projections: map[string]*projection{}, ids: map[classTriple]uint32{}}
}

// classes returns each node's class id for the label keys given and the
// device-state keys (nil when no plugin keeps node state). The slice is
// owned by the classifier and valid until the next call.
func (c *classifier) classes(nodes []*framework.NodeInfo, labelKeys []string, name string, state []uint32) []uint32 {
	if c.sync(nodes) {
		c.projections = map[string]*projection{}
	}
	for i, ni := range nodes {
		if c.gen[i] != ni.Generation {
			c.info[i] = c.infoID(ni)
			c.gen[i] = ni.Generation
		}
	}
	p := c.projection(labelKeys, name)
	p.refresh(nodes)
	for i := range nodes {
		t := classTriple{c.info[i], p.label[i], 0}
		if state != nil {
			t[2] = state[i]
		}
		if p.valid[i] && p.from[i] == t {
			continue
		}
		id, ok := c.ids[t]
		if !ok {
			id = uint32(len(c.ids))
			c.ids[t] = id
		}
		p.class[i], p.from[i], p.valid[i] = id, t, true
	}
	return p.class
}

// numClasses bounds the ids classes returns.
func (c *classifier) numClasses() int { return len(c.ids) }

// sync resets the per-node caches when the node list changed, and reports
// whether it did.
func (c *classifier) sync(nodes []*framework.NodeInfo) bool {
	if len(nodes) == len(c.nodes) {
		same := true
		for i := range nodes {
			if nodes[i] != c.nodes[i] {
				same = false
				break
			}
		}
		if same {
			return false
		}
	}
	c.nodes = append(c.nodes[:0], nodes...)
	c.gen = make([]int64, len(nodes))
	c.info = make([]uint32, len(nodes))
	for i := range c.gen {
		c.gen[i] = -1 << 63
	}
	return true
}

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

// refresh recomputes the label part of the nodes whose node object changed.
func (p *projection) refresh(nodes []*framework.NodeInfo) {
	if len(p.nodeObj) != len(nodes) {
		n := len(nodes)
		p.nodeObj, p.label = make([]*v1.Node, n), make([]uint32, n)
		p.from, p.class, p.valid = make([]classTriple, n), make([]uint32, n), make([]bool, n)
	}
	if len(p.keys) == 0 {
		for i, ni := range nodes {
			p.nodeObj[i] = ni.Node()
		}
		return
	}
	var buf []byte
	for i, ni := range nodes {
		node := ni.Node()
		if p.nodeObj[i] == node {
			continue
		}
		p.nodeObj[i] = node
		buf = buf[:0]
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
		p.label[i] = id
	}
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
	b = appendResource(b, ni.NonZeroRequested)
	b = binary.AppendUvarint(b, uint64(len(ni.Pods)))
	b = appendPorts(b, ni.UsedPorts)
	b = appendImages(b, ni.ImageStates)
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
