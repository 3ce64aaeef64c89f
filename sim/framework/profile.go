package framework

// Profile is one scheduler profile, as kube's frameworkruntime holds it:
// the plugin chain per extension point, which the runtime runs
// (Framework), and the settings kube keeps per profile. The scheduler
// takes a built profile; which plugins it holds, in which order and with
// which weights is decided where the profile is wired
// (sim/schedule/profile for kube's default profile), so the scheduling
// cycle names no plugin.
type Profile struct {
	Framework
	// all lists every plugin of the profile once, in order.
	all []Plugin
	// Requests are the pods' requests, added up once per pod for the
	// plugins and the binding (nil: each adds them up on its own).
	Requests *PodRequestCache
	// PercentageOfNodesToScore: 0 means kube's adaptive default.
	PercentageOfNodesToScore int32
	// Preemption is set when DefaultPreemption is enabled (PostFilter),
	// which the scheduler implements itself.
	Preemption bool
	// Gang builds GangScheduling when it is enabled (GenericWorkload);
	// nil when it is not. The replay builds it on its view of the pod
	// groups and runs it in its pod group cycle and its queue.
	Gang GangFactory
}

// Add puts a plugin at every extension point it implements, after the
// plugins added before it, as kube expands a multi-point plugin. A score
// plugin scores with weight when scored is set; otherwise it keeps its
// other extension points (PreScore among them) and does not score.
func (p *Profile) Add(pl Plugin, weight int64, scored bool) {
	p.all = append(p.all, pl)
	if x, ok := pl.(PreFilterPlugin); ok {
		p.PreFilter = append(p.PreFilter, x)
	}
	if x, ok := pl.(FilterPlugin); ok {
		p.Filter = append(p.Filter, x)
	}
	if x, ok := pl.(PostFilterPlugin); ok {
		p.PostFilter = append(p.PostFilter, x)
	}
	if x, ok := pl.(PodGroupPostFilterPlugin); ok {
		p.PodGroupPostFilter = append(p.PodGroupPostFilter, x)
	}
	if x, ok := pl.(PreScorePlugin); ok {
		p.PreScore = append(p.PreScore, x)
	}
	if x, ok := pl.(ScorePlugin); ok && scored {
		p.Score = append(p.Score, WeightedScore{Plugin: x, Weight: weight})
	}
	if x, ok := pl.(ReservePlugin); ok {
		p.Reserve = append(p.Reserve, x)
	}
}

// Plugins returns every plugin of the profile once, in the order they
// were added, including those of a profile whose extension points were
// filled by hand (a test's).
func (p *Profile) Plugins() []Plugin {
	if p.all != nil {
		return p.all
	}
	seen := map[Plugin]bool{}
	add := func(pl Plugin) {
		if !seen[pl] {
			seen[pl] = true
			p.all = append(p.all, pl)
		}
	}
	for _, pl := range p.PreFilter {
		add(pl)
	}
	for _, pl := range p.Filter {
		add(pl)
	}
	for _, pl := range p.PostFilter {
		add(pl)
	}
	for _, pl := range p.PreScore {
		add(pl)
	}
	for _, ws := range p.Score {
		add(ws.Plugin)
	}
	for _, pl := range p.Reserve {
		add(pl)
	}
	return p.all
}
