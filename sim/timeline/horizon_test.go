package timeline

import (
	"testing"
	"time"
)

func TestDefaultSteps(t *testing.T) {
	day := 24 * time.Hour
	tests := []struct {
		horizon, resolution, fragmentation time.Duration
	}{
		// Up to a week: 5 minutes and hourly, the steps every golden uses.
		{4 * time.Hour, 5 * time.Minute, time.Hour},
		{7 * day, 5 * time.Minute, time.Hour},
		{7*day + time.Hour, 10 * time.Minute, 2 * time.Hour},
		{30 * day, 30 * time.Minute, 6 * time.Hour},
		// The openb trace: 149 days.
		{149*day + 8*time.Hour, 2 * time.Hour, day},
		{2 * 365 * day, 12 * time.Hour, 5 * day},
		{20 * 365 * day, 4 * day, 44 * day},
	}
	for _, tc := range tests {
		res := DefaultResolutionFor(tc.horizon)
		frag := DefaultFragmentationEvery(tc.horizon, res)
		if res != tc.resolution || frag != tc.fragmentation {
			t.Errorf("horizon %s: resolution %s, fragmentation every %s; want %s and %s", tc.horizon, res, frag, tc.resolution, tc.fragmentation)
		}
		if n := tc.horizon / res; n > MaxDefaultSamples {
			t.Errorf("horizon %s: %d samples, more than %d", tc.horizon, n, MaxDefaultSamples)
		}
		if n := tc.horizon / frag; n > MaxDefaultFragmentation {
			t.Errorf("horizon %s: %d fragmentation measurements, more than %d", tc.horizon, n, MaxDefaultFragmentation)
		}
	}
}

func TestHorizon(t *testing.T) {
	in := &Input{Arrivals: Arrivals{{At: time.Hour, Duration: 5 * time.Hour}, {At: 3 * time.Hour, Endless: true}}}
	if got, want := in.Horizon(0, 0), 6*time.Hour+DefaultTail; got != want {
		t.Errorf("open timeline: horizon %s, want the last planned completion plus the tail, %s", got, want)
	}
	if got, want := in.Horizon(2*time.Hour, 0), 2*time.Hour; got != want {
		t.Errorf("timeline with an end: horizon %s, want its end %s", got, want)
	}
}
