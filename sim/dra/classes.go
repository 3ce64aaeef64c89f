package dra

import (
	"github.com/drasim/drasim/sim/framework"
	v1 "k8s.io/api/core/v1"
)

// The scheduler's node classes (framework.LabelReader and NodeStateKeyer):
// the plugin tells the scheduler which nodes are in the same device state,
// so that Filter and Score run once per class of equivalent nodes. The
// device state is the allocation class of equivalence.go; the keys are
// kept between cycles and refreshed only for nodes whose class changed.

var (
	_ framework.LabelReader      = (*Plugin)(nil)
	_ framework.NodeStateKeyer   = (*Plugin)(nil)
	_ framework.NodeStateChanges = (*Plugin)(nil)
)

// nodeKeys caches NodeStateKeys between cycles.
type nodeKeys struct {
	epoch   uint64
	version uint64
	valid   bool
	// logPos is how far into the state's changedPools log the keys are.
	logPos int
	nodes  []*framework.NodeInfo
	pools  []*nodePools
	index  map[*nodePools]int
	keys   []uint32
	ids    map[classKey]uint32
	// changed logs the indexes whose key changed in incremental updates
	// (NodeStateChanges); changed[k] has position changedBase+k, and
	// positions before validFrom are lost (a full rebuild, or the log
	// starting over).
	changed     []int32
	changedBase uint64
	validFrom   uint64
}

// maxChangedKeys bounds the log of changed keys; callers further behind
// compare every key.
const maxChangedKeys = 1 << 16

// maxChangedPools bounds the state's log of changed nodes.
const maxChangedPools = 1 << 16

// NodeLabelKeys implements framework.LabelReader. The plugin reads no
// label, but a node's name or labels matter when a claim is already
// allocated with a node selector, when the pod asks for extended resources
// (the node's own resources decide whether devices are needed), or when
// slices are not local to one node; every node is then evaluated on its
// own, as in the reference engine.
func (p *Plugin) NodeLabelKeys(cs *framework.CycleState, _ *v1.Pod) ([]string, bool) {
	d := readCycle(cs)
	if d == nil {
		return nil, true
	}
	if p.reference || !p.state.equivalence || len(d.extendedRequests) > 0 {
		return nil, false
	}
	for _, sel := range d.availableOnNodes {
		if sel != nil {
			return nil, false
		}
	}
	return nil, true
}

// NodeStateKeys implements framework.NodeStateKeyer: nodes with the same
// key have pools of the same content in the same allocation state. Keys
// are kept between calls; only the nodes the state logged as changed are
// looked at again, unless the node list or the pools changed.
func (p *Plugin) NodeStateKeys(nodes []*framework.NodeInfo) ([]uint32, bool) {
	s := p.state
	if p.reference || !s.equivalence {
		return nil, false
	}
	c := &p.keys
	if c.ids == nil {
		c.ids = map[classKey]uint32{}
	}
	full := !c.valid || c.epoch != s.epoch || !framework.SameNodeList(c.nodes, nodes) || c.logPos < s.changedBase
	if full {
		c.restartLog()
		c.nodes = append(c.nodes[:0], nodes...)
		c.pools = c.pools[:0]
		c.keys = c.keys[:0]
		c.index = make(map[*nodePools]int, len(nodes))
		for i, ni := range nodes {
			np := s.nodes[ni.Node().Name]
			c.pools = append(c.pools, np)
			c.keys = append(c.keys, p.classID(np))
			if np != nil {
				c.index[np] = i
			}
		}
	} else if c.version != s.version {
		for _, np := range s.changedPools[c.logPos-s.changedBase:] {
			if i, ok := c.index[np]; ok {
				if k := p.classID(np); k != c.keys[i] {
					c.keys[i] = k
					if len(c.changed) >= maxChangedKeys {
						c.restartLog()
					}
					c.changed = append(c.changed, int32(i))
				}
			}
		}
	}
	c.valid, c.epoch, c.version = true, s.epoch, s.version
	c.logPos = s.changedBase + len(s.changedPools)
	return c.keys, true
}

// restartLog drops the log of changed keys: callers must compare every
// key once.
func (c *nodeKeys) restartLog() {
	c.changedBase += uint64(len(c.changed)) + 1
	c.changed = c.changed[:0]
	c.validFrom = c.changedBase
}

// NodeStateChanges implements framework.NodeStateChanges.
func (p *Plugin) NodeStateChanges(pos uint64) ([]int32, uint64, bool) {
	c := &p.keys
	next := c.changedBase + uint64(len(c.changed))
	if pos < c.validFrom || pos > next {
		return nil, next, false
	}
	return c.changed[pos-c.changedBase:], next, true
}

// classID interns a node's allocation class; 0 is the class of nodes
// without devices.
func (p *Plugin) classID(np *nodePools) uint32 {
	if np == nil {
		return 0
	}
	k := np.key()
	id, ok := p.keys.ids[k]
	if !ok {
		id = uint32(len(p.keys.ids) + 1)
		p.keys.ids[k] = id
	}
	return id
}

// nodeClassOf is State.nodeClass through the keys cache when it is
// current (no map lookup by name on the filter's hot path).
func (p *Plugin) nodeClassOf(ni *framework.NodeInfo) (classKey, bool) {
	c, s := &p.keys, p.state
	if i := ni.Index; c.valid && c.epoch == s.epoch && c.version == s.version && s.equivalence &&
		i >= 0 && i < len(c.nodes) && c.nodes[i] == ni {
		np := c.pools[i]
		if np == nil {
			return classKey{}, true
		}
		return np.key(), true
	}
	return s.nodeClass(ni.Node().Name)
}
