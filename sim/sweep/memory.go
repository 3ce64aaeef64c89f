package sweep

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// memoryBudget keeps a sweep's heap within a limit: it measures the heap
// the loaded inputs take and what one run adds at its peak, and sizes the
// number of runs at once from them. The runtime's soft memory limit makes
// the garbage collector work harder near the budget.
type memoryBudget struct {
	limit, prevLimit int64
	base, run        int64
}

// heapObjects is the memory held by heap objects, live and not yet swept:
// what a run costs until the collector returns it.
func heapObjects() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapAlloc)
	}
	return int64(s[0].Value.Uint64())
}

func newMemoryBudget(limit int64) *memoryBudget {
	runtime.GC()
	m := &memoryBudget{limit: limit, base: heapObjects()}
	m.prevLimit = debug.SetMemoryLimit(limit)
	return m
}

// restore puts the runtime's memory limit back.
func (m *memoryBudget) restore() { debug.SetMemoryLimit(m.prevLimit) }

// measure runs f alone and keeps its peak heap above the base.
func (m *memoryBudget) measure(f func() Row) Row {
	var row Row
	p := PeakHeap(func() { row = f() })
	m.run = max(p-m.base, 1<<20)
	return row
}

// workers is how many runs fit in the budget at once (at least one), with
// a quarter of a run to spare for each.
func (m *memoryBudget) workers() int {
	per := m.run + m.run/4
	return max(1, int((m.limit-m.base)/per))
}

// PeakHeap runs f and returns the most heap (objects, live and unswept) it
// saw while f ran, sampled every two milliseconds.
func PeakHeap(f func()) int64 {
	var mu sync.Mutex
	peak := heapObjects()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				v := heapObjects()
				mu.Lock()
				peak = max(peak, v)
				mu.Unlock()
			}
		}
	}()
	f()
	close(stop)
	<-done
	mu.Lock()
	defer mu.Unlock()
	return max(peak, heapObjects())
}

// formatBytes writes a size in MiB or GiB.
func formatBytes(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%d MiB", (n+(1<<20)-1)>>20)
}

// Measurement is what one run of a plan costs: its wall time, the heap the
// loaded inputs take, and what the run adds at its peak.
type Measurement struct {
	Seconds    float64
	BaseMemory int64
	RunMemory  int64
	// Error is the run's error, if it failed (the figures are then of
	// little use).
	Error string
}

// Measure runs the plan's first run alone on the loaded inputs and
// measures it, to size a Job's requests.
func Measure(ctx context.Context, p *Plan, in *Inputs, exec Exec) Measurement {
	runtime.GC()
	base := heapObjects()
	snaps := newSnapshots(p, in, []int{0})
	start := time.Now()
	var row Row
	peak := PeakHeap(func() { row = runOne(ctx, p, p.Runs[0], snaps, exec, time.Now, true) })
	return Measurement{Seconds: time.Since(start).Seconds(), BaseMemory: base, RunMemory: max(peak-base, 1<<20), Error: row.Error}
}
