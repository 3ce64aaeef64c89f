package feature

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"k8s.io/dynamic-resource-allocation/structured"
)

// Gates are the Kubernetes feature gates that change DRA scheduling, and
// those of the scheduler's queue, preemption and gang scheduling, with
// their v1.37 defaults. drasim accepts kube's gate names.
type Gates map[string]bool

// Defaults returns the v1.37 defaults of the gates drasim models.
func Defaults() Gates {
	return Gates{
		"SchedulerPopFromBackoffQ":     true,
		"SchedulerAsyncPreemption":     true,
		"GenericWorkload":              false,
		"DRAWorkloadResourceClaims":    false,
		"DynamicResourceAllocation":    true,
		"DRAAdminAccess":               true,
		"DRAConsumableCapacity":        true,
		"DRADerivedAttributes":         false,
		"DRADeviceBindingConditions":   true,
		"DRAResourceClaimDeviceStatus": true,
		"DRADeviceCompatibilityGroups": false,
		"DRADeviceTaintRules":          true,
		"DRADeviceTaints":              true,
		"DRAExtendedResource":          true,
		"DRAFractionalCapacityRange":   true,
		"DRAListTypeAttributes":        false,
		"DRAOptionalNodeOperations":    false,
		"DRAPartitionableDevices":      true,
		"DRAPrioritizedList":           true,
	}
}

// lockedGates cannot be changed in v1.37 (GA and locked to their default).
var lockedGates = map[string]bool{"DRAAdminAccess": true, "DRAExtendedResource": true, "DRAResourceClaimDeviceStatus": true}

// Parse applies a kube-style --feature-gates value ("A=true,B=false") to
// the defaults.
func Parse(spec string) (Gates, error) {
	g := Defaults()
	settings, err := Settings(spec)
	if err != nil {
		return nil, err
	}
	for _, s := range settings {
		name, enabled := s.Name, s.Enabled
		def, known := g[name]
		if !known {
			return nil, fmt.Errorf("feature gate %s is not one drasim models; known gates: %s", name, strings.Join(g.names(), ", "))
		}
		if lockedGates[name] && enabled != def {
			return nil, fmt.Errorf("feature gate %s is locked to %v in Kubernetes v1.37", name, def)
		}
		g[name] = enabled
	}
	return g, nil
}

func (g Gates) names() []string {
	out := make([]string, 0, len(g))
	for n := range g {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// String renders the gates that differ from the defaults, sorted.
func (g Gates) String() string {
	def := Defaults()
	var parts []string
	for _, n := range g.names() {
		if g[n] != def[n] {
			parts = append(parts, fmt.Sprintf("%s=%v", n, g[n]))
		}
	}
	return strings.Join(parts, ",")
}

// AllocatorFeatures maps the gates to the allocator's feature set the way
// kube-scheduler's DynamicResources plugin does.
func (g Gates) AllocatorFeatures() structured.Features {
	return structured.Features{
		AdminAccess:             g["DRAAdminAccess"],
		PrioritizedList:         g["DRAPrioritizedList"],
		PartitionableDevices:    g["DRAPartitionableDevices"],
		DeviceTaints:            g["DRADeviceTaints"],
		DeviceBindingAndStatus:  g["DRADeviceBindingConditions"] && g["DRAResourceClaimDeviceStatus"],
		ConsumableCapacity:      g["DRAConsumableCapacity"],
		FractionalCapacityRange: g["DRAFractionalCapacityRange"],
		ListTypeAttributes:      g["DRAListTypeAttributes"],
		OptionalNodeOperations:  g["DRAOptionalNodeOperations"],
		DerivedAttributes:       g["DRADerivedAttributes"],
		CompatibilityGroups:     g["DRADeviceCompatibilityGroups"],
	}
}

// Setting is one gate of a --feature-gates value.
type Setting struct {
	Name    string
	Enabled bool
}

// Settings reads a kube-style --feature-gates value ("A=true,B=false")
// without judging the names: each release's table does that.
func Settings(spec string) ([]Setting, error) {
	var out []Setting
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, val, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("feature gate %q: want Name=true|false", part)
		}
		name = strings.TrimSpace(name)
		enabled, err := strconv.ParseBool(strings.TrimSpace(val))
		if err != nil {
			return nil, fmt.Errorf("feature gate %s: %q is not true or false", name, val)
		}
		out = append(out, Setting{Name: name, Enabled: enabled})
	}
	return out, nil
}
