package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKubeVersionFlag: --kube-version picks the release a replay models
// (the result states its patch release), also from the config file; an
// unknown release is a usage error; input the release would not serve is
// refused naming file, object and field.
func TestKubeVersionFlag(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	demo := "../../../scenarios/01-prioritized-list.yaml"
	code, out, errOut := runDrasim(t, "simulate", "-f", demo, "--kube-version", "1.35", "-o", "json")
	if code != 0 || !strings.Contains(out, `"kubernetesVersion": "v1.35.4"`) {
		t.Errorf("--kube-version 1.35: exit %d, want the result to state v1.35.4; stderr: %s", code, errOut)
	}
	code, out, _ = runDrasim(t, "simulate", "-f", demo, "-o", "json")
	if code != 0 || !strings.Contains(out, `"kubernetesVersion": "v1.37.2"`) {
		t.Errorf("default: exit %d, want the result to state v1.37.2", code)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte("kube-version: \"1.34\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runDrasim(t, "--config", cfg, "simulate", "-f", demo, "-o", "json")
	if code != 0 || !strings.Contains(out, `"kubernetesVersion": "v1.34.4"`) {
		t.Errorf("config key kube-version: exit %d, want v1.34.4; stderr: %s", code, errOut)
	}
	code, _, errOut = runDrasim(t, "simulate", "-f", demo, "--kube-version", "1.33")
	if code != ExitUsage || !strings.Contains(errOut, `unknown Kubernetes version "1.33": drasim models 1.34, 1.35, 1.36, 1.37`) {
		t.Errorf("--kube-version 1.33: exit %d, stderr %q; want a usage error naming the releases", code, errOut)
	}
	code, _, errOut = runDrasim(t, "simulate", "-f", "../../../scenarios/08-device-taint-rule.yaml", "--kube-version", "1.36")
	if code != ExitFailure || !strings.Contains(errOut, `08-device-taint-rule.yaml:174 (document 9): DeviceTaintRule "node-2-maintenance": apiVersion: Kubernetes v1.36 does not serve resource.k8s.io/v1`) {
		t.Errorf("v1 DeviceTaintRule on 1.36: exit %d, stderr %q", code, errOut)
	}
	// 1.34's API server drops distinctAttribute (DRAConsumableCapacity is
	// off) and then refuses the template; so does drasim.
	code, _, errOut = runDrasim(t, "simulate", "-f", "../../../scenarios/02-constraints.yaml", "--kube-version", "1.34")
	if code != ExitFailure || !strings.Contains(errOut, `02-constraints.yaml:310 (document 14): ResourceClaimTemplate "default/distinct-2": spec.spec.devices.constraints[0].matchAttribute: Required value: Kubernetes v1.34 drops distinctAttribute`) {
		t.Errorf("distinctAttribute on 1.34: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runDrasim(t, "simulate", "-f", demo, "--kube-version", "1.34", "--feature-gates", "DRADerivedAttributes=true")
	if code != ExitUsage || !strings.Contains(errOut, "feature gate DRADerivedAttributes does not exist in Kubernetes v1.34 (it came in v1.37)") {
		t.Errorf("a 1.37 gate on 1.34: exit %d, stderr %q", code, errOut)
	}
}
