package plugins

import (
	"github.com/drasim/drasim/sim/schedule/plugins/imagelocality"
	"github.com/drasim/drasim/sim/schedule/plugins/interpodaffinity"
	"github.com/drasim/drasim/sim/schedule/plugins/nodeaffinity"
	"github.com/drasim/drasim/sim/schedule/plugins/nodename"
	"github.com/drasim/drasim/sim/schedule/plugins/nodeports"
	"github.com/drasim/drasim/sim/schedule/plugins/noderesources"
	"github.com/drasim/drasim/sim/schedule/plugins/nodeunschedulable"
	"github.com/drasim/drasim/sim/schedule/plugins/podtopologyspread"
	"github.com/drasim/drasim/sim/schedule/plugins/tainttoleration"
)

// DynamicResources is the name of the DRA plugin (owned by the DRA side),
// listed here for its place in the profile and its weight.
const DynamicResources = "DynamicResources"

// DefaultPreemption is the name of kube's preemption plugin, which the
// scheduler implements itself (schedule.PreemptionPlugin); the profile
// names it to switch it off.
const DefaultPreemption = "DefaultPreemption"

// DefaultOrder returns the plugin names in the order of kube-scheduler
// v1.37's default profile (pkg/scheduler/apis/config/v1/default_plugins.go,
// multiPoint), restricted to the plugins drasim models. Every extension
// point runs its plugins in this order, so Filter stops at the first
// rejection in this order. The volume plugins (VolumeRestrictions,
// NodeVolumeLimits, VolumeBinding, VolumeZone) would sit between
// NodeResourcesFit and PodTopologySpread; DynamicResources sits after
// InterPodAffinity (it is inserted before DefaultPreemption).
func DefaultOrder() []string {
	return []string{
		nodename.Name,
		nodeunschedulable.Name,
		tainttoleration.Name,
		nodeaffinity.Name,
		nodeports.Name,
		noderesources.Name,
		podtopologyspread.Name,
		interpodaffinity.Name,
		DynamicResources,
		noderesources.BalancedAllocationName,
		imagelocality.Name,
	}
}

// DefaultWeights returns the score weights of kube-scheduler v1.37's
// default profile for the plugins of this package tree, keyed by plugin
// name. DynamicResources (weight 2 upstream) belongs to the DRA side and is
// not included.
func DefaultWeights() map[string]int64 {
	return map[string]int64{
		tainttoleration.Name:                 3,
		nodeaffinity.Name:                    2,
		noderesources.Name:                   1,
		podtopologyspread.Name:               2,
		interpodaffinity.Name:                2,
		noderesources.BalancedAllocationName: 1,
		imagelocality.Name:                   1,
	}
}
