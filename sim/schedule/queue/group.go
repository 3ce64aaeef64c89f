package queue

import v1 "k8s.io/api/core/v1"

// Group is a pod group (scheduling.k8s.io PodGroup) as the queue sees it.
type Group struct {
	Namespace, Name string
	Priority        int32
}

func (g *Group) size() int { return 1 }

type groupState struct{}

func (gs *groupState) waitingPods() []*v1.Pod { return nil }

func (q *Queue) addGroupMember(*v1.Pod, Time) bool { return false }
func (q *Queue) deleteGroupMember(*v1.Pod) bool    { return false }
func (q *Queue) forgetGroupEntity(*Entity)         {}
func (q *Queue) groupEntityOf(*v1.Pod) *Entity     { return nil }
