package app

import (
	"strings"
	"testing"
)

// The new flags reach the engine: --provisioning-request-claims correct
// turns CA's CapacityIsNotFound into CapacityIsFound, a bad value is a
// usage error, and a timeline scales up for a buffer's chunks.
func TestAutoscaleProvisioningRequestFlags(t *testing.T) {
	dra := autoscaleScenarios + "provreq-check-dra.yaml"
	for _, tc := range []struct {
		args     []string
		code     int
		inStdout string
		inStderr string
	}{
		{args: []string{"-f", dra}, inStdout: "Provisioned=False (CapacityIsNotFound"},
		{args: []string{"-f", dra, "--provisioning-request-claims", "correct"}, inStdout: "Provisioned=True (CapacityIsFound"},
		{args: []string{"-f", dra, "--provisioning-request-claims", "maybe"}, code: 2, inStderr: "--provisioning-request-claims"},
	} {
		code, stdout, stderr := runAutoscaleCmd(t, "table", tc.args...)
		if code != tc.code || !strings.Contains(stdout, tc.inStdout) || !strings.Contains(stderr, tc.inStderr) {
			t.Errorf("autoscale %v: exit %d, want %d; want %q in stdout and %q in stderr:\n%s\n%s", tc.args, code, tc.code, tc.inStdout, tc.inStderr, stdout, stderr)
		}
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	r := drasim(t, "", "timeline", "-f", autoscaleScenarios+"buffer-cpu.yaml", "--expander", "least-waste")
	if r.code != 0 || !strings.Contains(r.stdout, "1 scale-up(s) adding 3 node(s)") {
		t.Errorf("timeline with a buffer of 3 chunks: exit %d, want 0 and one scale-up of 3 nodes:\n%s\n%s", r.code, r.stdout, r.stder)
	}
}
