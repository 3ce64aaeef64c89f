package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/drasim/drasim/internal/testenv"
)

// realworldDir is ../shared/realworld (or $DRASIM_REALWORLD); the test
// skips without it, or fails in CI.
func realworldDir(t *testing.T) string {
	t.Helper()
	return testenv.Realworld(t)
}

type indexEntry struct {
	File        string   `json:"file"`
	APIVersions []string `json:"apiVersions"`
	Note        string   `json:"note"`
}

// expectedLoadFailures are the real-world files the loader must reject, with
// a phrase its message must contain. They are broken or outdated upstream.
var expectedLoadFailures = map[string]string{
	// resource.k8s.io/v1alpha2 and v1alpha3: the classic DRA API, removed.
	"dra-driver-nvidia-gpu/demo/specs/mig+mps/sharing-demo-claims-1.yaml":       "v1alpha2 is not supported",
	"dra-driver-nvidia-gpu/demo/specs/mig+mps/sharing-demo-claims.yaml":         "v1alpha2 is not supported",
	"dra-driver-nvidia-gpu/demo/specs/quickstart/v1beta1/gpu-test-vfiopci.yaml": "v1alpha3 is not supported",
	"dra-driver-nvidia-gpu/demo/specs/selectors/claims.yaml":                    "v1alpha2 is not supported",
	// INDEX.yaml: "apiVersion v1 with v1beta1 `basic:` device wrapper".
	"dranet/md/site_content_docs_quick-start.block1.yaml": "spec.devices[0].basic",
	// Upstream typo: `apiversion:` for the Pod (kubectl rejects it too).
	"intel-resource-drivers-for-kubernetes/deployments/gpu/examples/pod-inline-aligned-gpus.yaml": `found "apiversion"`,
	// Documentation sketch of an unreleased field: capacity given as a string.
	"website/docs-how-dra-works/node-allocatable-resources.resourceslices.yaml": "spec.devices.capacity",
}

// TestRealWorldManifests loads every manifest and dump in
// ../shared/realworld: all load except the known-broken ones, which fail
// with a message naming the problem.
func TestRealWorldManifests(t *testing.T) {
	dir := realworldDir(t)
	data, err := os.ReadFile(filepath.Join(dir, "INDEX.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var index []indexEntry
	if err := yaml.Unmarshal(data, &index); err != nil {
		t.Fatalf("INDEX.yaml: %v", err)
	}
	if len(index) < 200 {
		t.Fatalf("INDEX.yaml lists %d files; want the full set (236)", len(index))
	}
	loaded := 0
	for _, e := range index {
		t.Run(e.File, func(t *testing.T) {
			res, err := Load([]string{filepath.Join(dir, e.File)}, Options{})
			want, mustFail := expectedLoadFailures[e.File]
			switch {
			case mustFail && err == nil:
				t.Errorf("loaded; want an error mentioning %q", want)
			case mustFail && !strings.Contains(err.Error(), want):
				t.Errorf("error %q does not mention %q", err, want)
			case !mustFail && err != nil:
				t.Errorf("a real-world file must load: %v", err)
			case err == nil:
				loaded++
				if res.Snapshot == nil {
					t.Errorf("no snapshot")
				}
			}
		})
	}
	t.Logf("%d of %d real-world files loaded; %d rejected as expected", loaded, len(index), len(expectedLoadFailures))
}
