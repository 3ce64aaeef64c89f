package app

import (
	"bytes"
	"testing"
	"time"
)

const time2s = 2 * time.Second

func TestProgressBarIsSilentOffTerminals(t *testing.T) {
	var buf bytes.Buffer
	p := newProgressBar(&buf)
	p.start = p.start.Add(-time2s)
	for i := 1; i <= 10; i++ {
		p.Update(i, 10)
	}
	p.Done()
	if buf.Len() != 0 {
		t.Errorf("progress written to a non-terminal: %q", buf.String())
	}
}

func TestProgressBarDrawsAfterASecond(t *testing.T) {
	var buf bytes.Buffer
	p := newProgressBar(&buf)
	p.enabled = true // as on a terminal
	p.Update(1, 10)
	if buf.Len() != 0 {
		t.Fatalf("drawn before a second had passed: %q", buf.String())
	}
	p.start = p.start.Add(-time2s)
	p.Update(10, 10)
	if !bytes.Contains(buf.Bytes(), []byte("10/10 pods")) {
		t.Errorf("want a bar showing 10/10 pods, got %q", buf.String())
	}
}

// An analysis stage that runs for seconds is logged at -v 1 (every tenth
// of its units when there is no bar, and when it ends); a quick one and
// -v 0 stay silent.
func TestStageProgressLogsLongStages(t *testing.T) {
	clock := time.Unix(0, 0)
	now := func() time.Time { return clock }
	var buf bytes.Buffer
	progress := stageProgress(newProgressBar(&buf), 1, now)
	progress("shapes", 0, 2)
	clock = clock.Add(1500 * time.Millisecond)
	progress("shapes", 1, 2)
	clock = clock.Add(time.Second)
	progress("shapes", 2, 2)
	want := "analyzing shapes: 1/2, 2s\nanalyzed 2 shapes in 2.5s\n"
	if buf.String() != want {
		t.Errorf("log of a 2-second stage: want %q, got %q", want, buf.String())
	}

	buf.Reset()
	quick := stageProgress(newProgressBar(&buf), 1, now)
	quick("DeviceClasses", 0, 1)
	quick("DeviceClasses", 1, 1)
	silent := stageProgress(newProgressBar(&buf), 0, now)
	silent("shapes", 0, 1)
	clock = clock.Add(5 * time.Second)
	silent("shapes", 1, 1)
	if buf.Len() != 0 {
		t.Errorf("want no log for a quick stage nor at -v 0, got %q", buf.String())
	}
}

// The bar draws the stage under way, once the analysis has lasted a second.
func TestStageProgressDrawsTheStage(t *testing.T) {
	var buf bytes.Buffer
	bar := newProgressBar(&buf)
	bar.enabled = true // as on a terminal
	bar.start = bar.start.Add(-time2s)
	progress := stageProgress(bar, 0, time.Now)
	progress("DeviceClasses", 3, 5)
	if !bytes.Contains(buf.Bytes(), []byte("3/5 DeviceClasses")) {
		t.Errorf("want a bar showing 3/5 DeviceClasses, got %q", buf.String())
	}
}
