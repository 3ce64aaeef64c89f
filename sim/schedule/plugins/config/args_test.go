package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
)

func TestDefaults(t *testing.T) {
	one := int32(1)
	tests := []struct {
		name string
		got  any
		want any
	}{
		{
			name: "fit: no strategy means LeastAllocated on cpu and memory",
			got:  DefaultNodeResourcesFitArgs(NodeResourcesFitArgs{}),
			want: NodeResourcesFitArgs{ScoringStrategy: &ScoringStrategy{Type: LeastAllocated, Resources: []ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}}}},
		},
		{
			name: "fit: zero weights become 1, type kept",
			got:  DefaultNodeResourcesFitArgs(NodeResourcesFitArgs{ScoringStrategy: &ScoringStrategy{Type: MostAllocated, Resources: []ResourceSpec{{Name: "example.com/gpu"}}}}),
			want: NodeResourcesFitArgs{ScoringStrategy: &ScoringStrategy{Type: MostAllocated, Resources: []ResourceSpec{{Name: "example.com/gpu", Weight: 1}}}},
		},
		{
			name: "balanced allocation: cpu and memory",
			got:  DefaultNodeResourcesBalancedAllocationArgs(NodeResourcesBalancedAllocationArgs{}),
			want: NodeResourcesBalancedAllocationArgs{Resources: []ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}}},
		},
		{
			name: "topology spread: System defaulting",
			got:  DefaultPodTopologySpreadArgs(PodTopologySpreadArgs{}),
			want: PodTopologySpreadArgs{DefaultingType: SystemDefaulting},
		},
		{
			name: "inter-pod affinity: hard weight 1",
			got:  DefaultInterPodAffinityArgs(InterPodAffinityArgs{}),
			want: InterPodAffinityArgs{HardPodAffinityWeight: &one},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got); diff != "" {
				t.Errorf("defaults (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidatePodTopologySpreadArgs(t *testing.T) {
	c := v1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: v1.LabelTopologyZone, WhenUnsatisfiable: v1.ScheduleAnyway}
	tests := []struct {
		name    string
		args    PodTopologySpreadArgs
		wantErr bool
	}{
		{name: "list with a constraint", args: PodTopologySpreadArgs{DefaultingType: ListDefaulting, DefaultConstraints: []v1.TopologySpreadConstraint{c}}},
		{name: "system with constraints", args: PodTopologySpreadArgs{DefaultingType: SystemDefaulting, DefaultConstraints: []v1.TopologySpreadConstraint{c}}, wantErr: true},
		{name: "duplicate constraint", args: PodTopologySpreadArgs{DefaultingType: ListDefaulting, DefaultConstraints: []v1.TopologySpreadConstraint{c, c}}, wantErr: true},
		{name: "zero maxSkew", args: PodTopologySpreadArgs{DefaultingType: ListDefaulting, DefaultConstraints: []v1.TopologySpreadConstraint{{TopologyKey: "k", WhenUnsatisfiable: v1.DoNotSchedule}}}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidatePodTopologySpreadArgs(tc.args)
			if (err != nil) != tc.wantErr {
				t.Errorf("ValidatePodTopologySpreadArgs() = %v, want error: %v", err, tc.wantErr)
			}
		})
	}
}
