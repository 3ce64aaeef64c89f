package app

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/drasim/drasim/internal/kubeapitest"
	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestSweepJobPassesServerSideValidation sends the objects drasim sweep job
// writes to a real kube-apiserver v1.37.2 with dryRun=All, which runs
// defaulting, validation and admission without storing them, as kubectl
// apply --dry-run=server does: the ConfigMap and Job of both layouts
// (ConfigMap and emptyDir; volumes) are accepted, and a Job broken on
// purpose is not, so the server did validate.
func TestSweepJobPassesServerSideValidation(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	server := kubeapitest.Start(t, kubeapitest.Options{})
	client := kubernetes.NewForConfigOrDie(server.Config())
	ctx := context.Background()
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	path := sweepDir(t, expanderSweep)

	for _, tc := range []struct {
		name string
		args []string
	}{
		{"configmap and emptyDir", []string{"--completions", "4", "--parallelism", "2", "--workers", "2"}},
		{"volumes", []string{"--completions", "12", "--inputs-pvc", "sweep-inputs", "--results-pvc", "sweep-results", "--memory", "1Gi", "--active-deadline", "2h", "--image-pull-policy", "IfNotPresent", "--namespace", "default"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cm, job, _ := jobObjects(t, append([]string{path, "--image", "registry.example.com/drasim:v0.1"}, tc.args...)...)
			if cm != nil {
				if _, err := client.CoreV1().ConfigMaps("default").Create(ctx, cm, dryRun); err != nil {
					t.Errorf("ConfigMap %s: want it accepted, got %v", cm.Name, err)
				}
			}
			got, err := client.BatchV1().Jobs("default").Create(ctx, job, dryRun)
			if err != nil {
				t.Fatalf("Job %s: want it accepted, got %v", job.Name, err)
			}
			if *got.Spec.CompletionMode != batchv1.IndexedCompletion || *got.Spec.Completions != *job.Spec.Completions {
				t.Errorf("the server's Job: want Indexed with %d completions, got %v and %d", *job.Spec.Completions, *got.Spec.CompletionMode, *got.Spec.Completions)
			}
			if _, err := client.BatchV1().Jobs("default").Get(ctx, job.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("a dry run must store nothing: want NotFound, got %v", err)
			}
		})
	}

	// What a user pipes: drasim sweep job's whole standard output (its
	// comment lines included) through kubectl apply --dry-run=server.
	// kubectl is not part of CI's tools; where it is installed, it runs.
	t.Run("kubectl apply --dry-run=server", func(t *testing.T) {
		kubectl, err := exec.LookPath("kubectl")
		if err != nil {
			t.Skip("kubectl is not on PATH")
		}
		_, _, text := jobObjects(t, path, "--image", "registry.example.com/drasim:v0.1", "--completions", "3", "--namespace", "default")
		cmd := exec.Command(kubectl, "--kubeconfig", server.Kubeconfig, "apply", "--dry-run=server", "-f", "-")
		cmd.Stdin = strings.NewReader(text)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl apply --dry-run=server: %v\n%s", err, out)
		}
		for _, want := range []string{"configmap/expanders-inputs created (server dry run)", "job.batch/expanders created (server dry run)"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("kubectl apply --dry-run=server: want %q, got\n%s", want, out)
			}
		}
	})

	_, job, _ := jobObjects(t, path, "--image", "drasim:test", "--completions", "2")
	job.Spec.Template.Spec.RestartPolicy = "Always" // a Job's pods may not restart always
	_, err := client.BatchV1().Jobs("default").Create(ctx, job, dryRun)
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "restartPolicy") {
		t.Errorf("a Job with restartPolicy Always: want it refused as invalid, got %v", err)
	}
}
