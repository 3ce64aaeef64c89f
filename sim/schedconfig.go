package sim

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/drasim/drasim/sim/policy"
	"github.com/drasim/drasim/sim/schedule/plugins/config"
	"github.com/drasim/drasim/sim/schedule/profile"
	v1 "k8s.io/api/core/v1"
	schedv1 "k8s.io/kube-scheduler/config/v1"
	"sigs.k8s.io/yaml"
)

// LoadSchedulerConfig reads a KubeSchedulerConfiguration
// (kubescheduler.config.k8s.io/v1) and returns the settings of its
// default-scheduler profile that drasim models: score weights, disabled
// plugins, plugin args and percentageOfNodesToScore, and drasim's own
// score plugin DrasimPolicy (sim/policy): enabled in plugins.score (or
// multiPoint) with its weight, its args in pluginConfig. A "*" in
// plugins.score.disabled switches off the scores of kube's plugins, as in
// kube-scheduler.
func LoadSchedulerConfig(path string) (profile.Config, error) {
	var out profile.Config
	cfg, err := readSchedulerConfig(path)
	if err != nil {
		return out, err
	}
	if cfg.PercentageOfNodesToScore != nil {
		out.PercentageOfNodesToScore = *cfg.PercentageOfNodesToScore
	}
	var prof *schedv1.KubeSchedulerProfile
	for i := range cfg.Profiles {
		p := &cfg.Profiles[i]
		if p.SchedulerName == nil || *p.SchedulerName == v1.DefaultSchedulerName {
			prof = p
			break
		}
	}
	if prof == nil {
		if len(cfg.Profiles) > 0 {
			return out, fmt.Errorf("scheduler config %s: no profile for %q; drasim replays the default scheduler", path, v1.DefaultSchedulerName)
		}
		return out, nil
	}
	if prof.PercentageOfNodesToScore != nil {
		out.PercentageOfNodesToScore = *prof.PercentageOfNodesToScore
	}
	out.Weights = map[string]int64{}
	out.Disabled = map[string]bool{}
	policyEnabled := false
	if pl := prof.Plugins; pl != nil {
		policyEnabled = applyPluginSets(&out, pl)
	}
	if w, ok := out.Weights[policy.PluginName]; ok && (w < 1 || w > 100) {
		return out, fmt.Errorf("scheduler config %s: plugins.score.enabled %s: weight %d: not in valid range [1, 100]", path, policy.PluginName, w)
	}
	for _, pc := range prof.PluginConfig {
		if err := applyPluginArgs(path, &out, pc, policyEnabled); err != nil {
			return out, err
		}
	}
	if policyEnabled && out.Policy == nil {
		return out, fmt.Errorf("scheduler config %s: plugins.score.enabled names %s but no pluginConfig gives its args (args.policy: one of random, dot-product, gpu-clustering, gpu-packing, best-fit, fgd)", path, policy.PluginName)
	}
	return out, nil
}

// readSchedulerConfig reads the file strictly and checks that it is a
// KubeSchedulerConfiguration of the version drasim reads.
func readSchedulerConfig(path string) (*schedv1.KubeSchedulerConfiguration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scheduler config: %w", err)
	}
	var cfg schedv1.KubeSchedulerConfiguration
	if err := yaml.UnmarshalStrict(data, &cfg); err != nil {
		return nil, fmt.Errorf("scheduler config %s: %w", path, err)
	}
	if cfg.Kind != "" && cfg.Kind != "KubeSchedulerConfiguration" {
		return nil, fmt.Errorf("scheduler config %s: kind is %q, want KubeSchedulerConfiguration", path, cfg.Kind)
	}
	if cfg.APIVersion != "" && cfg.APIVersion != schedv1.SchemeGroupVersion.String() {
		return nil, fmt.Errorf("scheduler config %s: apiVersion %q is not supported, use %s", path, cfg.APIVersion, schedv1.SchemeGroupVersion)
	}
	return &cfg, nil
}

// applyPluginSets takes the score weights and the disabled plugins from
// the profile's plugin sets, and reports whether the placement-policy
// plugin is enabled.
func applyPluginSets(out *profile.Config, pl *schedv1.Plugins) (policyEnabled bool) {
	for _, set := range []schedv1.PluginSet{pl.MultiPoint, pl.Score} {
		for _, p := range set.Enabled {
			if p.Weight != nil {
				out.Weights[p.Name] = int64(*p.Weight)
			}
			if p.Name == policy.PluginName {
				policyEnabled = true
			}
		}
	}
	for _, p := range pl.Score.Disabled {
		if p.Name == "*" {
			out.DisableDefaultScores = true
		}
	}
	for _, set := range []schedv1.PluginSet{pl.MultiPoint, pl.Filter, pl.Score, pl.PreFilter, pl.PreScore, pl.PostFilter} {
		for _, p := range set.Disabled {
			if p.Name == "*" && out.DisableDefaultScores {
				continue
			}
			out.Disabled[p.Name] = true
		}
	}
	return policyEnabled
}

// applyPluginArgs reads one pluginConfig entry's args into out; args of
// plugins drasim does not model are ignored.
func applyPluginArgs(path string, out *profile.Config, pc schedv1.PluginConfig, policyEnabled bool) error {
	raw := pc.Args.Raw
	if len(raw) == 0 {
		return nil
	}
	var err error
	switch pc.Name {
	case "NodeResourcesFit":
		var a schedv1.NodeResourcesFitArgs
		if err = json.Unmarshal(raw, &a); err == nil {
			out.NodeResourcesFit = convertFitArgs(a)
		}
	case "NodeResourcesBalancedAllocation":
		var a schedv1.NodeResourcesBalancedAllocationArgs
		if err = json.Unmarshal(raw, &a); err == nil {
			out.BalancedAllocation.Resources = convertResources(a.Resources)
		}
	case "PodTopologySpread":
		var a schedv1.PodTopologySpreadArgs
		if err = json.Unmarshal(raw, &a); err == nil {
			out.PodTopologySpread = config.PodTopologySpreadArgs{DefaultConstraints: a.DefaultConstraints, DefaultingType: config.PodTopologySpreadConstraintsDefaulting(a.DefaultingType)}
		}
	case "InterPodAffinity":
		var a schedv1.InterPodAffinityArgs
		if err = json.Unmarshal(raw, &a); err == nil {
			out.InterPodAffinity = config.InterPodAffinityArgs{HardPodAffinityWeight: a.HardPodAffinityWeight}
			if a.IgnorePreferredTermsOfExistingPods {
				out.InterPodAffinity.IgnorePreferredTermsOfExistingPods = true
			}
		}
	case policy.PluginName:
		var a policy.Args
		if err = yaml.UnmarshalStrict(raw, &a); err == nil {
			err = a.Validate()
		}
		if err == nil {
			if !policyEnabled {
				return fmt.Errorf("scheduler config %s: pluginConfig %s: the plugin is not enabled in plugins.score (or multiPoint)", path, pc.Name)
			}
			out.Policy = &a
		}
	case "NodeAffinity":
		var a schedv1.NodeAffinityArgs
		if err = json.Unmarshal(raw, &a); err == nil {
			out.NodeAffinity = config.NodeAffinityArgs{AddedAffinity: a.AddedAffinity}
		}
	default:
		return nil // args of plugins drasim does not model are ignored
	}
	if err != nil {
		return fmt.Errorf("scheduler config %s: pluginConfig %s: %w", path, pc.Name, err)
	}
	return nil
}

func convertResources(rs []schedv1.ResourceSpec) []config.ResourceSpec {
	out := make([]config.ResourceSpec, len(rs))
	for i, r := range rs {
		out[i] = config.ResourceSpec{Name: r.Name, Weight: r.Weight}
	}
	return out
}

func convertFitArgs(a schedv1.NodeResourcesFitArgs) config.NodeResourcesFitArgs {
	out := config.NodeResourcesFitArgs{IgnoredResources: a.IgnoredResources, IgnoredResourceGroups: a.IgnoredResourceGroups}
	if s := a.ScoringStrategy; s != nil {
		cs := &config.ScoringStrategy{Type: config.ScoringStrategyType(s.Type), Resources: convertResources(s.Resources)}
		if r := s.RequestedToCapacityRatio; r != nil {
			cs.RequestedToCapacityRatio = &config.RequestedToCapacityRatioParam{}
			for _, p := range r.Shape {
				cs.RequestedToCapacityRatio.Shape = append(cs.RequestedToCapacityRatio.Shape, config.UtilizationShapePoint{Utilization: p.Utilization, Score: p.Score})
			}
		}
		out.ScoringStrategy = cs
	}
	return out
}
