package kubeapitest_test

import (
	"context"
	"testing"

	"github.com/drasim/drasim/internal/kubeapitest"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// TestStart starts a server and checks what tests rely on: the admin may do
// anything, a user without role bindings is refused by RBAC, and the
// kubeconfig names a context per user.
func TestStart(t *testing.T) {
	s := kubeapitest.Start(t, kubeapitest.Options{Users: []kubeapitest.User{{Name: "nobody", Token: "nobody-token"}}})
	ctx := context.Background()

	admin := kubernetes.NewForConfigOrDie(s.Config())
	ns := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}
	if _, err := admin.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("admin creating a namespace: want success, got %v", err)
	}

	nobody := kubernetes.NewForConfigOrDie(s.ConfigFor("nobody"))
	_, err := nobody.CoreV1().Pods("team-a").List(ctx, metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("user without role bindings listing pods: want Forbidden, got %v", err)
	}

	cfg, err := clientcmd.LoadFromFile(s.Kubeconfig)
	if err != nil {
		t.Fatalf("loading %s: %v", s.Kubeconfig, err)
	}
	if cfg.CurrentContext != "admin" || cfg.Contexts["nobody"] == nil {
		t.Errorf("kubeconfig: want current context admin and a context nobody, got current %q and contexts %v", cfg.CurrentContext, cfg.Contexts)
	}
	rc, err := clientcmd.NewNonInteractiveClientConfig(*cfg, "", &clientcmd.ConfigOverrides{}, nil).ClientConfig()
	if err != nil {
		t.Fatalf("client config from %s: %v", s.Kubeconfig, err)
	}
	if _, err := kubernetes.NewForConfigOrDie(rc).CoreV1().Namespaces().Get(ctx, "team-a", metav1.GetOptions{}); err != nil {
		t.Errorf("admin through the kubeconfig: want namespace team-a, got %v", err)
	}
}
