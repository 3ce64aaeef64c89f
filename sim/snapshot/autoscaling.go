package snapshot

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The autoscaling.x-k8s.io kinds cluster-autoscaler serves, with the fields
// of k8s.io/autoscaler/cluster-autoscaler/apis (ProvisioningRequest v1,
// CapacityBuffer v1beta1). drasim does not depend on that module (the Go
// proxy does not serve it); the shapes are copied field by field, so that
// a manifest written for CA reads the same here.
const (
	AutoscalingGroup              = "autoscaling.x-k8s.io"
	ProvisioningRequestAPIVersion = AutoscalingGroup + "/v1"
	CapacityBufferAPIVersion      = AutoscalingGroup + "/v1beta1"

	// ProvisioningClassCheckCapacity: CA checks whether the pods fit the
	// cluster as it is, without scaling, and books the capacity.
	ProvisioningClassCheckCapacity = "check-capacity.autoscaling.x-k8s.io"
	// ProvisioningClassBestEffortAtomicScaleUp: CA adds all of the
	// request's nodes in one loop, or none.
	ProvisioningClassBestEffortAtomicScaleUp = "best-effort-atomic-scale-up.autoscaling.x-k8s.io"

	// ProvisioningRequestPodAnnotation marks pods that consume a
	// ProvisioningRequest; CA never scales up for them.
	ProvisioningRequestPodAnnotation = "autoscaling.x-k8s.io/consume-provisioning-request"
	// ProvisioningClassPodAnnotation names the class on the request's pods.
	ProvisioningClassPodAnnotation = "autoscaling.x-k8s.io/provisioning-class-name"

	// CapacityBufferActiveStrategy is the only provisioning strategy CA
	// injects virtual pods for (and the default).
	CapacityBufferActiveStrategy = "buffer.x-k8s.io/active-capacity"
)

// ProvisioningRequest (autoscaling.x-k8s.io/v1) asks the autoscaler for
// capacity for pods that do not exist yet.
type ProvisioningRequest struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ProvisioningRequestSpec   `json:"spec"`
	Status            ProvisioningRequestStatus `json:"status,omitempty"`
}

// ProvisioningRequestSpec is what is asked for.
type ProvisioningRequestSpec struct {
	PodSets               []ProvisioningPodSet `json:"podSets"`
	ProvisioningClassName string               `json:"provisioningClassName"`
	Parameters            map[string]string    `json:"parameters,omitempty"`
}

// ProvisioningPodSet is Count pods made from a PodTemplate of the
// request's namespace.
type ProvisioningPodSet struct {
	PodTemplateRef LocalRef `json:"podTemplateRef"`
	Count          int32    `json:"count"`
}

// LocalRef names an object of the same namespace.
type LocalRef struct {
	Name string `json:"name,omitempty"`
}

// ProvisioningRequestStatus holds the conditions CA sets.
type ProvisioningRequestStatus struct {
	Conditions               []metav1.Condition `json:"conditions,omitempty"`
	ProvisioningClassDetails map[string]string  `json:"provisioningClassDetails,omitempty"`
}

// CapacityBuffer (autoscaling.x-k8s.io/v1beta1) keeps spare capacity for
// Replicas chunks of a pod shape: CA adds virtual pods of that shape to
// the pending pods every loop, so that the cluster keeps room for them.
type CapacityBuffer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              CapacityBufferSpec   `json:"spec"`
	Status            CapacityBufferStatus `json:"status,omitempty"`
}

// CapacityBufferSpec is the buffer's definition: one of PodTemplateRef and
// ScalableRef, and how many chunks (Replicas, Percentage of the scalable
// object's replicas, capped by Limits).
type CapacityBufferSpec struct {
	ProvisioningStrategy *string                      `json:"provisioningStrategy,omitempty"`
	PodTemplateRef       *LocalRef                    `json:"podTemplateRef,omitempty"`
	ScalableRef          *ScalableRef                 `json:"scalableRef,omitempty"`
	Replicas             *int32                       `json:"replicas,omitempty"`
	Percentage           *int32                       `json:"percentage,omitempty"`
	Limits               map[string]resource.Quantity `json:"limits,omitempty"`
}

// ScalableRef names a workload controller with a scale subresource.
type ScalableRef struct {
	APIGroup string `json:"apiGroup,omitempty"`
	Kind     string `json:"kind"`
	Name     string `json:"name"`
}

// CapacityBufferStatus is what CA's buffer controller writes.
type CapacityBufferStatus struct {
	PodTemplateRef        *LocalRef          `json:"podTemplateRef,omitempty"`
	Replicas              *int32             `json:"replicas,omitempty"`
	PodTemplateGeneration *int64             `json:"podTemplateGeneration,omitempty"`
	Conditions            []metav1.Condition `json:"conditions,omitempty"`
	ProvisioningStrategy  *string            `json:"provisioningStrategy,omitempty"`
}
