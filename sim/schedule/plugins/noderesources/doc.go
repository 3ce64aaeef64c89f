// Package noderesources checks that a pod's requests fit a node's
// allocatable resources (NodeResourcesFit) and scores nodes by how their
// resources would be used (NodeResourcesFit's scoring strategies and
// NodeResourcesBalancedAllocation), as kube-scheduler's noderesources
// plugins. Extended resources that a DeviceClass provides (DRAExtendedResource,
// GA in v1.37) are left to the DynamicResources plugin on nodes that do not
// advertise them; see DRAExtendedResources.
package noderesources
