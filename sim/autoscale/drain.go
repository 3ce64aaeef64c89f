package autoscale

import (
	"strings"
	"time"

	"github.com/drasim/drasim/sim/framework"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Which pods a scale-down must move, and which pods keep a node, as
// cluster-autoscaler 1.36's drainability rules decide
// (simulator/drainability/rules, in their order; the first rule with an
// outcome decides).

// BlockingReason is why a pod keeps its node from being removed (CA's
// drain.BlockingPodReason).
type BlockingReason string

// Blocking reasons.
const (
	BlockingControllerNotFound BlockingReason = "ControllerNotFound"
	BlockingNotReplicated      BlockingReason = "NotReplicated"
	BlockingLocalStorage       BlockingReason = "LocalStorageRequested"
	BlockingNotSafeToEvict     BlockingReason = "NotSafeToEvictAnnotation"
	BlockingKubeSystemPod      BlockingReason = "UnmovableKubeSystemPod"
)

// CA's pod annotations for scale-down.
const (
	annotationSafeToEvict             = "cluster-autoscaler.kubernetes.io/safe-to-evict"
	annotationSafeToEvictLocalVolumes = "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes"
	annotationScaleDownDisabled       = "cluster-autoscaler.kubernetes.io/scale-down-disabled"
)

// podLongTerminatingExtra is CA's PodLongTerminatingExtraThreshold.
const podLongTerminatingExtra = 30 * time.Second

// drainOutcome is a rule's verdict on one pod.
type drainOutcome int

const (
	drainUndefined drainOutcome = iota
	drainOK
	drainSkip
	drainWait
	drainBlock
)

// podsToMove is GetPodsToMove's answer for a node.
type podsToMove struct {
	pods, daemonSet, onCompletion []*v1.Pod
	blocking                      *v1.Pod
	reason                        BlockingReason
}

// drainRules are the settings the rules depend on.
type drainRules struct {
	skipSystemPods, skipLocalStorage, skipCustomControllerPods bool
	bspDisruptionTimeout                                       time.Duration
	// controllerExists says whether a pod's controller exists (CA asks its
	// listers); nil means every controller exists.
	controllerExists func(kind, namespace, name string) bool
}

// replicatedKinds are the controllers CA knows to recreate pods
// (rules/replicated).
var replicatedKinds = map[string]bool{"ReplicationController": true, "Job": true, "ReplicaSet": true, "StatefulSet": true}

// podsToMoveFrom sorts the node's pods: to move elsewhere, DaemonSet pods
// (evicted with the node), pods that must finish first
// (safe-to-evict: on-completion), or the first pod that blocks the
// removal.
func (r drainRules) podsToMoveFrom(ni *framework.NodeInfo, now time.Time) podsToMove {
	var out podsToMove
	for _, pi := range ni.Pods {
		pod := pi.Pod
		outcome, reason := r.drainable(pod, now)
		switch outcome {
		case drainUndefined, drainOK:
			if isDaemonSetPod(pod) {
				out.daemonSet = append(out.daemonSet, pod)
			} else {
				out.pods = append(out.pods, pod)
			}
		case drainWait:
			out.onCompletion = append(out.onCompletion, pod)
		case drainBlock:
			out.blocking, out.reason = pod, reason
			return out
		}
	}
	return out
}

// drainable runs the rules in CA's order.
func (r drainRules) drainable(pod *v1.Pod, now time.Time) (drainOutcome, BlockingReason) {
	outcome, reason, _ := r.drainableAt(pod, now)
	return outcome, reason
}

// drainableAt is drainable, and tells whether the verdict may change with
// the time alone: whether it reached a rule that reads the clock (a pod
// being deleted may become long-terminating, a kube-system pod may
// outlive the blocking-system-pod timeout). A verdict reached without one
// holds at any time, such as that of every node's kube-system DaemonSet
// pods, which the rules let go before the kube-system rule.
func (r drainRules) drainableAt(pod *v1.Pod, now time.Time) (_ drainOutcome, _ BlockingReason, clock bool) {
	// mirror, longterminating
	if isMirrorPod(pod) {
		return drainSkip, "", false
	}
	clock = pod.DeletionTimestamp != nil
	if isLongTerminating(pod, now) {
		return drainSkip, "", clock
	}
	ref := controllerRef(pod)
	// replicacount: the controller must exist (--min-replica-count is 0
	// by default, so replica counts never block).
	if r.skipCustomControllerPods && ref != nil && r.controllerExists != nil {
		switch ref.Kind {
		case "ReplicationController", "Job", "ReplicaSet", "StatefulSet", "DaemonSet":
			if !r.controllerExists(ref.Kind, pod.Namespace, ref.Name) {
				return drainBlock, BlockingControllerNotFound, clock
			}
		}
	}
	// daemonset, safetoevict, terminal, oncompletion
	switch {
	case isDaemonSetPod(pod):
		return drainOK, "", clock
	case pod.Annotations[annotationSafeToEvict] == "true":
		return drainOK, "", clock
	case isTerminal(pod):
		return drainOK, "", clock
	case pod.Annotations[annotationSafeToEvict] == "on-completion":
		return drainWait, "", clock
	}
	// replicated, system, notsafetoevict, localstorage (pdb: drasim has
	// no PodDisruptionBudgets, so no pod is blocked by one)
	if ref == nil || (r.skipCustomControllerPods && !replicatedKinds[ref.Kind]) {
		return drainBlock, BlockingNotReplicated, clock
	}
	if r.skipSystemPods && pod.Namespace == metav1.NamespaceSystem {
		clock = true
		if pod.CreationTimestamp.IsZero() || !now.After(pod.CreationTimestamp.Add(r.bspDisruptionTimeout)) {
			return drainBlock, BlockingKubeSystemPod, clock
		}
	}
	if pod.Annotations[annotationSafeToEvict] == "false" {
		return drainBlock, BlockingNotSafeToEvict, clock
	}
	if r.skipLocalStorage && hasBlockingLocalStorage(pod) {
		return drainBlock, BlockingLocalStorage, clock
	}
	return drainUndefined, "", clock
}

// controllerRef is metav1.GetControllerOf without the copy: the drain
// rules ask it of every pod of every candidate node in every loop, and
// the callers only read it.
func controllerRef(pod *v1.Pod) *metav1.OwnerReference {
	for i := range pod.OwnerReferences {
		if r := &pod.OwnerReferences[i]; r.Controller != nil && *r.Controller {
			return r
		}
	}
	return nil
}

// isTerminal is CA's drain.IsPodTerminal.
func isTerminal(pod *v1.Pod) bool {
	switch {
	case pod.Spec.RestartPolicy == v1.RestartPolicyNever && (pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed):
		return true
	case pod.Spec.RestartPolicy == v1.RestartPolicyOnFailure && pod.Status.Phase == v1.PodSucceeded:
		return true
	}
	return pod.Status.Phase == v1.PodFailed
}

// isLongTerminating is CA's drain.IsPodLongTerminating.
func isLongTerminating(pod *v1.Pod, now time.Time) bool {
	if pod.DeletionTimestamp == nil {
		return false
	}
	grace := int64(v1.DefaultTerminationGracePeriodSeconds)
	if pod.Spec.TerminationGracePeriodSeconds != nil {
		grace = *pod.Spec.TerminationGracePeriodSeconds
	}
	return pod.DeletionTimestamp.Add(time.Duration(grace) * time.Second).Add(podLongTerminatingExtra).Before(now)
}

// hasBlockingLocalStorage is CA's drain.HasBlockingLocalStorage: a hostPath
// or a disk-backed emptyDir volume not listed in safe-to-evict-local-volumes.
func hasBlockingLocalStorage(pod *v1.Pod) bool {
	ok := map[string]bool{}
	if v := pod.Annotations[annotationSafeToEvictLocalVolumes]; v != "" {
		for _, name := range strings.Split(v, ",") {
			ok[name] = true
		}
	}
	for _, vol := range pod.Spec.Volumes {
		local := vol.HostPath != nil || (vol.EmptyDir != nil && vol.EmptyDir.Medium != v1.StorageMediumMemory)
		if local && !ok[vol.Name] {
			return true
		}
	}
	return false
}
