package load

import "github.com/drasim/drasim/sim/snapshot"

// autoscalingVersion is the version of an autoscaling.x-k8s.io kind that
// cluster-autoscaler reads: ProvisioningRequest v1 (v1beta1 is only kept
// for old objects; CA's client lists v1), CapacityBuffer v1beta1 (CA 1.35
// made it beta and reads only that version).
func autoscalingVersion(kind string) string {
	if kind == "CapacityBuffer" {
		return "v1beta1"
	}
	return "v1"
}

// DefaultCapacityBuffer applies the CRD's default: the active-capacity
// provisioning strategy.
func DefaultCapacityBuffer(b *snapshot.CapacityBuffer) {
	if b.Spec.ProvisioningStrategy == nil {
		s := snapshot.CapacityBufferActiveStrategy
		b.Spec.ProvisioningStrategy = &s
	}
}
