package carecorder

import (
	"context"
	"fmt"
	"sort"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// Schedule plays kube-scheduler on the cluster in the clientset: it replays
// every pending pod with drasim's replay (which scenarios/ holds to the
// real kube-scheduler) and writes what it decided back: the pods it placed
// are bound, their claims allocated and reserved; the pods it could not
// place stay pending and unschedulable. The recorder calls it before CA's
// first loop and after every scale-up, where a real cluster's scheduler
// would run, so that CA's decisions (and only those) are CA's own and start
// from the cluster drasim's autoscaler starts from. order is the pods'
// snapshot order; pods it does not list (daemon pods of new nodes) come
// after them.
func Schedule(ctx context.Context, client kubernetes.Interface, order []types.UID, seed int64) (placed int, err error) {
	snap, allocated, pending, err := readCluster(ctx, client, order)
	if err != nil {
		return 0, err
	}
	if len(pending) == 0 {
		return 0, nil
	}

	run, err := sim.Simulate(ctx, snap, sim.Options{Seed: seed})
	if err != nil {
		return 0, fmt.Errorf("replay: %w", err)
	}
	if err := writeClaims(ctx, client, run, allocated); err != nil {
		return 0, err
	}
	return bindPods(ctx, client, run, pending)
}

// readCluster lists the cluster into a snapshot, nodes, slices, classes
// and claims by name and pods in the order given (the rest after them, by
// name). allocated says, per existing claim, whether it is allocated;
// pending holds the pods without a node.
func readCluster(ctx context.Context, client kubernetes.Interface, order []types.UID) (snap *snapshot.Snapshot, allocated map[string]bool, pending map[types.UID]bool, err error) {
	snap = snapshot.New()
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, nil, nil, err
	}
	for i := range nodes.Items {
		snap.Nodes = append(snap.Nodes, &nodes.Items[i])
	}
	sort.Slice(snap.Nodes, func(i, j int) bool { return snap.Nodes[i].Name < snap.Nodes[j].Name })
	slices, err := client.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, nil, nil, err
	}
	for i := range slices.Items {
		snap.ResourceSlices = append(snap.ResourceSlices, &slices.Items[i])
	}
	sort.Slice(snap.ResourceSlices, func(i, j int) bool { return snap.ResourceSlices[i].Name < snap.ResourceSlices[j].Name })
	classes, err := client.ResourceV1().DeviceClasses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, nil, nil, err
	}
	for i := range classes.Items {
		snap.DeviceClasses = append(snap.DeviceClasses, &classes.Items[i])
	}
	sort.Slice(snap.DeviceClasses, func(i, j int) bool { return snap.DeviceClasses[i].Name < snap.DeviceClasses[j].Name })
	claims, err := client.ResourceV1().ResourceClaims("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, nil, nil, err
	}
	allocated = map[string]bool{}
	for i := range claims.Items {
		c := &claims.Items[i]
		snap.ResourceClaims = append(snap.ResourceClaims, c)
		allocated[c.Namespace+"/"+c.Name] = c.Status.Allocation != nil
	}
	sort.Slice(snap.ResourceClaims, func(i, j int) bool {
		a, b := snap.ResourceClaims[i], snap.ResourceClaims[j]
		return a.Namespace+"/"+a.Name < b.Namespace+"/"+b.Name
	})
	pods, err := client.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, nil, nil, err
	}
	rank := map[types.UID]int{}
	for i, uid := range order {
		rank[uid] = i
	}
	pending = map[types.UID]bool{}
	for i := range pods.Items {
		p := &pods.Items[i]
		snap.Pods = append(snap.Pods, p)
		if p.Spec.NodeName == "" {
			pending[p.UID] = true
		}
	}
	sort.SliceStable(snap.Pods, func(i, j int) bool {
		ri, iok := rank[snap.Pods[i].UID]
		rj, jok := rank[snap.Pods[j].UID]
		switch {
		case iok && jok:
			return ri < rj
		case iok != jok:
			return iok
		}
		return snap.Pods[i].Namespace+"/"+snap.Pods[i].Name < snap.Pods[j].Namespace+"/"+snap.Pods[j].Name
	})
	return snap, allocated, pending, nil
}

// writeClaims writes the allocations the replay made back to the
// cluster, creating the claims kube-scheduler would create itself.
func writeClaims(ctx context.Context, client kubernetes.Interface, run *sim.Run, allocated map[string]bool) error {
	for _, c := range run.Cluster.DRA.Claims() {
		key := c.Namespace + "/" + c.Name
		if c.Status.Allocation == nil || allocated[key] {
			continue
		}
		claims := client.ResourceV1().ResourceClaims(c.Namespace)
		if _, exists := allocated[key]; !exists {
			// The scheduler's own claim for extended resources backed by
			// DRA: kube-scheduler creates it when it binds the pod.
			if _, err := claims.Create(ctx, claimForUpdate(c), metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("claim %s: %w", key, err)
			}
		}
		if _, err := claims.UpdateStatus(ctx, claimForUpdate(c), metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("claim %s: %w", key, err)
		}
	}
	return nil
}

// bindPods binds the pods that were pending and that the replay placed.
func bindPods(ctx context.Context, client kubernetes.Interface, run *sim.Run, pending map[types.UID]bool) (placed int, err error) {
	for _, p := range run.Cluster.Pods {
		if !pending[p.UID] || p.Spec.NodeName == "" {
			continue
		}
		pod, err := client.CoreV1().Pods(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
		if err != nil {
			return 0, err
		}
		pod.Spec.NodeName = p.Spec.NodeName
		pod.Status.ExtendedResourceClaimStatus = p.Status.ExtendedResourceClaimStatus.DeepCopy()
		pod.Status.Phase = v1.PodRunning
		pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodScheduled, Status: v1.ConditionTrue}}
		if _, err := client.CoreV1().Pods(p.Namespace).Update(ctx, pod, metav1.UpdateOptions{}); err != nil {
			return 0, fmt.Errorf("pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		placed++
	}
	return placed, nil
}

func claimForUpdate(c *resourceapi.ResourceClaim) *resourceapi.ResourceClaim {
	out := c.DeepCopy()
	out.ResourceVersion = ""
	return out
}
