package noderesources

import (
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"

	"github.com/drasim/drasim/sim/framework"
)

// DRAExtendedResources tells the noderesources plugins which extended
// resources DeviceClasses provide. It is implemented by the owner of the
// DeviceClasses (the DynamicResources side) and must be safe for concurrent
// use. A nil DRAExtendedResources means no DeviceClass provides any.
type DRAExtendedResources interface {
	// HasDeviceClass reports whether a DeviceClass provides name, either as
	// its spec.extendedResourceName or as the implicit
	// "deviceclass.resource.kubernetes.io/<class name>".
	HasDeviceClass(name v1.ResourceName) bool
}

// DRADeviceCounter may also be implemented by a DRAExtendedResources so that
// scoring can weigh a DeviceClass-backed resource listed in the scoring
// resources, as kube does: on a node that does not advertise the resource,
// its capacity is the number of devices of the class the node can use and
// its usage the number of those already allocated. It is called during
// Score, concurrently for different nodes, and must only read.
type DRADeviceCounter interface {
	DeviceCounts(node *v1.Node, name v1.ResourceName) (capacity, allocated int64, err error)
}

// ResourceSet is a DRAExtendedResources backed by a fixed set of names.
type ResourceSet map[v1.ResourceName]bool

// HasDeviceClass reports whether name is in the set.
func (s ResourceSet) HasDeviceClass(name v1.ResourceName) bool { return s[name] }

// isDRAExtendedResourceName reports names a DeviceClass may provide: an
// extended resource name or the implicit class name.
func isDRAExtendedResourceName(name v1.ResourceName) bool {
	return framework.IsExtendedResourceName(name) || strings.HasPrefix(string(name), resourceapi.ResourceDeviceClassPrefix)
}

// shouldDelegateToDRA reports that NodeResourcesFit must not check name on
// this node: the node does not advertise it and a DeviceClass provides it,
// so the DynamicResources plugin allocates devices for it instead.
func shouldDelegateToDRA(name v1.ResourceName, nodeInfo *framework.NodeInfo, dra DRAExtendedResources) bool {
	if dra == nil {
		return false
	}
	if nodeInfo != nil && nodeInfo.Allocatable.ScalarResources[name] > 0 {
		return false
	}
	return dra.HasDeviceClass(name)
}
