package app

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progressBar draws replay progress on stderr, but only when stderr is a
// terminal and the run has lasted about a second: quick runs and pipes
// stay silent.
type progressBar struct {
	w       io.Writer
	start   time.Time
	last    time.Time
	mu      sync.Mutex
	drawn   bool
	enabled bool
	// drawnWidth is the longest line drawn, which Done blanks.
	drawnWidth int
}

func newProgressBar(w io.Writer) *progressBar {
	return &progressBar{w: w, start: time.Now(), enabled: isTerminal(w)}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Update is a sim.Options.Progress callback.
func (p *progressBar) Update(done, total int) { p.update(done, total, "pods", "") }

// update draws done of total units, with a note after the elapsed time.
func (p *progressBar) update(done, total int, unit, note string) {
	p.show(done, total, func(elapsed time.Duration) string {
		return fmt.Sprintf("%d/%d %s, %s%s", min(done, total), total, unit, elapsed.Round(time.Second), note)
	})
}

// show draws the bar at done of total with the text made for the
// elapsed time, at most every 100ms.
func (p *progressBar) show(done, total int, text func(elapsed time.Duration) string) {
	if !p.enabled || total == 0 {
		return
	}
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if now.Sub(p.start) < time.Second || (now.Sub(p.last) < 100*time.Millisecond && done < total) {
		return
	}
	p.last = now
	if done > total {
		done = total // retry passes revisit pods
	}
	p.draw(done, total, text(now.Sub(p.start)))
}

// draw draws the bar at done of total with the text after it; the
// caller holds mu.
func (p *progressBar) draw(done, total int, text string) {
	const width = 30
	filled := width * done / total
	line := fmt.Sprintf("[%s%s] %s", strings.Repeat("=", filled), strings.Repeat(" ", width-filled), text)
	// Pad over the end of a longer line drawn before.
	fmt.Fprintf(p.w, "\r%-*s", p.drawnWidth, line)
	p.drawnWidth = max(p.drawnWidth, len(line))
	p.drawn = true
}

// Done clears the bar.
func (p *progressBar) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.drawnWidth))
	}
}

// Logf writes a log line, first clearing the bar if it is drawn (the next
// update draws it again).
func (p *progressBar) Logf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.drawnWidth))
		p.drawn = false
	}
	fmt.Fprintf(p.w, format+"\n", args...)
}

// stageProgress is an analysis's progress callback (analysis.Options.Progress):
// the bar shows the stage under way; at verbosity 1 and up, a stage that
// runs for a second or more is logged at every tenth of its units when
// there is no bar, and once more when it ends. now is the clock.
func stageProgress(bar *progressBar, verbosity int, now func() time.Time) func(stage string, done, total int) {
	var mu sync.Mutex
	type stageLog struct {
		start  time.Time
		logged int // tenths logged
	}
	stages := map[string]*stageLog{}
	return func(stage string, done, total int) {
		bar.update(done, total, stage, "")
		if verbosity < 1 {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		st := stages[stage]
		if st == nil || done == 0 {
			st = &stageLog{start: now()}
			stages[stage] = st
		}
		took := now().Sub(st.start)
		switch {
		case total == 0 || took < time.Second:
		case done >= total:
			bar.Logf("analyzed %d %s in %s", total, stage, took.Round(time.Millisecond))
		case !bar.enabled && done*10/total > st.logged:
			st.logged = done * 10 / total
			bar.Logf("analyzing %s: %d/%d, %s", stage, done, total, took.Round(time.Second))
		}
	}
}
