package validate

import (
	"slices"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/snapshot"
	"github.com/google/go-cmp/cmp"
)

// triple is what the table tests compare: which check fired, on which
// object and field.
type triple struct{ Code, Object, Field string }

// docs joins YAML documents into one file.
func docs(ds ...string) string { return strings.Join(ds, "\n---\n") }

// loadSnapshot reads one YAML file the way the CLI does; loader errors fail
// the test because every case is meant to reach Validate.
func loadSnapshot(t *testing.T, yaml string) *snapshot.Snapshot {
	t.Helper()
	res, err := load.LoadBytes("test.yaml", []byte(yaml), load.Options{})
	if err != nil {
		t.Fatalf("loading the case: want no loader error, got:\n%v", err)
	}
	return res.Snapshot
}

// fixedSeverity is the severity of every code that always has the same one
// (see codes.go); the runner checks it on every diagnostic.
var fixedSeverity = map[Code]Severity{
	CodeSelectorMissingCEL: SeverityError, CodeCELCompile: SeverityError, CodeCELCost: SeverityError,
	CodeCELRuntime: SeverityWarning, CodeUnknownRequest: SeverityError, CodeUnknownPodClaim: SeverityError,
	CodeUnknownDeviceClass: SeverityWarning, CodeMissingResourceClaim: SeverityWarning,
	CodeMissingResourceClaimTemplate: SeverityWarning, CodeUnknownNode: SeverityWarning,
	CodeUnknownAllocatedDevice: SeverityError, CodeUnknownAllocatedPool: SeverityWarning,
	CodeUnknownReservedForPod: SeverityWarning, CodePoolIncomplete: SeverityWarning,
	CodePoolSliceCountMismatch: SeverityWarning, CodePoolStaleGeneration: SeverityWarning,
	CodePoolDuplicateDevice: SeverityError, CodePoolDuplicateCounterSet: SeverityError,
	CodeUnknownCounterSet: SeverityError, CodeUnknownCounter: SeverityError,
	CodeClassMatchesNoDevice: SeverityWarning, CodePodNeverSchedulable: SeverityWarning,
	CodeTaintRuleMatchesNothing: SeverityWarning, CodeClaimOverDeviceLimit: SeverityWarning, CodeRequired: SeverityError,
	CodeTooLong: SeverityError, CodeTooMany: SeverityError, CodeDuplicate: SeverityError,
	CodeForbidden: SeverityError, CodeNothingToSimulate: SeverityWarning, CodeMissingPodGroup: SeverityWarning, CodePodGroupMismatch: SeverityWarning,
	CodeUnknownProvisioningClass: SeverityError, CodeMissingPodTemplate: SeverityError,
}

type validateCase struct {
	name string
	yaml string
	opts Options
	// want lists the expected diagnostics in Validate's order. Every error
	// is compared; a warning only when want has a diagnostic with its code,
	// so that short snippets need not avoid incidental warnings (a class
	// without devices, a node that is not in the snippet).
	want []triple
}

func runCases(t *testing.T, cases []validateCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ds := Validate(loadSnapshot(t, tc.yaml), tc.opts)
			checkSeverities(t, ds)
			wantCodes := map[Code]bool{}
			for _, w := range tc.want {
				wantCodes[w.Code] = true
			}
			var got []triple
			for _, d := range ds {
				if d.Severity == SeverityError || wantCodes[d.Code] {
					got = append(got, triple{d.Code, d.Object, d.Field})
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s\nall diagnostics:\n%s", diff, render(ds))
			}
		})
	}
}

func checkSeverities(t *testing.T, ds []Diagnostic) {
	t.Helper()
	for _, d := range ds {
		if want, ok := fixedSeverity[d.Code]; ok && d.Severity != want {
			t.Errorf("%s: want severity %s for code %s, got %s", d, want, d.Code, d.Severity)
		}
		if !slices.Contains(Codes(), d.Code) {
			t.Errorf("%s: code %q is not listed by Codes()", d, d.Code)
		}
	}
}

func render(ds []Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString("  " + string(d.Severity) + " " + d.Code + " " + d.String() + "\n")
	}
	return b.String()
}

// Fragments of a small valid cluster that the cases build on.
const (
	nodeA = `apiVersion: v1
kind: Node
metadata: {name: node-a}`

	gpuClass = `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}`

	gpuSlice = `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-a-gpu}
spec:
  driver: gpu.example.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      model: {string: a100}
      driverVersion: {version: 1.2.3}
    capacity:
      memory: {value: 40Gi}
  - name: gpu-1
    attributes:
      model: {string: h100}`

	gpuTemplate = `apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu}`
)

// cluster is the valid base: a node, a class and a slice with two devices.
const cluster = nodeA + "\n---\n" + gpuClass + "\n---\n" + gpuSlice

func TestValidBaseHasNoDiagnostics(t *testing.T) {
	ds := Validate(loadSnapshot(t, docs(cluster, gpuTemplate)), Options{})
	if len(ds) != 0 {
		t.Errorf("want no diagnostics for the valid base cluster, got:\n%s", render(ds))
	}
}
