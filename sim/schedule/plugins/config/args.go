package config

import (
	"errors"
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// MaxCustomPriorityScore is the highest score a UtilizationShapePoint may
// carry; shape scores are scaled by MaxNodeScore/MaxCustomPriorityScore.
const MaxCustomPriorityScore int64 = 10

// ScoringStrategyType names a NodeResourcesFit scoring strategy.
type ScoringStrategyType string

// The NodeResourcesFit scoring strategies.
const (
	LeastAllocated           ScoringStrategyType = "LeastAllocated"
	MostAllocated            ScoringStrategyType = "MostAllocated"
	RequestedToCapacityRatio ScoringStrategyType = "RequestedToCapacityRatio"
)

// ResourceSpec is a resource name and its weight in a score.
type ResourceSpec struct {
	Name   string
	Weight int64
}

// UtilizationShapePoint is one point of the RequestedToCapacityRatio curve:
// Utilization in [0, 100] percent, Score in [0, MaxCustomPriorityScore].
type UtilizationShapePoint struct {
	Utilization int32
	Score       int32
}

// RequestedToCapacityRatioParam is the curve of RequestedToCapacityRatio.
type RequestedToCapacityRatioParam struct {
	Shape []UtilizationShapePoint
}

// ScoringStrategy selects how NodeResourcesFit scores nodes.
type ScoringStrategy struct {
	Type      ScoringStrategyType
	Resources []ResourceSpec
	// RequestedToCapacityRatio is required for, and only allowed with, the
	// RequestedToCapacityRatio type.
	RequestedToCapacityRatio *RequestedToCapacityRatioParam
}

// NodeResourcesFitArgs configures NodeResourcesFit.
type NodeResourcesFitArgs struct {
	// IgnoredResources are extended resources the filter does not check.
	IgnoredResources []string
	// IgnoredResourceGroups are extended resource prefixes ("example.com"
	// for "example.com/gpu") the filter does not check.
	IgnoredResourceGroups []string
	// ScoringStrategy defaults to LeastAllocated over cpu and memory, each
	// with weight 1.
	ScoringStrategy *ScoringStrategy
}

// NodeResourcesBalancedAllocationArgs configures
// NodeResourcesBalancedAllocation. Resources defaults to cpu and memory;
// every weight must be 1.
type NodeResourcesBalancedAllocationArgs struct {
	Resources []ResourceSpec
	// WithPodOnly scores the balance with the pod alone, as kube-scheduler
	// did before 1.36 (kubernetes#135573 made it half the range plus half
	// the change the pod brings). Not a KubeSchedulerConfiguration field:
	// --kube-version sets it (sim/kubeversion).
	WithPodOnly bool
}

// PodTopologySpreadConstraintsDefaulting says where default constraints come
// from.
type PodTopologySpreadConstraintsDefaulting string

const (
	// SystemDefaulting uses kube's built-in soft constraints (hostname skew
	// 3, zone skew 5); DefaultConstraints must be empty.
	SystemDefaulting PodTopologySpreadConstraintsDefaulting = "System"
	// ListDefaulting uses DefaultConstraints as given (possibly none).
	ListDefaulting PodTopologySpreadConstraintsDefaulting = "List"
)

// PodTopologySpreadArgs configures PodTopologySpread. Default constraints
// apply to pods that set no constraints of their own; they carry no label
// selector: the selector is derived from the pod's Services and owning
// ReplicationController/ReplicaSet/StatefulSet.
type PodTopologySpreadArgs struct {
	DefaultConstraints []v1.TopologySpreadConstraint
	// DefaultingType defaults to SystemDefaulting.
	DefaultingType PodTopologySpreadConstraintsDefaulting
}

// InterPodAffinityArgs configures InterPodAffinity.
type InterPodAffinityArgs struct {
	// HardPodAffinityWeight is the score weight given to an existing pod's
	// required affinity terms that the incoming pod matches; nil means 1,
	// the range is [0, 100].
	HardPodAffinityWeight *int32
	// IgnorePreferredTermsOfExistingPods makes scoring skip the preferred
	// terms of pods already placed.
	IgnorePreferredTermsOfExistingPods bool
}

// NodeAffinityArgs configures NodeAffinity.
type NodeAffinityArgs struct {
	// AddedAffinity is applied to every pod on top of its own affinity.
	AddedAffinity *v1.NodeAffinity
}

// DefaultResourceSpec is cpu and memory, each with weight 1.
func DefaultResourceSpec() []ResourceSpec {
	return []ResourceSpec{{Name: string(v1.ResourceCPU), Weight: 1}, {Name: string(v1.ResourceMemory), Weight: 1}}
}

// DefaultNodeResourcesFitArgs fills unset fields as kube-scheduler's
// SetDefaults_NodeResourcesFitArgs does. It does not modify args.
func DefaultNodeResourcesFitArgs(args NodeResourcesFitArgs) NodeResourcesFitArgs {
	if args.ScoringStrategy == nil {
		args.ScoringStrategy = &ScoringStrategy{Type: LeastAllocated, Resources: DefaultResourceSpec()}
		return args
	}
	s := *args.ScoringStrategy
	if len(s.Resources) == 0 {
		s.Resources = DefaultResourceSpec()
	} else {
		s.Resources = append([]ResourceSpec(nil), s.Resources...)
		for i := range s.Resources {
			if s.Resources[i].Weight == 0 {
				s.Resources[i].Weight = 1
			}
		}
	}
	args.ScoringStrategy = &s
	return args
}

// DefaultNodeResourcesBalancedAllocationArgs fills unset fields as
// kube-scheduler does.
func DefaultNodeResourcesBalancedAllocationArgs(args NodeResourcesBalancedAllocationArgs) NodeResourcesBalancedAllocationArgs {
	if len(args.Resources) == 0 {
		args.Resources = DefaultResourceSpec()
		return args
	}
	args.Resources = append([]ResourceSpec(nil), args.Resources...)
	for i := range args.Resources {
		if args.Resources[i].Weight == 0 {
			args.Resources[i].Weight = 1
		}
	}
	return args
}

// DefaultPodTopologySpreadArgs fills unset fields as kube-scheduler does.
func DefaultPodTopologySpreadArgs(args PodTopologySpreadArgs) PodTopologySpreadArgs {
	if args.DefaultingType == "" {
		args.DefaultingType = SystemDefaulting
	}
	return args
}

// DefaultInterPodAffinityArgs fills unset fields as kube-scheduler does.
func DefaultInterPodAffinityArgs(args InterPodAffinityArgs) InterPodAffinityArgs {
	if args.HardPodAffinityWeight == nil {
		w := int32(1)
		args.HardPodAffinityWeight = &w
	}
	return args
}

// ValidateNodeResourcesFitArgs checks defaulted args as kube-scheduler does.
func ValidateNodeResourcesFitArgs(args NodeResourcesFitArgs) error {
	var errs []error
	for i, r := range args.IgnoredResources {
		if msgs := validation.IsQualifiedName(r); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("ignoredResources[%d]: %q: %s", i, r, strings.Join(msgs, "; ")))
		}
	}
	for i, g := range args.IgnoredResourceGroups {
		if strings.Contains(g, "/") {
			errs = append(errs, fmt.Errorf("ignoredResourceGroups[%d]: %q: resource group name can't contain '/'", i, g))
		}
		if msgs := validation.IsQualifiedName(g); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("ignoredResourceGroups[%d]: %q: %s", i, g, strings.Join(msgs, "; ")))
		}
	}
	s := args.ScoringStrategy
	if s == nil {
		return errors.Join(append(errs, errors.New("scoringStrategy: required"))...)
	}
	switch s.Type {
	case LeastAllocated, MostAllocated, RequestedToCapacityRatio:
	default:
		errs = append(errs, fmt.Errorf("scoringStrategy.type: unsupported value %q", s.Type))
	}
	for i, r := range s.Resources {
		if r.Weight <= 0 || r.Weight > 100 {
			errs = append(errs, fmt.Errorf("scoringStrategy.resources[%d].weight: %d: resource weight of %s not in valid range (0, 100]", i, r.Weight, r.Name))
		}
	}
	if s.Type == RequestedToCapacityRatio {
		if s.RequestedToCapacityRatio == nil {
			errs = append(errs, errors.New("scoringStrategy.requestedToCapacityRatio: must be specified when type is RequestedToCapacityRatio"))
		} else {
			errs = append(errs, validateFunctionShape(s.RequestedToCapacityRatio.Shape)...)
		}
	} else if s.RequestedToCapacityRatio != nil {
		errs = append(errs, errors.New("scoringStrategy.requestedToCapacityRatio: must be nil when type is not RequestedToCapacityRatio"))
	}
	return errors.Join(errs...)
}

func validateFunctionShape(shape []UtilizationShapePoint) []error {
	const path = "scoringStrategy.requestedToCapacityRatio.shape"
	if len(shape) == 0 {
		return []error{fmt.Errorf("%s: at least one point must be specified", path)}
	}
	var errs []error
	for i := 1; i < len(shape); i++ {
		if shape[i-1].Utilization >= shape[i].Utilization {
			errs = append(errs, fmt.Errorf("%s[%d].utilization: %d: values must be sorted in increasing order", path, i, shape[i].Utilization))
			break
		}
	}
	for i, p := range shape {
		if p.Utilization < 0 || p.Utilization > 100 {
			errs = append(errs, fmt.Errorf("%s[%d].utilization: %d: not in valid range [0, 100]", path, i, p.Utilization))
		}
		if p.Score < 0 || int64(p.Score) > MaxCustomPriorityScore {
			errs = append(errs, fmt.Errorf("%s[%d].score: %d: not in valid range [0, %d]", path, i, p.Score, MaxCustomPriorityScore))
		}
	}
	return errs
}

// ValidateNodeResourcesBalancedAllocationArgs checks defaulted args.
func ValidateNodeResourcesBalancedAllocationArgs(args NodeResourcesBalancedAllocationArgs) error {
	var errs []error
	seen := map[string]bool{}
	for i, r := range args.Resources {
		if seen[r.Name] {
			errs = append(errs, fmt.Errorf("resources[%d].name: duplicate value %q", i, r.Name))
		}
		seen[r.Name] = true
		if r.Weight != 1 {
			errs = append(errs, fmt.Errorf("resources[%d].weight: %d: must be 1", i, r.Weight))
		}
	}
	return errors.Join(errs...)
}

// ValidatePodTopologySpreadArgs checks defaulted args.
func ValidatePodTopologySpreadArgs(args PodTopologySpreadArgs) error {
	var errs []error
	switch args.DefaultingType {
	case SystemDefaulting:
		if len(args.DefaultConstraints) > 0 {
			errs = append(errs, fmt.Errorf("defaultingType: %q: invalid when .defaultConstraints are not empty", args.DefaultingType))
		}
	case ListDefaulting:
	default:
		errs = append(errs, fmt.Errorf("defaultingType: unsupported value %q", args.DefaultingType))
	}
	for i, c := range args.DefaultConstraints {
		p := fmt.Sprintf("defaultConstraints[%d]", i)
		if c.MaxSkew <= 0 {
			errs = append(errs, fmt.Errorf("%s.maxSkew: %d: not in valid range (0, inf)", p, c.MaxSkew))
		}
		if c.TopologyKey == "" {
			errs = append(errs, fmt.Errorf("%s.topologyKey: can not be empty", p))
		} else if msgs := validation.IsQualifiedName(c.TopologyKey); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("%s.topologyKey: %q: %s", p, c.TopologyKey, strings.Join(msgs, "; ")))
		}
		switch c.WhenUnsatisfiable {
		case v1.DoNotSchedule, v1.ScheduleAnyway:
		case "":
			errs = append(errs, fmt.Errorf("%s.whenUnsatisfiable: can not be empty", p))
		default:
			errs = append(errs, fmt.Errorf("%s.whenUnsatisfiable: unsupported value %q", p, c.WhenUnsatisfiable))
		}
		if c.LabelSelector != nil {
			errs = append(errs, fmt.Errorf("%s.labelSelector: constraint must not define a selector, as they deduced for each pod", p))
		}
		for j := range args.DefaultConstraints[:i] {
			o := &args.DefaultConstraints[j]
			if c.TopologyKey == o.TopologyKey && c.WhenUnsatisfiable == o.WhenUnsatisfiable {
				errs = append(errs, fmt.Errorf("%s: duplicate {%v, %v}", p, c.TopologyKey, c.WhenUnsatisfiable))
				break
			}
		}
	}
	return errors.Join(errs...)
}

// ValidateInterPodAffinityArgs checks defaulted args.
func ValidateInterPodAffinityArgs(args InterPodAffinityArgs) error {
	if w := args.HardPodAffinityWeight; w != nil && (*w < 0 || *w > 100) {
		return fmt.Errorf("hardPodAffinityWeight: %d: not in valid range [0, 100]", *w)
	}
	return nil
}
