package analysis

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/schedule"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
)

// Sampler measures one cluster again and again while it changes, for time
// series (drasim timeline): devices in use per DeviceClass and the
// fragmentation rate for a fixed workload mix, both as defined in
// docs/metrics.md. What a device's classes are is computed once per
// device; probe pods run dry cycles on the cluster itself and their
// claims are taken away before a measure returns.
type Sampler struct {
	ctx     context.Context
	opts    Options
	classes []*resourceapi.DeviceClass
	matcher matcher
	known   map[*resourceapi.Device]map[string]bool
	// reported is how many of the matcher's warnings are in Warnings.
	reported int
	mix      []*shape
	// Warnings are what building the mix left out.
	Warnings []string
	// evalOn and evalSched are the cluster the probes last ran on and the
	// scheduler of their dry cycles, kept from one sample to the next:
	// its plugins' caches (the allocator's answers per node class, which
	// devices a probe claim can select) stay valid while the cluster
	// changes, as the replay's own scheduler's do.
	evalOn    *cluster.Cluster
	evalSched *schedule.Scheduler
	// inv is the last inventory, of cluster invOn at version invVersion:
	// a sample asks for it twice (Devices, Fragmentation).
	inv        *devInventory
	invOn      *cluster.Cluster
	invVersion uint64
	// frag is the last fragmentation measured, on cluster fragOn at
	// version fragVersion (once the probes' claims were taken away): a
	// cluster that did not change since has the same rate, and a
	// timeline of months spends most samples on such a cluster.
	frag        *Fragmentation
	fragOn      *cluster.Cluster
	fragVersion uint64
	// devices is the last Devices, of the inventory inv: the counts of
	// an unchanged inventory are the same.
	devices   []ClassDevices
	devicesOf *devInventory
}

// ClassDevices is how many devices a DeviceClass selects and how many of
// them are allocated.
type ClassDevices struct {
	Class     string `json:"class"`
	Allocated int    `json:"allocated"`
	Devices   int    `json:"devices"`
}

// NewSampler returns a sampler for c with the workload mix made of the
// pods of mix (grouped into shapes, weighted by pods, as --probe does; the
// pods' claim templates are looked up in c's snapshot).
func NewSampler(ctx context.Context, c *cluster.Cluster, mix []*v1.Pod, opts Options) *Sampler {
	opts = opts.withDefaults()
	s := &Sampler{ctx: ctx, opts: opts, known: map[*resourceapi.Device]map[string]bool{}}
	s.classes = append(s.classes, c.DRA().Classes()...)
	sort.Slice(s.classes, func(i, j int) bool { return s.classes[i].Name < s.classes[j].Name })
	s.matcher = newMatcher(ctx, c.DRA().Gates(), s.classes)
	src := mixSources{pods: mix, templates: map[string]*resourceapi.ResourceClaimTemplate{}, claims: map[string]*resourceapi.ResourceClaim{}}
	for _, t := range c.Snapshot().ResourceClaimTemplates {
		src.templates[t.Namespace+"/"+t.Name] = t
	}
	for _, cl := range c.Snapshot().ResourceClaims {
		src.claims[cl.Namespace+"/"+cl.Name] = cl
	}
	s.mix, s.Warnings = groupShapes(&sim.Run{Cluster: c}, opts, src, newWorkloads(c.Snapshot()))
	classWarnings := s.matcher.warnings()
	s.Warnings = append(s.Warnings, classWarnings...)
	s.reported = len(classWarnings)
	return s
}

// SelectorWarnings name the selectors that failed on a device the
// samples met after NewSampler (whose Warnings hold the classes' compile
// errors).
func (s *Sampler) SelectorWarnings() []string {
	return s.matcher.warnings()[s.reported:]
}

func (s *Sampler) inventory(c *cluster.Cluster) *devInventory {
	if s.inv != nil && s.invOn == c && s.invVersion == c.Version() {
		return s.inv
	}
	s.inv, s.invOn, s.invVersion = newInventoryWith(c.DRA(), s.classes, s.matcher, s.known), c, c.Version()
	return s.inv
}

// Devices returns, per DeviceClass (by name), the devices it selects on
// the cluster's nodes and how many of them are allocated.
func (s *Sampler) Devices(c *cluster.Cluster) []ClassDevices {
	inv := s.inventory(c)
	if s.devicesOf == inv {
		return slices.Clone(s.devices)
	}
	out := make([]ClassDevices, len(s.classes))
	index := map[string]int{}
	for i, cl := range s.classes {
		out[i].Class = cl.Name
		index[cl.Name] = i
	}
	for _, d := range inv.devices {
		for cl := range d.classes {
			i := index[cl]
			out[i].Devices++
			if d.state == stateAllocated {
				out[i].Allocated++
			}
		}
	}
	s.devices, s.devicesOf = out, inv
	return slices.Clone(out)
}

// Fragmentation returns the fragmentation rate of the cluster's idle
// devices for the mix, now. The cluster is the same afterwards. The
// caller must not change what it returns (kept for the next call).
func (s *Sampler) Fragmentation(c *cluster.Cluster) (Fragmentation, error) {
	if s.frag != nil && s.fragOn == c && s.fragVersion == c.Version() {
		return *s.frag, nil
	}
	f, err := s.measure(c)
	if err != nil {
		return f, err
	}
	// The probes' claims came and went: the cluster is as it was, with
	// another version. What was measured of it holds for that version.
	if s.invOn == c {
		s.invVersion = c.Version()
	}
	s.frag, s.fragOn, s.fragVersion = &f, c, c.Version()
	return f, nil
}

func (s *Sampler) measure(c *cluster.Cluster) (Fragmentation, error) {
	inv := s.inventory(c)
	nodes := collectNodes(c, inv, s.opts.GroupBy)
	var p *prober
	if s.evalOn == c {
		p = newProberWith(s.ctx, c, s.evalSched, inv, s.opts)
	} else {
		var err error
		if p, err = newProberOn(s.ctx, c, c, inv, s.opts); err != nil {
			return Fragmentation{}, err
		}
		s.evalOn, s.evalSched = c, p.evalSched
	}
	var added []*resourceapi.ResourceClaim
	p.addClaim = func(cl *resourceapi.ResourceClaim) {
		c.DRA().AddClaim(cl)
		added = append(added, cl)
	}
	defer func() {
		for _, cl := range added {
			c.DRA().DeleteClaim(cl.Namespace, cl.Name)
		}
	}()
	feasible := make([]map[string]bool, len(s.mix))
	for i, sh := range s.mix {
		if err := s.ctx.Err(); err != nil {
			return Fragmentation{}, err
		}
		var err error
		if feasible[i], _, err = p.shapeFeasible(sh); err != nil {
			return Fragmentation{}, fmt.Errorf("shape %s: %w", sh.Name, err)
		}
	}
	return fragmentationOf(s.mix, feasible, nodes, inv), nil
}
