package sweep

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// runSweep is the sweep the execution tests run: 3 expanders (one fails)
// x 2 GPU node group sizes x 3 seeds = 18 runs.
const runSweep = header + `spec:
  command: simulate
  inputs: [cluster.yaml]
  seeds: {count: 3}
  axes:
  - {name: expander, flag: expander, values: [price, fail, random]}
  - {name: gpus, nodeGroup: {name: gpu}, values: [0, 2]}
  metrics:
  - {name: nodes, path: Nodes}
  - {name: scheduled, path: summary.scheduled}
  - {name: gated, path: summary.gated, default: 0}
`

// execute runs a plan (or one shard of it) into dir and returns the
// outcome.
func execute(t *testing.T, ctx context.Context, p *Plan, dir string, shard *Shard, exec *fakeExec, opts Options) *Outcome {
	t.Helper()
	in, err := p.LoadInputs(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckInputs(in, fakeCommands{}); err != nil {
		t.Fatal(err)
	}
	store, err := OpenStore(dir, p.Header(shard), StoreOptions{Write: testWrite})
	if err != nil {
		t.Fatalf("OpenStore: want no error, got %v", err)
	}
	opts.Exec, opts.Shard = exec.exec, shard
	if opts.Clock == nil {
		opts.Clock = fixedClock
	}
	out, err := Execute(ctx, p, in, store, opts)
	if err != nil {
		t.Fatalf("Execute: want no error, got %v", err)
	}
	if err := store.Close(out.Complete); err != nil {
		t.Fatal(err)
	}
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestExecute(t *testing.T) {
	p := mustPlan(t, writeSweep(t, runSweep))
	dir := t.TempDir()
	exec := &fakeExec{}
	// Rows are written as runs finish: when a run is reported, its row is
	// in both files.
	var seen []int
	var lines []int
	opts := Options{Workers: 2, Progress: func(pr Progress) {
		seen = append(seen, pr.Done)
		lines = append(lines, strings.Count(readFile(t, filepath.Join(dir, "results.jsonl")), "\n")-1)
	}}
	out := execute(t, context.Background(), p, dir, nil, exec, opts)
	if out.Total != 18 || out.Done != 18 || out.Failed != 6 || !out.Complete {
		t.Errorf("want 18 runs done, 6 failed, complete; got %+v", out.Progress)
	}
	if diff := cmp.Diff(seen, lines); diff != "" {
		t.Errorf("rows in results.jsonl when each run was reported (-done +rows):\n%s", diff)
	}
	csv := readFile(t, filepath.Join(dir, "results.csv"))
	wantCSV := `run,expander,gpus,seed,nodes,scheduled,gated,seconds,error
0,price,0,0,1,2,0,0,
1,price,0,1,1,2,0,0,
2,price,0,2,1,2,0,0,
3,price,2,0,3,2,0,0,
`
	if !strings.HasPrefix(csv, wantCSV) {
		t.Errorf("results.csv: want it to start with\n%s\ngot\n%s", wantCSV, csv)
	}
	if !strings.Contains(csv, "6,fail,0,0,,,,0,exit status 1: the run failed on purpose\n") {
		t.Errorf("results.csv: want the failed run 6 as a row with its error, got\n%s", csv)
	}
	jsonl := readFile(t, filepath.Join(dir, "results.jsonl"))
	if !strings.Contains(jsonl, `{"run":3,"axes":{"expander":"price","gpus":"2"},"seed":0,"metrics":{"nodes":3,"scheduled":2,"gated":0},"seconds":0}`+"\n") {
		t.Errorf("results.jsonl: want run 3 with the grown snapshot's 3 nodes, got\n%s", jsonl)
	}
}

// TestResume stops a sweep after a few rows and starts it again: only the
// missing runs run, and the files end as one uninterrupted sweep's.
func TestResume(t *testing.T) {
	p := mustPlan(t, writeSweep(t, runSweep))
	whole := t.TempDir()
	execute(t, context.Background(), p, whole, nil, &fakeExec{}, Options{Workers: 2})

	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	first := &fakeExec{}
	out := execute(t, ctx, p, dir, nil, first, Options{Workers: 1, Progress: func(pr Progress) {
		if pr.Done == 5 {
			cancel()
		}
	}})
	if out.Complete || out.Done < 5 || out.Done == 18 {
		t.Fatalf("want a stopped sweep with at least 5 rows, got %+v", out.Progress)
	}
	// A torn last line (a kill while writing) is dropped on resume.
	f, err := os.OpenFile(filepath.Join(dir, "results.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"run":17,"axes":{"expa`)
	f.Close()

	second := &fakeExec{}
	out2 := execute(t, context.Background(), p, dir, nil, second, Options{Workers: 2})
	if out2.Resumed != out.Done || second.count() != 18-out.Done || !out2.Complete {
		t.Errorf("resume: want %d rows kept and %d runs run, got %d kept and %d run (%+v)", out.Done, 18-out.Done, out2.Resumed, second.count(), out2.Progress)
	}
	for _, name := range []string{"results.jsonl", "results.csv"} {
		if diff := cmp.Diff(readFile(t, filepath.Join(whole, name)), readFile(t, filepath.Join(dir, name))); diff != "" {
			t.Errorf("%s after a resume (-uninterrupted +resumed):\n%s", name, diff)
		}
	}
	// Another start runs nothing.
	third := &fakeExec{}
	execute(t, context.Background(), p, dir, nil, third, Options{})
	if third.count() != 0 {
		t.Errorf("a finished sweep started again: want no run, got %d", third.count())
	}
	// --retry-failed runs the failed runs again.
	store, err := OpenStore(dir, p.Header(nil), StoreOptions{Write: testWrite, RetryFailed: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := 18 - store.Resumed(); got != 6 {
		t.Errorf("retry-failed: want the 6 failed runs to run again, got %d", got)
	}
	store.Close(false)
}

func TestStoreRefusesOtherResults(t *testing.T) {
	p := mustPlan(t, writeSweep(t, runSweep))
	other := mustPlan(t, writeSweep(t, strings.Replace(runSweep, "count: 3", "count: 2", 1)))
	dir := t.TempDir()
	execute(t, context.Background(), p, dir, nil, &fakeExec{}, Options{})
	before := readFile(t, filepath.Join(dir, "results.jsonl"))
	_, err := OpenStore(dir, other.Header(nil), StoreOptions{Write: testWrite})
	if err == nil || !strings.Contains(err.Error(), "holds the results of another sweep") {
		t.Errorf("want results of another sweep refused, got %v", err)
	}
	if readFile(t, filepath.Join(dir, "results.jsonl")) != before {
		t.Errorf("the other sweep's results were changed")
	}
	csvOnly := t.TempDir()
	os.WriteFile(filepath.Join(csvOnly, "results.csv"), []byte("a,b\n"), 0o644)
	if _, err := OpenStore(csvOnly, p.Header(nil), StoreOptions{Write: testWrite}); err == nil {
		t.Errorf("want a results.csv that no sweep wrote left alone, got no error")
	}
	s, err := OpenStore(dir, other.Header(nil), StoreOptions{Write: testWrite, Restart: true})
	if err != nil || s.Resumed() != 0 {
		t.Errorf("--restart: want the old rows discarded, got %v (%d kept)", err, s.Resumed())
	}
}

// TestShardsMergeToTheWhole runs every shard of a sweep into one
// directory and merges them: the same bytes as the sweep run in one piece.
func TestShardsMergeToTheWhole(t *testing.T) {
	p := mustPlan(t, writeSweep(t, runSweep))
	whole := t.TempDir()
	execute(t, context.Background(), p, whole, nil, &fakeExec{}, Options{Workers: 2})
	for _, n := range []int{1, 4, 18} {
		dir := t.TempDir()
		var streams []*Stream
		for i := 0; i < n; i++ {
			shard := &Shard{Index: i, Count: n}
			execute(t, context.Background(), p, dir, shard, &fakeExec{}, Options{Workers: 2})
			name := filepath.Join(dir, ShardBase(shard)+".jsonl")
			s, err := ReadStreams(name, strings.NewReader(readFile(t, name)), false)
			if err != nil {
				t.Fatal(err)
			}
			streams = append(streams, s...)
		}
		m, err := Merge(streams, false)
		if err != nil {
			t.Fatalf("%d shards: Merge: want no error, got %v", n, err)
		}
		var jsonl, csv bytes.Buffer
		WriteJSONLines(&jsonl, &m.Header, m.Rows)
		WriteCSV(&csv, &m.Header, m.Rows)
		if diff := cmp.Diff(readFile(t, filepath.Join(whole, "results.jsonl")), jsonl.String()); diff != "" {
			t.Errorf("%d shards merged, results.jsonl (-whole +merged):\n%s", n, diff)
		}
		if diff := cmp.Diff(readFile(t, filepath.Join(whole, "results.csv")), csv.String()); diff != "" {
			t.Errorf("%d shards merged, results.csv (-whole +merged):\n%s", n, diff)
		}
	}
}

func TestMergeErrors(t *testing.T) {
	p := mustPlan(t, writeSweep(t, runSweep))
	other := mustPlan(t, writeSweep(t, strings.Replace(runSweep, "count: 3", "count: 2", 1)))
	dir := t.TempDir()
	shard := func(plan *Plan, i, n int) *Stream {
		s := &Shard{Index: i, Count: n}
		d := filepath.Join(dir, plan.Fingerprint)
		execute(t, context.Background(), plan, d, s, &fakeExec{}, Options{})
		name := filepath.Join(d, ShardBase(s)+".jsonl")
		streams, err := ReadStreams(name, strings.NewReader(readFile(t, name)), false)
		if err != nil {
			t.Fatal(err)
		}
		return streams[0]
	}
	s0, s1, o1 := shard(p, 0, 2), shard(p, 1, 2), shard(other, 1, 2)
	moved := *s1
	moved.Header.Shard = &Shard{Index: 0, Count: 2}
	changed := *s0
	changed.Name = "changed"
	changed.Rows = append([]Row(nil), s0.Rows...)
	changed.Rows[0].Metrics = []float64{99, 99, 99}
	for _, tc := range []struct {
		name    string
		streams []*Stream
		want    string
	}{
		{"another sweep", []*Stream{s0, o1}, "merge the shards of one sweep"},
		{"a shard missing", []*Stream{s0}, "9 of 18 runs have no row; shards missing (of 2): 1"},
		{"rows outside their shard", []*Stream{s0, &moved}, "is not in shard 0/2"},
		{"a run that differs", []*Stream{s0, s1, &changed}, "run 0 differs between"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Merge(tc.streams, false)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("want an error containing %q, got %v", tc.want, err)
			}
		})
	}
	m, err := Merge([]*Stream{s0}, true)
	if err != nil || m.Missing != 9 || len(m.Rows) != 9 {
		t.Errorf("partial: want 9 rows and 9 missing, got %v (%v)", m, err)
	}
}

func TestReadStreamsFromLogs(t *testing.T) {
	p := mustPlan(t, writeSweep(t, runSweep))
	dir := t.TempDir()
	execute(t, context.Background(), p, dir, nil, &fakeExec{}, Options{})
	log := "warning: something the loader said\n" + readFile(t, filepath.Join(dir, "results.jsonl")) + "sweep test: 18 of 18 runs done\n"
	if _, err := ReadStreams("pod.log", strings.NewReader(log), false); err == nil {
		t.Errorf("want log lines refused in a results file, got no error")
	}
	streams, err := ReadStreams("pod.log", strings.NewReader(log), true)
	if err != nil || len(streams) != 1 || len(streams[0].Rows) != 18 || streams[0].Skipped != 1 {
		t.Errorf("from a log: want one stream of 18 rows with 1 line skipped after the header, got %v", err)
	}
}

// TestMemoryBudget: with a budget, the first run is measured alone and the
// runs at once are what the budget holds.
func TestMemoryBudget(t *testing.T) {
	p := mustPlan(t, writeSweep(t, runSweep))
	out := execute(t, context.Background(), p, t.TempDir(), nil, &fakeExec{}, Options{Workers: 8, MaxMemory: 64 << 30})
	if out.RunMemory <= 0 || out.BaseMemory <= 0 || out.Workers != 8 || !out.Complete {
		t.Errorf("a large budget: want both measured and 8 workers, got %+v", out)
	}
	in, _ := p.LoadInputs(nil)
	store, _ := OpenStore(t.TempDir(), p.Header(nil), StoreOptions{Write: testWrite})
	if _, err := Execute(context.Background(), p, in, store, Options{Exec: (&fakeExec{}).exec, MaxMemory: 1024}); err == nil || !strings.Contains(err.Error(), "the inputs alone take") {
		t.Errorf("a budget smaller than the inputs: want an error, got %v", err)
	}
	store.Close(false)
	m := &memoryBudget{limit: 1000, base: 200, run: 100}
	if got := m.workers(); got != 6 {
		t.Errorf("800 bytes free, 125 per run: want 6 workers, got %d", got)
	}
	m.run = 10000
	if got := m.workers(); got != 1 {
		t.Errorf("a run larger than the budget: want 1 worker, got %d", got)
	}
}
