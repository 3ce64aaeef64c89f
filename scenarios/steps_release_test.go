package scenarios_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/kubeversion"
)

// releaseAgreement is the share of an older release's recorded cycles on
// which drasim, run with that --kube-version, must agree with the
// release's own kube-scheduler: every plugin score, feasible set, devices
// and message, as for 1.37.
const releaseAgreement = 0.99

// knownDifferencesFile lists, in an older release's recordings folder,
// the cycles where drasim differs from that release, each with its cause
// ({"NAME cycle N (ns/pod)": "cause"}); docs/fidelity.md has them too.
const knownDifferencesFile = "differences.json"

// releaseDiffs collects what the step-wise check found different in one
// recording of an older release, by cycle, instead of failing the test.
type releaseDiffs struct {
	*testing.T
	s     *stepCheck
	diffs map[string][]string
}

func (d *releaseDiffs) Errorf(format string, args ...any) {
	d.diffs[d.s.where] = append(d.diffs[d.s.where], fmt.Sprintf(format, args...))
}

// checkRelease replays every recording of an older release (oracle/steps-vX.Y,
// made with that release's kube-scheduler, see README.md) with
// --kube-version X.Y. A cycle differs when any of TestSteps' comparisons
// fails on it. The test requires releaseAgreement of the cycles to agree,
// and every differing cycle to be listed with its cause in
// differences.json; a listed cycle that agrees now is an error as well,
// so that the list stays true.
func checkRelease(t *testing.T, dir string, rel *kubeversion.Release) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	known := map[string]string{}
	if data, err := os.ReadFile(filepath.Join(dir, knownDifferencesFile)); err == nil {
		if err := json.Unmarshal(data, &known); err != nil {
			t.Fatalf("%s: %v", knownDifferencesFile, err)
		}
	}
	sort.Strings(files)
	all := newStepTotals()
	found := map[string]string{}
	for _, file := range files {
		if filepath.Base(file) == knownDifferencesFile {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			rec := readRecording(t, file)
			d := &releaseDiffs{T: t, diffs: map[string][]string{}}
			s := newStepCheck(t, d, rec, rel)
			d.s = s
			s.walk()
			for where, msgs := range d.diffs {
				found[name+" "+where] = strings.Join(msgs, "; ")
			}
			t.Logf("%s: %s; %d cycle(s) differ", name, s.n, len(d.diffs))
			all.add(s.n)
		})
	}
	keys := make([]string, 0, len(found))
	for k := range found {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := known[k]; !ok {
			t.Errorf("%s: not in %s/%s: %s", k, dir, knownDifferencesFile, found[k])
		}
	}
	for k := range known {
		if _, ok := found[k]; !ok {
			t.Errorf("%s is listed in %s/%s but agrees now: remove it", k, dir, knownDifferencesFile)
		}
	}
	cycles := all.cycles
	agree := 1.0
	if cycles > 0 {
		agree = 1 - float64(len(found))/float64(cycles)
	}
	t.Logf("v%s (%s): %s; %d of %d cycles agree (%.1f%%)", rel.Name, rel.Patch, all, cycles-len(found), cycles, 100*agree)
	if agree < releaseAgreement {
		t.Errorf("v%s: %d of %d cycles agree (%.1f%%), want at least %.0f%%", rel.Name, cycles-len(found), cycles, 100*agree, 100*releaseAgreement)
	}
}
