package inventory

import (
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/utils/ptr"
)

// DeviceID names a device as allocation results do.
type DeviceID struct{ Driver, Pool, Device string }

// String is driver/pool/device, the allocator's way of naming a device.
func (id DeviceID) String() string { return id.Driver + "/" + id.Pool + "/" + id.Device }

// Device is one device of a slice.
type Device struct {
	ID DeviceID
	// Node is the one node the device is attached to (NodeOf); "" when
	// nodes reach it by selector or it is available to all nodes.
	Node string
	// AllNodes: the device is available to every node (allNodes of its
	// slice, or its own with perDeviceNodeSelection).
	AllNodes bool
	Slice    *resourceapi.ResourceSlice
	Device   *resourceapi.Device
}

// NodeOf is the one node a device of the slice is attached to: the slice's
// nodeName, or with perDeviceNodeSelection the device's own nodeName; ""
// when the device is reachable from nodes by selector or from all nodes.
func NodeOf(sl *resourceapi.ResourceSlice, d *resourceapi.Device) string {
	if ptr.Deref(sl.Spec.PerDeviceNodeSelection, false) {
		return ptr.Deref(d.NodeName, "")
	}
	return ptr.Deref(sl.Spec.NodeName, "")
}

// Devices lists the devices of the slices, in slice order then device
// order. Pass Current(...) or Pool.Current for what the allocator reads.
func Devices(rs []*resourceapi.ResourceSlice) []Device {
	n := 0
	for _, sl := range rs {
		n += len(sl.Spec.Devices)
	}
	out := make([]Device, 0, n)
	for _, sl := range rs {
		for i := range sl.Spec.Devices {
			out = append(out, DeviceOf(sl, &sl.Spec.Devices[i]))
		}
	}
	return out
}

// DeviceOf describes device d of slice sl.
func DeviceOf(sl *resourceapi.ResourceSlice, d *resourceapi.Device) Device {
	allNodes := ptr.Deref(sl.Spec.AllNodes, false)
	if ptr.Deref(sl.Spec.PerDeviceNodeSelection, false) {
		allNodes = ptr.Deref(d.AllNodes, false)
	}
	return Device{
		ID:       DeviceID{sl.Spec.Driver, sl.Spec.Pool.Name, d.Name},
		Node:     NodeOf(sl, d),
		AllNodes: allNodes,
		Slice:    sl,
		Device:   d,
	}
}
