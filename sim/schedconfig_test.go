package sim_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim"
	"github.com/drasim/drasim/sim/load"
	"github.com/google/go-cmp/cmp"
)

// twoNodes: a small node and a big one, and one pod. LeastAllocated (kube's
// default) spreads it to the emptier big node; MostAllocated packs it on
// the small one.
const twoNodes = `
apiVersion: v1
kind: Node
metadata: {name: small, labels: {kubernetes.io/hostname: small}}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata: {name: big, labels: {kubernetes.io/hostname: big}}
status:
  allocatable: {cpu: "64", memory: 256Gi, pods: "110"}
  capacity: {cpu: "64", memory: 256Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, resources: {requests: {cpu: "1", memory: 1Gi}}}]
`

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sched.yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func placeOn(t *testing.T, opts sim.Options) string {
	t.Helper()
	res, err := load.LoadBytes("two.yaml", []byte(twoNodes), load.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	run, err := sim.Simulate(context.Background(), res.Snapshot, opts)
	if err != nil {
		t.Fatal(err)
	}
	return run.Result.Pods[0].Node
}

func TestSchedulerConfig(t *testing.T) {
	if got := placeOn(t, sim.Options{}); got != "big" {
		t.Fatalf("default LeastAllocated: want the pod on big, got %q", got)
	}
	cfg, err := sim.LoadSchedulerConfig(writeConfig(t, `
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 50
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled: [{name: NodeResourcesBalancedAllocation}]
      enabled: [{name: TaintToleration, weight: 5}]
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]bool{"NodeResourcesBalancedAllocation": true}, cfg.Disabled); diff != "" {
		t.Errorf("disabled plugins (-want +got):\n%s", diff)
	}
	if cfg.Weights["TaintToleration"] != 5 || cfg.PercentageOfNodesToScore != 50 {
		t.Errorf("weights %v, percentage %d: want TaintToleration 5 and 50", cfg.Weights, cfg.PercentageOfNodesToScore)
	}
	if got := placeOn(t, sim.Options{Plugins: cfg}); got != "small" {
		t.Errorf("MostAllocated: want the pod on small, got %q", got)
	}
}

func TestSchedulerConfigErrors(t *testing.T) {
	for name, body := range map[string]string{
		"wrong kind":         "apiVersion: kubescheduler.config.k8s.io/v1\nkind: Pod\n",
		"old apiVersion":     "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
		"unknown field":      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofilez: []\n",
		"no default profile": "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: [{schedulerName: other}]\n",
	} {
		t.Run(name, func(t *testing.T) {
			path := writeConfig(t, body)
			_, err := sim.LoadSchedulerConfig(path)
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Errorf("want an error naming %s, got %v", path, err)
			}
		})
	}
}
