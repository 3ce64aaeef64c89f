package analysis

import (
	"context"
	"fmt"
	"strings"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/whatif"
)

// DomainLossGate asks that losing any one failure domain strands no pod
// (above AbovePriority, when set), optionally with spare nodes added.
type DomainLossGate struct {
	// Domain is "node" (each node on its own) or a node label whose values
	// are the domains, e.g. topology.kubernetes.io/zone.
	Domain string `json:"domain"`
	// AbovePriority: only stranded pods with a higher priority fail the
	// gate (every stranded pod when unset).
	AbovePriority *int32 `json:"abovePriority,omitempty"`
	// Spares are nodes of a NodeGroup added before each loss.
	Spares *Spares `json:"spares,omitempty"`
}

// Spares are Count new nodes of NodeGroup.
type Spares struct {
	NodeGroup string `json:"nodeGroup"`
	Count     int    `json:"count"`
}

type fieldProblem struct{ field, msg string }

func (g *DomainLossGate) problems() []fieldProblem {
	var out []fieldProblem
	if g.Domain == "" {
		out = append(out, fieldProblem{"domain", `required: "node", or a node label such as topology.kubernetes.io/zone`})
	}
	if s := g.Spares; s != nil {
		if s.NodeGroup == "" {
			out = append(out, fieldProblem{"spares.nodeGroup", "required"})
		}
		if s.Count <= 0 {
			out = append(out, fieldProblem{"spares.count", fmt.Sprintf("must be at least 1, got %d", s.Count)})
		}
	}
	return out
}

// Options returns the failure-domain analysis the gate needs.
func (g *DomainLossGate) Options(simOpts sim.Options) whatif.DomainOptions {
	o := whatif.DomainOptions{Domain: g.Domain, Sim: simOpts}
	if g.Spares != nil {
		o.SpareGroup, o.Spares = g.Spares.NodeGroup, g.Spares.Count
	}
	return o
}

// DomainOptions lists the failure-domain analyses the gates need, each
// once.
func (g *Gates) DomainOptions(simOpts sim.Options) []whatif.DomainOptions {
	var out []whatif.DomainOptions
	seen := map[string]bool{}
	for _, gate := range g.Gates {
		if gate.DomainLoss == nil {
			continue
		}
		o := gate.DomainLoss.Options(simOpts)
		if !seen[o.Key()] {
			seen[o.Key()] = true
			out = append(out, o)
		}
	}
	return out
}

// resilienceOf runs each failure-domain analysis once.
func resilienceOf(ctx context.Context, run *sim.Run, domains []whatif.DomainOptions, progress func(stage string, done, total int)) ([]*whatif.Resilience, error) {
	var out []*whatif.Resilience
	seen := map[string]bool{}
	for _, d := range domains {
		if seen[d.Key()] {
			continue
		}
		seen[d.Key()] = true
		if progress != nil && d.Progress == nil {
			d.Progress = func(done, total int) { progress(StageDomains, done, total) }
		}
		r, err := whatif.Domains(ctx, run, d)
		if err != nil {
			return nil, fmt.Errorf("failure domains %s: %w", d.Key(), err)
		}
		out = append(out, r)
	}
	return out, nil
}

// ResilienceKey names a Resilience as DomainOptions.Key names its options.
func ResilienceKey(r *whatif.Resilience) string {
	return whatif.DomainOptions{Domain: r.Domain, SpareGroup: r.SpareGroup, Spares: r.Spares}.Key()
}

func evaluateDomainLoss(g *DomainLossGate, rep *Report) (GateResult, error) {
	key := g.Options(sim.Options{}).Key()
	var res *whatif.Resilience
	for _, r := range rep.Resilience {
		if ResilienceKey(r) == key {
			res = r
		}
	}
	if res == nil {
		return GateResult{}, fmt.Errorf("%s: the failure domains %s were not analyzed", GateDomainLoss, key)
	}
	above := int32(-1 << 31)
	target := "any pod"
	if g.AbovePriority != nil {
		above = *g.AbovePriority
		target = fmt.Sprintf("pods above priority %d", above)
	}
	failing := 0
	var worst *whatif.DomainLoss
	for i := range res.Losses {
		l := &res.Losses[i]
		if l.Stranded > 0 && l.MaxPriority > above {
			failing++
			if worst == nil {
				worst = l
			}
		}
	}
	what := "node"
	if res.Domain != whatif.DomainNode {
		what = res.Domain + " value"
	}
	if res.Spares > 0 {
		what += fmt.Sprintf(" (%d spare(s) of %s)", res.Spares, res.SpareGroup)
	}
	r := atMost(GateDomainLoss, fmt.Sprintf("loss of any %s, %s", what, target), float64(failing), 0, "domains stranding pods")
	r.Message = fmt.Sprintf("%s: %d of %d domain(s) strand %s when lost", r.Target, failing, res.Domains, target)
	if worst != nil {
		r.Message += "; worst: " + describeLoss(worst)
	}
	return r, nil
}

// describeLoss sums up one domain's loss: "zone-a: 7 of 20 pods stranded
// (max priority 1000), missing 4 h100".
func describeLoss(l *whatif.DomainLoss) string {
	s := fmt.Sprintf("%s: %d of %d pod(s) stranded (max priority %d)", l.Domain, l.Stranded, l.Pods, l.MaxPriority)
	if len(l.MissingDevices) > 0 {
		var parts []string
		for _, d := range l.MissingDevices {
			parts = append(parts, fmt.Sprintf("%d %s", d.Devices, d.Class))
		}
		s += ", devices asked for: " + strings.Join(parts, ", ")
	}
	return s
}
