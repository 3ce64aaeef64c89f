package app

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/analysis"
	"github.com/google/go-cmp/cmp"
)

// TestCheckDomainLoss: losing zone a strands web-b and db-0, losing zone b
// strands batch-0 (sim/whatif's hand-computed cases); a spare node of big
// absorbs either loss. Every pod has priority 0: a gate above priority 0
// passes.
func TestCheckDomainLoss(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	gates := writeTemp(t, "gates.yaml", `apiVersion: drasim.io/v1alpha1
kind: Gates
gates:
- name: survive a zone
  domainLoss: {domain: topology.kubernetes.io/zone}
- name: survive a zone with a spare
  domainLoss: {domain: topology.kubernetes.io/zone, spares: {nodeGroup: big, count: 1}}
- name: nothing important stranded by a node loss
  domainLoss: {domain: node, abovePriority: 0}
`)
	r := drasim(t, "", "check", "-f", whatifCluster, "-f", "../../../sim/whatif/testdata/nodegroup.yaml", "--gates", gates)
	if r.code != ExitGateFailed {
		t.Fatalf("exit code: want %d, got %d (stderr %q)", ExitGateFailed, r.code, r.stder)
	}
	for _, want := range []string{
		"FAIL     loss of any topology.kubernetes.io/zone value, any pod",
		"FAILURE DOMAINS: TOPOLOGY.KUBERNETES.IO/ZONE\n",
		"a        2       4             2          0              0: 2          -",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout does not contain %q:\n%s", want, r.stdout)
		}
	}
	var verdicts analysis.GateReport
	r = drasim(t, "", "check", "-f", whatifCluster, "-f", "../../../sim/whatif/testdata/nodegroup.yaml", "--gates", gates, "-o", "json")
	if err := json.Unmarshal([]byte(r.stdout), &verdicts); err != nil {
		t.Fatalf("decoding the verdicts: %v", err)
	}
	var messages []string
	for _, v := range verdicts.Results {
		messages = append(messages, v.Message)
	}
	want := []string{
		"loss of any topology.kubernetes.io/zone value, any pod: 2 of 2 domain(s) strand any pod when lost; worst: a: 2 of 4 pod(s) stranded (max priority 0)",
		"loss of any topology.kubernetes.io/zone value (1 spare(s) of big), any pod: 0 of 2 domain(s) strand any pod when lost",
		"loss of any node, pods above priority 0: 0 of 3 domain(s) strand pods above priority 0 when lost",
	}
	if diff := cmp.Diff(want, messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if !strings.Contains(r.stder, `1 of 3 gate(s) failed: "survive a zone"`) {
		t.Errorf("stderr: want the failed gate named, got %q", r.stder)
	}
	bad := writeTemp(t, "bad.yaml", "apiVersion: drasim.io/v1alpha1\nkind: Gates\ngates:\n- name: g\n  domainLoss: {spares: {nodeGroup: big}}\n")
	r = drasim(t, "", "check", "-f", whatifCluster, "-f", "../../../sim/whatif/testdata/nodegroup.yaml", "--gates", bad)
	for _, want := range []string{`gate "g" (gates[0]): domainLoss.domain: required`, `gate "g" (gates[0]): domainLoss.spares.count: must be at least 1, got 0`} {
		if r.code != ExitFailure || !strings.Contains(r.stder, want) {
			t.Errorf("bad gate: want exit 1 and %q, got %d %q", want, r.code, r.stder)
		}
	}
}
