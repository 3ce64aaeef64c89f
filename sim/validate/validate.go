package validate

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/drasim/drasim/sim/feature"
	"github.com/drasim/drasim/sim/inventory"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
)

// Severity says whether a diagnostic blocks a faithful simulation.
type Severity string

const (
	// SeverityError: the API server would reject the object, or the
	// allocator would refuse it (an invalid pool).
	SeverityError Severity = "error"
	// SeverityWarning: legal input that will probably not behave as its
	// author expects.
	SeverityWarning Severity = "warning"
)

// Diagnostic is one finding about one object.
type Diagnostic struct {
	Severity Severity        `json:"severity"`
	Source   snapshot.Source `json:"source"`
	// Object names the object to fix, e.g. `ResourceSlice "node-a-gpu"`. For
	// pods that drasim generated from a workload controller it names the
	// controller, and Field points into its pod template.
	Object  string `json:"object"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
	Code    Code   `json:"code"`
}

// String renders "<source>: <object>: <field>: <message>", leaving out the
// parts that are unknown.
func (d Diagnostic) String() string {
	parts := make([]string, 0, 4)
	if d.Source.File != "" {
		parts = append(parts, d.Source.String())
	}
	if d.Object != "" {
		parts = append(parts, d.Object)
	}
	if d.Field != "" {
		parts = append(parts, d.Field)
	}
	parts = append(parts, d.Message)
	return strings.Join(parts, ": ")
}

// HasErrors reports whether any diagnostic is an error.
func HasErrors(ds []Diagnostic) bool {
	return slices.ContainsFunc(ds, func(d Diagnostic) bool { return d.Severity == SeverityError })
}

// Options selects the API features the checks assume. The zero value is
// kube-scheduler v1.37 with its default feature gates.
type Options struct {
	// Gates are the feature gates CEL is compiled with (nil: the v1.37
	// defaults): with DRAConsumableCapacity off selectors may not use
	// device.allowMultipleAllocations, with DRAListTypeAttributes on they may
	// use list-typed attributes.
	Gates feature.Gates
	// SkipDeviceMatching turns off evaluating class selectors against every
	// device (ClassMatchesNoDevice, PodNeverSchedulable, CELRuntime), which
	// costs classes x devices CEL evaluations on very large snapshots.
	SkipDeviceMatching bool
}

// Validate checks the snapshot and returns its diagnostics ordered by source
// file, document, list item and field (then code, object and message, so that
// the order is total). It never modifies the snapshot.
func Validate(s *snapshot.Snapshot, opts Options) []Diagnostic {
	if s == nil {
		return nil
	}
	v := newValidator(s, opts)
	v.pools = buildPoolIndex(s.ResourceSlices)
	// Objects first, each on its own; then what only shows across objects.
	v.checkObjects()
	v.checkPools()
	if !opts.SkipDeviceMatching {
		v.checkDeviceMatching()
	}
	v.checkSomethingToSimulate()
	return v.result()
}

// Rejected returns the errors for which kube-apiserver v1.37 (with its
// default admission plugins) would refuse an object of the snapshot: the
// object-shape, CEL, request-reference, pod-claim and priority-class errors
// of Validate. Errors that are the allocator's (an invalid pool, an
// allocation naming a missing device) and all warnings are left out: the
// simulation reproduces them faithfully.
//
// Every drasim command runs it on what it loaded, before any simulation, so
// that input the API server would never store never reaches the scheduler
// or the allocator (the allocator panics on some of it, e.g. a negative
// count). It skips the checks whose codes it would drop (pools, device
// matching), so it costs less than Validate.
func Rejected(s *snapshot.Snapshot) []Diagnostic {
	if s == nil {
		return nil
	}
	v := newValidator(s, Options{SkipDeviceMatching: true})
	// The pools only serve the checks of allocated devices, whose findings
	// are the allocator's.
	v.pools = &poolIndex{byID: map[poolID]*pool{}}
	v.checkObjects()
	v.out = slices.DeleteFunc(v.out, func(d Diagnostic) bool {
		return d.Severity != SeverityError || !rejectedByAPI(d.Code)
	})
	return v.result()
}

// rejectedByAPI reports the codes of the errors the API server (or
// admission) reports; see Rejected.
func rejectedByAPI(c Code) bool {
	switch c {
	case CodeRequired, CodeInvalidName, CodeInvalidValue, CodeTooLong, CodeTooMany,
		CodeDuplicate, CodeOneOf, CodeForbidden,
		CodeSelectorMissingCEL, CodeCELCompile, CodeCELCost,
		CodeUnknownRequest, CodeUnknownPodClaim, CodeMissingPriorityClass:
		return true
	}
	return false
}

// checkObjects checks each object on its own (and against the objects it
// references by name).
func (v *validator) checkObjects() {
	v.checkMetadata()
	v.checkNodes()
	v.checkWorkloads()
	v.checkNodeGroups()
	v.checkAutoscalingRequests()
	v.checkDeviceClasses()
	v.checkResourceSlices()
	v.checkResourceClaims()
	v.checkResourceClaimTemplates()
	v.checkPods()
	v.checkPodGroups()
	v.checkDeviceTaintRules()
}

// checkSomethingToSimulate warns about a snapshot without a node: every
// command but validate and inspect refuses it.
func (v *validator) checkSomethingToSimulate() {
	if len(v.s.Nodes) > 0 {
		return
	}
	t := target{}
	switch {
	case len(v.s.Sources) == 0 && len(v.s.Skipped) == 0:
		v.warnf(t, "", CodeNothingToSimulate, "nothing to simulate: the snapshot holds no Kubernetes object")
	case len(v.s.NodeGroups) > 0:
		v.warnf(t, "", CodeNothingToSimulate, "nothing to simulate: the snapshot holds no Node, only NodeGroups: simulate, explain, report and check refuse it; autoscale starts from the NodeGroups")
	default:
		v.warnf(t, "", CodeNothingToSimulate, "nothing to simulate: the snapshot holds no Node: simulate, explain, report, check and autoscale refuse it")
	}
}

// nsName keys namespaced objects.
type nsName struct{ namespace, name string }

// target is the object a diagnostic is about: where it came from, how to name
// it, and the prefix of its fields (generated pods report into their
// controller's pod template).
type target struct {
	src snapshot.Source
	// object is the object to name; rendered only when a diagnostic is
	// reported (most objects have none).
	object snapshot.Ref
	prefix string
	// template is set for the node and slices of a NodeGroup template,
	// whose node names are not those of the snapshot.
	template bool
}

type validator struct {
	s    *snapshot.Snapshot
	opts Options
	cel  *celCompiler
	// matcher evaluates selectors on devices (sim/inventory), made on
	// first use.
	matcher *inventory.Matcher
	out     []Diagnostic

	classes   map[string]*resourceapi.DeviceClass
	claims    map[nsName]*resourceapi.ResourceClaim
	templates map[nsName]*resourceapi.ResourceClaimTemplate
	pods      map[nsName]*v1.Pod
	nodes     map[string]bool
	priority  map[string]bool
	// controllers maps the source of a workload controller to its Ref, so
	// that a generated pod (which shares its controller's source) is
	// reported against the controller.
	controllers map[snapshot.Source]snapshot.Ref

	pools *poolIndex
	// classDevices caches how many usable devices each class matches; -1
	// when the class could not be evaluated (broken selector).
	classDevices map[string]int
	// classMatched lists, per evaluable class, the indexes into devices of
	// the devices it selects; devices are the usable devices.
	classMatched map[string][]int
	devices      []device
	// cleanMaps are the device maps checked without a finding (see once).
	cleanMaps map[mapKey]bool
	// devicePaths caches "spec.devices[i]".
	devicePaths []string
}

func newValidator(s *snapshot.Snapshot, opts Options) *validator {
	v := &validator{
		s:            s,
		opts:         opts,
		cel:          newCELCompiler(opts),
		classes:      map[string]*resourceapi.DeviceClass{},
		claims:       map[nsName]*resourceapi.ResourceClaim{},
		templates:    map[nsName]*resourceapi.ResourceClaimTemplate{},
		pods:         map[nsName]*v1.Pod{},
		nodes:        map[string]bool{},
		priority:     map[string]bool{},
		controllers:  map[snapshot.Source]snapshot.Ref{},
		classDevices: map[string]int{},
		classMatched: map[string][]int{},
		cleanMaps:    map[mapKey]bool{},
	}
	for _, c := range s.DeviceClasses {
		if c != nil {
			v.classes[c.Name] = c
		}
	}
	for _, c := range s.ResourceClaims {
		if c != nil {
			v.claims[nsName{c.Namespace, c.Name}] = c
		}
	}
	for _, t := range s.ResourceClaimTemplates {
		if t != nil {
			v.templates[nsName{t.Namespace, t.Name}] = t
		}
	}
	for _, p := range s.Pods {
		if p != nil {
			v.pods[nsName{p.Namespace, p.Name}] = p
		}
	}
	for _, n := range s.Nodes {
		if n != nil {
			v.nodes[n.Name] = true
		}
	}
	for _, pc := range s.PriorityClasses {
		if pc != nil {
			v.priority[pc.Name] = true
		}
	}
	for ref, src := range s.Sources {
		switch ref.Kind {
		case "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job":
			v.controllers[src] = ref
		}
	}
	return v
}

// targetFor returns the target of an object the loader read.
func (v *validator) targetFor(ref snapshot.Ref) target {
	return target{src: v.s.Sources[ref], object: ref}
}

// podTarget returns the target of a pod: the pod itself, or for a generated
// pod its controller with fields inside spec.template.
func (v *validator) podTarget(p *v1.Pod) target {
	ref := snapshot.Ref{Kind: "Pod", Namespace: p.Namespace, Name: p.Name}
	t := v.targetFor(ref)
	if v.s.Generated[ref] {
		if ctrl, ok := v.controllers[t.src]; ok {
			t.object = ctrl
			t.prefix = "spec.template."
		}
	}
	return t
}

func (v *validator) add(sev Severity, t target, field string, code Code, format string, args ...any) {
	if field != "" {
		field = t.prefix + field
	}
	object := ""
	if t.object != (snapshot.Ref{}) {
		object = t.object.String()
	}
	v.out = append(v.out, Diagnostic{
		Severity: sev,
		Source:   t.src,
		Object:   object,
		Field:    field,
		Message:  fmt.Sprintf(format, args...),
		Code:     code,
	})
}

func (v *validator) errorf(t target, field string, code Code, format string, args ...any) {
	v.add(SeverityError, t, field, code, format, args...)
}

func (v *validator) warnf(t target, field string, code Code, format string, args ...any) {
	v.add(SeverityWarning, t, field, code, format, args...)
}

// result sorts the diagnostics and drops exact repeats (the pods of one
// controller share a template and would otherwise repeat its findings).
func (v *validator) result() []Diagnostic {
	slices.SortFunc(v.out, compareDiagnostics)
	return slices.Compact(v.out)
}

func compareDiagnostics(a, b Diagnostic) int {
	return cmp.Or(
		cmp.Compare(a.Source.File, b.Source.File),
		cmp.Compare(a.Source.Doc, b.Source.Doc),
		cmp.Compare(a.Source.Item, b.Source.Item),
		cmp.Compare(a.Field, b.Field),
		cmp.Compare(a.Code, b.Code),
		cmp.Compare(a.Object, b.Object),
		cmp.Compare(a.Message, b.Message),
		cmp.Compare(a.Severity, b.Severity),
		cmp.Compare(a.Source.Line, b.Source.Line),
	)
}

// idx renders a list element path.
func idx(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// key renders a map entry path.
func key(path, k string) string { return path + "[" + k + "]" }
