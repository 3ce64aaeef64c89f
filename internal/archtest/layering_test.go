package archtest

import (
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// The floors of drasim, lowest first. A package may import packages on its
// own floor or below, never above: the folder tree reads as the pipeline of
// docs/architecture.md. The order is the one the imports have: the cluster
// state holds the framework's NodeInfo and the DRA plugin's state, so the
// framework, the plugins and dra stand below it.
const (
	floorGround   = iota // leaves: the snapshot's types, the result schema, the framework's shape, small helpers
	floorLoad            // reading input: files, a live cluster, synthetic snapshots
	floorDevices         // the DRA plugin, the device inventory, the other plugins, the queue, admission
	floorCluster         // the replay state
	floorProfile         // plugins wired to a cluster: the research policy, the default profile
	floorSchedule        // the scheduling cycle and the engine's entry points
	floorDerived         // what runs the cycle again: autoscale, analysis, timeline, what-if, fill, sweep
	floorReport          // renderers
	floorCmd             // the command line (and the benchmarks, which drive it)
)

var floorNames = []string{"ground", "load", "devices and plugins", "cluster state", "profile", "schedule", "autoscale/analysis/timeline", "report", "cmd"}

// floors places every package of the module (paths relative to the
// module). A path ending in "/..." covers the packages below it. Packages
// that other branches are creating are declared already at the floor
// their job puts them on, so that the table holds when they arrive; an
// entry whose package does not exist is allowed for that reason.
var floors = map[string]int{
	// ground
	"sim/snapshot":                floorGround,
	"sim/result":                  floorGround,
	"sim/framework":               floorGround, // the framework and its runtime (issue 28, item 1)
	"sim/feature":                 floorGround, // feature gates (issue 28, item 4)
	"sim/kubeversion":             floorGround, // --kube-version (issue 29)
	"sim/schedule/plugins/config": floorGround,
	"scenarios":                   floorGround,
	"internal/kubenames":          floorGround,
	"internal/suggest":            floorGround,
	"internal/strictyaml":         floorGround,
	"internal/outfile":            floorGround,
	"internal/testenv":            floorGround,
	"internal/kubeapitest":        floorGround,
	"internal/oraclelog/...":      floorGround,
	"internal/oraclelog":          floorGround,
	"internal/caoracle":           floorGround,
	"internal/archtest":           floorGround,
	"internal/golden":             floorGround,

	// load
	"sim/kube":       floorLoad, // API defaults and controller emulation, out of sim/load (issue 28, item 4)
	"sim/load":       floorLoad,
	"sim/capture":    floorLoad,
	"sim/generate":   floorLoad,
	"internal/build": floorLoad,

	// devices and plugins
	"sim/dra":                  floorDevices,
	"sim/inventory":            floorDevices,
	"sim/validate":             floorDevices,
	"sim/schedule/plugins":     floorDevices,
	"sim/schedule/plugins/...": floorDevices,
	"sim/schedule/queue":       floorDevices,

	// cluster state
	"sim/cluster":    floorCluster,
	"sim/nodegroup":  floorCluster, // node-group templates, out of sim/autoscale (issue 28, item 4)
	"internal/seams": floorCluster, // test-only seams, out of schedule, sim and timeline (issue 28, item 3)

	// profile: below schedule, so that the cycle takes a built profile
	// and names no plugin (issue 28, item 1)
	"sim/policy":           floorProfile,
	"sim/schedule/profile": floorProfile,

	// schedule
	"sim/schedule":      floorSchedule,
	"sim":               floorSchedule,
	"internal/stepwise": floorSchedule, // the step-wise driver, out of sim (issue 28, item 3)

	// autoscale, analysis, timeline
	"sim/autoscale":       floorDerived,
	"sim/analysis":        floorDerived,
	"sim/timeline":        floorDerived,
	"sim/whatif":          floorDerived,
	"sim/fill":            floorDerived,
	"sim/sweep":           floorDerived,
	"sim/inspect":         floorDerived,
	"internal/invariants": floorDerived,

	// report
	"report": floorReport,

	// cmd
	"cmd/drasim":     floorCmd,
	"cmd/drasim/app": floorCmd,
	"bench":          floorCmd,
}

// floorOf returns the floor of a package path relative to the module: its
// own entry, else the nearest "/..." entry above it.
func floorOf(rel string) (int, bool) {
	if f, ok := floors[rel]; ok {
		return f, true
	}
	for dir := rel; ; {
		i := strings.LastIndex(dir, "/")
		if i < 0 {
			return 0, false
		}
		dir = dir[:i]
		if f, ok := floors[dir+"/..."]; ok {
			return f, true
		}
	}
}

// modulePackages lists the module's packages with their imports inside the
// module (non-test imports: tests may reach up a floor to build inputs),
// both relative to the module path.
func modulePackages(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	mod := strings.TrimSpace(string(out))
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, mod+"/...")
	out, err = cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list %s/...: %v\n%s", mod, err, ee.Stderr)
		}
		t.Fatalf("go list %s/...: %v", mod, err)
	}
	rel := func(p string) (string, bool) {
		if p == mod {
			return "", true
		}
		r, ok := strings.CutPrefix(p, mod+"/")
		return r, ok
	}
	pkgs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		p, ok := rel(fields[0])
		if !ok {
			continue
		}
		if p == "" {
			p = "."
		}
		var imps []string
		for _, imp := range fields[1:] {
			if r, ok := rel(imp); ok && r != "" {
				imps = append(imps, r)
			}
		}
		pkgs[p] = imps
	}
	if len(pkgs) == 0 {
		t.Fatalf("go list %s/... listed no packages", mod)
	}
	return pkgs
}

// layeringProblems returns, sorted, every package without a floor and every
// import from a lower floor to a higher one.
func layeringProblems(pkgs map[string][]string) []string {
	names := make([]string, 0, len(pkgs))
	for p := range pkgs {
		names = append(names, p)
	}
	sort.Strings(names)
	var problems []string
	for _, p := range names {
		pf, ok := floorOf(p)
		if !ok {
			problems = append(problems, fmt.Sprintf("package %s has no floor: add it to the floors table in internal/archtest/layering_test.go (and to docs/architecture.md's package table)", p))
			continue
		}
		for _, imp := range pkgs[p] {
			inf, ok := floorOf(imp)
			if ok && inf > pf {
				problems = append(problems, fmt.Sprintf("%s (floor %q) imports %s (floor %q, higher): a package may import only its own floor or lower", p, floorNames[pf], imp, floorNames[inf]))
			}
		}
	}
	return problems
}

// TestLayering fails when a package imports one on a higher floor, or when
// a package has no floor.
func TestLayering(t *testing.T) {
	for _, p := range layeringProblems(modulePackages(t)) {
		t.Error(p)
	}
}

// TestLayeringProblems: the check sees an import that goes up, a package
// with no floor, and packages below a "/..." entry.
func TestLayeringProblems(t *testing.T) {
	got := layeringProblems(map[string][]string{
		"sim/load":                        {"sim/snapshot"},
		"sim/cluster":                     {"sim/schedule/plugins/nodename/x"},
		"sim/dra":                         {"sim/cluster"},
		"sim/brandnew":                    nil,
		"sim/schedule/plugins/nodename/x": {"sim/schedule/framework"},
	})
	want := []string{
		`sim/dra (floor "devices and plugins") imports sim/cluster (floor "cluster state", higher): a package may import only its own floor or lower`,
		"package sim/brandnew has no floor: add it to the floors table in internal/archtest/layering_test.go (and to docs/architecture.md's package table)",
	}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("layeringProblems:\n got %q\nwant %q", got, want)
	}
}

// TestScheduleImportsNoPlugin: the scheduling cycle and the replay run
// plugins through the framework and name none of them (issue 28, item 1).
// The profile is wired below them (sim/schedule/profile) and handed to
// the scheduler built, GangScheduling as a factory the replay calls with
// its view of the pod groups; the replay keeps the claims' books on the
// cluster's DRA state.
func TestScheduleImportsNoPlugin(t *testing.T) {
	pkgs := modulePackages(t)
	isPlugin := func(imp string) bool {
		return imp == "sim/dra" || imp == "sim/policy" || imp == "sim/schedule/profile" ||
			imp == "sim/schedule/plugins" || strings.HasPrefix(imp, "sim/schedule/plugins/") && imp != "sim/schedule/plugins/config"
	}
	for _, p := range []string{"sim/schedule", "sim/schedule/queue", "sim/framework"} {
		if _, ok := pkgs[p]; !ok {
			t.Fatalf("package %s not found", p)
		}
		for _, imp := range pkgs[p] {
			if isPlugin(imp) {
				t.Errorf("%s imports %s: the cycle must reach plugins only through the framework, and take its profile built", p, imp)
			}
		}
	}
}

func TestFloorNames(t *testing.T) {
	if got, want := len(floorNames), floorCmd+1; got != want {
		t.Fatalf("floorNames has %d names, want one per floor (%d)", got, want)
	}
}
