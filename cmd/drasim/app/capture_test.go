package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/drasim/drasim/internal/kubeapitest"
	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/result"
	"github.com/drasim/drasim/sim/snapshot"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// createSnapshot creates a snapshot's objects in a real API server, as a
// cluster would hold them: statuses through the status subresource,
// reservations pointing at the pods' new UIDs. Workload controllers do
// not run, so workloads stay without pods, as in the files.
func createSnapshot(t *testing.T, c kubernetes.Interface, s *snapshot.Snapshot) {
	t.Helper()
	ctx := context.Background()
	co := metav1.CreateOptions{}
	namespaces := map[string]bool{"default": true, "": true}
	ns := func(n string) {
		if !namespaces[n] {
			namespaces[n] = true
			_, err := c.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}, co)
			mustCreate(t, "namespace "+n, err)
		}
	}
	for _, o := range fresh(s.PriorityClasses) {
		_, err := c.SchedulingV1().PriorityClasses().Create(ctx, o, co)
		mustCreate(t, "PriorityClass "+o.Name, err)
	}
	for _, o := range fresh(s.DeviceClasses) {
		_, err := c.ResourceV1().DeviceClasses().Create(ctx, o, co)
		mustCreate(t, "DeviceClass "+o.Name, err)
	}
	for _, o := range fresh(s.Nodes) {
		created, err := c.CoreV1().Nodes().Create(ctx, o, co)
		mustCreate(t, "Node "+o.Name, err)
		created.Status = o.Status
		_, err = c.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{})
		mustCreate(t, "Node status "+o.Name, err)
	}
	for _, o := range fresh(s.ResourceSlices) {
		_, err := c.ResourceV1().ResourceSlices().Create(ctx, o, co)
		mustCreate(t, "ResourceSlice "+o.Name, err)
	}
	for _, o := range fresh(s.ResourceClaimTemplates) {
		ns(o.Namespace)
		_, err := c.ResourceV1().ResourceClaimTemplates(o.Namespace).Create(ctx, o, co)
		mustCreate(t, "ResourceClaimTemplate "+o.Name, err)
	}
	for _, o := range fresh(s.PodDisruptionBudgets) {
		ns(o.Namespace)
		_, err := c.PolicyV1().PodDisruptionBudgets(o.Namespace).Create(ctx, o, co)
		mustCreate(t, "PodDisruptionBudget "+o.Name, err)
	}
	for _, o := range fresh(s.Deployments) {
		ns(o.Namespace)
		_, err := c.AppsV1().Deployments(o.Namespace).Create(ctx, o, co)
		mustCreate(t, "Deployment "+o.Name, err)
	}
	for _, o := range fresh(s.StatefulSets) {
		ns(o.Namespace)
		_, err := c.AppsV1().StatefulSets(o.Namespace).Create(ctx, o, co)
		mustCreate(t, "StatefulSet "+o.Name, err)
	}
	uids := map[types.UID]types.UID{}
	for i, o := range fresh(s.Pods) {
		ns(o.Namespace)
		created, err := c.CoreV1().Pods(o.Namespace).Create(ctx, o, co)
		mustCreate(t, "Pod "+o.Name, err)
		uids[s.Pods[i].UID] = created.UID
		if o.Status.Phase != "" {
			created.Status = o.Status
			_, err = c.CoreV1().Pods(o.Namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{})
			mustCreate(t, "Pod status "+o.Name, err)
		}
	}
	for _, o := range fresh(s.ResourceClaims) {
		for i := range o.OwnerReferences {
			o.OwnerReferences[i].UID = uids[o.OwnerReferences[i].UID]
		}
		status := o.Status
		created, err := c.ResourceV1().ResourceClaims(o.Namespace).Create(ctx, o, co)
		mustCreate(t, "ResourceClaim "+o.Name, err)
		for i := range status.ReservedFor {
			status.ReservedFor[i].UID = uids[status.ReservedFor[i].UID]
		}
		created.Status = status
		_, err = c.ResourceV1().ResourceClaims(o.Namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{})
		mustCreate(t, "ResourceClaim status "+o.Name, err)
	}
}

// fresh copies objects for creation: no resourceVersion, UID or creation
// time, which the API server sets.
func fresh[T interface {
	DeepCopy() T
	metav1.Object
}](list []T) []T {
	out := make([]T, len(list))
	for i, o := range list {
		o = o.DeepCopy()
		o.SetResourceVersion("")
		o.SetUID("")
		o.SetCreationTimestamp(metav1.Time{})
		out[i] = o
	}
	return out
}

func mustCreate(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating %s: %v", what, err)
	}
}

func decisions(t *testing.T, out string) map[string]string {
	t.Helper()
	var r result.Result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("decoding the result: %v\n%s", err, out)
	}
	m := map[string]string{}
	generated := map[string][]string{}
	for _, p := range r.Pods {
		d := p.Phase + " " + p.Node + " " + p.Message
		for _, c := range p.Claims {
			for _, dev := range c.Devices {
				d += " " + dev.Pool + "/" + dev.Device
			}
		}
		// The pods drasim makes for a Deployment are named after a hash of
		// its template, which the API server's defaults change: compare
		// them as a group.
		if rs, ok := strings.CutPrefix(p.Owner, "ReplicaSet/"); ok && templateHashed.MatchString(rs) {
			k := p.Namespace + "/" + templateHashed.FindStringSubmatch(rs)[1]
			generated[k] = append(generated[k], d)
			continue
		}
		m[p.Key()] = d
	}
	for k, list := range generated {
		sort.Strings(list)
		m["pods of Deployment "+k] = strings.Join(list, " | ")
	}
	return m
}

// templateHashed matches a ReplicaSet named <deployment>-<template hash>.
var templateHashed = regexp.MustCompile(`^(.*)-[bcdfghjklmnpqrstvwxz2456789]{10}$`)

// TestCaptureRealAPIServer creates the what-if test cluster in a real
// kube-apiserver and checks what users meet: capturing it and replaying
// the capture decides as replaying the files it was made from (and so
// does reading it live), and a user without permissions, an unreachable
// server and an unknown context each get an error that says so.
func TestCaptureRealAPIServer(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	srv := kubeapitest.Start(t, kubeapitest.Options{Users: []kubeapitest.User{{Name: "viewer", Token: "viewer-token"}}})
	files := []string{"../../../sim/whatif/testdata/cluster.yaml", "../../../sim/whatif/testdata/workloads.yaml"}
	res, err := load.Load(files, load.Options{KeepControllers: true})
	if err != nil {
		t.Fatal(err)
	}
	admin := kubernetes.NewForConfigOrDie(srv.Config())
	createSnapshot(t, admin, res.Snapshot)

	want := drasim(t, "", "simulate", "-f", files[0], "-f", files[1], "-o", "json")
	if want.code != ExitOK {
		t.Fatalf("simulate the files: exit %d, %s", want.code, want.stder)
	}
	dir := t.TempDir()
	dump := filepath.Join(dir, "capture.yaml")
	nodeGroups := "../../../sim/whatif/testdata/nodegroup.yaml"
	r := drasim(t, "", "capture", "--kubeconfig", srv.Kubeconfig, "--output-file", dump, "-f", nodeGroups)
	if r.code != ExitOK {
		t.Fatalf("capture: exit %d, stderr %s", r.code, r.stder)
	}
	data, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "managedFields") {
		t.Errorf("capture: want managedFields dropped, found them")
	}
	if !strings.Contains(string(data), "kind: NodeGroup") {
		t.Errorf("capture -f nodegroup.yaml: want the NodeGroup copied in")
	}
	got := drasim(t, "", "simulate", "-f", dump, "-o", "json")
	if got.code != ExitOK {
		t.Fatalf("simulate the capture: exit %d, %s", got.code, got.stder)
	}
	if diff := cmp.Diff(decisions(t, want.stdout), decisions(t, got.stdout)); diff != "" {
		t.Errorf("simulate of the capture vs of the files (-files +capture):\n%s", diff)
	}
	live := drasim(t, "", "simulate", "--kubeconfig", srv.Kubeconfig, "--context", "admin", "-o", "json")
	if live.code != ExitOK {
		t.Fatalf("simulate --kubeconfig: exit %d, %s", live.code, live.stder)
	}
	if diff := cmp.Diff(decisions(t, want.stdout), decisions(t, live.stdout)); diff != "" {
		t.Errorf("simulate live vs of the files (-files +live):\n%s", diff)
	}

	t.Run("namespace and selector", func(t *testing.T) {
		r := drasim(t, "", "capture", "--kubeconfig", srv.Kubeconfig, "-n", "default", "-l", "app=web")
		if r.code != ExitOK {
			t.Fatalf("exit %d, %s", r.code, r.stder)
		}
		for _, want := range []string{"name: web-a", "name: web-b", "kind: Node"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("want %q in the capture", want)
			}
		}
		for _, unwanted := range []string{"name: gpu-a", "name: db-0", "gpu-a-gpu-x7k2p", "name: one-gpu"} {
			if strings.Contains(r.stdout, unwanted) {
				t.Errorf("-l app=web: want no %q in the capture", unwanted)
			}
		}
	})

	t.Run("anonymize", func(t *testing.T) {
		anon := filepath.Join(dir, "anon.yaml")
		r := drasim(t, "", "capture", "--kubeconfig", srv.Kubeconfig, "--anonymize", "--output-file", anon)
		if r.code != ExitOK {
			t.Fatalf("exit %d, %s", r.code, r.stder)
		}
		data, _ := os.ReadFile(anon)
		for _, name := range []string{"web-a", "gpu-a", "n1", "db-0"} {
			if strings.Contains(string(data), "name: "+name+"\n") {
				t.Errorf("anonymized capture: %q is still named", name)
			}
		}
		res := drasim(t, "", "simulate", "-f", anon, "-o", "json")
		if res.code != ExitOK {
			t.Fatalf("simulate the anonymized capture: exit %d, %s", res.code, res.stder)
		}
		var before, after result.Result
		json.Unmarshal([]byte(got.stdout), &before)
		json.Unmarshal([]byte(res.stdout), &after)
		if before.Summary != after.Summary {
			t.Errorf("anonymized capture: want the same summary %+v, got %+v", before.Summary, after.Summary)
		}
	})

	t.Run("no permission", func(t *testing.T) {
		r := drasim(t, "", "capture", "--kubeconfig", srv.Kubeconfig, "--context", "viewer")
		want := `drasim: context viewer: listing nodes in all namespaces: forbidden: drasim capture needs get and list on the kinds it reads`
		if r.code != ExitFailure || !strings.Contains(r.stder, want) || !strings.Contains(r.stder, `User "viewer" cannot list resource "nodes"`) {
			t.Errorf("want exit 1 and %q with the server's words, got %d: %s", want, r.code, r.stder)
		}
		// Everything but claims: the error names the kind that is missing.
		role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "drasim-partial"}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"", "apps", "batch", "policy", "scheduling.k8s.io"}, Resources: []string{"*"}, Verbs: []string{"get", "list"}},
			{APIGroups: []string{"resource.k8s.io"}, Resources: []string{"deviceclasses", "resourceslices", "devicetaintrules", "resourceclaimtemplates"}, Verbs: []string{"get", "list"}},
		}}
		ctx := context.Background()
		if _, err := admin.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "drasim-partial"},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "drasim-partial"},
			Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "viewer"}}}
		if _, err := admin.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		// RBAC caches: the binding is in force within a moment.
		waitFor(t, func() bool {
			_, err := kubernetes.NewForConfigOrDie(srv.ConfigFor("viewer")).CoreV1().Nodes().List(ctx, metav1.ListOptions{})
			return err == nil
		})
		r = drasim(t, "", "report", "--kubeconfig", srv.Kubeconfig, "--context", "viewer")
		if r.code != ExitFailure || !strings.Contains(r.stder, "listing resourceclaims in all namespaces: forbidden") {
			t.Errorf("without claims: want exit 1 naming resourceclaims, got %d: %s", r.code, r.stder)
		}
	})

	t.Run("unreachable server", func(t *testing.T) {
		cfg := filepath.Join(dir, "unreachable")
		os.WriteFile(cfg, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: gone, context: {cluster: c, user: u}}]
current-context: gone
`), 0o600)
		r := drasim(t, "", "check", "--kubeconfig", cfg, "--gates", writeTemp(t, "g.yaml", "apiVersion: drasim.io/v1alpha1\nkind: Gates\ngates:\n- name: g\n  maxPendingPods: {max: 0}\n"))
		if r.code != ExitFailure || !strings.Contains(r.stder, "context gone: cannot reach the API server at https://127.0.0.1:1 (listing nodes)") {
			t.Errorf("want exit 1 saying the server cannot be reached, got %d: %s", r.code, r.stder)
		}
	})

	t.Run("unknown context", func(t *testing.T) {
		r := drasim(t, "", "autoscale", "--kubeconfig", srv.Kubeconfig, "--context", "prod")
		want := `drasim: kubeconfig ` + srv.Kubeconfig + `: no context "prod" (contexts: admin, viewer)`
		if r.code != ExitFailure || !strings.Contains(r.stder, want) {
			t.Errorf("want exit 1 and %q, got %d: %s", want, r.code, r.stder)
		}
	})

	t.Run("live and -f", func(t *testing.T) {
		r := drasim(t, "", "simulate", "--context", "admin", "--kubeconfig", srv.Kubeconfig, "-f", files[0])
		if r.code != ExitUsage || !strings.Contains(r.stder, "leave out -f") {
			t.Errorf("want a usage error, got %d: %s", r.code, r.stder)
		}
	})
}

// waitFor polls cond until it holds (RBAC caches need a moment).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within 30 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
