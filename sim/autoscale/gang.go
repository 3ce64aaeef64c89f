package autoscale

import (
	"github.com/drasim/drasim/sim/cluster"
	"github.com/drasim/drasim/sim/nodegroup"
	v1 "k8s.io/api/core/v1"
)

// binpackGangAware is the estimate of a gang-aware scale-up (a research
// option, Options.GangAwareScaleUp; cluster-autoscaler has none: its
// snapshot answers no PodGroup, so it packs a gang's pods one by one and
// can add nodes for part of a gang that then never runs). A gang counts
// in the estimate only when the estimate places enough of its pods for
// minCount, with the members already bound: otherwise its pods are left
// out and the group is packed again without them, so that no node is
// added for a gang that cannot start. The check runs the real allocator,
// so a gang short of devices on the new nodes is left out too.
func (s *scaler) binpackGangAware(k *checker, g *nodegroup.Group, fit []*podGroup, limit int) (*estimate, error) {
	if !s.opts.GangAwareScaleUp || !s.cur.GangsEnabled() {
		return binpack(s.ctx, k, g, fit, limit)
	}
	for {
		// An estimate without a short gang is kept (committed into the
		// caller's fork); otherwise it is reverted and made again
		// without the short gangs.
		var est *estimate
		var short map[string]bool
		err := cluster.WithForkedCluster(s.cur, func() (bool, error) {
			var err error
			if est, err = binpack(s.ctx, k, g, fit, limit); err != nil {
				return false, err
			}
			short = s.shortGangs(est.pods)
			return len(short) == 0, nil
		})
		if err != nil {
			return nil, err
		}
		if len(short) == 0 {
			return est, nil
		}
		var kept []*podGroup
		for _, pg := range fit {
			var pods []*v1.Pod
			for _, p := range pg.pods {
				if !short[gangOf(s.cur, p)] {
					pods = append(pods, p)
				}
			}
			if len(pods) > 0 {
				kept = append(kept, &podGroup{owner: pg.owner, pods: pods})
			}
		}
		if len(kept) == 0 {
			return &estimate{}, nil
		}
		fit = kept
	}
}

// gangOf names the pod's gang ("" when it has none).
func gangOf(c *cluster.Cluster, p *v1.Pod) string {
	pg, name := c.PodGroupOf(p)
	if pg == nil {
		return ""
	}
	return p.Namespace + "/" + name
}

// shortGangs are the gangs of the estimated pods (bound on the fork)
// that still have fewer pods with a node than their minCount.
func (s *scaler) shortGangs(pods []*v1.Pod) map[string]bool {
	short := map[string]bool{}
	seen := map[string]bool{}
	for _, p := range pods {
		pg, name := s.cur.PodGroupOf(p)
		if pg == nil {
			continue
		}
		key := p.Namespace + "/" + name
		if seen[key] {
			continue
		}
		seen[key] = true
		if s.cur.ScheduledMembers(p.Namespace, name) < cluster.MinCount(pg) {
			short[key] = true
		}
	}
	return short
}
