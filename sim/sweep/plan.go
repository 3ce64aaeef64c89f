package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/drasim/drasim/sim/load"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Axis kinds, as the results' manifest names them.
const (
	AxisFlag        = "flag"
	AxisFeatureGate = "featureGate"
	AxisNodeGroup   = "nodeGroup"
	AxisReplicas    = "replicas"
)

// Column names every result has; axes and metrics cannot take them.
const (
	ColumnRun     = "run"
	ColumnSeed    = "seed"
	ColumnSeconds = "seconds"
	ColumnError   = "error"
)

// SeedPlaceholder in an input path or a flag value is replaced by each
// run's seed: inputs-{seed}.yaml gives every seed its own snapshot (a
// workload drawn with that seed).
const SeedPlaceholder = "{seed}"

// MaxRuns bounds a plan, so that a typo in a count cannot ask for more
// rows than anyone will read.
const MaxRuns = 1_000_000

// Plan is a validated sweep expanded into its runs.
type Plan struct {
	// Name is the sweep's metadata.name.
	Name string
	// File is the sweep file as given; Dir its directory, absolute.
	File string
	Dir  string
	// Command is the drasim command every run executes.
	Command string
	Axes    []PlanAxis
	Metrics []PlanMetric
	Seeds   []int64
	// Runs are every run, in order: the points (cross product, first axis
	// outermost, or the listed runs), each once per seed.
	Runs []Run
	// Inputs are the snapshot paths (-f of every run), absolute; they may
	// hold SeedPlaceholder (Run.Inputs are a run's own).
	Inputs []string
	// Reads are the absolute paths of every file the runs read besides the
	// sweep file: the inputs (directories expanded), then the files of
	// input-file flags, each once.
	Reads []string
	// Fingerprint identifies what the runs compute: the command, flags,
	// axes, seeds, metrics and the contents of every file read, but no
	// path. Results of a different sweep are never resumed or merged.
	Fingerprint string
	// controllers: a replicas axis needs the inputs loaded with their
	// workload controllers unexpanded.
	controllers bool
	// absolute are the paths the sweep file gives as absolute paths (a
	// Job's pod cannot read them), with the field that gives each.
	absolute [][2]string
	// trials are the command lines tried before the sweep starts.
	trials []trial
}

// PlanAxis is one axis with its values in the order results show them.
type PlanAxis struct {
	Name   string
	Kind   string
	Values []string
	spec   Axis
}

// edits reports whether the axis changes the snapshot (rather than a flag).
func (a PlanAxis) edits() bool { return a.Kind == AxisNodeGroup || a.Kind == AxisReplicas }

// PlanMetric is one compiled metric.
type PlanMetric struct {
	Name    string
	Path    *Path
	Per     *Path
	Default *float64
}

// text is how results name where a metric comes from.
func (m PlanMetric) text() string {
	if m.Per == nil {
		return m.Path.String()
	}
	return m.Path.String() + " per " + m.Per.String()
}

// Run is one run of the plan.
type Run struct {
	// Index is the run's position in the plan; rows are keyed by it.
	Index int
	// Point holds the run's value of every axis, in axis order.
	Point []string
	Seed  int64
	// Inputs are the run's snapshot files (Plan.Inputs for its seed).
	Inputs []string
	// Args is the command line (command first, then flags, -o json and
	// the inputs as -f).
	Args []string
	// Variant names the snapshot the run replays: "" for the inputs as
	// loaded, else the values of the axes that edit the snapshot.
	Variant string
}

var columnName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`)

// NewPlan validates a sweep read from file and expands it. Every problem is
// reported, each with the file, the axis and the field (as Errors).
func NewPlan(file string, sw *Sweep, cmds Commands) (*Plan, error) {
	errs := &errorList{file: file}
	if sw.APIVersion != APIVersion || sw.Kind != Kind {
		errs.add("", "apiVersion", "want apiVersion %s and kind %s, got %q and %q", APIVersion, Kind, sw.APIVersion, sw.Kind)
	}
	if sw.Name == "" {
		errs.add("", "metadata.name", "required: it names the results and the Kubernetes Job")
	} else if msgs := validation.IsDNS1123Label(sw.Name); len(msgs) > 0 {
		errs.add("", "metadata.name", "%q: %s (it names the Kubernetes Job)", sw.Name, strings.Join(msgs, "; "))
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, fileError(file, "%v", err)
	}
	p := &Plan{Name: sw.Name, File: file, Dir: filepath.Dir(abs), Command: sw.Spec.Command}
	spec := sw.Spec
	if spec.Command == "" {
		errs.add("", "spec.command", "required: the drasim command every run executes (simulate, report, autoscale, ...)")
		return nil, errs.err()
	}
	if err := cmds.Command(spec.Command); err != nil {
		errs.add("", "spec.command", "%v", err)
		return nil, errs.err()
	}
	b := &planBuilder{plan: p, cmds: cmds, errs: errs, reads: map[string]bool{}}
	b.commandFlags()
	b.seeds(spec.Seeds)
	for i, in := range spec.Inputs {
		b.input(fmt.Sprintf("spec.inputs[%d]", i), in)
	}
	b.flags(spec.Flags)
	b.axes(spec.Axes, spec.Metrics)
	b.metrics(spec.Metrics)
	points := b.points(spec)
	if err := errs.err(); err != nil {
		return nil, err
	}
	if n := len(points) * len(p.Seeds); n > MaxRuns {
		return nil, fileError(file, "spec: %d runs (%d points x %d seeds): a sweep has at most %d", n, len(points), len(p.Seeds), MaxRuns)
	}
	for _, point := range points {
		for _, seed := range p.Seeds {
			p.Runs = append(p.Runs, b.run(len(p.Runs), point, seed))
		}
	}
	p.trials = b.trials(spec)
	fp, err := b.fingerprint(sw, points)
	if err != nil {
		return nil, fileError(file, "%v", err)
	}
	p.Fingerprint = fp
	return p, nil
}

// planBuilder holds what validation learns on the way to the runs.
type planBuilder struct {
	plan *Plan
	cmds Commands
	errs *errorList
	// base are spec.flags by name, input files resolved.
	base map[string]string
	// gates are spec.flags' feature gates, by name.
	gates    map[string]string
	hasSeed  bool
	hasPar   bool
	flagAxis map[string]string // flag -> axis that sets it
	gateAxes int
	reads    map[string]bool
	// hashed are the files whose contents the fingerprint covers.
	hashed []string
}

// resolve makes a path of the sweep file absolute.
func (b *planBuilder) resolve(path string) string {
	if path == "" || path == "-" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(b.plan.Dir, path)
}

// read notes a file (or a directory's files) the runs read; a path with
// SeedPlaceholder stands for one file per seed.
func (b *planBuilder) read(axis, field, path string) bool {
	if filepath.IsAbs(path) {
		b.plan.absolute = append(b.plan.absolute, [2]string{field, path})
	}
	if strings.Contains(path, SeedPlaceholder) {
		ok := true
		for _, seed := range b.plan.Seeds {
			ok = b.read(axis, field, withSeed(path, seed)) && ok
		}
		return ok
	}
	files, err := load.Files([]string{b.resolve(path)})
	if err != nil {
		b.errs.add(axis, field, "%s", strings.TrimPrefix(err.Error(), b.resolve(path)+": ")+" ("+path+")")
		return false
	}
	for _, f := range files {
		if !b.reads[f] {
			b.reads[f] = true
			b.plan.Reads = append(b.plan.Reads, f)
		}
		b.hashed = append(b.hashed, f)
	}
	return true
}

// withSeed replaces SeedPlaceholder with a seed.
func withSeed(s string, seed int64) string {
	return strings.ReplaceAll(s, SeedPlaceholder, strconv.FormatInt(seed, 10))
}

func (b *planBuilder) input(field, in string) {
	if in == "" || in == "-" {
		b.errs.add("", field, "want a file or directory (standard input cannot be shared between runs)")
		return
	}
	if b.read("", field, in) {
		b.plan.Inputs = append(b.plan.Inputs, b.resolve(in))
	}
}

// flag looks a flag up and checks that a sweep may set it to value.
func (b *planBuilder) flag(axis, field, name, value string) (Flag, bool) {
	f, err := b.cmds.Flag(b.plan.Command, name)
	if err != nil {
		b.errs.add(axis, field, "%v", err)
		return Flag{}, false
	}
	switch {
	case name == flagSeed:
		b.errs.add(axis, field, "--seed is set by spec.seeds")
		return Flag{}, false
	case f.Role == FlagReserved:
		b.errs.add(axis, field, "--%s is set by the sweep itself", name)
		return Flag{}, false
	case f.Role == FlagOutputFile:
		b.errs.add(axis, field, "--%s writes a file; the runs of a sweep write rows, never files", name)
		return Flag{}, false
	}
	return f, true
}

// check checks one value of a flag: an input file must exist. The
// command judges the values themselves (Plan.tryRuns).
func (b *planBuilder) check(axis, field, name string, f Flag, value string) {
	if f.Role == FlagInputFile && value != "" {
		b.read(axis, field, value)
	}
}

func (b *planBuilder) flags(flags map[string]Value) {
	b.base = map[string]string{}
	b.gates = map[string]string{}
	b.flagAxis = map[string]string{}
	names := make([]string, 0, len(flags))
	for name := range flags {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		field := "spec.flags." + name
		value := string(flags[name])
		f, ok := b.flag("", field, name, value)
		if !ok {
			continue
		}
		b.check("", field, name, f, value)
		if name == flagFeatureGates {
			for _, kv := range splitGates(value) {
				b.gates[kv[0]] = kv[1]
			}
			continue
		}
		if f.Role == FlagInputFile {
			value = b.resolve(value)
		}
		b.base[name] = value
	}
}

// commandFlags notes the flags the sweep sets itself when the command has
// them.
func (b *planBuilder) commandFlags() {
	if f, err := b.cmds.Flag(b.plan.Command, flagSeed); err == nil && f.Role == FlagReserved {
		b.hasSeed = true
	}
	if _, err := b.cmds.Flag(b.plan.Command, flagParallelism); err == nil {
		b.hasPar = true
	}
}

// splitGates splits "A=true,B=false" (already checked by the command).
func splitGates(s string) [][2]string {
	var out [][2]string
	for _, part := range strings.Split(s, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		if k != "" {
			out = append(out, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
		}
	}
	return out
}

func (b *planBuilder) seeds(s *Seeds) {
	b.plan.Seeds = []int64{0}
	if s != nil && !b.hasSeed {
		b.errs.add("", "spec.seeds", "drasim %s has no --seed flag", b.plan.Command)
		return
	}
	switch {
	case s == nil:
		b.plan.Seeds = s.Values()
		return
	case s.List != nil && len(s.List) == 0:
		b.errs.add("", "spec.seeds", "the list is empty")
		return
	case s.List == nil && s.Count <= 0:
		b.errs.add("", "spec.seeds.count", "must be at least 1, got %d", s.Count)
		return
	}
	seen := map[int64]bool{}
	for i, v := range s.Values() {
		if seen[v] {
			b.errs.add("", fmt.Sprintf("spec.seeds[%d]", i), "seed %d is given twice", v)
		}
		seen[v] = true
	}
	b.plan.Seeds = s.Values()
}

func (b *planBuilder) axes(axes []Axis, metrics []Metric) {
	names := map[string]bool{}
	metricNames := map[string]bool{}
	for _, m := range metrics {
		metricNames[m.Name] = true
	}
	for i, a := range axes {
		field := fmt.Sprintf("spec.axes[%d]", i)
		switch {
		case columnProblem(a.Name) != "":
			b.errs.add("", field+".name", "%s", columnProblem(a.Name))
		case names[a.Name]:
			b.errs.add(a.Name, field+".name", "another axis has the same name")
		case metricNames[a.Name]:
			b.errs.add(a.Name, field+".name", "a metric has the same name")
		}
		names[a.Name] = true
		pa := PlanAxis{Name: a.Name, spec: a}
		kinds := 0
		if a.Flag != "" {
			kinds++
			pa.Kind = AxisFlag
		}
		if a.FeatureGate != "" {
			kinds++
			pa.Kind = AxisFeatureGate
		}
		if a.NodeGroup != nil {
			kinds++
			pa.Kind = AxisNodeGroup
		}
		if a.Replicas != nil {
			kinds++
			pa.Kind = AxisReplicas
		}
		if kinds != 1 {
			b.errs.add(a.Name, field, "set exactly one of flag, featureGate, nodeGroup and replicas (got %d)", kinds)
			continue
		}
		seen := map[string]bool{}
		for j, v := range a.Values {
			if seen[string(v)] {
				b.errs.add(a.Name, fmt.Sprintf("%s.values[%d]", field, j), "%q is given twice", v)
			}
			seen[string(v)] = true
			pa.Values = append(pa.Values, string(v))
		}
		b.axisKind(field, pa)
		b.plan.Axes = append(b.plan.Axes, pa)
	}
}

// axisKind checks what an axis sets; values are checked by axisValue.
func (b *planBuilder) axisKind(field string, a PlanAxis) {
	switch a.Kind {
	case AxisFlag:
		if other, dup := b.flagAxis[a.spec.Flag]; dup {
			b.errs.add(a.Name, field+".flag", "axis %q sets --%s too", other, a.spec.Flag)
			return
		}
		if _, inBase := b.base[a.spec.Flag]; inBase {
			b.errs.add(a.Name, field+".flag", "--%s is in spec.flags too: set it in one place", a.spec.Flag)
		}
		if a.spec.Flag == flagFeatureGates && len(b.gates) > 0 {
			b.errs.add(a.Name, field+".flag", "--feature-gates is in spec.flags too: use featureGate axes to vary single gates")
		}
		if a.spec.Flag == flagFeatureGates && b.gateAxes > 0 {
			b.errs.add(a.Name, field+".flag", "featureGate axes set --feature-gates too: vary single gates with featureGate axes only")
		}
		b.flagAxis[a.spec.Flag] = a.Name
		f, ok := b.flag(a.Name, field+".flag", a.spec.Flag, "")
		if !ok {
			return
		}
		for j, v := range a.Values {
			b.check(a.Name, fmt.Sprintf("%s.values[%d]", field, j), a.spec.Flag, f, v)
		}
	case AxisFeatureGate:
		key := "gate " + a.spec.FeatureGate
		if other, dup := b.flagAxis[key]; dup {
			b.errs.add(a.Name, field+".featureGate", "axis %q sets gate %s too", other, a.spec.FeatureGate)
			return
		}
		b.flagAxis[key] = a.Name
		b.gateAxes++
		if other, ok := b.flagAxis[flagFeatureGates]; ok {
			b.errs.add(a.Name, field+".featureGate", "axis %q sets all of --feature-gates", other)
		}
		if _, ok := b.flag(a.Name, field+".featureGate", flagFeatureGates, ""); !ok {
			return
		}
		for j, v := range a.Values {
			vf := fmt.Sprintf("%s.values[%d]", field, j)
			if v != "true" && v != "false" {
				b.errs.add(a.Name, vf, "a feature gate is true or false, got %q", v)
				continue
			}
		}
	case AxisNodeGroup:
		ng := a.spec.NodeGroup
		if ng.Name == "" {
			b.errs.add(a.Name, field+".nodeGroup.name", "required: the NodeGroup (drasim.io/v1alpha1) in the inputs")
		}
		switch ng.Field {
		case "", NodeGroupSize, NodeGroupMinSize, NodeGroupMaxSize:
		default:
			b.errs.add(a.Name, field+".nodeGroup.field", "want %s, %s or %s, got %q", NodeGroupSize, NodeGroupMinSize, NodeGroupMaxSize, ng.Field)
		}
		for j, v := range a.Values {
			b.axisValue(field, j, a, v)
		}
	case AxisReplicas:
		r := a.spec.Replicas
		switch r.Kind {
		case "", "Deployment", "ReplicaSet", "StatefulSet", "Job":
		default:
			b.errs.add(a.Name, field+".replicas.kind", "want Deployment, ReplicaSet, StatefulSet or Job, got %q", r.Kind)
		}
		if r.Selector != nil {
			if _, err := metav1.LabelSelectorAsSelector(r.Selector); err != nil {
				b.errs.add(a.Name, field+".replicas.selector", "%v", err)
			}
		}
		for j, v := range a.Values {
			b.axisValue(field, j, a, v)
		}
		b.plan.controllers = true
	}
}

// axisValue checks a value of an axis that edits the snapshot.
func (b *planBuilder) axisValue(field string, j int, a PlanAxis, v string) bool {
	vf := fmt.Sprintf("%s.values[%d]", field, j)
	if j < 0 {
		vf = field
	}
	switch a.Kind {
	case AxisNodeGroup:
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			b.errs.add(a.Name, vf, "want a whole number of nodes (0 or more), got %q", v)
			return false
		}
	case AxisReplicas:
		m, err := strconv.ParseFloat(v, 64)
		if err != nil || m < 0 {
			b.errs.add(a.Name, vf, "want a multiplier (a number, 0 or more), got %q", v)
			return false
		}
	case AxisFeatureGate:
		if v != "true" && v != "false" {
			b.errs.add(a.Name, vf, "a feature gate is true or false, got %q", v)
			return false
		}
	case AxisFlag:
		f, err := b.cmds.Flag(b.plan.Command, a.spec.Flag)
		if err == nil {
			b.check(a.Name, vf, a.spec.Flag, f, v)
		}
	}
	return true
}

// columnProblem says what is wrong with the name of an axis or metric (a
// column of the results), or "".
func columnProblem(name string) string {
	switch name {
	case "":
		return "required"
	case ColumnRun, ColumnSeed, ColumnSeconds, ColumnError:
		return fmt.Sprintf("%q is a column every result has", name)
	}
	if !columnName.MatchString(name) {
		return fmt.Sprintf("%q: want a letter, then letters, digits, '_', '-' or '.'", name)
	}
	return ""
}

func (b *planBuilder) metrics(metrics []Metric) {
	if len(metrics) == 0 {
		b.errs.add("", "spec.metrics", "name at least one metric: a path into the command's JSON output, such as summary.unschedulable")
	}
	seen := map[string]bool{}
	for i, m := range metrics {
		field := fmt.Sprintf("spec.metrics[%d]", i)
		switch {
		case columnProblem(m.Name) != "":
			b.errs.add("", field+".name", "%s", columnProblem(m.Name))
		case seen[m.Name]:
			b.errs.add("", field+".name", "another metric is named %q", m.Name)
		}
		seen[m.Name] = true
		path, err := ParsePath(m.Path)
		if err != nil {
			b.errs.add("", field+".path", "%v", err)
			continue
		}
		pm := PlanMetric{Name: m.Name, Path: path, Default: m.Default}
		if m.Per != "" {
			if pm.Per, err = ParsePath(m.Per); err != nil {
				b.errs.add("", field+".per", "%v", err)
				continue
			}
		}
		b.plan.Metrics = append(b.plan.Metrics, pm)
	}
}

// points returns every point of the sweep: the cross product of the axes'
// values, or the listed runs.
func (b *planBuilder) points(spec Spec) [][]string {
	axes := b.plan.Axes
	if len(spec.Runs) > 0 {
		var out [][]string
		for i, r := range spec.Runs {
			field := fmt.Sprintf("spec.runs[%d]", i)
			point := make([]string, len(axes))
			ok := true
			for j := range axes {
				a := &b.plan.Axes[j]
				v, given := r[a.Name]
				if !given {
					b.errs.add(a.Name, field, "no value for axis %q", a.Name)
					ok = false
					continue
				}
				if !b.axisValue(field+"."+a.Name, -1, *a, string(v)) {
					ok = false
				}
				point[j] = string(v)
				if !contains(a.Values, string(v)) {
					a.Values = append(a.Values, string(v))
				}
			}
			names := make([]string, 0, len(r))
			for name := range r {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				if !hasAxis(axes, name) {
					b.errs.add("", field+"."+name, "no axis is named %q", name)
					ok = false
				}
			}
			if ok {
				out = append(out, point)
			}
		}
		return out
	}
	for i, a := range axes {
		if len(a.Values) == 0 {
			b.errs.add(a.Name, fmt.Sprintf("spec.axes[%d].values", i), "required (or list the points under spec.runs)")
		}
	}
	out := [][]string{{}}
	for _, a := range axes {
		var next [][]string
		for _, prefix := range out {
			for _, v := range a.Values {
				next = append(next, append(append([]string(nil), prefix...), v))
			}
		}
		out = next
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func hasAxis(axes []PlanAxis, name string) bool {
	for _, a := range axes {
		if a.Name == name {
			return true
		}
	}
	return false
}

// run builds one run's command line.
func (b *planBuilder) run(index int, point []string, seed int64) Run {
	args, inputs, variant := b.commandLine(point, allAxes, seed)
	return Run{Index: index, Point: point, Seed: seed, Inputs: inputs, Args: args, Variant: variant}
}

// allAxes and noAxis are the only values of commandLine's axis that are
// not an axis' index.
const (
	allAxes = -1
	noAxis  = -2
)

// commandLine builds the command line of a point: spec.flags, then the
// values of every axis (allAxes), of one axis only (its index) or of none
// (noAxis), the seed, -o json and the inputs as -f. variant names the
// values of the axes that edit the snapshot.
func (b *planBuilder) commandLine(point []string, axis int, seed int64) (args, inputs []string, variant string) {
	flags := make(map[string]string, len(b.base)+len(point))
	for k, v := range b.base {
		flags[k] = v
	}
	gates := make(map[string]string, len(b.gates))
	for k, v := range b.gates {
		gates[k] = v
	}
	var edits []string
	for i, a := range b.plan.Axes {
		if axis != allAxes && axis != i {
			continue
		}
		v := point[i]
		switch a.Kind {
		case AxisFlag:
			f, _ := b.cmds.Flag(b.plan.Command, a.spec.Flag)
			if f.Role == FlagInputFile {
				v = b.resolve(v)
			}
			flags[a.spec.Flag] = v
		case AxisFeatureGate:
			gates[a.spec.FeatureGate] = v
		default:
			edits = append(edits, a.Name+"="+v)
		}
	}
	if len(gates) > 0 {
		names := make([]string, 0, len(gates))
		for k := range gates {
			names = append(names, k)
		}
		sort.Strings(names)
		parts := make([]string, len(names))
		for i, k := range names {
			parts[i] = k + "=" + gates[k]
		}
		flags[flagFeatureGates] = strings.Join(parts, ",")
	}
	if _, set := flags[flagParallelism]; b.hasPar && !set {
		// The sweep runs one run per core: each run filters on one.
		flags[flagParallelism] = "1"
	}
	names := make([]string, 0, len(flags))
	for k := range flags {
		names = append(names, k)
	}
	sort.Strings(names)
	args = []string{b.plan.Command}
	for _, k := range names {
		if flags[k] == "" {
			// An empty value (or null) leaves the flag out: the
			// command's default, e.g. no what-if edit.
			continue
		}
		args = append(args, "--"+k+"="+withSeed(flags[k], seed))
	}
	if b.hasSeed {
		args = append(args, "--seed="+strconv.FormatInt(seed, 10))
	}
	args = append(args, "--output=json")
	inputs = make([]string, len(b.plan.Inputs))
	for i, in := range b.plan.Inputs {
		inputs[i] = withSeed(in, seed)
		args = append(args, "--filename="+inputs[i])
	}
	return args, inputs, strings.Join(edits, ",")
}

// trials are the command lines the command judges before the sweep
// starts (Plan.tryRuns): spec.flags alone, then each value of each flag
// and feature gate axis with spec.flags and no other axis, so that a
// refusal names the one value that caused it. Axes that edit the snapshot
// change no flag; CheckInputs checks them. Values that only clash in
// combination show as failed runs.
func (b *planBuilder) trials(spec Spec) []trial {
	p := b.plan
	if len(p.Runs) == 0 {
		return nil
	}
	seed := p.Seeds[0]
	field := "spec.flags"
	if len(spec.Flags) == 0 {
		field = "spec"
	}
	args, inputs, _ := b.commandLine(nil, noAxis, seed)
	out := []trial{{field: field, what: "the flags", args: args, inputs: inputs}}
	for i, a := range p.Axes {
		if a.edits() {
			continue
		}
		for j, v := range a.Values {
			field := fmt.Sprintf("spec.axes[%d].values[%d]", i, j)
			if len(spec.Runs) > 0 {
				for k, r := range spec.Runs {
					if string(r[a.Name]) == v {
						field = fmt.Sprintf("spec.runs[%d].%s", k, a.Name)
						break
					}
				}
			}
			point := make([]string, len(p.Axes))
			point[i] = v
			args, inputs, _ := b.commandLine(point, i, seed)
			out = append(out, trial{axis: a.Name, field: field, what: "this value", args: args, inputs: inputs})
		}
	}
	return out
}

// trial is one command line tried before the sweep starts, and the field
// of the sweep file that a refusal names.
type trial struct {
	axis, field, what string
	args, inputs      []string
}

// fingerprint hashes what the runs compute, never where files are: the
// same sweep gives the same fingerprint on a laptop and in a Job's pod.
func (b *planBuilder) fingerprint(sw *Sweep, points [][]string) (string, error) {
	h := sha256.New()
	type axis struct {
		Name, Kind string
		Spec       Axis
	}
	canon := struct {
		Command string
		Flags   map[string]Value
		Axes    []axis
		Points  [][]string
		Seeds   []int64
		Metrics []Metric
	}{Command: sw.Spec.Command, Flags: sw.Spec.Flags, Points: points, Seeds: b.plan.Seeds, Metrics: sw.Spec.Metrics}
	for _, a := range b.plan.Axes {
		spec := a.spec
		spec.Values = nil
		canon.Axes = append(canon.Axes, axis{a.Name, a.Kind, spec})
	}
	if err := json.NewEncoder(h).Encode(canon); err != nil {
		return "", err
	}
	for _, f := range b.hashed {
		if err := hashFile(h, f); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

func hashFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fh := sha256.New()
	if _, err := io.Copy(fh, f); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	_, err = w.Write(fh.Sum(nil))
	return err
}

// Shard returns the indexes of the runs of shard index of count: every
// count-th run from index, so that each shard gets a share of every axis
// value (runs of one configuration take alike long).
func (p *Plan) Shard(index, count int) []int {
	var out []int
	for i := index; i < len(p.Runs); i += count {
		out = append(out, i)
	}
	return out
}

// tryRuns lets the command judge the values before the sweep starts: each
// trial is tried on in without its work (Commands.Check). A refusal names
// the value's field.
func (p *Plan) tryRuns(errs *errorList, cmds Commands, in *load.Result) {
	for _, t := range p.trials {
		if err := cmds.Check(t.args, t.inputs, in); err != nil {
			errs.add(t.axis, t.field, "drasim %s refuses %s: %v", p.Command, t.what, err)
		}
	}
}
