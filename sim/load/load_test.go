package load

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drasim/drasim/sim/kube"
	"github.com/google/go-cmp/cmp"
	resourceapi "k8s.io/api/resource/v1"
)

func mustLoad(t *testing.T, yaml string) *Result {
	t.Helper()
	res, err := LoadBytes("test.yaml", []byte(yaml), Options{})
	if err != nil {
		t.Fatalf("LoadBytes: unexpected error: %v", err)
	}
	return res
}

func loadErrors(t *testing.T, yaml string, opts Options) Errors {
	t.Helper()
	_, err := LoadBytes("test.yaml", []byte(yaml), opts)
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("want load.Errors, got %v", err)
	}
	return errs
}

func TestMultiDocumentAndLists(t *testing.T) {
	res := mustLoad(t, `
apiVersion: v1
kind: Node
metadata: {name: a}
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: b}
- apiVersion: v1
  kind: Pod
  metadata: {name: p}
  spec: {containers: [{name: c, image: x}]}
---
# an empty document after a separator is fine
---
{"apiVersion": "v1", "kind": "PodList", "items": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "q", "namespace": "ns"}, "spec": {"containers": [{"name": "c"}]}}]}
`)
	s := res.Snapshot
	var nodes, pods []string
	for _, n := range s.Nodes {
		nodes = append(nodes, n.Name)
	}
	for _, p := range s.Pods {
		pods = append(pods, p.Namespace+"/"+p.Name)
	}
	if diff := cmp.Diff([]string{"a", "b"}, nodes); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"default/p", "ns/q"}, pods); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	src := s.Sources[refOf("Pod", "default", "p")]
	if src.Doc != 1 || src.Item != 1 || src.Line != 12 {
		t.Errorf("source of pod p: want document index 1, item 1, line 12; got %+v", src)
	}
}

func TestV1beta1Conversion(t *testing.T) {
	res := mustLoad(t, `
apiVersion: resource.k8s.io/v1beta1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    basic:
      attributes:
        model: {string: h100}
      capacity:
        memory: {value: 80Gi}
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaimTemplate
metadata: {name: t}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        deviceClassName: gpu.example.com
        count: 2
      - name: alt
        firstAvailable:
        - {name: big, deviceClassName: gpu.example.com}
`)
	s := res.Snapshot
	dev := s.ResourceSlices[0].Spec.Devices[0]
	if got := *dev.Attributes["model"].StringValue; got != "h100" {
		t.Errorf("converted device attribute model: want h100, got %q", got)
	}
	if q := dev.Capacity["memory"].Value; q.String() != "80Gi" {
		got := q.String()
		t.Errorf("converted device capacity: want 80Gi, got %s", got)
	}
	reqs := s.ResourceClaimTemplates[0].Spec.Spec.Devices.Requests
	want := &resourceapi.ExactDeviceRequest{DeviceClassName: "gpu.example.com", AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 2}
	if diff := cmp.Diff(want, reqs[0].Exactly); diff != "" {
		t.Errorf("converted request (-want +got):\n%s", diff)
	}
	sub := reqs[1].FirstAvailable[0]
	if sub.AllocationMode != resourceapi.DeviceAllocationModeExactCount || sub.Count != 1 {
		t.Errorf("subrequest defaults: want ExactCount/1, got %s/%d", sub.AllocationMode, sub.Count)
	}
}

func TestRejectsWithPreciseMessages(t *testing.T) {
	tests := []struct {
		name  string
		yaml  string
		opts  Options
		wants []string // substrings of the one error
	}{
		{
			name:  "v1alpha3 is unsupported",
			yaml:  "apiVersion: resource.k8s.io/v1alpha3\nkind: ResourceClaim\nmetadata: {name: c}\n",
			wants: []string{"test.yaml:1 (document 1)", `ResourceClaim "c"`, "apiVersion", "v1alpha3 is not supported", "resource.k8s.io/v1"},
		},
		{
			name:  "basic wrapper under v1",
			yaml:  "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n  driver: d\n  pool: {name: p, resourceSliceCount: 1}\n  allNodes: true\n  devices:\n  - name: a\n    basic: {}\n",
			wants: []string{`ResourceSlice "s"`, "spec.devices[0].basic", "v1beta1"},
		},
		{
			name:  "wrong type names the field",
			yaml:  "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus:\n  allocatable: [1, 2]\n",
			wants: []string{`Node "n"`, "status.allocatable", "expected a map, found a JSON array"},
		},
		{
			name:  "duplicate objects",
			yaml:  "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n}\n",
			wants: []string{"document 2", `Node "n"`, "duplicate object", "document 1"},
		},
		{
			name:  "missing name",
			yaml:  "apiVersion: v1\nkind: Pod\nmetadata: {generateName: web-}\nspec: {containers: [{name: c}]}\n",
			wants: []string{"metadata.name", "generateName"},
		},
		{
			name:  "case-sensitive field names",
			yaml:  "apiversion: v1\nkind: Pod\nmetadata: {name: p}\n",
			wants: []string{"apiVersion", `found "apiversion"`},
		},
		{
			name:  "unknown field is an error with --strict",
			yaml:  "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nspec: {colour: blue}\n",
			opts:  Options{Strict: true},
			wants: []string{`Node "n"`, `unknown field "spec.colour"`},
		},
		{
			name:  "not YAML",
			yaml:  "apiVersion: v1\nkind: Node\nmetadata: {name: [\n",
			wants: []string{"test.yaml", "not valid YAML or JSON"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := loadErrors(t, tt.yaml, tt.opts)
			msg := errs.Error()
			for _, want := range tt.wants {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not mention %q", msg, want)
				}
			}
		})
	}
}

func TestUnknownFieldIsAWarningByDefault(t *testing.T) {
	res := mustLoad(t, "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nspec: {colour: blue}\n")
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Message, `unknown field "spec.colour"`) {
		t.Errorf("want one unknown-field warning, got %v", res.Warnings)
	}
}

func TestSkipsUnmodelledKindsOnceEach(t *testing.T) {
	res := mustLoad(t, `
apiVersion: v1
kind: ConfigMap
metadata: {name: a}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: b}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: r}
`)
	if diff := cmp.Diff(map[string]int{"v1/ConfigMap": 2, "rbac.authorization.k8s.io/v1/ClusterRole": 1}, res.Snapshot.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if len(res.Warnings) != 2 {
		t.Errorf("want one warning per skipped kind (2), got %d: %v", len(res.Warnings), res.Warnings)
	}
}

func TestDefaultsPodRequestsFromLimits(t *testing.T) {
	res := mustLoad(t, `
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  hostNetwork: true
  containers:
  - name: c
    ports: [{containerPort: 8080}]
    resources:
      limits: {cpu: "2", memory: 1Gi}
      requests: {cpu: "1"}
`)
	c := res.Snapshot.Pods[0].Spec.Containers[0]
	if got := c.Resources.Requests.Cpu().String(); got != "1" {
		t.Errorf("explicit cpu request must stay: want 1, got %s", got)
	}
	if got := c.Resources.Requests.Memory().String(); got != "1Gi" {
		t.Errorf("memory request defaults to the limit: want 1Gi, got %s", got)
	}
	if c.Ports[0].HostPort != 8080 || c.Ports[0].Protocol != "TCP" {
		t.Errorf("host network port defaults: want hostPort 8080/TCP, got %d/%s", c.Ports[0].HostPort, c.Ports[0].Protocol)
	}
}

const workloads = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: x}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 2
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: db-0
  ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, uid: u, controller: true}]
spec: {nodeName: n1, containers: [{name: c}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: train}
spec:
  parallelism: 4
  completions: 6
  template: {spec: {restartPolicy: Never, containers: [{name: c}]}}
status: {succeeded: 3}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      nodeSelector: {gpu: "true"}
      containers: [{name: c}]
---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {gpu: "true"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
---
apiVersion: v1
kind: Node
metadata: {name: n3, labels: {gpu: "true"}}
spec: {taints: [{key: dedicated, value: x, effect: NoSchedule}]}
`

func TestWorkloadExpansion(t *testing.T) {
	res := mustLoad(t, workloads)
	count := map[string]int{}
	for _, p := range res.Snapshot.Pods {
		owner := "bare"
		if len(p.OwnerReferences) > 0 {
			owner = p.OwnerReferences[0].Kind
		}
		count[owner]++
	}
	// Deployment: 3 via its ReplicaSet; StatefulSet: db-1 only (db-0 exists);
	// Job: min(4, 6-3) = 3; DaemonSet: n1 only (n2 not selected, n3 tainted).
	want := map[string]int{"ReplicaSet": 3, "StatefulSet": 2, "Job": 3, "DaemonSet": 1}
	if diff := cmp.Diff(want, count); diff != "" {
		t.Errorf("pods by owner kind (-want +got):\n%s", diff)
	}
	// Names are deterministic.
	first := names(res)
	second := names(mustLoad(t, workloads))
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("generated names differ between two loads (-first +second):\n%s", diff)
	}
}

// TestExpandMatchesLoad: loading with KeepControllers and then Expand on a
// copy gives the pods a plain load gives, and leaves the kept snapshot as
// it was.
func TestExpandMatchesLoad(t *testing.T) {
	kept, err := LoadBytes("test.yaml", []byte(workloads), Options{KeepControllers: true})
	if err != nil {
		t.Fatal(err)
	}
	before := len(kept.Snapshot.Pods)
	expanded := kept.Snapshot.Copy()
	if _, err := kube.Expand(expanded); err != nil {
		t.Fatalf("Expand: want no error, got %v", err)
	}
	if diff := cmp.Diff(names(mustLoad(t, workloads)), names(&Result{Snapshot: expanded})); diff != "" {
		t.Errorf("pods after Expand (-load +expand):\n%s", diff)
	}
	if len(kept.Snapshot.Pods) != before {
		t.Errorf("Expand on a copy changed the original: %d pods, want %d", len(kept.Snapshot.Pods), before)
	}
}

func names(r *Result) []string {
	var out []string
	for _, p := range r.Snapshot.Pods {
		out = append(out, p.Namespace+"/"+p.Name)
	}
	return out
}

func TestDirectoriesAreWalkedInOrder(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b/nodes.yml", "apiVersion: v1\nkind: Node\nmetadata: {name: from-b}\n")
	write("a.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: from-a}\n")
	write("c.json", `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "from-c"}}`)
	write("notes.txt", "not a manifest")
	res, err := Load([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range res.Snapshot.Nodes {
		got = append(got, n.Name)
	}
	if diff := cmp.Diff([]string{"from-a", "from-b", "from-c"}, got); diff != "" {
		t.Errorf("nodes in file order (-want +got):\n%s", diff)
	}
	if _, err := Load([]string{filepath.Join(dir, "missing.yaml")}, Options{}); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a missing file must be an error naming it, got %v", err)
	}
}

func TestStdin(t *testing.T) {
	res, err := Load([]string{"-"}, Options{Stdin: strings.NewReader("apiVersion: v1\nkind: Node\nmetadata: {name: n}\n")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Snapshot.Nodes) != 1 || res.Snapshot.Sources[refOf("Node", "", "n")].File != "<stdin>" {
		t.Errorf("want node n read from <stdin>, got %d nodes, source %+v", len(res.Snapshot.Nodes), res.Snapshot.Sources)
	}
}
