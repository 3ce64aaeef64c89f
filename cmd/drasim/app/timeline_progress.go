package app

import (
	"fmt"
	"io"
	"time"

	"github.com/drasim/drasim/sim/timeline"
)

// timelineProgress shows how far a timeline is on standard error: a bar
// with the simulated time reached, the events handled, the pods pending
// and an estimate of the time left, drawn when standard error is a
// terminal (after about a second, as every bar); off a terminal, with -v
// 1, a line at every tenth of the expected span.
type timelineProgress struct {
	bar    *progressBar
	w      io.Writer
	log    bool
	name   string
	start  time.Time
	logged int
	now    func() time.Time
}

func newTimelineProgress(w io.Writer, verbosity int, name string) *timelineProgress {
	bar := newProgressBar(w)
	return &timelineProgress{bar: bar, w: w, log: !bar.enabled && verbosity >= 1, name: name, start: time.Now(), now: time.Now}
}

// update is a timeline.Options.Progress callback.
func (t *timelineProgress) update(p timeline.Progress) {
	if !t.bar.enabled && !t.log {
		return
	}
	end := max(p.End, p.Now)
	if t.bar.enabled {
		t.bar.show(int(p.Now/time.Second), int(end/time.Second), func(elapsed time.Duration) string { return t.line(p, end, elapsed) })
	}
	if t.log {
		elapsed := t.now().Sub(t.start)
		tenth := 0
		if end > 0 {
			tenth = int(10 * p.Now / end)
		}
		if tenth <= t.logged {
			return
		}
		t.logged = tenth
		fmt.Fprintln(t.w, t.line(p, end, elapsed))
	}
}

// line says how far the run is.
func (t *timelineProgress) line(p timeline.Progress, end, elapsed time.Duration) string {
	s := "timeline"
	if t.name != "" {
		s += " " + t.name
	}
	s += fmt.Sprintf(": %s of %s simulated, %d events, %d pending, %d running, %s", shortDuration(p.Now), shortDuration(end), p.Events, p.Pending, p.Running, roundElapsed(elapsed))
	if done := doneShare(p, end); done > 0 && done < 1 {
		eta := time.Duration(float64(elapsed) * (1 - done) / done)
		s += fmt.Sprintf(", ETA %s", roundElapsed(eta))
	}
	return s
}

// doneShare is the share of the run done, for the ETA: the simulated
// time's, or the arrivals' when fewer of them are in (a trace's work
// follows its arrivals more than its clock).
func doneShare(p timeline.Progress, end time.Duration) float64 {
	if end <= 0 {
		return 0
	}
	done := float64(p.Now) / float64(end)
	if p.Arrivals > 0 {
		done = min(done, float64(p.Arrived)/float64(p.Arrivals))
	}
	return done
}

// shortDuration writes a simulated time in days, hours and minutes
// ("149d2h", "3h20m", "45s").
func shortDuration(d time.Duration) string {
	d = d.Round(time.Second)
	days, rest := d/(24*time.Hour), d%(24*time.Hour)
	h, m, s := rest/time.Hour, rest%time.Hour/time.Minute, rest%time.Minute/time.Second
	switch {
	case days > 0:
		return fmt.Sprintf("%dd%dh", days, h)
	case h > 0:
		return fmt.Sprintf("%dh%dm", h, m)
	case m > 0:
		return fmt.Sprintf("%dm%ds", m, s)
	}
	return fmt.Sprintf("%ds", s)
}

// roundElapsed rounds a wall-clock time to what a person reads: tenths
// of a second below ten seconds, whole seconds above.
func roundElapsed(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// done clears the bar.
func (t *timelineProgress) done() { t.bar.Done() }
