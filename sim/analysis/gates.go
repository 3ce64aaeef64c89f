package analysis

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/result"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// GatesKind is the kind of a gates file.
const GatesKind = "Gates"

// Gates is a gates file: named assertions on a CapacityReport that CI can
// fail a change on.
type Gates struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Gates      []Gate `json:"gates"`
	// File is where the gates were read from, for messages.
	File string `json:"-"`
	// doc is the file as YAML, for the lines of later messages.
	doc *gatesDoc
}

// Gate is one named assertion; exactly one of its assertion fields is set.
type Gate struct {
	Name string `json:"name"`
	// MaxPendingPods fails when more pods stay pending than Max.
	MaxPendingPods *PendingPodsGate `json:"maxPendingPods,omitempty"`
	// MinHeadroom fails when fewer instances of a shape fit than Min.
	MinHeadroom *HeadroomGate `json:"minHeadroom,omitempty"`
	// MaxFragmentationRate fails when the fragmentation rate (overall, or
	// of a class) is above Max.
	MaxFragmentationRate *FragmentationGate `json:"maxFragmentationRate,omitempty"`
	// MinFirstChoiceShare fails when fewer prioritized-list requests got
	// their first alternative than the share Min.
	MinFirstChoiceShare *FirstChoiceGate `json:"minFirstChoiceShare,omitempty"`
	// MaxUtilization fails when the share of a resource in use (overall,
	// or of a class, driver or node group) is above Max.
	MaxUtilization *UtilizationGate `json:"maxUtilization,omitempty"`
	// DomainLoss fails when losing one failure domain (a node, or the
	// nodes sharing a label value) strands pods, optionally only pods
	// above a priority (resilience.go).
	DomainLoss *DomainLossGate `json:"domainLoss,omitempty"`
	// MaxPreemptedPods fails when more pods (of at least MinPriority, of a
	// namespace) were preempted than Max.
	MaxPreemptedPods *PreemptedPodsGate `json:"maxPreemptedPods,omitempty"`
	// MaxPendingPodGroups fails when more pod groups (of a namespace)
	// were not placed whole than Max.
	MaxPendingPodGroups *PendingPodGroupsGate `json:"maxPendingPodGroups,omitempty"`

	// Gates on timelines (drasim timeline --gates, drasim check
	// --timeline): MaxWait fails when a percentile of the pods' waiting
	// time is above Max; MaxCost when the timeline cost more than Max;
	// MaxNeverPlaced when more pods than Max were never placed.
	MaxWait        *WaitGate        `json:"maxWait,omitempty"`
	MaxCost        *CostGate        `json:"maxCost,omitempty"`
	MaxNeverPlaced *NeverPlacedGate `json:"maxNeverPlaced,omitempty"`
}

// PendingPodGroupsGate bounds the pod groups not placed whole: pending
// whole, never tried (fewer pods than minCount), or, with GenericWorkload
// off, placed short of minCount. Max 0 is "every gang is placed".
type PendingPodGroupsGate struct {
	Max       *int   `json:"max"`
	Namespace string `json:"namespace,omitempty"`
}

// PreemptedPodsGate bounds the pods preemption deleted, optionally only
// those of priority MinPriority or more and/or of a namespace: with Max 0,
// "no pod of priority >= P is preempted".
type PreemptedPodsGate struct {
	Max         *int   `json:"max"`
	MinPriority *int32 `json:"minPriority,omitempty"`
	Namespace   string `json:"namespace,omitempty"`
}

// WaitGate bounds a percentile (0 < p <= 100, nearest rank) of the time
// placed pods waited from arrival to binding, of one workload and/or
// priority when set.
type WaitGate struct {
	Percentile float64          `json:"percentile"`
	Max        *metav1.Duration `json:"max"`
	Workload   string           `json:"workload,omitempty"`
	Priority   *int32           `json:"priority,omitempty"`
}

// CostGate bounds the cost of a timeline, of one node group when Group is
// set.
type CostGate struct {
	Max   *float64 `json:"max"`
	Group string   `json:"group,omitempty"`
}

// NeverPlacedGate bounds the pods that waited to the end of a timeline
// without being placed, of one workload when set.
type NeverPlacedGate struct {
	Max      *int   `json:"max"`
	Workload string `json:"workload,omitempty"`
}

// PendingPodsGate bounds the pending pods, optionally only those of a
// namespace and/or matching a label selector.
type PendingPodsGate struct {
	Max       *int                  `json:"max"`
	Namespace string                `json:"namespace,omitempty"`
	Selector  *metav1.LabelSelector `json:"selector,omitempty"`
}

// HeadroomGate asks for room for at least Min more instances of a shape of
// the mix (a workload's shape, or a pod of the --probe file).
type HeadroomGate struct {
	Shape string `json:"shape"`
	Min   *int   `json:"min"`
}

// FragmentationGate bounds the fragmentation rate, of one DeviceClass when
// Class is set.
type FragmentationGate struct {
	Class string   `json:"class,omitempty"`
	Max   *float64 `json:"max"`
}

// FirstChoiceGate asks for a minimum share of first-choice allocations,
// over the requests of one workload when Workload is set.
type FirstChoiceGate struct {
	Workload string   `json:"workload,omitempty"`
	Min      *float64 `json:"min"`
}

// UtilizationGate bounds the share of Resource in use: of one DeviceClass,
// driver or node group (at most one of them), or of the whole cluster.
type UtilizationGate struct {
	Class    string   `json:"class,omitempty"`
	Driver   string   `json:"driver,omitempty"`
	Group    string   `json:"group,omitempty"`
	Resource string   `json:"resource,omitempty"`
	Max      *float64 `json:"max"`
}

// Utilization resources.
const (
	UtilizationDevices = "devices"
	UtilizationCPU     = ResourceCPU
	UtilizationMemory  = ResourceMemory
	UtilizationPods    = ResourcePods
)

// Gate types, as named in the file.
const (
	GateMaxPendingPods       = "maxPendingPods"
	GateMinHeadroom          = "minHeadroom"
	GateMaxFragmentationRate = "maxFragmentationRate"
	GateMinFirstChoiceShare  = "minFirstChoiceShare"
	GateMaxUtilization       = "maxUtilization"
	GateDomainLoss           = "domainLoss"
	GateMaxPreemptedPods     = "maxPreemptedPods"
	GateMaxPendingPodGroups  = "maxPendingPodGroups"
	GateMaxWait              = "maxWait"
	GateMaxCost              = "maxCost"
	GateMaxNeverPlaced       = "maxNeverPlaced"
)

// GateReportKind is the kind of a marshalled GateReport.
const GateReportKind = "GateReport"

// GateReport is the verdicts of a gates file: Passed when no gate failed.
type GateReport struct {
	APIVersion string       `json:"apiVersion"`
	Kind       string       `json:"kind"`
	Gates      string       `json:"gates"`
	Passed     bool         `json:"passed"`
	Failed     int          `json:"failed"`
	Results    []GateResult `json:"results"`
}

// NewGateReport sums up the verdicts of the gates read from file.
func NewGateReport(file string, results []GateResult) *GateReport {
	r := &GateReport{APIVersion: APIVersion, Kind: GateReportKind, Gates: file, Results: results}
	for _, res := range results {
		if !res.Passed {
			r.Failed++
		}
	}
	r.Passed = r.Failed == 0
	return r
}

// GateResult is one gate's verdict: the measured value against the bound
// (Measured <= Bound for max gates, >= for min gates).
type GateResult struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Target string `json:"target"`
	Passed bool   `json:"passed"`
	// Measured is nil when there was nothing to measure (a maxWait gate
	// on a workload none of whose pods was placed): the gate fails.
	Measured *float64 `json:"measured"`
	Op       string   `json:"op"`
	Bound    float64  `json:"bound"`
	// Unit is what Measured and Bound count: UnitSeconds, UnitCost, or
	// empty for counts and shares.
	Unit    string `json:"unit,omitempty"`
	Message string `json:"message"`
}

// Units of gate values.
const (
	// UnitSeconds: a duration in seconds, shown as 1h30m.
	UnitSeconds = "seconds"
	// UnitCost: the NodeGroups' cost unit, shown with two decimals.
	UnitCost = "cost"
)

// FormatGateValue renders a gate's value in its unit: durations as 1h30m
// (whole seconds from a minute on), costs with two decimals, counts and
// shares as they are.
func FormatGateValue(unit string, v float64) string {
	switch unit {
	case UnitSeconds:
		d := time.Duration(math.Round(v*1000)) * time.Millisecond
		if d >= time.Minute || d <= -time.Minute {
			d = d.Round(time.Second)
		}
		s := d.String()
		if strings.HasSuffix(s, "m0s") {
			s = strings.TrimSuffix(s, "0s")
		}
		if strings.HasSuffix(s, "h0m") {
			s = strings.TrimSuffix(s, "0m")
		}
		return s
	case UnitCost:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// MeasuredText is the measured value in its unit, "-" when nothing was
// measured.
func (r GateResult) MeasuredText() string {
	if r.Measured == nil {
		return "-"
	}
	return FormatGateValue(r.Unit, *r.Measured)
}

// BoundText is the comparison and the bound in its unit: "<= 2m".
func (r GateResult) BoundText() string { return r.Op + " " + FormatGateValue(r.Unit, r.Bound) }

// GatesError is a problem with a gates file: the file, the line (when
// known), the gate (by name and index) and the field.
type GatesError struct {
	File  string
	Line  int
	Gate  string
	Index int
	Field string
	Msg   string
}

func (e *GatesError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Index >= 0 {
		if e.Gate != "" {
			fmt.Fprintf(&b, ": gate %q (gates[%d])", e.Gate, e.Index)
		} else {
			fmt.Fprintf(&b, ": gates[%d]", e.Index)
		}
	}
	if e.Field != "" {
		b.WriteString(": " + e.Field)
	}
	b.WriteString(": " + e.Msg)
	return b.String()
}

// ParseGates reads a gates file. Unknown fields are errors, so that a typo
// cannot switch a gate off; every problem found is returned (errors.Join
// of *GatesError, with the line of each; gatesfile.go).
func ParseGates(file string, data []byte) (*Gates, error) {
	decoded, doc, errs := decodeGates(file, data)
	if decoded == nil {
		return nil, errors.Join(errs...)
	}
	g := *decoded
	fail := func(i int, field, format string, args ...any) {
		errs = append(errs, doc.errorf(i, field, format, args...))
	}
	if len(g.Gates) == 0 {
		fail(-1, "gates", "no gates: a gates file needs at least one")
	}
	names := map[string]int{}
	for i, gate := range g.Gates {
		if gate.Name == "" {
			fail(i, "name", "every gate needs a name")
		} else if prev, dup := names[gate.Name]; dup {
			fail(i, "name", "duplicate name, also gates[%d]", prev)
		} else {
			names[gate.Name] = i
		}
		set := gate.types()
		if len(set) != 1 {
			fail(i, "", "want exactly one of %s, got %d", strings.Join(gateTypes(), ", "), len(set))
			continue
		}
		checkGate(gate, func(field, format string, args ...any) { fail(i, field, format, args...) })
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	g.File, g.doc = file, doc
	return &g, nil
}

// checkGate checks the one assertion a gate sets; fail records a problem
// with a field of the gate.
func checkGate(gate Gate, fail func(field, format string, args ...any)) {
	switch {
	case gate.MaxPendingPods != nil:
		a := gate.MaxPendingPods
		checkCount(GateMaxPendingPods+".max", a.Max, fail)
		if a.Selector != nil {
			if _, err := metav1.LabelSelectorAsSelector(a.Selector); err != nil {
				fail(GateMaxPendingPods+".selector", "%v", err)
			}
		}
	case gate.MinHeadroom != nil:
		a := gate.MinHeadroom
		if a.Shape == "" {
			fail(GateMinHeadroom+".shape", "required: the name of a shape of the mix")
		}
		checkCount(GateMinHeadroom+".min", a.Min, fail)
	case gate.MaxFragmentationRate != nil:
		checkShare(gate.MaxFragmentationRate.Max, func(msg string) { fail(GateMaxFragmentationRate+".max", "%s", msg) })
	case gate.MinFirstChoiceShare != nil:
		checkShare(gate.MinFirstChoiceShare.Min, func(msg string) { fail(GateMinFirstChoiceShare+".min", "%s", msg) })
	case gate.MaxUtilization != nil:
		checkUtilizationGate(gate.MaxUtilization, fail)
	case gate.DomainLoss != nil:
		for _, p := range gate.DomainLoss.problems() {
			fail(GateDomainLoss+"."+p.field, "%s", p.msg)
		}
	case gate.MaxPreemptedPods != nil:
		checkCount(GateMaxPreemptedPods+".max", gate.MaxPreemptedPods.Max, fail)
	case gate.MaxPendingPodGroups != nil:
		checkCount(GateMaxPendingPodGroups+".max", gate.MaxPendingPodGroups.Max, fail)
	case gate.MaxWait != nil:
		a := gate.MaxWait
		if a.Percentile <= 0 || a.Percentile > 100 {
			fail(GateMaxWait+".percentile", "want a percentile above 0 and at most 100 (e.g. 95), got %g", a.Percentile)
		}
		if a.Max == nil {
			fail(GateMaxWait+".max", "required: a duration such as 10m")
		} else if a.Max.Duration < 0 {
			fail(GateMaxWait+".max", "must not be negative, got %s", a.Max.Duration)
		}
	case gate.MaxCost != nil:
		if a := gate.MaxCost; a.Max == nil {
			fail(GateMaxCost+".max", "required")
		} else if *a.Max < 0 {
			fail(GateMaxCost+".max", "must not be negative, got %g", *a.Max)
		}
	case gate.MaxNeverPlaced != nil:
		checkCount(GateMaxNeverPlaced+".max", gate.MaxNeverPlaced.Max, fail)
	}
}

// checkCount checks a gate's count bound: required, and not negative.
func checkCount(field string, v *int, fail func(field, format string, args ...any)) {
	if v == nil {
		fail(field, "required")
	} else if *v < 0 {
		fail(field, "must not be negative, got %d", *v)
	}
}

func checkUtilizationGate(a *UtilizationGate, fail func(field, format string, args ...any)) {
	checkShare(a.Max, func(msg string) { fail(GateMaxUtilization+".max", "%s", msg) })
	targets := 0
	for _, s := range []string{a.Class, a.Driver, a.Group} {
		if s != "" {
			targets++
		}
	}
	if targets > 1 {
		fail(GateMaxUtilization, "set at most one of class, driver and group")
	}
	switch a.Resource {
	case "", UtilizationDevices, UtilizationCPU, UtilizationMemory, UtilizationPods:
	default:
		fail(GateMaxUtilization+".resource", "%q is not one of devices, cpu, memory, pods", a.Resource)
	}
}

// gateTypes are the assertion fields of a Gate, in the file's words.
func gateTypes() []string {
	return []string{GateMaxPendingPods, GateMinHeadroom, GateMaxFragmentationRate, GateMinFirstChoiceShare, GateMaxUtilization, GateDomainLoss, GateMaxPreemptedPods, GateMaxPendingPodGroups, GateMaxWait, GateMaxCost, GateMaxNeverPlaced}
}

func (g *Gate) types() []string {
	var out []string
	if g.MaxPendingPods != nil {
		out = append(out, GateMaxPendingPods)
	}
	if g.MinHeadroom != nil {
		out = append(out, GateMinHeadroom)
	}
	if g.MaxFragmentationRate != nil {
		out = append(out, GateMaxFragmentationRate)
	}
	if g.MinFirstChoiceShare != nil {
		out = append(out, GateMinFirstChoiceShare)
	}
	if g.MaxUtilization != nil {
		out = append(out, GateMaxUtilization)
	}
	if g.DomainLoss != nil {
		out = append(out, GateDomainLoss)
	}
	if g.MaxPreemptedPods != nil {
		out = append(out, GateMaxPreemptedPods)
	}
	if g.MaxPendingPodGroups != nil {
		out = append(out, GateMaxPendingPodGroups)
	}
	if g.MaxWait != nil {
		out = append(out, GateMaxWait)
	}
	if g.MaxCost != nil {
		out = append(out, GateMaxCost)
	}
	if g.MaxNeverPlaced != nil {
		out = append(out, GateMaxNeverPlaced)
	}
	return out
}

func checkShare(v *float64, fail func(string)) {
	switch {
	case v == nil:
		fail("required")
	case *v < 0 || *v > 1:
		fail(fmt.Sprintf("must be a share between 0 and 1, got %g", *v))
	}
}

// EvaluateGates checks every gate against the report (and, for label
// selectors, the run's pods). A gate that names something the report does
// not have (a shape, class, driver, group or workload) is an input error,
// not a failed gate: all such errors are returned together.
func EvaluateGates(g *Gates, rep *Report, run *sim.Run) ([]GateResult, error) {
	out := make([]GateResult, 0, len(g.Gates))
	var errs []error
	for i, gate := range g.Gates {
		r, err := evaluateGate(gate, rep, run)
		if err != nil {
			errs = append(errs, &GatesError{File: g.File, Gate: gate.Name, Index: i, Msg: err.Error()})
			continue
		}
		r.Name = gate.Name
		out = append(out, r)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

func evaluateGate(gate Gate, rep *Report, run *sim.Run) (GateResult, error) {
	switch {
	case gate.MaxPendingPods != nil:
		a := gate.MaxPendingPods
		n, target, err := pendingPods(a, run)
		if err != nil {
			return GateResult{}, err
		}
		return atMost(GateMaxPendingPods, target, float64(n), float64(*a.Max), "pending pods"), nil
	case gate.MinHeadroom != nil:
		return evaluateHeadroom(gate.MinHeadroom, rep)
	case gate.MaxFragmentationRate != nil:
		return evaluateFragmentation(gate.MaxFragmentationRate, rep)
	case gate.MinFirstChoiceShare != nil:
		return evaluateFirstChoiceShare(gate.MinFirstChoiceShare, rep)
	case gate.MaxUtilization != nil:
		return evaluateUtilization(gate.MaxUtilization, rep)
	case gate.DomainLoss != nil:
		return evaluateDomainLoss(gate.DomainLoss, rep)
	case gate.MaxPreemptedPods != nil:
		a := gate.MaxPreemptedPods
		n, target := preemptedPods(a, run)
		return atMost(GateMaxPreemptedPods, target, float64(n), float64(*a.Max), "preempted pods"), nil
	case gate.MaxPendingPodGroups != nil:
		return evaluatePendingPodGroups(gate.MaxPendingPodGroups, run), nil
	case gate.MaxWait != nil, gate.MaxCost != nil, gate.MaxNeverPlaced != nil:
		return GateResult{}, fmt.Errorf("%s is a gate on timelines: check it with drasim timeline --gates or drasim check --timeline", gate.types()[0])
	}
	return GateResult{}, errors.New("no assertion")
}

func evaluateHeadroom(a *HeadroomGate, rep *Report) (GateResult, error) {
	for _, h := range rep.Headroom {
		if h.Shape == a.Shape {
			r := atLeast(GateMinHeadroom, "shape "+a.Shape, float64(h.Fits), float64(*a.Min), "headroom")
			if h.Capped {
				r.Message += " (counting stopped at the bound)"
			}
			return r, nil
		}
	}
	return GateResult{}, fmt.Errorf("%s.shape: no shape %q in the mix; shapes: %s", GateMinHeadroom, a.Shape, strings.Join(shapeNames(rep), ", "))
}

func evaluateFragmentation(a *FragmentationGate, rep *Report) (GateResult, error) {
	if a.Class == "" {
		return atMost(GateMaxFragmentationRate, "all classes", rep.Fragmentation.Rate, *a.Max, "fragmentation rate"), nil
	}
	for _, c := range rep.Fragmentation.Classes {
		if c.Class == a.Class {
			return atMost(GateMaxFragmentationRate, "class "+a.Class, c.Rate, *a.Max, "fragmentation rate"), nil
		}
	}
	return GateResult{}, fmt.Errorf("%s.class: no DeviceClass %q in the snapshot", GateMaxFragmentationRate, a.Class)
}

// evaluateFirstChoiceShare checks the share overall, or of one workload's
// prioritized-list requests.
func evaluateFirstChoiceShare(a *FirstChoiceGate, rep *Report) (GateResult, error) {
	if a.Workload == "" {
		return atLeast(GateMinFirstChoiceShare, "all workloads", rep.PrioritizedList.FirstChoiceShare, *a.Min, "first-choice share"), nil
	}
	first, allocated, found := 0, 0, false
	for _, o := range rep.PrioritizedList.Requests {
		if o.Workload != a.Workload {
			continue
		}
		found = true
		first += o.Allocated[0]
		for _, n := range o.Allocated {
			allocated += n
		}
	}
	if !found {
		return GateResult{}, fmt.Errorf("%s.workload: workload %q has no prioritized-list requests", GateMinFirstChoiceShare, a.Workload)
	}
	return atLeast(GateMinFirstChoiceShare, "workload "+a.Workload, firstChoiceShare(first, allocated), *a.Min, "first-choice share"), nil
}

func evaluateUtilization(a *UtilizationGate, rep *Report) (GateResult, error) {
	resource := a.Resource
	if resource == "" {
		resource = UtilizationDevices
	}
	u, target, err := utilizationTarget(a, rep)
	if err != nil {
		return GateResult{}, err
	}
	var v float64
	switch resource {
	case UtilizationDevices:
		v = u.Devices.Share
	case UtilizationCPU:
		v = u.CPU.Share
	case UtilizationMemory:
		v = u.Memory.Share
	case UtilizationPods:
		v = u.Pods.Share
	}
	return atMost(GateMaxUtilization, target+" "+resource, v, *a.Max, resource+" utilization"), nil
}

// evaluatePendingPodGroups counts the pod groups not placed whole and,
// when the gate fails, names them.
func evaluatePendingPodGroups(a *PendingPodGroupsGate, run *sim.Run) GateResult {
	n, target, names := 0, "all pod groups", []string(nil)
	if a.Namespace != "" {
		target = "namespace " + a.Namespace
	}
	for i := range run.Result.PodGroups {
		g := &run.Result.PodGroups[i]
		if (a.Namespace == "" || g.Namespace == a.Namespace) && g.NotPlaced() {
			n++
			names = append(names, g.Namespace+"/"+g.Name)
		}
	}
	r := atMost(GateMaxPendingPodGroups, target, float64(n), float64(*a.Max), "pod groups not placed whole")
	if len(names) > 0 && !r.Passed {
		r.Message += ": " + strings.Join(names, ", ")
	}
	return r
}

func utilizationTarget(a *UtilizationGate, rep *Report) (Usage, string, error) {
	find := func(list []Usage, name, what, field string) (Usage, string, error) {
		for _, u := range list {
			if u.Name == name {
				return u, what + " " + name, nil
			}
		}
		return Usage{}, "", fmt.Errorf("%s.%s: no %s %q in the report", GateMaxUtilization, field, what, name)
	}
	switch {
	case a.Class != "":
		return find(rep.Utilization.Classes, a.Class, "class", "class")
	case a.Driver != "":
		return find(rep.Utilization.Drivers, a.Driver, "driver", "driver")
	case a.Group != "":
		return find(rep.Utilization.Groups, a.Group, "group", "group")
	}
	return rep.Utilization.Total, "cluster", nil
}

func pendingPods(a *PendingPodsGate, run *sim.Run) (int, string, error) {
	sel := labels.Everything()
	if a.Selector != nil {
		s, err := metav1.LabelSelectorAsSelector(a.Selector)
		if err != nil {
			return 0, "", fmt.Errorf("%s.selector: %w", GateMaxPendingPods, err)
		}
		sel = s
	}
	podLabels := map[string]labels.Set{}
	for _, p := range run.Cluster.Pods() {
		podLabels[p.Namespace+"/"+p.Name] = p.Labels
	}
	n := 0
	for i := range run.Result.Pods {
		p := &run.Result.Pods[i]
		if p.Phase != result.PhaseUnschedulable {
			continue
		}
		if a.Namespace != "" && p.Namespace != a.Namespace {
			continue
		}
		if !sel.Matches(podLabels[p.Key()]) {
			continue
		}
		n++
	}
	var parts []string
	if a.Namespace != "" {
		parts = append(parts, "namespace "+a.Namespace)
	}
	if a.Selector != nil {
		parts = append(parts, "pods "+sel.String())
	}
	target := "all pods"
	if len(parts) > 0 {
		target = strings.Join(parts, ", ")
	}
	return n, target, nil
}

func atMost(typ, target string, measured, bound float64, what string) GateResult {
	return verdictOf(typ, target, &measured, "<=", bound, "", what, "")
}

func atLeast(typ, target string, measured, bound float64, what string) GateResult {
	return verdictOf(typ, target, &measured, ">=", bound, "", what, "")
}

// verdictOf compares measured with bound (op "<=" or ">="), in unit; a
// nil measured fails, and the message says why in none.
func verdictOf(typ, target string, measured *float64, op string, bound float64, unit, what, none string) GateResult {
	r := GateResult{Type: typ, Target: target, Measured: measured, Op: op, Bound: bound, Unit: unit}
	value := "none (" + none + ")"
	if measured != nil {
		r.Passed = op == "<=" && *measured <= bound || op == ">=" && *measured >= bound
		value = r.MeasuredText()
	}
	r.Message = fmt.Sprintf("%s: %s = %s, want %s", target, what, value, r.BoundText())
	return r
}

func shapeNames(rep *Report) []string {
	out := make([]string, 0, len(rep.Mix))
	for _, s := range rep.Mix {
		out = append(out, s.Name)
	}
	sort.Strings(out)
	return out
}

// preemptedPods counts the pods preemption deleted that the gate covers.
func preemptedPods(a *PreemptedPodsGate, run *sim.Run) (int, string) {
	n := 0
	for i := range run.Result.Pods {
		p := &run.Result.Pods[i]
		if p.Phase != result.PhasePreempted || a.Namespace != "" && p.Namespace != a.Namespace {
			continue
		}
		if a.MinPriority != nil && p.Priority < *a.MinPriority {
			continue
		}
		n++
	}
	var parts []string
	if a.MinPriority != nil {
		parts = append(parts, fmt.Sprintf("priority >= %d", *a.MinPriority))
	}
	if a.Namespace != "" {
		parts = append(parts, "namespace "+a.Namespace)
	}
	target := "all pods"
	if len(parts) > 0 {
		target = strings.Join(parts, ", ")
	}
	return n, target
}
