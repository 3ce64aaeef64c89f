package generate

import (
	"bytes"
	"testing"
	"time"
)

func TestGenerateTrace(t *testing.T) {
	opts := TraceOptions{Seed: 3, Arrivals: 5000, DailyCycle: 0.8}
	rows, err := GenerateTrace(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5000 {
		t.Fatalf("%d rows, want 5000", len(rows))
	}
	// Exact apportionment of the default mix 5:1:2:2.
	counts := map[string]int{}
	busy, quiet := 0, 0
	for i, r := range rows {
		counts[r.Workload]++
		if i > 0 && r.Arrival < rows[i-1].Arrival {
			t.Fatalf("row %d arrives before row %d", i, i-1)
		}
		if r.Arrival < 0 || r.Arrival >= 24*time.Hour {
			t.Fatalf("row %d arrives at %s, outside the horizon", i, r.Arrival)
		}
		if r.Duration <= 0 || r.Duration > runTimes[r.Workload].max {
			t.Errorf("row %d (%s) runs %s", i, r.Workload, r.Duration)
		}
		if (r.Template == "") != (r.Workload == WorkloadCPU) {
			t.Errorf("row %d (%s) has claim template %q", i, r.Workload, r.Template)
		}
		// 08:00-20:00 is the busy half of the cycle (sin > 0).
		if h := r.Arrival.Hours(); h >= 8 && h < 20 {
			busy++
		} else {
			quiet++
		}
	}
	want := map[string]int{WorkloadInference: 2500, WorkloadTraining: 500, WorkloadMIG: 1000, WorkloadCPU: 1000}
	for w, n := range want {
		if counts[w] != n {
			t.Errorf("%d %s pods, want %d", counts[w], w, n)
		}
	}
	// With amplitude 0.8, the busy half holds (1 + 0.8·2/π)/2 ≈ 75% of
	// the arrivals.
	if share := float64(busy) / float64(busy+quiet); share < 0.70 || share > 0.80 {
		t.Errorf("the busy half holds %.1f%% of the arrivals, want about 75%%", 100*share)
	}
	var a, b bytes.Buffer
	if err := WriteTraceCSV(&a, rows, "x"); err != nil {
		t.Fatal(err)
	}
	again, _ := GenerateTrace(opts)
	if err := WriteTraceCSV(&b, again, "x"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("the same options wrote different traces")
	}
}

func TestTraceOptionsValidate(t *testing.T) {
	for _, o := range []TraceOptions{{Arrivals: -1}, {Arrivals: 1, DailyCycle: 1.5}, {Arrivals: 1, Horizon: -time.Hour}, {Arrivals: 1, Workloads: map[string]int{"gpu": 1}}} {
		if err := o.Validate(); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}
