package plugins

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDefaultWeights(t *testing.T) {
	// pkg/scheduler/apis/config/v1/default_plugins.go, v1.37.2.
	want := map[string]int64{
		"TaintToleration":                 3,
		"NodeAffinity":                    2,
		"NodeResourcesFit":                1,
		"PodTopologySpread":               2,
		"InterPodAffinity":                2,
		"NodeResourcesBalancedAllocation": 1,
		"ImageLocality":                   1,
	}
	if diff := cmp.Diff(want, DefaultWeights()); diff != "" {
		t.Errorf("DefaultWeights() (-want +got):\n%s", diff)
	}
}

func TestDefaultOrder(t *testing.T) {
	want := []string{
		"NodeName", "NodeUnschedulable", "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit",
		"PodTopologySpread", "InterPodAffinity", "DynamicResources", "NodeResourcesBalancedAllocation", "ImageLocality",
	}
	if diff := cmp.Diff(want, DefaultOrder()); diff != "" {
		t.Errorf("DefaultOrder() (-want +got):\n%s", diff)
	}
}
