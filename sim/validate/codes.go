package validate

// Code is the stable reason of a diagnostic. Reports and tests match on codes,
// never on message text; docs/validation.md lists each with an example.
type Code = string

// Shape codes mirror the kinds of field errors kube-apiserver returns. They
// are errors unless noted: the API server would reject the object.
const (
	// CodeRequired: a required field is missing or empty.
	CodeRequired Code = "Required"
	// CodeInvalidName: a name, key or reference does not have the required
	// format (DNS subdomain or label, qualified name, C identifier, driver
	// name). A warning for claim capacity request keys, which the API does
	// not check but which then never match a device.
	CodeInvalidName Code = "InvalidName"
	// CodeInvalidValue: a value is out of range or not one of the allowed
	// values (count, allocationMode, taint effect, semver, generation, ...).
	CodeInvalidValue Code = "InvalidValue"
	// CodeTooLong: a string exceeds its length limit.
	CodeTooLong Code = "TooLong"
	// CodeTooMany: a list or map exceeds its API limit (devices per slice,
	// attributes per device, firstAvailable entries, reservedFor, ...).
	CodeTooMany Code = "TooMany"
	// CodeDuplicate: a name that must be unique within its object repeats.
	CodeDuplicate Code = "Duplicate"
	// CodeOneOf: exactly one of a set of fields must be set (or at most one).
	// A warning when both matchAttribute and distinctAttribute are set: the
	// API accepts it and the allocator ignores distinctAttribute.
	CodeOneOf Code = "OneOf"
	// CodeForbidden: a field may not be set in this context.
	CodeForbidden Code = "Forbidden"
)

// CEL codes.
const (
	// CodeSelectorMissingCEL: a selector has no `cel` (error). The usual cause
	// is `expression:` indented as a sibling of `cel:` instead of under it.
	CodeSelectorMissingCEL Code = "SelectorMissingCEL"
	// CodeCELCompile: a selector does not compile in the DRA CEL environment
	// (error).
	CodeCELCompile Code = "CELCompile"
	// CodeCELCost: a selector compiles but its estimated cost exceeds the
	// limit the API server enforces (error).
	CodeCELCost Code = "CELCost"
	// CodeCELRuntime: a DeviceClass selector fails while being evaluated
	// against a device in the snapshot (warning). The allocator aborts the
	// allocation of every claim using the class when that happens.
	CodeCELRuntime Code = "CELRuntime"
)

// Reference codes.
const (
	// CodeUnknownRequest: a constraint, config entry or allocation result
	// names a request (or request/subrequest) the claim does not have (error).
	CodeUnknownRequest Code = "UnknownRequest"
	// CodeUnknownPodClaim: a container's resources.claims[].name is not an
	// entry of pod.spec.resourceClaims (error).
	CodeUnknownPodClaim Code = "UnknownPodClaim"
	// CodeUnknownDeviceClass: a request names a DeviceClass the snapshot does
	// not hold (warning: the API accepts it, the claim stays unallocatable).
	CodeUnknownDeviceClass Code = "UnknownDeviceClass"
	// CodeMissingResourceClaim: a pod references a ResourceClaim that is not
	// in its namespace in the snapshot (warning: the pod stays pending).
	CodeMissingResourceClaim Code = "MissingResourceClaim"
	// CodeMissingResourceClaimTemplate: a pod references a
	// ResourceClaimTemplate that is not in its namespace (warning: no claim
	// can be generated, the pod stays pending).
	CodeMissingResourceClaimTemplate Code = "MissingResourceClaimTemplate"
	// CodeMissingPriorityClass: a pod names a PriorityClass the snapshot does
	// not hold and is not built in. An error when the pod carries no
	// spec.priority (admission would reject it); a warning when it does
	// (a dump whose PriorityClasses were not exported).
	CodeMissingPriorityClass Code = "MissingPriorityClass"
	// CodeUnknownNode: a pod's spec.nodeName or a slice's nodeName names a
	// Node the snapshot does not hold (warning).
	CodeUnknownNode Code = "UnknownNode"
	// CodeUnknownAllocatedDevice: an allocated claim names a device that no
	// slice of its pool publishes, although the pool is in the snapshot
	// (error).
	CodeUnknownAllocatedDevice Code = "UnknownAllocatedDevice"
	// CodeUnknownAllocatedPool: an allocated claim names a pool of which the
	// snapshot holds no slice at all, so the allocation cannot be checked
	// (warning: a partial dump).
	CodeUnknownAllocatedPool Code = "UnknownAllocatedPool"
	// CodeUnknownReservedForPod: a claim is reserved for a pod that is not in
	// the snapshot (warning: the reservation keeps the claim in use).
	CodeUnknownReservedForPod Code = "UnknownReservedForPod"
	// CodeMissingPodGroup: a pending pod names a PodGroup that is not in
	// its namespace in the snapshot (warning: with GenericWorkload on, the
	// pod waits for it and is never scheduled).
	CodeMissingPodGroup Code = "MissingPodGroup"
	// CodePodGroupMismatch: a pod's priority differs from its PodGroup's
	// (warning: kube-scheduler fails every attempt of the gang).
	CodePodGroupMismatch Code = "PodGroupMismatch"
)

// Pool codes: the allocator looks at all slices of a (driver, pool) together.
const (
	// CodePoolIncomplete: fewer slices of the newest generation than
	// pool.resourceSliceCount (warning). The allocator does not allocate
	// from an incomplete pool and allocationMode: All fails while one
	// matching pool is incomplete.
	CodePoolIncomplete Code = "PoolIncomplete"
	// CodePoolSliceCountMismatch: slices of one generation disagree on
	// resourceSliceCount, or there are more slices than it says (warning:
	// the pool counts as incomplete).
	CodePoolSliceCountMismatch Code = "PoolSliceCountMismatch"
	// CodePoolStaleGeneration: a slice belongs to an older generation of its
	// pool than another slice (warning: the allocator ignores it).
	CodePoolStaleGeneration Code = "PoolStaleGeneration"
	// CodePoolDuplicateDevice: two slices of the same pool and generation
	// publish a device with the same name (error: the allocator treats the
	// pool as invalid and fails claims that could use it).
	CodePoolDuplicateDevice Code = "PoolDuplicateDevice"
	// CodePoolDuplicateCounterSet: two slices of the same pool and generation
	// define a counter set with the same name (error: pool invalid).
	CodePoolDuplicateCounterSet Code = "PoolDuplicateCounterSet"
	// CodeUnknownCounterSet: a device consumes counters from a counter set
	// that no slice of its pool defines (error: pool invalid).
	CodeUnknownCounterSet Code = "UnknownCounterSet"
	// CodeUnknownCounter: a device consumes a counter its counter set does
	// not define (error: pool invalid).
	CodeUnknownCounter Code = "UnknownCounter"
)

// Simulation codes: legal input that cannot work as written.
const (
	// CodeClassMatchesNoDevice: a DeviceClass whose selectors match no device
	// of any usable slice (warning).
	CodeClassMatchesNoDevice Code = "ClassMatchesNoDevice"
	// CodePodNeverSchedulable: a pending pod needs a claim whose request uses
	// a class without any device (warning: it will stay pending).
	CodePodNeverSchedulable Code = "PodNeverSchedulable"
	// CodeTaintRuleMatchesNothing: a DeviceTaintRule whose selector matches no
	// device (warning).
	CodeTaintRuleMatchesNothing Code = "TaintRuleMatchesNothing"
	// CodeClaimOverDeviceLimit: a claim or template that asks for more
	// devices than a claim may hold (32), or with allocationMode All on a
	// node that has more matching devices (warning: every scheduling
	// attempt of its pods fails with an error).
	CodeClaimOverDeviceLimit Code = "ClaimOverDeviceLimit"
	// CodeNothingToSimulate: the snapshot holds no Node, or no object at
	// all (warning: simulate, explain, report and check refuse it;
	// autoscale needs a Node or a NodeGroup).
	CodeNothingToSimulate Code = "NothingToSimulate"
)

// Codes lists every code in the order of docs/validation.md.
func Codes() []Code {
	return []Code{
		CodeRequired, CodeInvalidName, CodeInvalidValue, CodeTooLong, CodeTooMany,
		CodeDuplicate, CodeOneOf, CodeForbidden,
		CodeSelectorMissingCEL, CodeCELCompile, CodeCELCost, CodeCELRuntime,
		CodeUnknownRequest, CodeUnknownPodClaim, CodeUnknownDeviceClass,
		CodeMissingResourceClaim, CodeMissingResourceClaimTemplate,
		CodeMissingPriorityClass, CodeUnknownNode, CodeUnknownAllocatedDevice,
		CodeUnknownProvisioningClass, CodeMissingPodTemplate,
		CodeUnknownAllocatedPool, CodeUnknownReservedForPod, CodeMissingPodGroup, CodePodGroupMismatch,
		CodePoolIncomplete, CodePoolSliceCountMismatch, CodePoolStaleGeneration,
		CodePoolDuplicateDevice, CodePoolDuplicateCounterSet, CodeUnknownCounterSet,
		CodeUnknownCounter,
		CodeClassMatchesNoDevice, CodePodNeverSchedulable, CodeTaintRuleMatchesNothing,
		CodeClaimOverDeviceLimit,
		CodeNothingToSimulate,
	}
}
