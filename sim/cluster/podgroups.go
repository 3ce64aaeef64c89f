package cluster

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
)

// GenericWorkloadGate is the feature gate of the Workload and PodGroup
// APIs and of gang scheduling (beta, off by default in v1.37).
const GenericWorkloadGate = "GenericWorkload"

// groupKey keys pod groups by namespace and name.
func groupKey(namespace, name string) string { return namespace + "/" + name }

// PodGroupName is the pod group a pod names in spec.schedulingGroup, or "".
func PodGroupName(pod *v1.Pod) string {
	if sg := pod.Spec.SchedulingGroup; sg != nil && sg.PodGroupName != nil {
		return *sg.PodGroupName
	}
	return ""
}

// buildPodGroups indexes the pod groups and their member pods when the
// GenericWorkload gate is on. With the gate off the API server serves no
// PodGroup and drops spec.schedulingGroup from the pods it admits: the
// pods are scheduled one by one, and a warning says so.
func (c *Cluster) buildPodGroups(enabled bool) {
	c.gangs = enabled
	s := c.snapshot
	if !enabled {
		named := 0
		for _, pod := range c.pods {
			if pod.Spec.SchedulingGroup != nil {
				pod.Spec.SchedulingGroup = nil
				named++
			}
		}
		if named > 0 {
			c.warnings = append(c.warnings, fmt.Sprintf("%d pod(s) name a pod group in spec.schedulingGroup, but the GenericWorkload feature gate is off: "+
				"the API server drops the field and kube-scheduler places them one by one (--feature-gates GenericWorkload=true schedules them as gangs)", named))
		}
		if n := len(s.PodGroups) + len(s.Workloads); n > 0 {
			c.warnings = append(c.warnings, fmt.Sprintf("%d Workload and PodGroup object(s) ignored: the API server serves scheduling.k8s.io Workloads and PodGroups only with the GenericWorkload feature gate on", n))
		}
		return
	}
	c.groupByKey = make(map[string]*schedulingv1beta1.PodGroup, len(s.PodGroups))
	claims := 0
	for _, pg := range s.PodGroups {
		claims += len(pg.Spec.ResourceClaims)
		cp := pg.DeepCopy()
		c.podGroups = append(c.podGroups, cp)
		c.groupByKey[groupKey(cp.Namespace, cp.Name)] = cp
	}
	c.indexGroupMembers()
	if claims > 0 {
		c.warnings = append(c.warnings, fmt.Sprintf("%d PodGroup resourceClaims ignored: drasim does not model claims of pod groups (DRAWorkloadResourceClaims, beta and off by default in v1.37)", claims))
	}
}

func (c *Cluster) indexGroupMembers() {
	c.groupMembers = map[string][]*v1.Pod{}
	for _, pod := range c.pods {
		if name := PodGroupName(pod); name != "" {
			k := groupKey(pod.Namespace, name)
			c.groupMembers[k] = append(c.groupMembers[k], pod)
		}
	}
}

// GangsEnabled reports whether the GenericWorkload gate is on: pods that
// name a pod group are then scheduled as its members.
func (c *Cluster) GangsEnabled() bool { return c.gangs }

// PodGroup returns a pod group, or nil when the cluster has none of that
// name (or the gate is off).
func (c *Cluster) PodGroup(namespace, name string) *schedulingv1beta1.PodGroup {
	return c.groupByKey[groupKey(namespace, name)]
}

// PodGroupOf returns the pod group the pod belongs to and its name; the
// group is nil when the pod names one the cluster does not have.
func (c *Cluster) PodGroupOf(pod *v1.Pod) (*schedulingv1beta1.PodGroup, string) {
	if !c.gangs {
		return nil, ""
	}
	name := PodGroupName(pod)
	if name == "" {
		return nil, ""
	}
	return c.PodGroup(pod.Namespace, name), name
}

// GroupMembers are the pods of the cluster (bound or pending, not
// terminated) that name the pod group, in snapshot order: kube's
// PodGroupState.AllPods.
func (c *Cluster) GroupMembers(namespace, name string) []*v1.Pod {
	return c.groupMembers[groupKey(namespace, name)]
}

// ScheduledMembers counts the group's pods that have a node (kube's
// ScheduledPodsCount: assumed or assigned).
func (c *Cluster) ScheduledMembers(namespace, name string) int {
	n := 0
	for _, p := range c.GroupMembers(namespace, name) {
		if p.Spec.NodeName != "" {
			n++
		}
	}
	return n
}

// MinCount is the number of pods a pod group needs placed together: the
// gang's minCount, 1 for a basic group.
func MinCount(pg *schedulingv1beta1.PodGroup) int {
	if g := pg.Spec.SchedulingPolicy.Gang; g != nil {
		return int(g.MinCount)
	}
	return 1
}

// PodGroupPriority is the pod group's priority (kube's
// util.PodGroupPriority: spec.priority, 0 when unset).
func PodGroupPriority(pg *schedulingv1beta1.PodGroup) int32 {
	if pg.Spec.Priority != nil {
		return *pg.Spec.Priority
	}
	return 0
}

func (c *Cluster) forgetGroupMember(pod *v1.Pod) {
	name := PodGroupName(pod)
	if name == "" || c.groupMembers == nil {
		return
	}
	k := groupKey(pod.Namespace, name)
	c.groupMembers[k] = removePod(c.groupMembers[k], pod)
}
