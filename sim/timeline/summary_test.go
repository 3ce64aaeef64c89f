package timeline

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
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

// TestGroupAtZeroStaysInTheSeries: testdata/scaleup.yaml's group gpu has
// no node at the start, one from 190s and none again after 1400s: every
// sample counts it, at 0 too, so that charts show it going down to 0.
func TestGroupAtZeroStaysInTheSeries(t *testing.T) {
	r := run(t, loadInput(t, "scaleup.yaml"), withAutoscaler(Options{}))
	var got []string
	for _, s := range r.Series {
		n := "absent"
		for _, g := range s.Nodes {
			if g.Group == "gpu" {
				n = fmt.Sprint(g.Nodes)
			}
		}
		if len(got) == 0 || got[len(got)-1] != n {
			got = append(got, n) // the changes only
		}
	}
	if want := []string{"0", "1", "0"}; !slices.Equal(got, want) {
		t.Errorf("group gpu in the series (changes): want %v, got %v", want, got)
	}
}
