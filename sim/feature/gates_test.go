package feature

import (
	"strings"
	"testing"
)

func TestGates(t *testing.T) {
	g, err := Parse("DRAPrioritizedList=false, DRAConsumableCapacity=false")
	if err != nil {
		t.Fatal(err)
	}
	f := g.AllocatorFeatures()
	if f.PrioritizedList || f.ConsumableCapacity || !f.PartitionableDevices || !f.DeviceTaints {
		t.Errorf("features after disabling two gates: %+v", f)
	}
	if g.String() != "DRAConsumableCapacity=false,DRAPrioritizedList=false" {
		t.Errorf("gates string: %q", g.String())
	}
	for _, bad := range []string{"DRAFoo=true", "DRAAdminAccess=false", "DRAPrioritizedList", "DRAPrioritizedList=maybe"} {
		if _, err := Parse(bad); err == nil || !strings.Contains(err.Error(), strings.SplitN(bad, "=", 2)[0]) {
			t.Errorf("Parse(%q): want an error naming the gate, got %v", bad, err)
		}
	}
}
