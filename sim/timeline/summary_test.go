package timeline

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/drasim/drasim/sim/load"
)

// TestNeverPlacedWorkloadHasNoWait: a workload none of whose pods was
// placed has no waiting time to show: its percentiles are null, not 0s,
// and a maxWait measure of it says nothing was placed.
func TestNeverPlacedWorkloadHasNoWait(t *testing.T) {
	res, err := load.Load([]string{filepath.Join("testdata", "queue.yaml")}, load.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	// Four GPUs on a node of two: never placed.
	trace := "arrival,workload,replicas,cpu,memory,claim_template,devices,device_class,duration,priority\n" +
		"1m,huge,1,1,1Gi,,4,gpu.example.com,10m,0\n"
	in, err := Prepare(res.Snapshot, res.Files, []TraceFile{{Name: "huge.csv", Data: []byte(trace)}})
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, in, Options{})
	var huge *WaitRow
	for i := range r.Summary.ByWorkload {
		if r.Summary.ByWorkload[i].Workload == "huge" {
			huge = &r.Summary.ByWorkload[i]
		}
	}
	if huge == nil || huge.NeverPlaced != 1 || huge.Pods != 0 {
		t.Fatalf("workload huge: want a row with 1 pod never placed and none placed, got %+v", huge)
	}
	data, err := json.Marshal(huge)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"p50", "p95", "p99", "max", "mean"} {
		if !strings.Contains(string(data), `"`+f+`":null`) {
			t.Errorf("workload huge's %s: want null in JSON, got %s", f, data)
		}
	}
	if _, placed, known := r.Measures().Wait(95, "huge", nil); placed || !known {
		t.Errorf("Wait(95, huge): want known and nothing placed, got placed=%v known=%v", placed, known)
	}
	if _, _, known := r.Measures().Wait(95, "nope", nil); known {
		t.Errorf("Wait(95, nope): want an unknown workload")
	}
	if w, placed, _ := r.Measures().Wait(100, "", nil); !placed || w != 10*time.Minute {
		t.Errorf("Wait(100) of all pods: want 10m placed, got %v placed=%v", w, placed)
	}
}
