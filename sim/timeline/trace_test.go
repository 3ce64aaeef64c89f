package timeline

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/drasim/drasim/sim/load"
	"github.com/drasim/drasim/sim/snapshot"
	"github.com/google/go-cmp/cmp"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

func traceFile(t *testing.T, name string) TraceFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return TraceFile{Name: name, Data: data}
}

func emptySnapshot() *snapshot.Snapshot {
	return &snapshot.Snapshot{Sources: map[snapshot.Ref]snapshot.Source{}}
}

// arrivalLine is what a test checks of an arrival.
type arrivalLine struct {
	Name     string
	At       time.Duration
	Duration time.Duration
	Endless  bool
	Priority int32
	Claims   string
}

func arrivalLines(a Arrivals) []arrivalLine {
	var out []arrivalLine
	for _, x := range a {
		var claims []string
		for _, c := range x.Pod.Spec.ResourceClaims {
			claims = append(claims, c.Name+"="+*c.ResourceClaimTemplateName)
		}
		out = append(out, arrivalLine{Name: x.Pod.Name, At: x.At, Duration: x.Duration, Endless: x.Endless, Priority: corev1helpers.PodPriority(x.Pod), Claims: strings.Join(claims, ",")})
	}
	return out
}

// TestTraceHandComputed: testdata/trace.csv on testdata/queue.yaml's node.
func TestTraceHandComputed(t *testing.T) {
	res, err := load.Load([]string{"testdata/queue.yaml"}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap := *res.Snapshot
	snap.Pods, snap.Jobs = nil, nil // the trace brings the pods
	in, err := Prepare(&snap, nil, []TraceFile{traceFile(t, "trace.csv")})
	if err != nil {
		t.Fatal(err)
	}
	want := []arrivalLine{
		{Name: "train-0", Duration: 10 * time.Minute, Claims: "devices=one-gpu"},
		{Name: "train-1", Duration: 10 * time.Minute, Claims: "devices=one-gpu"},
		{Name: "infer-0", At: 30 * time.Second, Duration: 5 * time.Minute, Priority: 100},
		{Name: "web-0", At: time.Minute, Endless: true},
		{Name: "web-1", At: time.Minute, Endless: true},
		{Name: "web-2", At: time.Minute, Endless: true},
	}
	want[2].Claims = "devices=" + *in.Arrivals[2].Pod.Spec.ResourceClaims[0].ResourceClaimTemplateName
	if diff := cmp.Diff(want, arrivalLines(in.Arrivals)); diff != "" {
		t.Errorf("arrivals (-want +got):\n%s", diff)
	}
	// By hand: train-0/1 take the two GPUs at 0s; infer-0 (one GPU, made
	// from devices=1) waits from 30s, is tried again by the 5-minute flush
	// (at the 330s tick), and is bound when the GPUs come free at 600s;
	// the CPU pods are bound when they arrive.
	r := run(t, in, Options{})
	got := lines(r)
	wantLines := map[string]podLine{
		"train-0": {Bound: "0", Finished: "600", Attempts: 1},
		"train-1": {Bound: "0", Finished: "600", Attempts: 1},
		"infer-0": {Bound: "600", Finished: "900", Attempts: 3, Wait: 570},
		"web-0":   {Bound: "60", Finished: "-", Attempts: 1},
		"web-1":   {Bound: "60", Finished: "-", Attempts: 1},
		"web-2":   {Bound: "60", Finished: "-", Attempts: 1},
	}
	if diff := cmp.Diff(wantLines, got); diff != "" {
		t.Errorf("pods (-want +got):\n%s", diff)
	}
	for _, p := range r.Pods {
		if p.Workload != strings.TrimRight(p.Name, "-0123456789") {
			t.Errorf("pod %s: workload %q, want the trace's workload", p.Name, p.Workload)
		}
	}
}

// TestOpenbHandComputed: testdata/openb/README.md works the sample out.
func TestOpenbHandComputed(t *testing.T) {
	in, err := Prepare(emptySnapshot(), nil, []TraceFile{traceFile(t, "openb/openb_node_list_small.csv"), traceFile(t, "openb/openb_pod_list_small.csv")})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(in.Snapshot.Nodes); got != 3 {
		t.Fatalf("%d nodes, want 3", got)
	}
	if got := len(in.Snapshot.ResourceSlices); got != 2 {
		t.Errorf("%d ResourceSlices, want 2 (the CPU node has none)", got)
	}
	want := []arrivalLine{
		{Name: "openb-pod-0001", Duration: 600 * time.Second, Priority: -1, Claims: "gpus=openb-1x500-v100m16"},
		{Name: "openb-pod-0002", At: 10 * time.Second, Duration: 900 * time.Second, Priority: 100, Claims: "gpus=openb-1x500-v100m16"},
		{Name: "openb-pod-0003", At: 20 * time.Second, Duration: 1190 * time.Second, Claims: "gpus=openb-2x1000-v100m32"},
		{Name: "openb-pod-0004", At: 30 * time.Second, Endless: true, Priority: 100},
		{Name: "openb-pod-0005", At: 40 * time.Second, Duration: 240 * time.Second, Priority: 100, Claims: "gpus=openb-1x1000-v100m16-v100m32"},
	}
	if diff := cmp.Diff(want, arrivalLines(in.Arrivals)); diff != "" {
		t.Errorf("arrivals (-want +got):\n%s", diff)
	}
	r := run(t, in, Options{})
	devices := map[string]string{}
	for _, p := range r.Pods {
		if p.Wait != 0 || p.Bound == nil {
			t.Errorf("pod %s: bound %v after waiting %v, want bound when it arrives", p.Name, secs(p.Bound), p.Wait)
		}
		d := append([]string(nil), p.Devices...)
		sort.Strings(d)
		devices[p.Name] = strings.Join(d, " ")
	}
	wantDevices := map[string]string{
		"openb-pod-0001": "openb.alibaba.com/openb-node-0002/gpu-0",
		"openb-pod-0002": "openb.alibaba.com/openb-node-0002/gpu-0",
		"openb-pod-0003": "openb.alibaba.com/openb-node-0003/gpu-0 openb.alibaba.com/openb-node-0003/gpu-1",
		"openb-pod-0004": "",
		"openb-pod-0005": "openb.alibaba.com/openb-node-0002/gpu-1",
	}
	if diff := cmp.Diff(wantDevices, devices); diff != "" {
		t.Errorf("devices (-want +got):\n%s", diff)
	}
}

// TestTraceErrors: every problem names the file, the line and the column.
func TestTraceErrors(t *testing.T) {
	for _, tc := range []struct {
		name, csv string
		want      []string
	}{
		{name: "missing columns", csv: "workload,cpu\nx,1\n", want: []string{"t.csv: the header lacks column(s) arrival"}},
		{name: "bad times", csv: "arrival,workload,duration\nsoon,a,1m\n5m,b,-3\n", want: []string{
			`t.csv:2: column arrival: "soon" is neither a duration`, `t.csv:3: column duration: "-3" is negative`}},
		{name: "bad name", csv: "arrival,workload\n0,Big_Name\n", want: []string{`t.csv:2: column workload: "Big_Name" is not a valid name`}},
		{name: "unknown template", csv: "arrival,workload,claim_template\n0,a,nope\n", want: []string{"t.csv:2: column claim_template: ResourceClaimTemplate default/nope is not in the snapshot"}},
		{name: "unknown class", csv: "arrival,workload,devices,device_class\n0,a,2,nope\n", want: []string{"t.csv:2: column device_class: DeviceClass nope is not in the snapshot"}},
		{name: "template and devices", csv: "arrival,workload,claim_template,devices\n0,a,x,1\n", want: []string{"t.csv:2: column claim_template: give a claim template or a device count, not both"}},
		{name: "replicas", csv: "arrival,workload,replicas\n0,a,0\n", want: []string{`t.csv:2: column replicas: "0": want a whole number from 1 to 10000`}},
		{name: "openb gpu_milli", csv: "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time\np-1,1000,1024,1,0,5\n", want: []string{"t.csv:2: column gpu_milli: 0: want 1 to 1000 milli-GPUs per GPU"}},
		{name: "openb deletion before creation", csv: "name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time\np-1,1000,1024,0,0,50,10\n", want: []string{"t.csv:2: column deletion_time: 10 is before the pod was created or scheduled (50)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Prepare(emptySnapshot(), nil, []TraceFile{{Name: "t.csv", Data: []byte(tc.csv)}})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestSnapshotArrivalErrors: a bad annotation names the file, the pod and
// the annotation.
func TestSnapshotArrivalErrors(t *testing.T) {
	data := []byte(`apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: default
  annotations: {drasim.io/arrival: tomorrow}
spec:
  containers: [{name: c, image: x}]
`)
	res, err := load.LoadBytes("pods.yaml", data, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Prepare(res.Snapshot, nil, nil)
	want := `pods.yaml:1 (document 1): Pod "default/p": metadata.annotations[drasim.io/arrival]: "tomorrow" is neither a duration`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to contain %q", err, want)
	}
}
