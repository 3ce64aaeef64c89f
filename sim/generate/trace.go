package generate

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"
)

// Arrival traces for drasim timeline: pods of the generated workloads
// (their namespaces and claim templates, so that a trace fits a cluster
// from Generate) arriving over a horizon as a Poisson process whose rate
// follows a daily cycle, each running for a lognormal time.

// TraceOptions describe a trace.
type TraceOptions struct {
	// Seed drives every random draw; the same options give the same
	// trace.
	Seed int64
	// Arrivals is the number of pods.
	Arrivals int
	// Horizon is the time the arrivals spread over (default 24h).
	Horizon time.Duration
	// DailyCycle is the amplitude, 0 to 1, of the daily cycle of the
	// arrival rate: rate(t) = mean × (1 + DailyCycle × sin(2π (t − 8h) /
	// 24h)), busiest at 14:00, quietest at 02:00 (time 0 is midnight).
	DailyCycle float64
	// Workloads weighs the workloads (DefaultWorkloads when empty).
	Workloads map[string]int
}

// MaxArrivals keeps a typo from asking for a trace that does not fit in
// memory.
const MaxArrivals = 10_000_000

// runTime is a workload's lognormal run time: its median and the sigma of
// its logarithm, capped at max.
type runTime struct {
	median time.Duration
	sigma  float64
	max    time.Duration
}

// runTimes are the workloads' run times: inference replicas live tens of
// minutes, training jobs hours, notebooks half an hour, CPU jobs minutes.
var runTimes = map[string]runTime{
	WorkloadInference: {20 * time.Minute, 0.6, 4 * time.Hour},
	WorkloadTraining:  {2 * time.Hour, 0.5, 12 * time.Hour},
	WorkloadMIG:       {30 * time.Minute, 0.8, 6 * time.Hour},
	WorkloadCPU:       {10 * time.Minute, 0.7, 2 * time.Hour},
}

// TraceRow is one arrival of a trace.
type TraceRow struct {
	Arrival  time.Duration
	Workload string
	// Namespace, CPU, Memory and Template are the pod's; Template is ""
	// for CPU-only pods.
	Namespace, CPU, Memory, Template string
	Duration                         time.Duration
	Priority                         int32
}

func (o TraceOptions) withDefaults() TraceOptions {
	if o.Horizon == 0 {
		o.Horizon = 24 * time.Hour
	}
	if len(o.Workloads) == 0 {
		o.Workloads = DefaultWorkloads()
	}
	return o
}

// Validate reports the first problem with the options, after defaults.
func (o TraceOptions) Validate() error {
	o = o.withDefaults()
	switch {
	case o.Arrivals < 0 || o.Arrivals > MaxArrivals:
		return fmt.Errorf("arrivals: %d is out of range 0..%d", o.Arrivals, MaxArrivals)
	case o.Horizon < 0:
		return fmt.Errorf("horizon: %s must not be negative", o.Horizon)
	case o.DailyCycle < 0 || o.DailyCycle > 1:
		return fmt.Errorf("daily-cycle: %g is out of range 0..1", o.DailyCycle)
	}
	return checkWeights("workloads", o.Workloads, Workloads())
}

// GenerateTrace draws a trace. The arrival times are the order statistics
// of Arrivals draws from the rate's shape over the horizon: a Poisson
// process with that rate, conditioned on its number of arrivals. Workloads
// are apportioned exactly (as in Generate) and shuffled; each pod's shape
// and run time follow its workload.
func GenerateTrace(opts TraceOptions) ([]TraceRow, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	timeRNG := rand.New(rand.NewPCG(uint64(opts.Seed), 0x74696d65)) // "time"
	podRNG := rand.New(rand.NewPCG(uint64(opts.Seed), 0x706f6473))  // "pods"
	times := make([]time.Duration, opts.Arrivals)
	peak := 1 + opts.DailyCycle
	for i := range times {
		for {
			t := time.Duration(timeRNG.Float64() * float64(opts.Horizon))
			if timeRNG.Float64()*peak <= rate(t, opts.DailyCycle) {
				times[i] = t.Truncate(time.Second)
				break
			}
		}
	}
	slices.Sort(times)
	var workloads []string
	counts := apportion(opts.Arrivals, opts.Workloads)
	for _, w := range sortedKeys(counts) {
		for range counts[w] {
			workloads = append(workloads, w)
		}
	}
	podRNG.Shuffle(len(workloads), func(i, j int) { workloads[i], workloads[j] = workloads[j], workloads[i] })
	sh := newShared()
	rows := make([]TraceRow, len(times))
	for i, t := range times {
		w := workloads[i]
		pod := sh.makePod(w, "x", podRNG)
		row := TraceRow{Arrival: t, Workload: w, Namespace: pod.Namespace, Priority: tracePriority[w]}
		req := pod.Spec.Containers[0].Resources.Requests
		row.CPU, row.Memory = req.Cpu().String(), req.Memory().String()
		for _, pc := range pod.Spec.ResourceClaims {
			if pc.ResourceClaimTemplateName != nil {
				row.Template = *pc.ResourceClaimTemplateName
			}
		}
		rt := runTimes[w]
		d := time.Duration(float64(rt.median) * math.Exp(rt.sigma*podRNG.NormFloat64()))
		row.Duration = min(max(d, time.Second), rt.max).Truncate(time.Second)
		rows[i] = row
	}
	return rows, nil
}

// tracePriority: serving first, batch last.
var tracePriority = map[string]int32{WorkloadInference: 100, WorkloadTraining: 50, WorkloadMIG: 0, WorkloadCPU: -1}

// rate is the daily cycle's relative rate at t, between 1 − a and 1 + a.
func rate(t time.Duration, a float64) float64 {
	return 1 + a*math.Sin(2*math.Pi*(t-8*time.Hour).Hours()/24)
}

// WriteTraceCSV writes rows as drasim's CSV trace (docs/timeline.md).
func WriteTraceCSV(w io.Writer, rows []TraceRow, comment string) error {
	if comment != "" {
		if _, err := fmt.Fprintf(w, "# %s\n", comment); err != nil {
			return err
		}
	}
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"arrival", "workload", "namespace", "replicas", "cpu", "memory", "claim_template", "duration", "priority"}); err != nil {
		return err
	}
	for _, r := range rows {
		rec := []string{strconv.FormatInt(int64(r.Arrival/time.Second), 10), r.Workload, r.Namespace, "1", r.CPU, r.Memory, r.Template,
			strconv.FormatInt(int64(r.Duration/time.Second), 10), strconv.FormatInt(int64(r.Priority), 10)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
