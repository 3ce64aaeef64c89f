package sweep

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/drasim/drasim/sim/kube"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/nodegroup"
	"github.com/drasim/drasim/sim/snapshot"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Inputs are the snapshots a plan's runs replay: the files of Plan.Inputs
// loaded once (once per seed when they name SeedPlaceholder) and shared by
// every run that reads them, with workload controllers unexpanded when an
// axis multiplies their replicas (each point expands its own copy).
type Inputs struct {
	plan  *Plan
	admit func(*load.Result) error
	mu    sync.Mutex
	bases map[string]*loaded
	// First is the first run's snapshot, loaded by LoadInputs.
	First *load.Result
}

// loaded is one snapshot built once for the runs that share it.
type loaded struct {
	once  sync.Once
	res   *load.Result
	err   error
	users int
}

func inputsKey(files []string) string { return strings.Join(files, "\x00") }

// LoadInputs loads the first run's inputs now, so that their problems and
// warnings show before the sweep starts; the others (other seeds' files)
// load when a run needs them. admit, when set, judges each snapshot once
// it is loaded (the command line refuses what the API server would).
func (p *Plan) LoadInputs(admit func(*load.Result) error) (*Inputs, error) {
	in := &Inputs{plan: p, admit: admit, bases: map[string]*loaded{}}
	first, err := in.load(p.Runs[0].Inputs)
	in.First = first
	return in, err
}

func (in *Inputs) load(files []string) (*load.Result, error) {
	in.mu.Lock()
	e := in.bases[inputsKey(files)]
	if e == nil {
		e = &loaded{}
		in.bases[inputsKey(files)] = e
	}
	in.mu.Unlock()
	e.once.Do(func() {
		e.res, e.err = load.Load(files, load.Options{KeepControllers: in.plan.controllers})
		if e.err == nil && in.admit != nil {
			e.err = in.admit(e.res)
		}
	})
	return e.res, e.err
}

// CheckInputs checks the plan against the first run's inputs: the
// NodeGroups that axes name exist, replica axes select a workload, and the
// command takes every value of every axis (tried on the inputs without
// their pods and workloads: nothing to schedule, so it is quick).
func (p *Plan) CheckInputs(in *Inputs, cmds Commands) error {
	errs := &errorList{file: p.File}
	snap := in.First.Snapshot
	for i, a := range p.Axes {
		field := fmt.Sprintf("spec.axes[%d]", i)
		switch a.Kind {
		case AxisNodeGroup:
			ng := a.spec.NodeGroup
			var found *snapshot.NodeGroup
			var names []string
			for _, g := range snap.NodeGroups {
				names = append(names, g.Name)
				if g.Name == ng.Name {
					found = g
				}
			}
			switch {
			case found == nil && len(names) == 0:
				errs.add(a.Name, field+".nodeGroup.name", "no NodeGroup %q: the inputs have no NodeGroup (drasim.io/v1alpha1)", ng.Name)
			case found == nil:
				errs.add(a.Name, field+".nodeGroup.name", "no NodeGroup %q in the inputs (they have %v)", ng.Name, names)
			case (ng.Field == "" || ng.Field == NodeGroupSize) && (found.Spec.NodeSelector == nil || (len(found.Spec.NodeSelector.MatchLabels) == 0 && len(found.Spec.NodeSelector.MatchExpressions) == 0)):
				errs.add(a.Name, field+".nodeGroup", "NodeGroup %q has no spec.nodeSelector, so its size cannot be set: drasim could not tell its nodes from the others", ng.Name)
			}
		case AxisReplicas:
			if len(selectWorkloads(snap, a.spec.Replicas)) == 0 {
				errs.add(a.Name, field+".replicas", "selects no Deployment, ReplicaSet, StatefulSet or Job in the inputs")
			}
		}
	}
	if len(errs.errs) == 0 {
		p.tryRuns(errs, cmds, idle(in.First))
	}
	return errs.err()
}

// idle is a snapshot with the nodes, devices and NodeGroups of in and
// nothing to schedule.
func idle(in *load.Result) *load.Result {
	s := in.Snapshot.Copy()
	s.Pods, s.Deployments, s.ReplicaSets, s.StatefulSets, s.DaemonSets, s.Jobs = nil, nil, nil, nil, nil, nil
	return &load.Result{Snapshot: s, Files: in.Files}
}

// workload is one controller a replicas axis can scale.
type workload struct {
	kind string
	meta *metav1.ObjectMeta
}

func selectWorkloads(snap *snapshot.Snapshot, r *ReplicasAxis) []workload {
	var sel labels.Selector
	if r.Selector != nil {
		var err error
		if sel, err = metav1.LabelSelectorAsSelector(r.Selector); err != nil {
			return nil
		}
	}
	var out []workload
	add := func(kind string, m *metav1.ObjectMeta) {
		if (r.Kind != "" && r.Kind != kind) || (r.Namespace != "" && r.Namespace != m.Namespace) || (r.Name != "" && r.Name != m.Name) {
			return
		}
		if sel != nil && !sel.Matches(labels.Set(m.Labels)) {
			return
		}
		out = append(out, workload{kind, m})
	}
	for _, d := range snap.Deployments {
		add("Deployment", &d.ObjectMeta)
	}
	for _, rs := range snap.ReplicaSets {
		add("ReplicaSet", &rs.ObjectMeta)
	}
	for _, ss := range snap.StatefulSets {
		add("StatefulSet", &ss.ObjectMeta)
	}
	for _, j := range snap.Jobs {
		add("Job", &j.ObjectMeta)
	}
	return out
}

// scaled multiplies a replica count, rounding half away from zero.
func scaled(n *int32, m float64) *int32 {
	base := int32(1)
	if n != nil {
		base = *n
	}
	v := int32(math.Round(float64(base) * m))
	return &v
}

// multiplyReplicas replaces the selected controllers of snap (a copy) with
// copies whose replicas are multiplied by m; Jobs get their parallelism
// and completions multiplied.
func multiplyReplicas(snap *snapshot.Snapshot, r *ReplicasAxis, m float64) {
	chosen := map[*metav1.ObjectMeta]bool{}
	for _, w := range selectWorkloads(snap, r) {
		chosen[w.meta] = true
	}
	for i, d := range snap.Deployments {
		if chosen[&d.ObjectMeta] {
			c := d.DeepCopy()
			c.Spec.Replicas = scaled(d.Spec.Replicas, m)
			snap.Deployments[i] = c
		}
	}
	for i, rs := range snap.ReplicaSets {
		if chosen[&rs.ObjectMeta] {
			c := rs.DeepCopy()
			c.Spec.Replicas = scaled(rs.Spec.Replicas, m)
			snap.ReplicaSets[i] = c
		}
	}
	for i, ss := range snap.StatefulSets {
		if chosen[&ss.ObjectMeta] {
			c := ss.DeepCopy()
			c.Spec.Replicas = scaled(ss.Spec.Replicas, m)
			snap.StatefulSets[i] = c
		}
	}
	for i, j := range snap.Jobs {
		if chosen[&j.ObjectMeta] {
			c := j.DeepCopy()
			c.Spec.Parallelism = scaled(j.Spec.Parallelism, m)
			if j.Spec.Completions != nil {
				c.Spec.Completions = scaled(j.Spec.Completions, m)
			}
			snap.Jobs[i] = c
		}
	}
}

// variant builds the snapshot of one point from the loaded inputs: replica
// multipliers first (before the controllers' pods are made), then NodeGroup
// bounds, then NodeGroup sizes (new nodes come with their daemon pods).
func (p *Plan) variant(in *load.Result, point []string) (*load.Result, error) {
	snap := in.Snapshot.Copy()
	warnings := append([]load.Warning(nil), in.Warnings...)
	for i, a := range p.Axes {
		if a.Kind == AxisReplicas {
			m, _ := strconv.ParseFloat(point[i], 64)
			multiplyReplicas(snap, a.spec.Replicas, m)
		}
	}
	if p.controllers {
		w, err := kube.Expand(snap)
		warnings = append(warnings, w...)
		if err != nil {
			return nil, err
		}
	}
	for i, a := range p.Axes {
		if a.Kind != AxisNodeGroup || a.spec.NodeGroup.Field == "" || a.spec.NodeGroup.Field == NodeGroupSize {
			continue
		}
		n, _ := strconv.Atoi(point[i])
		for j, ng := range snap.NodeGroups {
			if ng.Name != a.spec.NodeGroup.Name {
				continue
			}
			c := ng.DeepCopy()
			if a.spec.NodeGroup.Field == NodeGroupMinSize {
				c.Spec.MinSize = int32(n)
			} else {
				c.Spec.MaxSize = int32(n)
			}
			snap.NodeGroups[j] = c
		}
	}
	for i, a := range p.Axes {
		if a.Kind != AxisNodeGroup || (a.spec.NodeGroup.Field != "" && a.spec.NodeGroup.Field != NodeGroupSize) {
			continue
		}
		n, _ := strconv.Atoi(point[i])
		grown, err := nodegroup.Grow(snap, a.spec.NodeGroup.Name, n)
		if err != nil {
			return nil, fmt.Errorf("axis %s=%s: %w", a.Name, point[i], err)
		}
		snap = grown
	}
	return &load.Result{Snapshot: snap, Warnings: warnings, Files: in.Files}, nil
}

// snapshots hands each run its snapshot: its inputs as loaded, or a
// variant built once for all the runs of its point (and seed, when the
// inputs are per seed). Each is dropped after the last run that uses it.
type snapshots struct {
	plan     *Plan
	in       *Inputs
	mu       sync.Mutex
	variants map[string]*loaded
	bases    map[string]int // runs still to use each inputs key
}

// newSnapshots counts, per snapshot, the runs that will use it.
func newSnapshots(p *Plan, in *Inputs, runs []int) *snapshots {
	s := &snapshots{plan: p, in: in, variants: map[string]*loaded{}, bases: map[string]int{}}
	for _, i := range runs {
		r := p.Runs[i]
		s.bases[inputsKey(r.Inputs)]++
		if key, ok := s.key(r); ok {
			e := s.variants[key]
			if e == nil {
				e = &loaded{}
				s.variants[key] = e
			}
			e.users++
		}
	}
	return s
}

// key is the variant a run needs, and false when it replays its inputs as
// loaded.
func (s *snapshots) key(r Run) (string, bool) {
	if r.Variant == "" && !s.plan.controllers {
		return "", false
	}
	return inputsKey(r.Inputs) + "\x01" + r.Variant, true
}

func (s *snapshots) get(r Run) (*load.Result, error) {
	base, err := s.in.load(r.Inputs)
	if err != nil {
		return nil, err
	}
	key, ok := s.key(r)
	if !ok {
		return base, nil
	}
	s.mu.Lock()
	e := s.variants[key]
	s.mu.Unlock()
	e.once.Do(func() { e.res, e.err = s.plan.variant(base, r.Point) })
	return e.res, e.err
}

// done releases a run's snapshots: the last run of a variant frees it, the
// last run of a seed's inputs frees them (but the first run's, which the
// caller holds).
func (s *snapshots) done(r Run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if key, ok := s.key(r); ok {
		if e := s.variants[key]; e != nil {
			e.users--
			if e.users == 0 {
				e.res = nil
			}
		}
	}
	base := inputsKey(r.Inputs)
	s.bases[base]--
	if s.bases[base] == 0 && base != inputsKey(s.plan.Runs[0].Inputs) {
		s.in.mu.Lock()
		if e := s.in.bases[base]; e != nil {
			e.res = nil
		}
		s.in.mu.Unlock()
	}
}
