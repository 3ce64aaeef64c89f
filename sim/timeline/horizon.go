package timeline

import "time"

// A run's cost must follow its events (arrivals, completions, nodes), not
// the simulated time it spans: the time series and the fragmentation rate
// are sampled often enough to draw a day and seldom enough that a trace of
// months (the openb trace spans 149 days) does not spend its time and
// memory on samples. Both steps are taken from the horizon; an explicit
// setting wins.

// MaxDefaultSamples is the most samples the default resolution gives: a
// week at DefaultResolution (5 minutes).
const MaxDefaultSamples = 2016

// MaxDefaultFragmentation is the most fragmentation measurements the
// default pace gives: a week, hourly.
const MaxDefaultFragmentation = 168

// FragmentationAuto, as Options.FragmentationEvery, measures the
// fragmentation rate at DefaultFragmentationEvery's pace for the horizon.
const FragmentationAuto time.Duration = -1

// DefaultFragmentation is the fragmentation rate's default pace for
// horizons up to a week.
const DefaultFragmentation = time.Hour

// steps are the steps a default may take, the finest that fits first.
var steps = []time.Duration{
	5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}

// stepFor is the finest step, from least on, that cuts the horizon
// into at most most pieces; whole days beyond the list.
func stepFor(horizon, least time.Duration, most int64) time.Duration {
	for _, s := range steps {
		if s >= least && int64(horizon/s) <= most {
			return s
		}
	}
	day := 24 * time.Hour
	days := (horizon/day + time.Duration(most) - 1) / time.Duration(most)
	return max(days, 1) * day
}

// DefaultResolutionFor is the time series' step for a timeline of this
// horizon: 5 minutes up to a week, then the finest of 10m, 15m, 30m, 1h,
// 2h, 3h, 6h, 12h, 1d (or whole days) that keeps the series to
// MaxDefaultSamples samples.
func DefaultResolutionFor(horizon time.Duration) time.Duration {
	return stepFor(horizon, DefaultResolution, MaxDefaultSamples)
}

// DefaultFragmentationEvery is the fragmentation rate's pace for a
// timeline of this horizon and series step: hourly up to a week, then the
// finest step of the same list that keeps to MaxDefaultFragmentation
// measurements, never finer than the series.
func DefaultFragmentationEvery(horizon, resolution time.Duration) time.Duration {
	return stepFor(horizon, max(DefaultFragmentation, resolution), MaxDefaultFragmentation)
}

// Horizon is how long a timeline on this input is expected to run: end
// when it is set, else the latest arrival or planned completion (an
// arrival plus its run) plus the tail. Pods that wait or run for ever can
// make an open timeline longer; the estimate only picks default steps.
func (in *Input) Horizon(end, tail time.Duration) time.Duration {
	if end > 0 {
		return end
	}
	if tail <= 0 {
		tail = DefaultTail
	}
	var last time.Duration
	for _, a := range in.Initial {
		if !a.Endless {
			last = max(last, a.Duration)
		}
	}
	for _, a := range in.Arrivals {
		last = max(last, a.At)
		if !a.Endless {
			last = max(last, a.At+a.Duration)
		}
	}
	for _, r := range in.Requests {
		last = max(last, r.At)
	}
	return last + tail
}
