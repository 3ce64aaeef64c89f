package autoscale

import (
	"testing"
	"time"

	"github.com/drasim/drasim/sim/framework"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// TestSortCandidatesFollowsPods: the candidate order (empty nodes first,
// then those with on-completion pods) follows the nodes' pods from loop
// to loop, though each node's emptiness is kept between loops, and an
// in-place edit of a pod the rules read is seen too.
func TestSortCandidatesFollowsPods(t *testing.T) {
	owned := func(name, kind string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", OwnerReferences: []metav1.OwnerReference{
			{Kind: kind, Name: name + "-owner", Controller: ptr.To(true)}}}}
	}
	n1 := framework.NewNodeInfo(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, owned("work-1", "Job"))
	n2 := framework.NewNodeInfo(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n2"}}, owned("ds-2", "DaemonSet"))
	finishing := owned("finishing-3", "Job")
	n3 := framework.NewNodeInfo(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n3"}}, finishing)
	n2.Index, n3.Index = 1, 2 // their places in the cluster's node list
	p := newPlanner(DefaultScaleDownOptions(), drainRules{skipSystemPods: true, skipLocalStorage: true, skipCustomControllerPods: true}, nil)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	order := func(edits uint64) []string {
		nodes := []*framework.NodeInfo{n1, n2, n3}
		p.sortCandidates(nodes, now, edits)
		var names []string
		for _, ni := range nodes {
			names = append(names, ni.Node().Name)
		}
		return names
	}
	if diff := cmp.Diff([]string{"n2", "n1", "n3"}, order(0)); diff != "" {
		t.Fatalf("first loop (-want +got):\n%s", diff)
	}
	// n1's pod finishes, n2 gets work: their places swap.
	if err := n1.RemovePod(n1.Pods[0].Pod); err != nil {
		t.Fatal(err)
	}
	n2.AddPod(owned("work-2", "ReplicaSet"))
	if diff := cmp.Diff([]string{"n1", "n2", "n3"}, order(0)); diff != "" {
		t.Errorf("after the pods changed (-want +got):\n%s", diff)
	}
	// n3's pod is marked to run to completion in place: n3 is empty but
	// for it, after n1 and before n2 (its edit reported, as
	// Cluster.Changed counts it).
	finishing.Annotations = map[string]string{annotationSafeToEvict: "on-completion"}
	if diff := cmp.Diff([]string{"n1", "n3", "n2"}, order(1)); diff != "" {
		t.Errorf("after an in-place edit (-want +got):\n%s", diff)
	}
	// The cluster renews its NodeInfos (shallow copies) when a node goes:
	// the verdicts are kept by name, not one more entry per copy.
	c1, c2, c3 := *n1, *n2, *n3
	n1, n2, n3 = &c1, &c2, &c3
	if diff := cmp.Diff([]string{"n1", "n3", "n2"}, order(1)); diff != "" {
		t.Errorf("after the NodeInfos were renewed (-want +got):\n%s", diff)
	}
	if len(p.emptiness) != 3 {
		t.Errorf("%d cached verdicts after the NodeInfos were renewed, want 3 (one per node)", len(p.emptiness))
	}
	// The nodes change places in the node list (a node before them went):
	// a place's verdict is another node's now, and is not taken for theirs.
	n1.Index, n2.Index = 1, 0
	if diff := cmp.Diff([]string{"n1", "n3", "n2"}, order(1)); diff != "" {
		t.Errorf("after n1 and n2 changed places (-want +got):\n%s", diff)
	}
	n1.Index, n2.Index = 0, 1
	// A new node with n1's name and other pods (n1 deleted, a scale-up
	// reusing its name) gets its own verdict.
	n1 = framework.NewNodeInfo(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}, owned("work-4", "Job"))
	if diff := cmp.Diff([]string{"n3", "n1", "n2"}, order(1)); diff != "" {
		t.Errorf("after n1 was replaced by a node of the same name (-want +got):\n%s", diff)
	}
}

// TestReadsClockWhereTheRulesReadIt: a verdict may change with the time
// alone only for pods being deleted and for kube-system pods that reach
// the blocking-system-pod rule; kube-system DaemonSet pods (on every
// node) and the other pods the earlier rules let go never reach it, so
// their nodes' emptiness can be kept between loops.
func TestReadsClockWhereTheRulesReadIt(t *testing.T) {
	pod := func(ns, kind string, annotations map[string]string) *v1.Pod {
		return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: ns, Annotations: annotations,
			OwnerReferences: []metav1.OwnerReference{{Kind: kind, Name: "owner", Controller: ptr.To(true)}}}}
	}
	deleting := pod("default", "ReplicaSet", nil)
	deleting.DeletionTimestamp = &metav1.Time{}
	succeeded := pod(metav1.NamespaceSystem, "Job", nil)
	succeeded.Spec.RestartPolicy, succeeded.Status.Phase = v1.RestartPolicyOnFailure, v1.PodSucceeded
	rules := drainRules{skipSystemPods: true, skipLocalStorage: true, skipCustomControllerPods: true}
	for _, tc := range []struct {
		name  string
		pod   *v1.Pod
		rules drainRules
		want  bool
	}{
		{"being deleted", deleting, rules, true},
		{"kube-system ReplicaSet pod", pod(metav1.NamespaceSystem, "ReplicaSet", nil), rules, true},
		{"kube-system DaemonSet pod", pod(metav1.NamespaceSystem, "DaemonSet", nil), rules, false},
		{"kube-system pod safe to evict", pod(metav1.NamespaceSystem, "ReplicaSet", map[string]string{annotationSafeToEvict: "true"}), rules, false},
		{"kube-system pod on completion", pod(metav1.NamespaceSystem, "ReplicaSet", map[string]string{annotationSafeToEvict: "on-completion"}), rules, false},
		{"kube-system pod that succeeded", succeeded, rules, false},
		{"kube-system pod, system pods not skipped", pod(metav1.NamespaceSystem, "ReplicaSet", nil), drainRules{}, false},
		{"default ReplicaSet pod", pod("default", "ReplicaSet", nil), rules, false},
	} {
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		if _, _, got := tc.rules.drainableAt(tc.pod, now); got != tc.want {
			t.Errorf("%s: reads the clock %v, want %v", tc.name, got, tc.want)
		}
		// Where the clock is not read, two times far apart give one verdict.
		if !tc.want {
			a, _ := tc.rules.drainable(tc.pod, now)
			b, _ := tc.rules.drainable(tc.pod, now.Add(1000*time.Hour))
			if a != b {
				t.Errorf("%s: verdict %v at first, %v later, though it reads no clock", tc.name, a, b)
			}
		}
	}
}
