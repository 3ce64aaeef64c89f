package kubeversion

import (
	"fmt"
	"strings"
)

// Release is one Kubernetes minor release as drasim models it.
type Release struct {
	// Name is the minor release, "1.37".
	Name string
	// Patch is the patch release the table was read from and the step-wise
	// recordings were made with (the newest one the Go module proxy serves).
	Patch string
	// Gates are the defaults of the gates drasim models that this release
	// has. A gate drasim models that the release lacks is off and cannot be
	// set.
	Gates map[string]Gate
	// DRAScore says that the DynamicResources plugin scores nodes (weight 2
	// in the default profile). Since 1.35: KEP-4816 (prioritized list)
	// added Score, which prefers the node whose allocation used the
	// earlier subrequests; kube-scheduler 1.34 has no DRA score at all.
	DRAScore bool
	// BalancedWithPodOnly: NodeResourcesBalancedAllocation scores the
	// balance with the pod alone. Before 1.36: kubernetes#135573 made the
	// score half the range plus half the change in balance the pod brings.
	BalancedWithPodOnly bool
	// PreemptionMessage: a preemption that found a node adds "preemption:
	// found a potential placement for pod on node N, preempting K victims"
	// to the pod's message. Since 1.37 (kubernetes#140180); before, its
	// PostFilter succeeded without a message.
	PreemptionMessage bool
	// DRAPostFilterReasons: DynamicResources' PostFilter that frees no
	// claim says why ("no new claims to deallocate" for a pod without
	// claims, "still not schedulable"), which joins the pod's message
	// before preemption's. Before 1.37; 1.37's returns no reason.
	DRAPostFilterReasons bool
	// RandomTies: selectHost draws uniformly among the nodes with the top
	// score (reservoir sampling with math/rand), so a tie has no rule a
	// replay could follow. 1.34; since 1.35 the host is the root of a
	// score heap over the feasible nodes, which drasim follows.
	RandomTies bool
	// NowVictimOrder: DefaultPreemption's SelectVictimsOnNode sorts the
	// potential victims with sort.Slice and MoreImportantPod, whose
	// GetPodStartTime gives a pod without a start time (no kubelet set
	// one) time.Now() at every comparison: of two such pods of equal
	// priority the first argument is always the more important, and the
	// order that comes out is what the sort's comparisons make of that
	// (reversed, for the up to 12 victims insertion sort handles). Before
	// 1.37; 1.37 sorts Victims (pkg/scheduler/framework/preemption), each
	// of which took its start time once when made, in node order, so that
	// equal pods keep the node's order.
	NowVictimOrder bool
	// OlderAllocatorErrors: the allocator words two errors as before
	// k8s.io/dynamic-resource-allocation v0.37: the claim limit as the
	// claim's total ("number of requested devices N exceeds the claim
	// limit of 32"), a CEL runtime error without the device and without
	// the "no such key" hint of v0.37's cel.EnhanceRuntimeError. 1.34-1.36.
	OlderAllocatorErrors bool
	// Served lists, for the kinds whose API versions changed between 1.34
	// and 1.37, the versions this release serves ("group/Kind" ->
	// versions). A kind missing here is one the release does not serve at
	// all; a kind in no release's map is served alike by all.
	Served map[string][]string
	// Unmodeled names what the release has and drasim does not model for
	// it, with the reason, keyed like Served ("group/version/Kind") or by a
	// gate's name.
	Unmodeled map[string]string
}

// Gate is the default of one feature gate in a release.
type Gate struct {
	Default bool
	// Locked gates cannot be set to anything but their default (GA and
	// locked upstream).
	Locked bool
}

// Kinds whose served versions differ between the releases.
const (
	DeviceTaintRule = "resource.k8s.io/DeviceTaintRule"
	Workload        = "scheduling.k8s.io/Workload"
	PodGroup        = "scheduling.k8s.io/PodGroup"
)

const (
	on, off = true, false
)

func gate(def bool) Gate   { return Gate{Default: def} }
func locked(def bool) Gate { return Gate{Default: def, Locked: true} }

// dra134 are the DRA gates all four releases have, with their 1.34
// defaults; each newer release overrides what changed.
func baseGates() map[string]Gate {
	return map[string]Gate{
		"SchedulerPopFromBackoffQ":     gate(on),
		"SchedulerAsyncPreemption":     gate(on),
		"DynamicResourceAllocation":    gate(on),
		"DRAAdminAccess":               gate(on),
		"DRAConsumableCapacity":        gate(off),
		"DRADeviceBindingConditions":   gate(off),
		"DRAResourceClaimDeviceStatus": gate(on),
		"DRADeviceTaints":              gate(off),
		"DRAExtendedResource":          gate(off),
		"DRAPartitionableDevices":      gate(off),
		"DRAPrioritizedList":           gate(on),
	}
}

func with(g map[string]Gate, changes map[string]Gate) map[string]Gate {
	for k, v := range changes {
		g[k] = v
	}
	return g
}

// gangUnmodeled is why drasim refuses the gang API of 1.35 and 1.36.
const gangUnmodeled = "drasim models gang scheduling with the scheduling.k8s.io/v1beta1 API of Kubernetes 1.37 only"

// releases, oldest first. The gate defaults are those of
// pkg/features/kube_features.go at each Patch (the newest entry whose
// version is at most the release).
var releases = []*Release{
	{
		Name: "1.34", Patch: "v1.34.4",
		// DeviceTaintRules have no gate of their own in 1.34: DRADeviceTaints
		// governs them (dra_manager.go ListWithDeviceTaintRules).
		Gates:                baseGates(),
		DRAPostFilterReasons: true,
		RandomTies:           true,
		NowVictimOrder:       true,
		OlderAllocatorErrors: true,
		DRAScore:             false,
		BalancedWithPodOnly:  true,
		Served: map[string][]string{
			DeviceTaintRule: {"v1alpha3"},
		},
		Unmodeled: map[string]string{
			"resource.k8s.io/v1alpha3/DeviceTaintRule": "drasim reads DeviceTaintRules as resource.k8s.io/v1 (or v1beta2), which Kubernetes 1.34 does not serve",
		},
	},
	{
		Name: "1.35", Patch: "v1.35.4",
		Gates: with(baseGates(), map[string]Gate{
			"DRADeviceTaintRules": gate(off),
			"GenericWorkload":     gate(off),
		}),
		DRAPostFilterReasons: true,
		NowVictimOrder:       true,
		OlderAllocatorErrors: true,
		DRAScore:             true,
		BalancedWithPodOnly:  true,
		Served: map[string][]string{
			DeviceTaintRule: {"v1alpha3"},
			Workload:        {"v1alpha1"},
		},
		Unmodeled: map[string]string{
			"resource.k8s.io/v1alpha3/DeviceTaintRule": "drasim reads DeviceTaintRules as resource.k8s.io/v1 (or v1beta2), which Kubernetes 1.35 does not serve",
			"scheduling.k8s.io/v1alpha1/Workload":      gangUnmodeled + " (1.35 has Workloads in v1alpha1 and pods name them in spec.workloadRef)",
			"GenericWorkload":                          gangUnmodeled,
		},
	},
	{
		Name: "1.36", Patch: "v1.36.3",
		Gates: with(baseGates(), map[string]Gate{
			"DRAAdminAccess":             locked(on),
			"DRAConsumableCapacity":      gate(on),
			"DRADeviceBindingConditions": gate(on),
			"DRADeviceTaintRules":        gate(off),
			"DRADeviceTaints":            gate(on),
			"DRAExtendedResource":        gate(on),
			"DRAListTypeAttributes":      gate(off),
			"DRAPartitionableDevices":    gate(on),
			"DRAWorkloadResourceClaims":  gate(off),
			"GenericWorkload":            gate(off),
		}),
		DRAPostFilterReasons: true,
		NowVictimOrder:       true,
		OlderAllocatorErrors: true,
		DRAScore:             true,
		Served: map[string][]string{
			DeviceTaintRule: {"v1beta2", "v1alpha3"},
			Workload:        {"v1alpha2"},
			PodGroup:        {"v1alpha2"},
		},
		Unmodeled: map[string]string{
			"resource.k8s.io/v1alpha3/DeviceTaintRule": "drasim reads DeviceTaintRules as resource.k8s.io/v1 or v1beta2",
			"scheduling.k8s.io/v1alpha2/Workload":      gangUnmodeled,
			"scheduling.k8s.io/v1alpha2/PodGroup":      gangUnmodeled,
			"GenericWorkload":                          gangUnmodeled,
			"DRAWorkloadResourceClaims":                gangUnmodeled,
		},
	},
	{
		Name: "1.37", Patch: "v1.37.2",
		Gates: with(baseGates(), map[string]Gate{
			"DRAAdminAccess":               locked(on),
			"DRAConsumableCapacity":        gate(on),
			"DRADerivedAttributes":         gate(off),
			"DRADeviceBindingConditions":   gate(on),
			"DRAResourceClaimDeviceStatus": locked(on),
			"DRADeviceCompatibilityGroups": gate(off),
			"DRADeviceTaintRules":          gate(on),
			"DRADeviceTaints":              gate(on),
			"DRAExtendedResource":          locked(on),
			"DRAFractionalCapacityRange":   gate(on),
			"DRAListTypeAttributes":        gate(off),
			"DRAOptionalNodeOperations":    gate(off),
			"DRAPartitionableDevices":      gate(on),
			"DRAWorkloadResourceClaims":    gate(off),
			"GenericWorkload":              gate(off),
		}),
		DRAScore:          true,
		PreemptionMessage: true,
		Served: map[string][]string{
			DeviceTaintRule: {"v1", "v1beta2", "v1alpha3"},
			Workload:        {"v1beta1", "v1alpha3"},
			PodGroup:        {"v1beta1", "v1alpha3"},
		},
		Unmodeled: map[string]string{
			"resource.k8s.io/v1alpha3/DeviceTaintRule": "drasim reads DeviceTaintRules as resource.k8s.io/v1 or v1beta2",
		},
	},
}

// Latest is the release drasim models unless told otherwise.
const Latest = "1.37"

// Default returns the newest release, drasim's default.
func Default() *Release { return MustGet(Latest) }

// Names lists the releases drasim models, oldest first.
func Names() []string {
	out := make([]string, len(releases))
	for i, r := range releases {
		out[i] = r.Name
	}
	return out
}

// Parse reads a --kube-version value: "1.35" or "v1.35" (a patch, such as
// "1.35.4", names its minor release). Empty is the default.
func Parse(s string) (*Release, error) {
	v := strings.TrimPrefix(strings.TrimSpace(s), "v")
	if v == "" {
		return Default(), nil
	}
	if parts := strings.Split(v, "."); len(parts) == 3 {
		v = parts[0] + "." + parts[1]
	}
	for _, r := range releases {
		if r.Name == v {
			return r, nil
		}
	}
	return nil, fmt.Errorf("unknown Kubernetes version %q: drasim models %s", s, strings.Join(Names(), ", "))
}

// MustGet returns a release by name and panics when there is none; for
// names written in the code.
func MustGet(name string) *Release {
	r, err := Parse(name)
	if err != nil {
		panic(err)
	}
	return r
}

// IsLatest reports whether r is the newest release.
func (r *Release) IsLatest() bool { return r.Name == Latest }

// String is the patch release, "v1.37.2", as results state it.
func (r *Release) String() string { return r.Patch }

// AtLeast reports whether r is the named release or a newer one.
func (r *Release) AtLeast(name string) bool {
	for _, x := range releases {
		if x.Name == name {
			return true
		}
		if x == r {
			return false
		}
	}
	return false
}
