package sweep

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Options configure the execution of a plan.
type Options struct {
	// Exec runs one run (required).
	Exec Exec
	// Workers is the number of runs at once (default GOMAXPROCS).
	Workers int
	// MaxMemory, when positive, bounds the heap in bytes: the first run
	// runs alone and is measured, and no more runs run at once than the
	// budget holds; the Go runtime's soft memory limit is set to it.
	MaxMemory int64
	// Shard, when set, runs only that shard's runs.
	Shard *Shard
	// NoTiming leaves run times out of the rows, so that two sweeps give
	// the same bytes.
	NoTiming bool
	// Clock reads the time for run times (default time.Now).
	Clock func() time.Time
	// Progress, when set, is called after every run (from one goroutine).
	Progress func(Progress)
}

// Progress is how far a sweep (or shard) is.
type Progress struct {
	// Total is the number of runs of the shard; Done those with a row
	// (Resumed of them from an earlier run); Failed those with an error.
	Total, Done, Resumed, Failed int
	Elapsed                      time.Duration
	// ETA is the time the remaining runs should take at the pace so far
	// (0 until a run finished).
	ETA time.Duration
	// Workers is the number of runs at once.
	Workers int
}

// Outcome sums up an execution.
type Outcome struct {
	Progress
	// BaseMemory is the heap with the inputs loaded; RunMemory what the
	// first run added at its peak (both 0 unless measured).
	BaseMemory, RunMemory int64
	// Complete reports whether every run of the shard has a row.
	Complete bool
}

// Execute runs the plan's runs (the shard's, when Options.Shard is set) that
// the store has no row for, in parallel, on the loaded inputs in, and adds
// a row per run as it finishes. A run that fails is a row with its error;
// the others go on. Execute returns early, with the rows so far kept, when
// ctx is cancelled; an error means the store could not be written.
func Execute(ctx context.Context, p *Plan, in *Inputs, store *Store, opts Options) (*Outcome, error) {
	if opts.Exec == nil {
		return nil, errors.New("sweep: no Exec")
	}
	clock := opts.Clock
	if clock == nil {
		clock = time.Now
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	indexes := p.Shard(0, 1)
	if opts.Shard != nil {
		indexes = p.Shard(opts.Shard.Index, opts.Shard.Count)
	}
	var todo []int
	for _, i := range indexes {
		if !store.Done(i) {
			todo = append(todo, i)
		}
	}
	out := &Outcome{Progress: Progress{Total: len(indexes), Done: len(indexes) - len(todo), Resumed: len(indexes) - len(todo)}}
	for _, r := range store.rows {
		if r.Failed() {
			out.Failed++
		}
	}
	snaps := newSnapshots(p, in, todo)
	start := clock()
	report := func() {
		out.Elapsed = clock().Sub(start)
		ran := out.Done - out.Resumed
		if ran > 0 {
			out.ETA = time.Duration(float64(out.Elapsed) / float64(ran) * float64(out.Total-out.Done))
		}
		if opts.Progress != nil {
			opts.Progress(out.Progress)
		}
	}
	exec := func(i int) Row { return runOne(ctx, p, p.Runs[i], snaps, opts.Exec, clock, opts.NoTiming) }

	if opts.MaxMemory > 0 && len(todo) > 0 {
		mem := newMemoryBudget(opts.MaxMemory)
		defer mem.restore()
		if mem.base > opts.MaxMemory {
			return nil, fmt.Errorf("the inputs alone take %s of heap, more than --max-memory %s", formatBytes(mem.base), formatBytes(opts.MaxMemory))
		}
		// The first run runs alone, so that its peak is its own.
		row := mem.measure(func() Row { return exec(todo[0]) })
		todo = todo[1:]
		if err := record(store, row, out); err != nil {
			return nil, err
		}
		out.BaseMemory, out.RunMemory = mem.base, mem.run
		workers = min(workers, mem.workers())
		out.Workers = workers
		report()
	}
	out.Workers = workers

	var werr error
	runParallel(ctx, min(workers, len(todo)), todo, exec, func(row Row) {
		if werr != nil {
			return // drain: the workers must not block
		}
		if werr = record(store, row, out); werr == nil {
			report()
		}
	})
	if werr != nil {
		return nil, fmt.Errorf("writing the results: %w", werr)
	}
	out.Elapsed = clock().Sub(start)
	out.Complete = out.Done == out.Total
	return out, nil
}

// runParallel runs exec on every index of todo with the given number of
// workers and hands each row to each, on the caller's goroutine, in the
// order they finish. When ctx is done no new run starts; the rows of the
// runs under way are still handed over.
func runParallel(ctx context.Context, workers int, todo []int, exec func(int) Row, each func(Row)) {
	jobs := make(chan int)
	rows := make(chan Row)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				rows <- exec(i)
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, i := range todo {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(rows)
	}()
	for row := range rows {
		each(row)
	}
}

func record(store *Store, row Row, out *Outcome) error {
	if err := store.Add(row); err != nil {
		return err
	}
	out.Done++
	if row.Failed() {
		out.Failed++
	}
	return nil
}

// runOne runs one run and reads its metrics.
func runOne(ctx context.Context, p *Plan, r Run, snaps *snapshots, exec Exec, clock func() time.Time, noTiming bool) (row Row) {
	row = Row{Run: r.Index, Point: r.Point, Seed: r.Seed, Metrics: make([]float64, len(p.Metrics)), Present: make([]bool, len(p.Metrics)), Seconds: -1}
	start := clock()
	defer func() {
		if !noTiming {
			row.Seconds = roundSeconds(clock().Sub(start).Seconds())
		}
	}()
	in, err := snaps.get(r)
	if err != nil {
		snaps.done(r)
		row.Error = err.Error()
		return row
	}
	stdout, err := exec(ctx, r, in)
	snaps.done(r)
	if err != nil {
		row.Error = strings.TrimSpace(err.Error())
		return row
	}
	doc := newDocument(stdout)
	var problems []string
	for i, m := range p.Metrics {
		v, err := m.value(doc)
		switch {
		case err == nil:
			row.Metrics[i], row.Present[i] = v, true
		case errors.Is(err, errMissing) && m.Default != nil:
			row.Metrics[i], row.Present[i] = *m.Default, true
		case errors.Is(err, errMissing):
			problems = append(problems, fmt.Sprintf("metric %s: %v (a default: keeps a field the output omits when zero)", m.Name, strings.TrimSuffix(err.Error(), ": "+errMissing.Error())))
		default:
			problems = append(problems, fmt.Sprintf("metric %s: %v", m.Name, err))
		}
	}
	row.Error = strings.Join(problems, "; ")
	return row
}

// value reads a metric from a run's output.
func (m PlanMetric) value(doc *document) (float64, error) {
	v, err := m.Path.eval(doc)
	if err != nil || m.Per == nil {
		return v, err
	}
	per, err := m.Per.eval(doc)
	if err != nil {
		return 0, fmt.Errorf("per %s: %w", m.Per, err)
	}
	if per == 0 {
		return 0, fmt.Errorf("per %s is 0: %w", m.Per, errMissing)
	}
	return v / per, nil
}
