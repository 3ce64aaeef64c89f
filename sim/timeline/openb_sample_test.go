package timeline

import (
	"encoding/csv"

	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// openbRows reads a CSV of testdata/openb by column name.
func openbRows(t *testing.T, name string) []map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "openb", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]string
	for _, rec := range recs[1:] {
		row := map[string]string{}
		for i, col := range recs[0] {
			row[col] = rec[i]
		}
		rows = append(rows, row)
	}
	return rows
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestOpenbSample runs rows of the published trace (testdata/openb/README.md):
// every pod arrives at its creation time, runs from its scheduling to its
// deletion, gets num_gpu GPUs of a model gpu_spec names, and no GPU ever
// holds more than 1000 milli-GPUs. The 149 days take the steps their
// horizon calls for, not 5 minutes.
func TestOpenbSample(t *testing.T) {
	in, err := Prepare(emptySnapshot(), nil, []TraceFile{traceFile(t, "openb/openb_node_list_gpu_node.sample.csv"), traceFile(t, "openb/openb_pod_list_default.sample.csv")})
	if err != nil {
		t.Fatal(err)
	}
	nodes, pods := openbRows(t, "openb_node_list_gpu_node.sample.csv"), openbRows(t, "openb_pod_list_default.sample.csv")
	if len(in.Snapshot.Nodes) != len(nodes) || len(in.Arrivals) != len(pods) {
		t.Fatalf("%d nodes and %d arrivals, want the sample's %d and %d", len(in.Snapshot.Nodes), len(in.Arrivals), len(nodes), len(pods))
	}
	model := map[string]string{}
	for _, n := range nodes {
		model[n["sn"]] = n["model"]
	}
	start := int64(-1)
	for _, p := range pods {
		if c := atoi(t, p["creation_time"]); start < 0 || c < start {
			start = c
		}
	}
	byName := map[string]map[string]string{}
	for _, p := range pods {
		byName[p["name"]] = p
	}
	for _, a := range in.Arrivals {
		p := byName[a.Pod.Name]
		if want := time.Duration(atoi(t, p["creation_time"])-start) * time.Second; a.At != want {
			t.Errorf("pod %s arrives at %s, want its creation time %s", a.Pod.Name, a.At, want)
		}
		if p["deletion_time"] == "" {
			if !a.Endless {
				t.Errorf("pod %s runs %s, want for ever (no deletion time)", a.Pod.Name, a.Duration)
			}
			continue
		}
		from := atoi(t, p["creation_time"])
		if s := p["scheduled_time"]; s != "" && atoi(t, s) > 0 {
			from = atoi(t, s)
		}
		if want := time.Duration(atoi(t, p["deletion_time"])-from) * time.Second; a.Endless || a.Duration != want {
			t.Errorf("pod %s runs %s (endless %v), want deletion − scheduling, %s", a.Pod.Name, a.Duration, a.Endless, want)
		}
	}

	r := run(t, in, Options{FragmentationEvery: FragmentationAuto})
	if got, want := []Seconds{r.Inputs.Resolution, r.Inputs.FragmentationEvery}, []Seconds{7200, 86400}; got[0] != want[0] || got[1] != want[1] {
		t.Errorf("resolution and fragmentation every %v s, want %v for 149 days", got, want)
	}
	// Each device's use over time: +milli when a pod is bound, −milli
	// when it finishes; at no moment above 1000.
	type change struct {
		at    Seconds
		milli int64
	}
	use := map[string][]change{}
	placed := 0
	for _, rec := range r.Pods {
		p := byName[rec.Name]
		if rec.Bound == nil {
			continue
		}
		placed++
		gpus, milli := atoi(t, p["num_gpu"]), atoi(t, p["gpu_milli"])
		if int64(len(rec.Devices)) != gpus {
			t.Errorf("pod %s holds %d devices %v, want num_gpu %d", rec.Name, len(rec.Devices), rec.Devices, gpus)
		}
		if spec := p["gpu_spec"]; gpus > 0 && spec != "" && !strings.Contains("|"+spec+"|", "|"+model[rec.Node]+"|") {
			t.Errorf("pod %s asks for %s and runs on %s, a %s", rec.Name, spec, rec.Node, model[rec.Node])
		}
		for _, d := range rec.Devices {
			use[d] = append(use[d], change{*rec.Bound, milli})
			if rec.Finished != nil {
				use[d] = append(use[d], change{*rec.Finished, -milli})
			}
		}
	}
	if placed < len(pods)*9/10 {
		t.Errorf("%d of %d pods placed: the sample's nodes hold most of its pods", placed, len(pods))
	}
	for d, ch := range use {
		// Departures before arrivals at the same time, as the timeline
		// handles them.
		sort.SliceStable(ch, func(i, j int) bool {
			if ch[i].at != ch[j].at {
				return ch[i].at < ch[j].at
			}
			return ch[i].milli < ch[j].milli
		})
		var sum int64
		for _, c := range ch {
			if sum += c.milli; sum > 1000 {
				t.Errorf("device %s holds %d milli-GPUs at %vs", d, sum, c.at)
				break
			}
		}
	}
}

// TestOpenbWithoutTimes: the multigpu lists carry no times; their pods are
// submitted in list order, a second apart, and run for ever.
func TestOpenbWithoutTimes(t *testing.T) {
	in, err := Prepare(emptySnapshot(), nil, []TraceFile{traceFile(t, "openb/openb_node_list_gpu_node.sample.csv"), traceFile(t, "openb/openb_pod_list_multigpu50.sample.csv")})
	if err != nil {
		t.Fatal(err)
	}
	pods := openbRows(t, "openb_pod_list_multigpu50.sample.csv")
	if len(in.Arrivals) != len(pods) {
		t.Fatalf("%d arrivals, want %d", len(in.Arrivals), len(pods))
	}
	for i, a := range in.Arrivals {
		if a.Pod.Name != pods[i]["name"] || a.At != time.Duration(i)*time.Second || !a.Endless {
			t.Errorf("arrival %d: %s at %s (endless %v), want %s at %ds, for ever", i, a.Pod.Name, a.At, a.Endless, pods[i]["name"], i)
		}
	}
	r := run(t, in, Options{End: time.Hour})
	if got := r.Summary.NeverPlaced + countBound(r); got != len(pods) {
		t.Errorf("%d pods placed or never placed, want all %d", got, len(pods))
	}
}

func countBound(r *Result) int {
	n := 0
	for _, p := range r.Pods {
		if p.Bound != nil {
			n++
		}
	}
	return n
}
