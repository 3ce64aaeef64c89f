package kubeversion

import (
	"fmt"
	"sort"
	"strings"

	"github.com/drasim/drasim/sim/feature"
)

// DefaultGates returns the release's defaults of the gates drasim models,
// in the form the gate-building code takes (name -> enabled).
func (r *Release) DefaultGates() map[string]bool {
	g := make(map[string]bool, len(r.Gates)+1)
	for name, spec := range r.Gates {
		g[name] = spec.Default
	}
	r.derive(g)
	return g
}

// derive sets the gates a release does not have but whose behaviour
// another gate governs there.
func (r *Release) derive(g map[string]bool) {
	if _, has := r.Gates["DRADeviceTaintRules"]; !has {
		// 1.34: DRADeviceTaints also applies DeviceTaintRules.
		g["DRADeviceTaintRules"] = g["DRADeviceTaints"]
	}
}

// ParseGates applies a kube-style --feature-gates value ("A=true,B=false")
// to the release's defaults. A gate the release does not have, a locked
// gate set against its default and a gate whose feature drasim does not
// model for the release are errors.
func (r *Release) ParseGates(spec string) (map[string]bool, error) {
	g := r.DefaultGates()
	settings, err := feature.Settings(spec)
	if err != nil {
		return nil, err
	}
	for _, s := range settings {
		name, enabled := s.Name, s.Enabled
		def, known := r.Gates[name]
		if !known {
			if later := r.laterGate(name); later != "" {
				return nil, fmt.Errorf("feature gate %s does not exist in Kubernetes v%s (it came in %s); known gates: %s", name, r.Name, later, strings.Join(r.gateNames(), ", "))
			}
			return nil, fmt.Errorf("feature gate %s is not one drasim models; known gates: %s", name, strings.Join(r.gateNames(), ", "))
		}
		if def.Locked && enabled != def.Default {
			return nil, fmt.Errorf("feature gate %s is locked to %v in Kubernetes v%s", name, def.Default, r.Name)
		}
		if why, unmodeled := r.Unmodeled[name]; unmodeled && enabled {
			return nil, fmt.Errorf("feature gate %s of Kubernetes v%s: %s", name, r.Name, why)
		}
		g[name] = enabled
	}
	r.derive(g)
	return g, nil
}

// laterGate names the first newer release that has the gate, or "".
func (r *Release) laterGate(name string) string {
	newer := false
	for _, x := range releases {
		if x == r {
			newer = true
			continue
		}
		if _, has := x.Gates[name]; newer && has {
			return "v" + x.Name
		}
	}
	return ""
}

func (r *Release) gateNames() []string {
	out := make([]string, 0, len(r.Gates))
	for n := range r.Gates {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// GatesString renders the gates that differ from the release's defaults,
// sorted by name: what results state as their feature gates.
func (r *Release) GatesString(g map[string]bool) string {
	var parts []string
	for _, n := range r.gateNames() {
		if g[n] != r.Gates[n].Default {
			parts = append(parts, fmt.Sprintf("%s=%v", n, g[n]))
		}
	}
	return strings.Join(parts, ",")
}
