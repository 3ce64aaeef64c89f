package analysis

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/drasim/drasim/sim/load"
)

// Devices that no DeviceClass selects can never be requested: they are
// counted apart and do not dilute or inflate the fragmentation rate. (A
// real EKS dump had 77.8% while its only class was at 33.3%.)
func TestDevicesNoClassSelectsStayOutOfTheRate(t *testing.T) {
	nics := filepath.Join(t.TempDir(), "nics.yaml")
	if err := os.WriteFile(nics, []byte(`apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-a-nic}
spec:
  driver: nic.example.com
  nodeName: node-a
  pool: {name: node-a, generation: 1, resourceSliceCount: 1}
  devices: [{name: nic-0}, {name: nic-1}, {name: nic-2}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := load.Load([]string{filepath.Join("testdata", "frag-basic.yaml"), nics}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep := analyze(t, replaySnapshot(t, res.Snapshot), Options{Probes: loadProbes(t, "frag-basic")})
	f := rep.Fragmentation
	// The numbers of frag-basic alone (TestAnalyzeHandComputed), and the
	// three NICs apart.
	if f.Rate != 0.6667 || f.IdleDevices != 6 || f.FragmentedDevices != 4 || f.UnselectedIdleDevices != 3 {
		t.Errorf("want rate 0.6667 over 6 idle devices (4 fragmented) and 3 idle devices no class selects, got rate %v over %d (%v fragmented), %d unselected",
			f.Rate, f.IdleDevices, f.FragmentedDevices, f.UnselectedIdleDevices)
	}
	for _, s := range f.Shapes {
		if s.Shape == "two" && s.Rate != 1 {
			t.Errorf("shape two fits nowhere: want its rate 1 over the selectable idle devices, got %v", s.Rate)
		}
	}
}
